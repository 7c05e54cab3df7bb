"""Figures of a :class:`~rankstats.models.Fit`: forest plot of the log-worths, with the
comparison intervals of the quasi-variances (:meth:`Fit.quasi_variances`) below each interval.

Every system is drawn: :func:`forest_plot` puts them all in one tall figure (its title says how
many), :func:`forest_pages` splits them into pages of ``per_page`` systems, each titled with the
systems it shows ("systems 61–105 of 105, page 2 of 2"). A matplotlib figure drawn here rather
than ``arviz.plot_forest``, whose API differs between ArviZ 0.2x and 1.x and which does not draw
the Wald intervals of ``mle`` / ``map`` fits.

Names longer than :data:`rankstats.plotting.names.NAME_WIDTH` characters are drawn as unique
abbreviations, the same on every page; the title then says so and
``rs.plotting.name_key(fit.order)`` is the key.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import stats

from rankstats._util.renamed import renamed_parameters
from rankstats.models._fit import Fit
from rankstats.plotting.comparison import comparison_label, comparison_note
from rankstats.plotting.fonts import fitted_fonts
from rankstats.plotting.names import labels, shortened_note

#: Inches per system in a forest plot, and the tallest figure :func:`forest_plot` draws (beyond
#: it the rows get thinner; :func:`forest_pages` keeps them readable).
ROW_HEIGHT = 0.24
MAX_HEIGHT = 200.0


@renamed_parameters(prob="ci_prob")
def forest_plot(fit: Fit, ci_prob: float = 0.95, max_systems: int | None = None) -> Figure:
    """Point estimate and interval of every system's log-worth, best at the top, in one figure.

    Intervals: equal-tailed posterior intervals (``nuts``) or Wald intervals (``mle`` / ``map``),
    as in :meth:`Fit.summary`. Every system is drawn (the figure grows with their number, up to
    :data:`MAX_HEIGHT` inches) and the title gives their number; use :func:`forest_pages` for
    readable pages of a long list.

    Parameters
    ----------
    fit : Fit
    ci_prob : float
        Interval probability.
    max_systems : int, optional
        Draw only the best ``max_systems``; the title then says "best k of n systems" (never
        a silent cut). Default: all.

    Returns
    -------
    matplotlib.figure.Figure
    """
    n = len(fit.order)
    shown = n if max_systems is None else max(1, min(int(max_systems), n))
    table = _intervals(fit, ci_prob)
    what = f"all {n} systems" if shown == n else f"best {shown} of {n} systems"
    return _figure(fit, ci_prob, table.iloc[:shown], what)


@renamed_parameters(prob="ci_prob")
def forest_pages(fit: Fit, ci_prob: float = 0.95, per_page: int = 60) -> list[Figure]:
    """The forest plot of every system, ``per_page`` systems per figure (best first).

    Returns
    -------
    list of matplotlib.figure.Figure
        ``ceil(N / per_page)`` figures; together they show every system once, each titled
        with its range ("systems 61–105 of 105, page 2 of 2"), all on the same x axis.
    """
    if per_page < 1:
        raise ValueError(f"per_page must be at least 1, got {per_page}")
    table = _intervals(fit, ci_prob)
    n = len(table)
    pages = max(1, math.ceil(n / per_page))
    # One x axis for every page, so that intervals on different pages compare by eye.
    lows = table[[c for c in ("low", "quasi_low") if c in table]].to_numpy()
    highs = table[[c for c in ("high", "quasi_high") if c in table]].to_numpy()
    low, high = float(np.nanmin(lows)), float(np.nanmax(highs))
    pad = 0.05 * (high - low if high > low else 1.0)
    xlim = (min(low, 0.0) - pad, max(high, 0.0) + pad)
    figures = []
    for page in range(pages):
        part = table.iloc[page * per_page : (page + 1) * per_page]
        start = page * per_page + 1
        what = (
            f"all {n} systems"
            if pages == 1
            else f"systems {start}–{start + len(part) - 1} of {n}, page {page + 1} of {pages}"
        )
        figures.append(_figure(fit, ci_prob, part, what, xlim))
    return figures


def _intervals(fit: Fit, ci_prob: float) -> pd.DataFrame:
    """``system, centre, low, high`` in the fit's order (best first), and the comparison
    intervals ``quasi_low`` / ``quasi_high`` (``centre ± z·quasi-se``) when the fit has
    quasi-variances (Plackett–Luce, Bradley–Terry; not for a covariance that leaves a difference
    without variance, e.g. two systems with the same covariates)."""
    summary = fit.summary(ci_prob)
    rows = [f"{fit.variable}[{s}]" for s in fit.order]
    centre = "mean" if fit.method == "nuts" else "estimate"
    table = pd.DataFrame(
        {
            "system": list(fit.order),
            "centre": summary.loc[rows, centre].to_numpy(dtype=np.float64),
            "low": summary.loc[rows, "low"].to_numpy(dtype=np.float64),
            "high": summary.loc[rows, "high"].to_numpy(dtype=np.float64),
        }
    )
    try:
        quasi = fit.quasi_variances()
    except ValueError:
        return table
    half = stats.norm.ppf(0.5 + ci_prob / 2) * quasi.quasi_se.loc[list(fit.order)].to_numpy()
    table["quasi_low"], table["quasi_high"] = table["centre"] - half, table["centre"] + half
    table.attrs["quasi_errors"] = quasi.worst_pair
    return table


def _figure(
    fit: Fit,
    ci_prob: float,
    table: pd.DataFrame,
    what: str,
    xlim: tuple[float, float] | None = None,
) -> Figure:
    n = len(table)
    height = min(MAX_HEIGHT, max(2.5, ROW_HEIGHT * n + 1.4))
    fig = Figure(figsize=(7.0, height))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    kind = "posterior equal-tailed" if fit.method == "nuts" else "Wald"
    ax.hlines(y, table["low"], table["high"], color="C0", linewidth=1.6, label=f"{kind} interval")
    if "quasi_low" in table:  # comparison intervals: no overlap ≈ a significant difference
        label = comparison_label(ci_prob)
        ax.hlines(y - 0.25, table["quasi_low"], table["quasi_high"], color="C3", label=label)
    ax.plot(table["centre"], y, "o", color="C0", markersize=4)
    # Names shown literally (never mathtext), as unique abbreviations of all the fit's systems.
    short = dict(zip(fit.order, labels(fit.order), strict=True))
    names = [short[s] for s in table["system"]]
    points_per_row = 72.0 * (height - 1.4) / max(n, 1)
    ax.set_yticks(y, names, fontsize=max(2.0, min(9.0, 0.7 * points_per_row)))
    ax.set_ylim(-0.7, n - 0.3)
    ax.axvline(0.0, color="0.7", linewidth=0.8, zorder=0)
    if xlim is not None:
        ax.set_xlim(*xlim)
    errors = comparison_note(table.attrs.get("quasi_errors"))
    ax.set_xlabel(
        f"log-worth (centred), {ci_prob:.0%} intervals" + (f"\n{errors}" if errors else "")
    )
    ax.legend(loc="best", fontsize="small", frameon=False)
    note = shortened_note(fit.order)
    title = f"{fit.model.upper()} fit ({fit.method}): {what}"
    ax.set_title(title + ("\n" + note if note else ""), fontsize=10)
    with fitted_fonts(fig):
        fig.tight_layout()
    return fig

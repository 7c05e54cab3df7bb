"""Figures of a :class:`~rankstats.models.Fit`: forest plot of the log-worths."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from rankstats.models._fit import Fit
from rankstats.plotting import label, quiet_missing_glyphs


def forest_plot(fit: Fit, prob: float = 0.95, max_systems: int = 60) -> Figure:
    """Point estimate and interval of every system's log-worth, best at the top.

    Intervals: equal-tailed posterior intervals (``nuts``) or Wald intervals (``mle`` / ``map``),
    as in :meth:`Fit.summary`.  At most ``max_systems`` (the best) are drawn.
    """
    summary = fit.summary(prob)
    rows = [f"{fit.variable}[{s}]" for s in fit.order][:max_systems]
    centre = summary.loc[rows, "mean" if fit.method == "nuts" else "estimate"].to_numpy()
    low = summary.loc[rows, "low"].to_numpy()
    high = summary.loc[rows, "high"].to_numpy()
    n = len(rows)
    fig = Figure(figsize=(7.0, max(2.5, 0.28 * n + 1.2)))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    ax.hlines(y, low, high, color="C0", linewidth=1.6)
    ax.plot(centre, y, "o", color="C0", markersize=4)
    # System names are shown literally (never mathtext), cut at 36 characters.
    labels = [label(s, 36) for s in fit.order[:max_systems]]
    ax.set_yticks(y, labels, fontsize=max(5, 9 - n // 25))
    ax.axvline(0.0, color="0.7", linewidth=0.8, zorder=0)
    kind = "posterior equal-tailed" if fit.method == "nuts" else "Wald"
    ax.set_xlabel(f"log-worth (centred), {prob:.0%} {kind} interval")
    ax.set_title(f"{fit.model.upper()} fit ({fit.method})", fontsize=10)
    with quiet_missing_glyphs():
        fig.tight_layout()
    return fig

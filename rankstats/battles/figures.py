"""Figures of a battle fit: the interval plot (one row per model, one bar per method) and the
win-probability heat map.  Names are drawn as text, never as mathtext; those longer than
:data:`rankstats.plotting.names.NAME_WIDTH` characters as unique abbreviations of all the fit's
models (:func:`rankstats.plotting.names.labels`, the same with or without ``top``): the title then
says so and ``rs.plotting.name_key(fit.models)`` is the key.

The functions take plain data (tables, names, numbers), not the fit: :class:`BattleFit
<rankstats.battles.fitting.BattleFit>` calls them from its ``plot`` methods, so the figures do not
import the fitting module."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats.plotting.comparison import comparison_label, comparison_note
from rankstats.plotting.names import labels, shortened_note

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_COLOURS = {"fisher": "C0", "bootstrap": "C1", "posterior": "C2", "quasi": "C3"}
_NAMES = {"fisher": "Fisher (Wald)", "bootstrap": "bootstrap percentile", "posterior": "posterior"}


def plot_intervals(
    table: pd.DataFrame,
    models: Sequence[str],
    methods: Sequence[str],
    confidence: float,
    scale: str = "elo",
    top: int | None = None,
    xlabel: str | None = None,
    quasi_errors: tuple[float, float] | None = None,
) -> Figure:
    """Ratings with their intervals, best at the top; one offset bar per interval method (also
    the covariate effects of a style-controlled fit, with their own ``xlabel``).

    Parameters
    ----------
    table : DataFrame
        ``BattleFit.table(scale)``: ``model``, ``rating`` and ``<method>_low`` / ``_high``,
        best first.
    models : sequence of str
        All the fit's models (the abbreviations are unique among them).
    methods : sequence of str
        Interval methods drawn (``"fisher"``, ``"bootstrap"``, ``"posterior"``, ``"quasi"``:
        comparison intervals from the quasi-standard errors, Firth & de Menezes 2004).
    confidence : float
        Level of the intervals, for the axis label.
    quasi_errors : (float, float), optional
        The worst relative errors of the pairs' standard errors from the quasi-variances, shown
        under the x axis when the comparison intervals are drawn.
    """
    import matplotlib.pyplot as plt

    short, note = _names(models)
    if top is not None:
        table = table.head(top)
    n = len(table)
    fig, ax = plt.subplots(figsize=(7.0, 1.2 + 0.28 * n))
    y = np.arange(n)[::-1].astype(float)
    offsets = np.linspace(-0.25, 0.25, len(methods)) if len(methods) > 1 else [0.0]
    for method, offset in zip(methods, offsets, strict=True):
        low, high = table[f"{method}_low"].to_numpy(), table[f"{method}_high"].to_numpy()
        label = _NAMES[method] if method != "quasi" else comparison_label(confidence)
        ax.hlines(y + offset, low, high, color=_COLOURS[method], lw=2, label=label)
    ax.plot(table["rating"], y, "k|", ms=9, label="MLE")
    if xlabel is not None:  # effects: where "no effect" is
        ax.axvline(0.0, color="0.5", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels([short[m] for m in table["model"]])
    ax.set_ylim(-0.8, n - 0.2)
    unit = "Elo scale (400·log10(e)·θ)" if scale == "elo" else "log-worth θ"
    errors = comparison_note(quasi_errors) if "quasi" in methods else ""
    label = xlabel or f"rating, {unit}; {confidence:.0%} intervals"
    ax.set_xlabel(label + (f"\n{errors}" if errors else ""))
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small", frameon=False)
    if note:
        ax.set_title(note, fontsize="small")
    fig.tight_layout()
    return fig


def plot_win_probability(
    probability: pd.DataFrame, order: Sequence[str], top: int | None = 30
) -> Figure:
    """Heat map of the predicted probability that the row model beats the column model
    (ties half, both orders averaged), models sorted by rating.

    Parameters
    ----------
    probability : DataFrame
        ``BattleFit.win_probability()``: models × models, indexed by name (all the fit's models).
    order : sequence of str
        Models best first (by rating).
    """
    import matplotlib.pyplot as plt

    order = list(order)
    short, note = _names(list(probability.index))
    if top is not None:
        order = order[:top]
    matrix = probability.loc[order, order].to_numpy()
    n = len(order)
    size = min(3.0 + 0.35 * n, 16.0)
    fig, ax = plt.subplots(figsize=(size, size * 0.85))
    image = ax.imshow(matrix, cmap="RdBu_r", vmin=0.0, vmax=1.0, interpolation="nearest")
    ticks = [short[m] for m in order]
    ax.set_xticks(range(n))
    ax.set_xticklabels(ticks, rotation=90, fontsize="small")
    ax.set_yticks(range(n))
    ax.set_yticklabels(ticks, fontsize="small")
    if n <= 15:
        for i in range(n):
            for j in range(n):
                if i != j:
                    ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(image, ax=ax, label="P(row beats column)", shrink=0.8)
    title = "predicted win probability (ties count ½, both orders averaged)"
    ax.set_title(title + ("\n" + note if note else ""))
    fig.tight_layout()
    return fig


def _names(models: Sequence[str]) -> tuple[dict[str, str], str]:
    """``{model: drawn label}`` over all the fit's models, and the shortened-names note."""
    models = list(models)
    return dict(zip(models, labels(models), strict=True)), shortened_note(models)

"""The figures a battle report adds to those of the fit: which rating differences are significant
(a heat map of the one :meth:`~rankstats.BattleFit.differences` result) and how the ranks move
under style control (a slope chart of the adjusted against the unadjusted ranks).

Both take plain tables (the report's, :mod:`rankstats.reporting.battle_data`) and draw names with
:func:`rankstats.plotting.names.labels` (literal text, unique abbreviations, never mathtext).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats.plotting.matrices import distance_image, distance_legend, heatmap_layout
from rankstats.plotting.names import labels, shortened_note

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure

#: Models up to which the heat map writes each significant difference in its cell.
ANNOTATED = 20


def difference_matrix(differences: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """``order × order``: the rating difference row − column in Elo points where the Wald test
    of the pair is significant (after Holm), 0 where it is not, NaN on the diagonal — every cell
    read off one ``differences`` table (:meth:`rankstats.BattleFit.differences`)."""
    order = list(order)
    position = {m: k for k, m in enumerate(order)}
    n = len(order)
    values = np.zeros((n, n))
    a = differences["model_a"].map(position).to_numpy(dtype=np.int64)
    b = differences["model_b"].map(position).to_numpy(dtype=np.int64)
    shown = np.where(differences["significant"].to_numpy(bool), differences["difference"], 0.0)
    values[a, b] = shown
    values[b, a] = -shown
    np.fill_diagonal(values, np.nan)
    return pd.DataFrame(values, index=order, columns=order)


def differences_heatmap(
    differences: pd.DataFrame, order: Sequence[str], alpha: float, models: Sequence[str]
) -> Figure:
    """Heat map of :func:`difference_matrix`: red where the row model is rated significantly
    above the column model (the difference in Elo points written in the cell up to
    :data:`ANNOTATED` models), blue the reverse, grey not significant.

    Parameters
    ----------
    differences : DataFrame
        :meth:`rankstats.BattleFit.differences`.
    order : sequence of str
        The models best first.
    alpha : float
        The level of the tests (for the title).
    models : sequence of str
        All the fit's models (the abbreviations are those of the fit's other figures).
    """
    from matplotlib.figure import Figure

    matrix = difference_matrix(differences, order)
    values = matrix.to_numpy()
    n = len(order)
    font, cell = heatmap_layout(n)
    short = dict(zip(list(models), labels(models), strict=True))
    names = [short[m] for m in order]
    margin = max(0.0, max((len(t) for t in names), default=0) * 0.62 * font / 72.0 - 1.2)
    side = max(4.0, n * cell + 2.5)
    fig = Figure(figsize=(side + margin + 1.2, side + margin + 1.0))
    ax = fig.add_subplot()
    image, flat = distance_image(ax, values)
    ax.set_xticks(range(n), names, rotation=90, fontsize=font)
    ax.set_yticks(range(n), names, fontsize=font)
    ax.set_xlabel("model b")
    ax.set_ylabel("model a")
    if n <= ANNOTATED:
        for i, j in zip(*np.nonzero(np.isfinite(values) & (values != 0)), strict=True):
            ax.text(j, i, f"{values[i, j]:+.0f}", ha="center", va="center", fontsize=6)
    title = (
        "rating differences a − b (Elo points) that are significant: Wald tests, "
        f"Holm-adjusted, α = {alpha:g}"
    )
    note = shortened_note(models)
    ax.set_title(title + ("\n" + note if note else ""), fontsize=9)
    if (values[np.isfinite(values)] != 0).any():
        fig.colorbar(image, ax=ax, shrink=0.8).set_label("difference, Elo points")
    legend = distance_legend(fig, image, values, flat, above="row rated significantly above column")
    fig.tight_layout(rect=(0, legend / fig.get_figheight(), 1, 1))
    return fig


def rank_change_figure(adjustment: pd.DataFrame, models: Sequence[str]) -> Figure:
    """Slope chart: each model's rank without (left) and with (right) the battle covariates;
    a model that moves up is drawn in green, down in red, unchanged in grey.

    Parameters
    ----------
    adjustment : DataFrame
        ``model``, ``rank``, ``rank_unadjusted`` (:attr:`BattleReportData.adjustment`).
    models : sequence of str
        All the fit's models (for the abbreviations).
    """
    from matplotlib.figure import Figure

    short = dict(zip(list(models), labels(models), strict=True))
    n = len(adjustment)
    fig = Figure(figsize=(6.5, 1.2 + 0.32 * n))
    ax = fig.add_subplot()
    for model, before, after in zip(
        adjustment["model"], adjustment["rank_unadjusted"], adjustment["rank"], strict=True
    ):
        colour = "tab:green" if after < before else ("tab:red" if after > before else "0.55")
        ax.plot([0, 1], [before, after], color=colour, lw=1.6, marker="o", ms=4)
        ax.text(-0.04, before, f"{short[model]}  {before:g}", ha="right", va="center", fontsize=7)
        ax.text(1.04, after, f"{after:g}  {short[model]}", ha="left", va="center", fontsize=7)
    ax.set_xlim(-0.9, 1.9)
    ax.set_ylim(n + 0.6, 0.4)
    ax.set_xticks([0, 1], ["unadjusted rank", "rank at equal style"])
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    note = shortened_note(models)
    ax.set_title(
        "ranks without and with the battle covariates (green: up, red: down)"
        + ("\n" + note if note else ""),
        fontsize=9,
    )
    fig.tight_layout()
    return fig

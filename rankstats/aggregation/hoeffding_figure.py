"""The significance heatmap of the Hoeffding intervals (Himmi et al., 2023, Fig. 6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult, significance_matrix
from rankstats.plotting.fonts import fitted_fonts
from rankstats.plotting.matrices import (
    NOT_SIGNIFICANT_NAME,
    annotate_distances,
    distance_image,
    distance_legend,
    heatmap_layout,
)
from rankstats.plotting.names import SHORTENED_NOTE, labels, name_key


def significance_heatmap(
    ci: HoeffdingResult | pd.DataFrame,
    title: str | None = None,
    annotate: bool | None = None,
    figsize: tuple[float, float] | None = None,
    systems: Sequence[object] | None = None,
) -> Figure:
    """Heatmap of the signed distance of every Hoeffding interval from ½.

    Rows and columns follow the order of the :func:`~rankstats.hoeffding` table (pass
    ``order=result.order`` there to get the ranked order).  Cell ``(a, b)`` is red when ``a`` is
    significantly above ``b`` (``low − ½``), blue when significantly below (``high − ½``), grey
    (:data:`NOT_SIGNIFICANT`) when the interval contains ½ — the colouring of Himmi et al.
    (2023, Fig. 6); the diagonal is white.  With Holm's correction a pair can be significant
    although its interval (drawn at the Bonferroni level δ/m) contains ½: such cells stay grey
    and get a circle, so the figure never shows a significant pair as a non-significant one.
    A legend under the matrix names exactly the colours and marks drawn.  Names longer than
    :data:`NAME_WIDTH` characters are drawn as unique abbreviations (:func:`labels`); the title
    then says so, and :func:`name_key` is the key.

    Parameters
    ----------
    ci : HoeffdingResult or pandas.DataFrame
        Output of :func:`rankstats.hoeffding_test` or :func:`rankstats.hoeffding`.
    title : str, optional
        Figure title (default: the δ, correction and estimand used).
    annotate : bool, optional
        Write the distances in the cells (default: when there are at most 20 systems).
    figsize : (float, float), optional
        By default the figure grows with the number of systems (:func:`heatmap_layout`): the
        names keep at least :data:`MIN_NAME_FONT` points and never overlap.
    systems : sequence, optional
        Draw only these systems, in this order (e.g. the best ``N`` of a ranking: ``--top N``);
        the intervals and their multiplicity correction stay those computed on all systems, and
        the title says how many are shown.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    matrix = significance_matrix(ci, "distance")
    total = len(matrix)
    if systems is not None:
        matrix = matrix.loc[list(systems), list(systems)]
    n = len(matrix)
    if annotate is None:
        annotate = n <= 20
    font, cell = heatmap_layout(n)
    names = labels(matrix.index)
    shortened = not name_key(matrix.index).empty
    # Names longer than the room kept for them (about 1.2 inches) widen and heighten the figure.
    margin = max(0.0, max((len(t) for t in names), default=0) * 0.62 * font / 72.0 - 1.2)
    side = max(4.0, n * cell + 2.5)
    fig = Figure(figsize=figsize or (side + margin + 1.2, side + margin + 0.6))
    ax = fig.add_subplot()
    values = matrix.to_numpy(dtype=np.float64)
    image, flat = distance_image(ax, values)
    ax.set_xticks(range(n), names, rotation=90, fontsize=font)
    ax.set_yticks(range(n), names, fontsize=font)
    ax.set_xlabel("system b")
    ax.set_ylabel("system a")
    if annotate:
        annotate_distances(ax, values)
    # Significant by the (Holm) test, but the interval drawn contains ½: distance 0, grey.
    significant = significance_matrix(ci, "significant").loc[matrix.index, matrix.columns]
    significant = significant.to_numpy(dtype=float, na_value=0.0)
    circled = (significant > 0) & (values == 0)
    rows, cols = np.nonzero(circled)
    if len(rows):
        ax.scatter(cols, rows, marker="o", s=40, facecolors="none", edgecolors="0.3", lw=0.8)
    if title is None:
        # A result's parameters are its fields; a table carries the same ones in its attrs.
        params = ci.parameters if isinstance(ci, HoeffdingResult) else ci.attrs
        title = (
            f"Hoeffding intervals for P(a above b): δ = {params.get('delta')}, "
            f"{params.get('correction')} correction, {params.get('estimand')} estimand"
        )
    if n < total:
        title += f"\nthe best {n} of {total} systems; intervals and correction over all {total}"
    if shortened:
        title += "\n" + SHORTENED_NOTE
    ax.set_title(title, fontsize=9)
    if significant.any():
        cbar = fig.colorbar(image, ax=ax, shrink=0.8)
        cbar.set_label("signed distance of the interval from ½ (significant pairs)")
    else:
        # No colour to explain: say what the blank figure means instead of a ±1e-6 colour bar.
        ax.text(
            0.5,
            0.5,
            "no pair is significant at this level\n(few rankings compare each pair:\nrank per "
            "instance when the data has instances)",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=9,
            bbox={"facecolor": "white", "edgecolor": "0.6"},
        )
    legend_height = distance_legend(
        fig,
        image,
        values,
        flat,
        above="a significantly above b",
        circled=(
            f"circled {NOT_SIGNIFICANT_NAME}: significant by Holm, the interval drawn "
            "(Bonferroni level) contains ½"
            if len(rows)
            else None
        ),
    )
    with fitted_fonts(fig):
        fig.tight_layout(rect=(0.0, legend_height / fig.get_figheight(), 1.0, 1.0))
    return fig

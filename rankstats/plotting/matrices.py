"""Pair matrices drawn as images: the diverging distance-from-½ colouring, its legend and cell text.

The figure functions take plain arrays; the estimators that own a matrix (Hoeffding intervals,
model comparisons) call them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from rankstats.plotting.names import MIN_NAME_FONT

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure


def heatmap_layout(n: int) -> tuple[float, float]:
    """``(font size in points, cell side in inches)`` of an ``n × n`` heat map of names.

    The font shrinks from 9 pt with ``n`` but never below :data:`MIN_NAME_FONT`; the cells are at
    least 1.35 font sizes apart, so the names of neighbouring rows or columns never overlap and
    the figure grows with ``n`` instead (0.38 inch cells up to 20 systems, 14 inches of matrix
    near 120, about 34 inches at 300).
    """
    font = max(MIN_NAME_FONT, 9.0 - n // 20)
    cell = max(1.35 * font / 72.0, min(0.38, 14.0 / max(n, 1)))
    return font, cell


#: The colour of a pair that is not significant in the heatmaps (the legends name it).
NOT_SIGNIFICANT = "0.85"


NOT_SIGNIFICANT_NAME = "grey"


def distance_image(ax, values: np.ndarray):
    """Draw a matrix of signed distances from ½: red / blue (``RdBu_r`` without its near-white
    middle, centred at 0) where the distance is not 0, one flat grey (:data:`NOT_SIGNIFICANT`)
    where it is 0 (the interval contains ½), nothing (the white axes) where it is NaN (the
    diagonal).

    Returns
    -------
    (AxesImage, numpy.ndarray)
        The coloured image (for a colour bar) and the boolean mask of the grey cells.
    """
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap, TwoSlopeNorm

    finite = np.isfinite(values)
    limit = max(float(np.nanmax(np.abs(values))) if finite.any() else 0.0, 1e-6)
    flat = finite & (values == 0)
    ax.imshow(
        np.ma.masked_where(~flat, np.zeros_like(values)),
        cmap=ListedColormap([NOT_SIGNIFICANT]),
        interpolation="nearest",
    )
    # RdBu_r without its near-white middle: a barely significant pair is pale red or blue,
    # never mistaken for the grey of a non-significant one or the white diagonal.
    base = colormaps["RdBu_r"]
    cmap = ListedColormap(
        np.vstack([base(np.linspace(0.0, 0.38, 128)), base(np.linspace(0.62, 1.0, 128))]),
        name="RdBu_r_significant",
    )
    image = ax.imshow(
        np.ma.masked_where(~finite | flat, values),
        cmap=cmap,
        norm=TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit),
        interpolation="nearest",
    )
    return image, flat


def distance_legend(
    fig: Figure,
    image,
    values: np.ndarray,
    flat: np.ndarray,
    above: str = "row significantly above column",
    circled: str | None = None,
) -> float:
    """A legend under the figure naming exactly the colours and marks drawn by
    :func:`distance_image` (red / blue only when such cells exist); returns its height in
    inches (leave it free in ``tight_layout``)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    limit = image.norm.vmax
    red, blue = image.cmap(image.norm([limit, -limit]))
    handles = []
    if (values > 0).any():
        handles.append(Patch(color=red, label=f"red: {above}"))
    if (values < 0).any():
        handles.append(Patch(color=blue, label="blue: the reverse"))
    if flat.any():
        handles.append(
            Patch(color=NOT_SIGNIFICANT, label=f"{NOT_SIGNIFICANT_NAME}: not significant")
        )
    if circled:
        marker = {"marker": "o", "ls": "", "mfc": "none", "mec": "0.3"}
        handles.append(Line2D([], [], label=circled, **marker))
    if np.isnan(values).any():
        handles.append(Patch(facecolor="white", edgecolor="0.6", label="white: diagonal"))
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=2,
        fontsize=7,
        frameon=False,
        bbox_to_anchor=(0.5, 0.0),
    )
    return 0.22 * ((len(handles) + 1) // 2) + 0.1


def annotate_distances(ax, values: np.ndarray) -> None:
    """Write every non-zero distance in its cell, one number format for all of them (enough
    decimals for the smallest)."""
    nonzero = np.abs(values[np.isfinite(values) & (values != 0)])
    digits = min(4, max(2, -math.floor(math.log10(nonzero.min())))) if len(nonzero) else 2
    n_rows, n_cols = values.shape
    for i in range(n_rows):
        for j in range(n_cols):
            if np.isfinite(values[i, j]) and values[i, j] != 0:
                text = f"{values[i, j]:+.{digits}f}"
                ax.text(j, i, text, ha="center", va="center", fontsize=6)

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

#: Above this many systems :func:`significance_heatmap` draws blocks of consecutive systems
#: (``block_size=1``: the full matrix at any size).  At 120 systems the full matrix needs
#: 6-point names on a 20-inch figure.
HEATMAP_FULL_MAX = 60

#: Blocks per side of a heat map drawn by blocks (the block size is ``ceil(n / this)``).
HEATMAP_BLOCKS = 40


def _block_size(n: int, block_size: int | None) -> int:
    """Systems per block: 1 (the full matrix) up to :data:`HEATMAP_FULL_MAX` systems, else
    ``ceil(n / HEATMAP_BLOCKS)``; ``block_size`` chooses (at least 1)."""
    if block_size is None:
        return 1 if n <= HEATMAP_FULL_MAX else -(-n // HEATMAP_BLOCKS)
    if isinstance(block_size, bool) or not isinstance(block_size, int | np.integer):
        raise ValueError(f"block_size must be a positive integer, not {block_size!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be a positive integer, not {block_size!r}")
    return int(block_size)


def block_balance(significant: np.ndarray, size: int) -> np.ndarray:
    r"""Net share of significant pairs between blocks of ``size`` consecutive systems.

    For blocks :math:`A, B` of the rows / columns of the boolean matrix ``significant``
    (``S[a, b]``: a significantly above b),

    .. math::  v_{AB} = \frac{1}{|\{(a, b) \in A \times B : a \ne b\}|}
               \sum_{a \in A, b \in B, a \ne b} \bigl(S_{ab} - S_{ba}\bigr) \in [-1, 1],

    +1 when every system of A is significantly above every system of B, −1 for the reverse, 0
    when no pair differs (or as many each way); NaN for a block of one system against itself.
    Sums by :func:`numpy.add.reduceat` over both axes: no loop over pairs.
    """
    s = np.asarray(significant, dtype=np.float64)
    net = s - s.T
    np.fill_diagonal(net, 0.0)
    pairs = np.ones_like(net)
    np.fill_diagonal(pairs, 0.0)
    starts = np.arange(0, len(net), size)
    total = np.add.reduceat(np.add.reduceat(net, starts, axis=0), starts, axis=1)
    count = np.add.reduceat(np.add.reduceat(pairs, starts, axis=0), starts, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _title(ci: HoeffdingResult | pd.DataFrame, title: str | None) -> str:
    if title is not None:
        return title
    # A result's parameters are its fields; a table carries the same ones in its attrs.
    params = ci.parameters if isinstance(ci, HoeffdingResult) else ci.attrs
    return (
        f"Hoeffding intervals for P(a above b): δ = {params.get('delta')}, "
        f"{params.get('correction')} correction, {params.get('estimand')} estimand"
    )


def _blank_note(ax) -> None:
    """No colour to explain: say what the blank figure means instead of a ±1e-6 colour bar."""
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


def _block_figure(matrix: pd.DataFrame, significant: np.ndarray, size: int, title: str) -> Figure:
    """The heat map of :func:`block_balance`: blocks labelled by their positions in the
    order drawn (``1–8``, ``9–16``, ...)."""
    from matplotlib.figure import Figure

    values = block_balance(significant, size)
    n, nb = len(matrix), len(values)
    names = [f"{s + 1}–{min(s + size, n)}" for s in range(0, n, size)]
    font, cell = heatmap_layout(nb)
    side = max(4.0, nb * cell + 2.5)
    fig = Figure(figsize=(side + 1.2, side + 0.6))
    ax = fig.add_subplot()
    image = ax.imshow(values, cmap="RdBu_r", vmin=-1.0, vmax=1.0, interpolation="nearest")
    ax.set_xticks(range(nb), names, rotation=90, fontsize=font)
    ax.set_yticks(range(nb), names, fontsize=font)
    ax.set_xlabel("systems b (positions in the order drawn)")
    ax.set_ylabel("systems a")
    ax.set_title(
        f"{title}\n{n} systems in blocks of {size}: net share of the pairs a above b "
        "(significant) minus b above a; block_size=1 draws every pair",
        fontsize=9,
    )
    cbar = fig.colorbar(image, ax=ax, shrink=0.8)
    cbar.set_label("net share of significant pairs (+1: every a above every b)")
    if not significant.any():
        _blank_note(ax)
    with fitted_fonts(fig):
        fig.tight_layout()
    return fig


def significance_heatmap(
    ci: HoeffdingResult | pd.DataFrame,
    title: str | None = None,
    annotate: bool | None = None,
    figsize: tuple[float, float] | None = None,
    systems: Sequence[object] | None = None,
    block_size: int | None = None,
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

    Above :data:`HEATMAP_FULL_MAX` (60) systems the matrix is drawn by blocks of consecutive
    systems (:func:`block_balance`: the net share of significant pairs between two blocks),
    :data:`HEATMAP_BLOCKS` (40) blocks a side, so that its labels stay legible; the pairs are
    all in the ``pairs.csv`` table, and ``block_size=1`` draws the full matrix at any size.

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
    block_size : int, optional
        Systems per block (default: 1 up to 60 systems, ``ceil(n / 40)`` beyond); 1 draws every
        pair.

    Returns
    -------
    matplotlib.figure.Figure
    """
    matrix = significance_matrix(ci, "distance")
    total = len(matrix)
    if systems is not None:
        matrix = matrix.loc[list(systems), list(systems)]
    n = len(matrix)
    significant = significance_matrix(ci, "significant").loc[matrix.index, matrix.columns]
    significant = significant.to_numpy(dtype=float, na_value=0.0)
    title = _title(ci, title)
    if n < total:
        title += f"\nthe best {n} of {total} systems; intervals and correction over all {total}"
    size = _block_size(n, block_size)
    if size > 1:
        return _block_figure(matrix, significant > 0, size, title)
    return _full_figure(matrix, significant, title, annotate, figsize)


def _full_figure(
    matrix: pd.DataFrame,
    significant: np.ndarray,
    title: str,
    annotate: bool | None,
    figsize: tuple[float, float] | None,
) -> Figure:
    """The matrix of every pair (:func:`significance_heatmap` with ``block_size=1``)."""
    from matplotlib.figure import Figure

    n = len(matrix)
    if annotate is None:
        annotate = n <= 20
    font, cell = heatmap_layout(n)
    names = labels(matrix.index)
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
    rows, cols = np.nonzero((significant > 0) & (values == 0))
    if len(rows):
        ax.scatter(cols, rows, marker="o", s=40, facecolors="none", edgecolors="0.3", lw=0.8)
    if not name_key(matrix.index).empty:
        title += "\n" + SHORTENED_NOTE
    ax.set_title(title, fontsize=9)
    if significant.any():
        cbar = fig.colorbar(image, ax=ax, shrink=0.8)
        cbar.set_label("signed distance of the interval from ½ (significant pairs)")
    else:
        _blank_note(ax)
    circled = (
        f"circled {NOT_SIGNIFICANT_NAME}: significant by Holm, the interval drawn "
        "(Bonferroni level) contains ½"
    )
    legend_height = distance_legend(
        fig, image, values, flat, above="a significantly above b",
        circled=circled if len(rows) else None,
    )  # fmt: skip
    with fitted_fonts(fig):
        fig.tight_layout(rect=(0.0, legend_height / fig.get_figheight(), 1.0, 1.0))
    return fig

"""Matplotlib figures: pairwise significance heatmaps (and more, added by later modules).

Figures are built on an explicit ``Figure`` (no pyplot state), so they are safe in scripts,
notebooks and worker processes alike. Every system or task name reaches a figure through
:func:`label`: shortened, ``$`` escaped (a name is never parsed as mathtext) and control /
bidirectional characters shown as escapes.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure

from rankstats._text import mpl_text, shorten
from rankstats.confidence import HoeffdingResult, significance_matrix


@contextmanager
def quiet_missing_glyphs():
    # System names may hold characters (e.g. CJK) that the default font lacks: matplotlib draws
    # a box and warns once per glyph, which would bury real warnings.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        yield


def label(name: object, width: int = 28) -> str:
    """A system or task name as matplotlib text: shortened to ``width``, shown literally.

    >>> label("$x^2$"), label("a" * 30, width=5)
    ('\\\\$x^2\\\\$', 'aaaa…')
    """
    return mpl_text(shorten(name, width))


def significance_heatmap(
    ci: HoeffdingResult | pd.DataFrame,
    title: str | None = None,
    annotate: bool | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Heatmap of the signed distance of every Hoeffding interval from ½.

    Rows and columns follow the order of the :func:`~rankstats.hoeffding` table (pass
    ``order=result.order`` there to get the ranked order).  Cell ``(a, b)`` is red when ``a`` is
    significantly above ``b`` (``low − ½``), blue when significantly below (``high − ½``), white
    when the interval contains ½ — the colouring of Himmi et al. (2023, Fig. 6).  With Holm's
    correction a pair can be significant although its interval (drawn at the Bonferroni level
    δ/m) contains ½: such cells stay white and get a circle, so the figure never shows a
    significant pair as a non-significant one.

    Parameters
    ----------
    ci : HoeffdingResult or pandas.DataFrame
        Output of :func:`rankstats.hoeffding_test` or :func:`rankstats.hoeffding`.
    title : str, optional
        Figure title (default: the δ, correction and estimand used).
    annotate : bool, optional
        Write the distances in the cells (default: when there are at most 20 systems).
    figsize : (float, float), optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

    matrix = significance_matrix(ci, "distance")
    n = len(matrix)
    if annotate is None:
        annotate = n <= 20
    side = max(4.0, min(0.38 * n + 2.5, 30.0))
    fig = Figure(figsize=figsize or (side + 1.2, side))
    ax = fig.add_subplot()
    values = matrix.to_numpy(dtype=np.float64)
    limit = max(float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 0.0, 1e-6)
    image = ax.imshow(
        np.ma.masked_invalid(values),
        cmap="RdBu_r",
        norm=TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit),
        interpolation="nearest",
    )
    labels = [label(s) for s in matrix.index]
    ax.set_xticks(range(n), labels, rotation=90, fontsize=max(4, 9 - n // 20))
    ax.set_yticks(range(n), labels, fontsize=max(4, 9 - n // 20))
    ax.set_xlabel("system b")
    ax.set_ylabel("system a (row ranked above column when red)")
    if annotate:
        for i in range(n):
            for j in range(n):
                if i != j and values[i, j] != 0:
                    ax.text(j, i, f"{values[i, j]:+.2f}", ha="center", va="center", fontsize=6)
    # Significant by the (Holm) test, but the interval drawn contains ½: distance 0, white.
    significant = significance_matrix(ci, "significant").to_numpy(dtype=float, na_value=0.0)
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
    ax.set_title(title, fontsize=9)
    if significant.any():
        cbar = fig.colorbar(image, ax=ax, shrink=0.8)
        cbar.set_label("signed distance of the interval from ½")
    else:
        # No colour to explain: say what the blank figure means instead of a ±1e-6 colour bar.
        ax.text(
            0.5,
            0.5,
            "no pair is significant at this level\n(few rankings compare each pair: rank per "
            "instance, --level instance, when the data has instances)",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=9,
            bbox={"facecolor": "white", "edgecolor": "0.6"},
        )
    with quiet_missing_glyphs():
        fig.tight_layout()
    return fig


def save_figure(
    fig: Figure, path_stem: str | Path, formats: tuple[str, ...] = ("png", "pdf")
) -> list[Path]:
    """Save ``fig`` as ``<stem>.png``, ``<stem>.pdf`` ...; return the written paths."""
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        with quiet_missing_glyphs():
            fig.savefig(path, dpi=150 if fmt == "png" else None, bbox_inches="tight")
        paths.append(path)
    return paths

"""Figures of the paired analysis (beside :mod:`rankstats.plotting`): the pairing plot, the
histogram of differences, the matrix.

Explicit ``Figure`` objects (no pyplot state), like :mod:`rankstats.plotting`; every system
name passes through :func:`rankstats.plotting.names.labels` (shown literally, never as mathtext;
names longer than :data:`rankstats.plotting.names.NAME_WIDTH` characters as unique abbreviations,
the title then saying so, with ``rs.plotting.name_key`` of the same names as the key) and the task
name in a title through ``mpl_text``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from rankstats._util.text import mpl_text
from rankstats.plotting.fonts import fitted_fonts
from rankstats.plotting.names import labels, shortened_note

#: Colour of the cells without a probability (the diagonal, pairs without a common instance).
BLANK = "0.6"


def _legend(text: str) -> str:
    # matplotlib leaves out of the legend every label starting with "_" (a system "_base").
    return " " + text if text.startswith("_") else text


def pair_figure(xa: np.ndarray, xb: np.ndarray, a: str, b: str) -> Figure:
    """Pairing plot and histogram of the differences of two systems' paired scores.

    Left: each instance evaluated by both is a point ``(score of b, score of a)``; above the
    x = y line ``a`` did better (Peyrard et al. 2021, Fig. 2). Right: histogram of
    :math:`D = x_a - x_b` with its mean and median.

    Parameters
    ----------
    xa, xb : numpy.ndarray
        Scores of ``a`` and ``b`` per instance (NaN = not evaluated; only the instances where
        both were evaluated are drawn).
    a, b : str
        System names.

    Returns
    -------
    matplotlib.figure.Figure
    """
    keep = ~np.isnan(xa) & ~np.isnan(xb)
    if not keep.any():
        raise ValueError(f"systems {a!r} and {b!r} share no evaluated instance")
    xa, xb = xa[keep], xb[keep]
    la, lb = labels([a, b])  # two names sharing a long start stay two names
    fig = Figure(figsize=(9, 4))
    ax1, ax2 = fig.subplots(1, 2)
    above = xa > xb
    below = xa < xb
    ax1.scatter(xb[above], xa[above], s=12, alpha=0.75, label=_legend(f"{la} better"))
    ax1.scatter(xb[below], xa[below], s=12, alpha=0.75, label=_legend(f"{lb} better"))
    ax1.scatter(xb[~above & ~below], xa[~above & ~below], s=12, color="grey", label="tie")
    lo = float(min(xa.min(), xb.min()))
    hi = float(max(xa.max(), xb.max()))
    ax1.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    ax1.set_xlabel(lb)
    ax1.set_ylabel(la)
    ax1.legend(fontsize=7, loc="upper left")
    n_ties = int(keep.sum() - above.sum() - below.sum())
    note = shortened_note([a, b])
    ax1.set_title(
        f"wins / losses / ties: {int(above.sum())} / {int(below.sum())} / {n_ties}"
        + ("\n" + note if note else ""),
        fontsize=9,
    )
    diff = xa - xb
    ax2.hist(diff, bins=int(min(30, max(5, len(diff) // 3))), color="C0", alpha=0.8)
    ax2.axvline(0, color="black", lw=0.8)
    ax2.axvline(diff.mean(), color="C3", lw=1.2, ls="--", label=f"mean {diff.mean():+.4g}")
    ax2.axvline(np.median(diff), color="C2", lw=1.2, ls=":", label=f"median {np.median(diff):+.4g}")
    ax2.set_xlabel(f"{la} − {lb}")
    ax2.set_ylabel("instances")
    ax2.legend(fontsize=7)
    ax2.set_title(f"differences on the n = {len(diff)} common instances", fontsize=9)
    with fitted_fonts(fig):
        fig.tight_layout()
    return fig


def matrix_figure(
    pairs: pd.DataFrame, order: list[str], p_column: str, alpha: float, title: str
) -> Figure:
    """Matrix of P(row beats column) (ties ½) with significance marks.

    Cell ``(a, b)`` is the share of common instances where ``a`` scored higher than ``b`` (ties
    count ½); ``*`` marks the pairs whose ``p_column`` (e.g. the Holm-adjusted sign test) is
    below ``alpha``, as a line under the figure says. Rows and columns follow ``order`` (best
    first).

    Returns
    -------
    matplotlib.figure.Figure
    """
    n = len(order)
    index = {s: i for i, s in enumerate(order)}
    prob = np.full((n, n), np.nan)
    sig = np.zeros((n, n), dtype=bool)
    ia = pairs["system_a"].map(index).to_numpy()
    ib = pairs["system_b"].map(index).to_numpy()
    share = pairs["p_a_beats_b"].to_numpy(np.float64)
    hit = pairs[p_column].to_numpy(np.float64) < alpha
    prob[ia, ib], prob[ib, ia] = share, 1.0 - share
    sig[ia, ib] = sig[ib, ia] = hit
    side = max(4.0, min(0.38 * n + 2.5, 30.0))
    fig = Figure(figsize=(side + 1.2, side))
    ax = fig.add_subplot()
    # The diagonal (no pair) in grey: white is P = ½ in this colour map.
    cmap = colormaps["RdBu_r"].with_extremes(bad=BLANK)
    image = ax.imshow(
        np.ma.masked_invalid(prob), cmap=cmap, vmin=0, vmax=1, interpolation="nearest"
    )
    names = labels(order)  # unique: long names never cut into one label
    size = max(4, 9 - n // 20)
    ax.set_xticks(range(n), names, rotation=90, fontsize=size)
    ax.set_yticks(range(n), names, fontsize=size)
    ax.set_xlabel("system b")
    ax.set_ylabel("system a")
    rows, cols = np.nonzero(sig)
    if n <= 20:
        for i in range(n):
            for j in range(n):
                if i != j:
                    mark = "*" if sig[i, j] else ""
                    ax.text(j, i, f"{prob[i, j]:.2f}{mark}", ha="center", va="center", fontsize=6)
    else:
        ax.scatter(cols, rows, marker="*", s=6, color="black", linewidths=0)
    # The title carries the task name: literal text, never mathtext.
    note = shortened_note(order)
    ax.set_title(mpl_text(title) + ("\n" + note if note else ""), fontsize=9)
    cbar = fig.colorbar(image, ax=ax, shrink=0.8)
    cbar.set_label("P(a beats b) on the common instances (ties ½)")
    # Say what the marks and the blank cells are, under the figure (never left to the caption).
    note = f"*: {mpl_text(p_column)} < {alpha:g}; grey: the diagonal"
    if np.isnan(prob[~np.eye(n, dtype=bool)]).any():
        note += " and pairs without a common instance"
    fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=7)
    with fitted_fonts(fig):
        fig.tight_layout(rect=(0.0, 0.3 / fig.get_figheight(), 1.0, 1.0))
    return fig

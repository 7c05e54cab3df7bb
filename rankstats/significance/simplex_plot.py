r"""The simplex (ternary) figure of the posterior of a Bayesian comparison with a ROPE.

Each posterior draw of :math:`(\theta_a, \theta_\text{rope}, \theta_b)` (three probabilities
summing to 1) is a point of the triangle, in barycentric coordinates: bottom left ``a`` better,
bottom right ``b`` better, top the ROPE. The dashed lines from the centre split it into the
regions where each θ is the largest (Benavoli et al. 2017, Fig. 6; baycomp's ``plot_simplex``).
Drawn for :class:`~rankstats.significance.bayesian_signed_rank.BayesSignedRank` and
:class:`~rankstats.significance.bayesian_hierarchical.BayesHierarchical`.

Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis. *Journal of Machine Learning Research*
18(77), 1–36.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from rankstats._util.text import mpl_text, shorten

if TYPE_CHECKING:  # matplotlib loads with the first figure, not with the test
    from matplotlib.figure import Figure


def _project(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Barycentric (a, rope, b) → plane: a at (0, 0), b at (1, 0), rope at (½, √3/2)."""
    return theta[:, 2] + 0.5 * theta[:, 1], theta[:, 1] * math.sqrt(3) / 2


def simplex_figure(result, *, title: str | None = None, note: str | None = None) -> Figure:
    """The simplex (ternary) figure of
    :meth:`~rankstats.significance.bayesian_signed_rank.BayesSignedRank.plot` (explicit
    ``Figure``; names through :func:`rankstats.plotting.names.labels`, never mathtext; two long
    names sharing their start are drawn as two unique abbreviations).

    ``result`` is any result with ``a``, ``b``, ``rope``, ``draws`` (``(S, 3)`` draws of
    :math:`(\\theta_a, \\theta_\\text{rope}, \\theta_b)`) and ``probabilities`` (printed at the
    vertices): :class:`~rankstats.significance.bayesian_signed_rank.BayesSignedRank` or
    :class:`~rankstats.significance.bayesian_hierarchical.BayesHierarchical`, which passes its
    own ``title`` and ``note`` (the caption under the triangle; default: the signed-rank
    test's)."""
    from matplotlib.figure import Figure

    from rankstats.plotting.fonts import fitted_fonts
    from rankstats.plotting.names import labels

    fig = Figure(figsize=(5.6, 4.7))
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.axis("off")
    x, y = _project(result.draws)
    ax.hexbin(x, y, gridsize=60, mincnt=1, cmap="Blues", bins="log", extent=(0, 1, 0, 0.87))
    h = math.sqrt(3) / 2
    ax.plot([0, 1, 0.5, 0], [0, 0, h, 0], color="black", lw=1)
    centre = _project(np.array([[1 / 3, 1 / 3, 1 / 3]]))
    for mid in ([0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]):
        mx, my = _project(np.array([mid]))
        ax.plot([centre[0][0], mx[0]], [centre[1][0], my[0]], color="0.4", lw=0.8, ls="--")
    p = result.probabilities
    la, lb = labels([result.a, result.b])  # two names sharing a long start stay two names
    ax.text(0, -0.04, f"{la} better\nP = {p['a']:.3f}", ha="center", va="top")
    ax.text(1, -0.04, f"{lb} better\nP = {p['b']:.3f}", ha="center", va="top")
    ax.text(0.5, h + 0.03, f"ROPE ±{result.rope:g}\nP = {p['rope']:.3f}", ha="center", va="bottom")
    ax.set_xlim(-0.22, 1.22)
    ax.set_ylim(-0.16, h + 0.14)
    if title is None:
        task = result.parameters.get("task")
        where = f"{mpl_text(shorten(task, 40))}: " if isinstance(task, str) else ""
        title = (
            f"{where}Bayesian signed-rank test, n = {result.n} "
            f"{result.parameters.get('by', '')} blocks"
        )
    if note is None:
        note = "(each region is where one θ is the largest; P = its share of the draws)"
    ax.set_title(title, fontsize=9)
    fig.text(
        0.5,
        0.01,
        f"shade: {len(result.draws):,} posterior draws of (θ_a, θ_rope, θ_b), log scale; "
        f"dashed: two θ equal\n{note}",
        ha="center",
        va="bottom",
        fontsize=7,
    )
    with fitted_fonts(fig):
        fig.tight_layout(rect=(0.0, 0.35 / fig.get_figheight(), 1.0, 1.0))
    return fig

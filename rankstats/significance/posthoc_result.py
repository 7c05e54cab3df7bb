"""The result of a post-hoc comparison of every pair of systems: :class:`PosthocResult`.

The table of pairs, the average ranks, the critical difference, the groups of systems not
significantly different (:func:`rankstats.significance.groups.consecutive_groups`) and the
square matrices of p-values, shared by :func:`rankstats.significance.posthoc_tests.posthoc`
(Nemenyi, Conover, Wilcoxon–Holm, imputed ranks) and Tukey's HSD
(:mod:`rankstats.significance.parametric`). Its figure, the critical-difference diagram, is
registered (:func:`register_figure`) by the module that draws it: the result never imports its
figure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats.significance.blocks import Blocks, DroppedFromBlocks
from rankstats.significance.groups import consecutive_groups

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure


#: The figure of :meth:`PosthocResult.plot` (at most one), set by :func:`register_figure`.
_FIGURE: list[Callable[..., Figure]] = []


def register_figure(draw: Callable[..., Figure]) -> None:
    """Make ``draw(result, **kwargs)`` the figure of :meth:`PosthocResult.plot`.

    The critical-difference diagram imports this module for the result type it draws; the
    result reaches its figure through this registration instead of importing the figure back.
    The package's ``__init__`` registers it, and every import of this module passes there first:
    every result can plot itself, one unpickled in a new process too.
    """
    _FIGURE[:] = [draw]


@renamed_parameters(adjust="correction")
@dataclass(frozen=True, eq=False, repr=False)
class PosthocResult(DroppedFromBlocks):
    r"""Every pair of systems compared after Friedman's test: the result of :func:`posthoc`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per unordered pair, ``system_a`` ranked better on average than ``system_b``:
        ``system_a``, ``system_b``, ``mean_rank_a``, ``mean_rank_b``, ``rank_difference``,
        ``statistic`` (Nemenyi: ``q``; Conover: ``t``; Wilcoxon: scipy's ``min(W+, W−)``;
        imputed: ``|z|``), ``p_value`` (unadjusted, except Nemenyi's single-step p; imputed:
        the two-sided normal p of ``z``), ``p_adjusted`` (see
        :attr:`adjust`), ``significant`` (``p_adjusted < α``), and the effect sizes
        ``cliffs_delta``, ``cohens_d``, ``akinshin_gamma`` (NaN without scores).
    method : str
        ``"nemenyi"``, ``"conover"`` or ``"wilcoxon-holm"``.
    alpha : float
        Family-wise error level.
    correction : str
        ``"single-step"`` (Nemenyi: the studentized range covers the family), ``"holm"``,
        ``"bonferroni"`` or ``"none"``.
    critical_difference : float
        Nemenyi's CD of average ranks (NaN for the other methods).
    q_alpha : float
        :math:`q_\alpha` of the CD (NaN for the other methods).
    mean_ranks : pandas.Series
        Average rank of every system, best first.
    n_blocks, n_systems : int
        ``N`` and ``k``.
    blocks : Blocks
        The rank table compared, with what was dropped to make it complete.
    details : str
        How the p-values were obtained when that is not the classical recipe (``missing=
        "imputed"``: the route to max ``|z|``, and why there is no single critical difference).
    zero_method : str or None
        ``"wilcoxon-holm"``: the treatment of zero score differences (``"wilcox"``,
        ``"pratt"`` or ``"zsplit"``: :mod:`rankstats.significance.zero_methods`); None for the
        rank tests.

    Notes
    -----
    :attr:`critical_difference` is NaN when there is no single critical difference: for
    Conover's and Wilcoxon's tests, and with ``missing="imputed"`` when the variances of the
    pairwise differences differ (or the p-values are Holm-adjusted). :meth:`groups` then come
    from the pairwise decisions (``significant``) alone.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.posthoc_tests import posthoc
    >>> res = posthoc(rs.load_dataset("xtreme"), method="nemenyi")
    >>> res.n_pairs, round(res.critical_difference, 2)
    (105, 10.72)
    """

    table: pd.DataFrame
    method: str
    alpha: float
    correction: str
    critical_difference: float
    q_alpha: float
    mean_ranks: pd.Series
    n_blocks: int
    n_systems: int
    blocks: Blocks
    details: str = ""
    zero_method: str | None = None

    @property
    def has_single_cd(self) -> bool:
        """Whether one critical difference of average ranks decides every pair."""
        return bool(np.isfinite(self.critical_difference))

    @property
    def n_pairs(self) -> int:
        return len(self.table)

    @property
    def n_significant(self) -> int:
        return int(self.table["significant"].sum())

    def matrix(self, value: str = "p_adjusted") -> pd.DataFrame:
        """Symmetric square matrix of one column of :attr:`table`, systems best first (diagonal:
        NaN; for ``"significant"``, False)."""
        order = list(self.mean_ranks.index)
        position = pd.Index(order)  # one hash table for both columns (Series.map: one per call)
        i = position.get_indexer(self.table["system_a"])
        j = position.get_indexer(self.table["system_b"])
        column = self.table[value].to_numpy()
        if value == "significant":
            out = np.zeros((len(order), len(order)), dtype=bool)
        else:
            out = np.full((len(order), len(order)), np.nan)
        out[i, j] = column
        out[j, i] = column
        return pd.DataFrame(out, index=order, columns=order)

    def plot(self, **kwargs) -> Figure:
        """Critical-difference diagram (the figure registered with :func:`register_figure`:
        :func:`rankstats.significance.critical_difference.cd_diagram`; keyword arguments are
        passed on)."""
        if not _FIGURE:
            raise RuntimeError(
                "no figure is registered for PosthocResult (rankstats.significance registers "
                "the critical-difference diagram when it is imported)"
            )
        return _FIGURE[0](self, **kwargs)

    def groups(self) -> list[tuple[str, ...]]:
        """The maximal groups of systems, consecutive in average-rank order, in which no pair
        differs significantly (the bars of a critical-difference diagram), best first
        (:func:`~rankstats.significance.groups.consecutive_groups`).

        A system that differs from all its neighbours is a group of its own.
        """
        return consecutive_groups(
            list(self.mean_ranks.index), self.matrix("significant").to_numpy()
        )

    def __repr__(self) -> str:
        step = "single-step (max |z|)" if self.blocks.imputed else "single-step (studentized range)"
        correction = {"single-step": step, "none": "no adjustment"}
        lines = [
            f"PosthocResult({self.method}, {self.n_systems} systems, {self.n_blocks} "
            f"{self.blocks.by} blocks, missing={self.blocks.missing!r}, {self.n_significant} "
            f"of {self.n_pairs} pairs significant at α = {self.alpha:g})",
            f"  p-values: {correction.get(self.correction, self.correction + '-adjusted')}"
            + (f"; zero differences: zero_method={self.zero_method!r}" if self.zero_method else ""),
        ]
        if self.details:
            lines.append(f"  {self.details}")
        if self.has_single_cd:
            lines.append(
                f"  critical difference CD = {self.critical_difference:.4g} "
                f"(q_α = {self.q_alpha:.4g})"
            )
        elif self.method == "nemenyi":
            lines.append("  no single critical difference: groups from the pairwise decisions")
        return "\n".join(lines + self._dropped_and_groups())

    def _dropped_and_groups(self) -> list[str]:
        """The end of the ``repr``: what was dropped and the groups (shared by subclasses)."""
        dropped = self.blocks.dropped()
        lines = [f"  {dropped}" if dropped else "  nothing dropped"]
        groups = [g for g in self.groups() if len(g) > 1]
        lines.append(f"  {len(groups)} group(s) of systems not significantly different")
        for group in groups[:5]:
            names = ", ".join(terminal(shorten(s, 24)) for s in group[:6])
            more = f", ... ({len(group) - 6} more)" if len(group) > 6 else ""
            lines.append(f"    {names}{more}")
        if len(groups) > 5:
            lines.append(f"    ... {len(groups) - 5} more")
        return lines

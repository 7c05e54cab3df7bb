r"""Friedman's test and the Iman–Davenport F on a complete blocks × systems rank table.

With ``k`` systems ranked in each of ``N`` blocks (:mod:`rankstats.significance.blocks`; ties get
average ranks) and :math:`\bar R_j` the average rank of system ``j``, Friedman's statistic is

.. math::  \chi^2_F = \frac{12 N}{k (k + 1)} \sum_j \Bigl(\bar R_j - \frac{k + 1}{2}\Bigr)^2
           \Big/ C, \qquad C = 1 - \frac{\sum_{\text{ties}} (t^3 - t)}{N (k^3 - k)},

where the sum in ``C`` runs over the groups of ``t`` tied systems of every block (the tie
correction of ``scipy.stats.friedmanchisquare``; ``tie_correction=False`` gives ``C = 1``, the
textbook formula of Demšar, 2006).  Under the null hypothesis that every system has the same
distribution of ranks, :math:`\chi^2_F` is approximately :math:`\chi^2_{k-1}`.

Iman and Davenport (1980) showed that this approximation is conservative and proposed

.. math::  F_F = \frac{(N - 1)\, \chi^2_F}{N (k - 1) - \chi^2_F}

with an ``F`` distribution of ``k − 1`` and ``(k − 1)(N − 1)`` degrees of freedom.

With ``missing="imputed"`` (:mod:`rankstats.significance.blocks`) the blocks keep their missing
scores and the statistic is the quadratic form of the imputed expected ranks under their exact
permutation covariance, :func:`rankstats.significance.imputed_ranks.imputed_rank_test`: Friedman's
tie-corrected statistic on complete blocks, Durbin's (1951) on a balanced incomplete block design
when every block ties alike (no ties, or the same tie sizes in each block; with other ties it
conditions on each block's ties where Conover's T₁ pools them), of the form of Skillings and Mack's
(1981) otherwise; the F beside it generalises Iman–Davenport's.

References
----------
Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit in the analysis
of variance. *Journal of the American Statistical Association* 32(200), 675–701.

Iman, R. L. and Davenport, J. M. (1980). Approximations of the critical region of the Friedman
statistic. *Communications in Statistics – Theory and Methods* 9(6), 571–595.

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. *Journal of
Machine Learning Research* 7, 1–30.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.significance.blocks import (
    Blocks,
    DroppedFromBlocks,
    centred_ranks,
    check_missing_blocks,
    rank_blocks,
)
from rankstats.significance.imputed_ranks import imputed_rank_test


def iman_davenport(chi2: float, n_blocks: int, n_systems: int) -> tuple[float, float]:
    r"""Iman–Davenport :math:`F_F` of a Friedman :math:`\chi^2_F` and its p-value.

    ``F_F = (N − 1) χ²_F / (N (k − 1) − χ²_F)`` on ``k − 1`` and ``(k − 1)(N − 1)`` degrees of
    freedom; ``inf`` (p = 0) when every block ranks the systems alike (``χ²_F = N (k − 1)``).

    Examples
    --------
    >>> f, p = iman_davenport(9.28, 14, 4)  # Demšar (2006), Sec. 3.2.2
    >>> round(f, 2)
    3.69
    """
    n, k = n_blocks, n_systems
    if not np.isfinite(chi2):
        return float("nan"), float("nan")
    denominator = n * (k - 1) - chi2
    if denominator <= 1e-12 * max(1.0, n * (k - 1)):
        return float("inf"), 0.0
    f = (n - 1) * chi2 / denominator
    return float(f), float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def friedman_statistic(ranks: np.ndarray, tie_correction: bool = True) -> tuple[float, float]:
    r"""``(χ²_F, C)`` of a complete ``(N, k)`` matrix of mid-ranks: Friedman's statistic and its
    tie-correction divisor ``C`` (1 without ties; ``C = 0``, ``χ²_F`` NaN, when every block is
    one tie).  ``C = 12 Σ_ij (R_ij − (k+1)/2)² / (N (k³ − k))``: the variance of the mid-ranks of
    a block is ``(k³ − k − Σ (t³ − t)) / 12k``, so no tie group is searched."""
    chi2, correction = friedman_arrays(np.asarray(ranks, dtype=np.float64), None, tie_correction)
    return float(chi2), float(correction)


def friedman_arrays(
    ranks: np.ndarray, keep: np.ndarray | None = None, tie_correction: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    r"""``(χ²_F, C)`` of a batch of rank matrices, shape ``(..., N, k)`` → ``(...)`` each.

    The computation of :func:`friedman_statistic` (Friedman 1937, with the tie correction of
    ``scipy.stats.friedmanchisquare``) with leading batch axes, for the power simulations
    (:mod:`rankstats.planning`): :math:`\chi^2_F = \frac{12 N}{k (k+1)} \sum_j (\bar R_j -
    \frac{k+1}{2})^2`, divided by ``C`` when ``tie_correction``. ``keep`` (``(..., N)``, bool)
    selects the blocks of each batch (complete-case analysis of simulated benchmarks with
    missing scores); ``N`` is then the number kept. Fewer than one block gives NaN.
    """
    n, deviations = centred_ranks(ranks, keep)
    squares = np.sum(deviations**2, axis=(-2, -1))
    return friedman_from_sums(n, deviations.sum(axis=-2), squares, tie_correction)


def friedman_from_sums(
    n: np.ndarray, centred_sums: np.ndarray, squares: np.ndarray, tie_correction: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    r"""``(χ²_F, C)`` from Friedman's sufficient statistic: the number of blocks ``n``
    (``(...)``), each system's sum of centred ranks :math:`S_j = \sum_b (R_{bj} - \frac{k+1}{2})`
    (``(..., k)``) and the sum of the squared centred ranks :math:`Q = \sum_{b,j} (R_{bj} -
    \frac{k+1}{2})^2` (``(...)``, which carries the ties):
    :math:`\chi^2_F = \frac{12}{n k (k+1)} \sum_j S_j^2`, :math:`C = 12 Q / (n (k^3 - k))`.
    :func:`friedman_arrays` computes the sums from rank matrices; the power simulations of
    :mod:`rankstats.planning.sufficient` draw them (counts of each ranking)."""
    k = centred_sums.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_dev = centred_sums / n[..., None]
        chi2 = 12.0 * n / (k * (k + 1)) * np.sum(mean_dev**2, axis=-1)
        correction = 12.0 * squares / (n * (k**3 - k))
    if not tie_correction:
        return chi2, np.ones_like(chi2)
    tied_out = correction <= 1e-12
    with np.errstate(invalid="ignore", divide="ignore"):
        corrected = np.where(tied_out, np.nan, chi2 / np.where(tied_out, 1.0, correction))
    return corrected, np.where(tied_out, 0.0, correction)


@dataclass(frozen=True, eq=False, repr=False)
class FriedmanResult(DroppedFromBlocks):
    r"""Friedman's test and the Iman–Davenport F: the result of :func:`friedman`.

    Attributes
    ----------
    statistic : float
        Friedman's :math:`\chi^2_F` (tie-corrected unless ``tie_correction`` is False); with
        ``missing="imputed"``, ``T = Aᵀ Σ⁺ A`` of :mod:`rankstats.significance.imputed_ranks`.
    p_value : float
        :math:`P(\chi^2_{k-1} \ge \chi^2_F)`.
    df : int
        ``k − 1``.
    f_statistic : float
        Iman–Davenport :math:`F_F` of :attr:`statistic` (imputed: its generalisation
        ``(T / d) / ((D − T) / (D − d))``, Conover's ``T₂`` of Durbin's test).
    f_df : tuple of int
        ``(k − 1, (k − 1)(N − 1))`` (imputed: ``(k − 1, D − k + 1)``, ``D = Σ_b (k_b − 1)``).
    f_p_value : float
        :math:`P(F \ge F_F)`.
    mean_ranks : pandas.Series
        Average rank of every system (1 = best), best first.
    n_blocks : int
        ``N``, the complete blocks used.
    n_systems : int
        ``k``.
    tie_correction : float
        The divisor ``C`` (1 = no ties, or ``tie_correction=False``; NaN with
        ``missing="imputed"``, whose exact covariance accounts for the ties of each block).
    corrected : bool
        Whether :attr:`statistic` is divided by ``C``.
    blocks : Blocks
        The rank table tested, with what was dropped to make it complete.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.friedman_test import friedman
    >>> res = friedman(rs.load_dataset("xtreme"))
    >>> res.n_blocks, res.n_systems, res.df
    (4, 15, 14)
    """

    statistic: float
    p_value: float
    df: int
    f_statistic: float
    f_df: tuple[int, int]
    f_p_value: float
    mean_ranks: pd.Series
    n_blocks: int
    n_systems: int
    tie_correction: float
    corrected: bool
    blocks: Blocks

    def table(self) -> pd.DataFrame:
        """One row per system, best first: ``system``, ``mean_rank``."""
        return self.mean_ranks.rename_axis("system").reset_index()

    def significant(self, alpha: float = 0.05) -> bool:
        r"""Whether the test rejects "all systems are equal" at level ``alpha``: the
        Iman–Davenport p-value :math:`P(F \ge F_F) < \alpha` decides, as in Demšar (2006, §3.2.2),
        who recommends it over :math:`\chi^2_F` (too conservative; Iman & Davenport 1980).

        >>> import rankstats as rs
        >>> from rankstats.significance.friedman_test import friedman
        >>> friedman(rs.load_dataset("xtreme")).significant(0.05)
        True
        """
        probability("alpha", alpha)
        return bool(self.f_p_value < alpha)

    def __repr__(self) -> str:
        ties = "tie-corrected" if self.corrected else "no tie correction"
        lines = [
            f"FriedmanResult({self.n_systems} systems, {self.n_blocks} {self.blocks.by} "
            f"blocks, missing={self.blocks.missing!r})",
        ]
        if self.blocks.imputed:
            lines += [
                f"  T = {self.statistic:.4g} (df {self.df}, imputed expected ranks, exact "
                f"permutation covariance), p = {self.p_value:.4g}",
                f"  F = {self.f_statistic:.4g} (df {self.f_df[0]}, {self.f_df[1]}), "
                f"p = {self.f_p_value:.4g}",
            ]
        else:
            lines += [
                f"  χ²_F = {self.statistic:.4g} (df {self.df}, {ties}, "
                f"C = {self.tie_correction:.4g}), p = {self.p_value:.4g}",
                f"  Iman–Davenport F_F = {self.f_statistic:.4g} (df {self.f_df[0]}, "
                f"{self.f_df[1]}), p = {self.f_p_value:.4g}",
            ]
        dropped = self.blocks.dropped()
        lines.append(f"  {dropped}" if dropped else "  nothing dropped")
        lines.append(
            "  mean imputed rank  system" if self.blocks.imputed else "  mean rank  system"
        )
        shown = self.mean_ranks.head(10)
        for system, rank in shown.items():
            width = 17 if self.blocks.imputed else 9
            lines.append(f"  {rank:>{width}.3f}  {terminal(shorten(system, 40))}")
        if len(self.mean_ranks) > len(shown):
            lines.append(f"  ... {len(self.mean_ranks) - len(shown)} more")
        return "\n".join(lines)


@renamed_parameters(level="by")
def friedman(
    data: Scores | Rankings | Blocks,
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
    tie_correction: bool = True,
) -> FriedmanResult:
    r"""Friedman's test of "all systems rank alike" over complete blocks, with Iman–Davenport's F.

    Parameters
    ----------
    data : Scores, Rankings or Blocks
        Scores are ranked per block (:func:`~rankstats.significance.blocks.rank_blocks`).
    by : {"task", "instance"}, optional
        One block per task (scores averaged over instances) or per (task, instance).
    missing : {"error", "complete-case", "imputed"}
        Incomplete blocks (the one vocabulary of :mod:`rankstats.significance.missing_words`):
        refuse them (default), drop them and report what was dropped, or keep them with
        imputed expected ranks and test with their exact permutation covariance
        (:mod:`rankstats.significance.imputed_ranks`).
    min_coverage : float
        With ``"complete-case"`` or ``"imputed"``: first drop systems evaluated in fewer than
        this fraction of the blocks (refused above 0 with ``"error"``).
    tie_correction : bool
        Divide by the tie correction ``C``, as ``scipy.stats.friedmanchisquare`` does (default);
        False gives the textbook formula (Demšar, 2006). ``missing="imputed"`` always accounts
        for the ties (False is refused).

    Returns
    -------
    FriedmanResult

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.friedman_test import friedman
    >>> res = friedman(rs.load_dataset("glue"))
    >>> res.p_value < 1e-10
    True
    """
    missing = check_missing_blocks(missing, min_coverage)
    blocks = rank_blocks(data, by=by, missing=missing, min_coverage=min_coverage)
    n, k = blocks.ranks.shape
    if blocks.imputed:
        return _imputed(blocks, tie_correction)
    if n < 2:
        raise ValueError(f"Friedman's test needs at least 2 complete blocks, not {n}")
    chi2, correction = friedman_statistic(blocks.ranks, tie_correction)
    p = float(stats.chi2.sf(chi2, k - 1)) if np.isfinite(chi2) else float("nan")
    f, f_p = iman_davenport(chi2, n, k)
    return FriedmanResult(
        statistic=chi2,
        p_value=p,
        df=k - 1,
        f_statistic=f,
        f_df=(k - 1, (k - 1) * (n - 1)),
        f_p_value=f_p,
        mean_ranks=blocks.mean_ranks.sort_values(kind="stable"),
        n_blocks=n,
        n_systems=k,
        tie_correction=correction,
        corrected=tie_correction,
        blocks=blocks,
    )


def _imputed(blocks: Blocks, tie_correction: bool) -> FriedmanResult:
    """The omnibus test on imputed expected ranks (:mod:`rankstats.significance.imputed_ranks`)."""
    if not tie_correction:
        raise ValueError(
            "tie_correction=False applies to complete blocks; missing='imputed' uses the exact "
            "permutation covariance of each block, ties included"
        )
    test = imputed_rank_test(blocks.ranks, blocks.observed, blocks.systems)
    n, k = blocks.ranks.shape
    return FriedmanResult(
        statistic=test.statistic,
        p_value=test.p_value,
        df=test.df,
        f_statistic=test.f_statistic,
        f_df=test.f_df,
        f_p_value=test.f_p_value,
        mean_ranks=blocks.mean_ranks.sort_values(kind="stable"),
        n_blocks=n,
        n_systems=k,
        tie_correction=float("nan"),
        corrected=True,
        blocks=blocks,
    )

r"""Post-hoc comparisons of every pair of systems after Friedman's test, with effect sizes.

All three methods read a complete blocks × systems table (:mod:`rankstats.significance.blocks`:
``N`` blocks, ``k`` systems, ranks 1 = best with ties averaged, :math:`\bar R_j` the average rank
and
:math:`R_j = N \bar R_j` the rank sum of system ``j``).

``"nemenyi"`` (Nemenyi, 1963; Demšar, 2006)
    :math:`q = |\bar R_a - \bar R_b| / \sqrt{k (k + 1) / 6N}`; the p-value is that of the
    studentized range of ``k`` means with infinite degrees of freedom at :math:`q \sqrt 2`.  It
    is a single-step family-wise test, so ``p_adjusted = p_value``.  Two systems differ when
    their average ranks differ by more than the *critical difference*
    :math:`CD = q_\alpha \sqrt{k (k + 1) / 6N}`, :math:`q_\alpha` = the ``1 − α`` quantile of the
    studentized range over :math:`\sqrt 2` (``scipy.stats.studentized_range``).
``"conover"`` (Conover and Iman, 1979; Conover, 1999, Sec. 5.8)
    :math:`t = |R_a - R_b| / \sqrt{2 N (A - C) (1 - T / N (k - 1)) / ((N - 1)(k - 1))}` with
    :math:`A = \sum_{ij} R_{ij}^2`, :math:`C = N k (k + 1)^2 / 4` and ``T`` Friedman's
    statistic in Conover's form, against Student's ``t`` on ``(N − 1)(k − 1)`` degrees of
    freedom; Holm-adjusted by default (``correction=``).
``"wilcoxon-holm"`` (Wilcoxon, 1945; Benavoli et al., 2016)
    ``scipy.stats.wilcoxon`` on the paired score differences of the two systems over the blocks
    (zero differences treated by ``zero_method``: dropped by default, as scipy and Wilcoxon do;
    ``"pratt"`` or ``"zsplit"`` keep them, :mod:`rankstats.significance.zero_methods`; exact
    distribution for ``N ≤ 50`` without ties or zeros, as scipy chooses it pair by pair;
    ``p = 1`` for two systems with equal scores in every block, where scipy returns NaN),
    Holm-adjusted.  It needs the scores, not only the ranks.  The normal approximation (every
    pair above 50 blocks) is scipy's formula computed for many pairs at once, each chunk of
    pairs ranked by one sort (:mod:`rankstats.significance.signed_rank_sums`).

With ``missing="imputed"`` (:mod:`rankstats.significance.blocks`,
:mod:`rankstats.significance.imputed_ranks`) the blocks keep their missing scores, every rank is the
system's imputed expected rank, and ``"nemenyi"`` becomes the pairwise test of the imputed ranks:
:math:`z = (A_a - A_b) / \sqrt{\operatorname{Var}}` with the variance from the exact
permutation covariance :math:`\Sigma` of the rank sums, and either a single-step family-wise
p-value from the distribution of :math:`\max |z|` of :math:`N(0, \Sigma)` (the studentized
range when :math:`\Sigma \propto I - J/n`, as on complete blocks, where it is Nemenyi's test
with the tie-corrected variance; Monte Carlo with a fixed ``seed`` otherwise) or, with
``correction="holm"`` (or ``"bonferroni"``, ``"none"``), the adjusted two-sided normal p-values.
The variances of the pairs differ when the missing cells do, so there is in general no single
critical difference (:attr:`PosthocResult.critical_difference` is then NaN and the groups come
from the pairwise decisions). Conover's and Wilcoxon's tests are refused with missing="imputed":
Conover's pooled t and the paired differences of scores have no counterpart on imputed ranks.

Effect sizes, per pair and oriented so that positive means ``system_a`` scores higher, are those
autorank reports (Herbold, 2020), on the (oriented) scores of the blocks:

- Cliff's δ: :math:`P(x_a > x_b) - P(x_a < x_b)` over all pairs of blocks;
- Cohen's d: difference of the means over the pooled standard deviation (``ddof = 1``);
- Akinshin's γ: difference of the medians over the pooled median absolute deviation, each MAD
  scaled by 1.4826 (comparable to a standard deviation under normality).

References
----------
Nemenyi, P. (1963). *Distribution-free multiple comparisons*. PhD thesis, Princeton University.

Conover, W. J. and Iman, R. L. (1979). On multiple-comparisons procedures. Technical report
LA-7677-MS, Los Alamos Scientific Laboratory.

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. *Journal of
Machine Learning Research* 7, 1–30.

Benavoli, A., Corani, G. and Mangili, F. (2016). Should we really use post-hoc tests based on
mean-ranks? *Journal of Machine Learning Research* 17(5), 1–10.

Herbold, S. (2020). Autorank: a Python package for automated ranking of classifiers. *Journal of
Open Source Software* 5(48), 2173.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util.advice import AdviceError, Spelled
from rankstats._util.arguments import count, probability, random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.significance.blocks import (
    Blocks,
    centred_ranks,
    check_missing_blocks,
    rank_blocks,
)
from rankstats.significance.effect_sizes import EFFECT_SIZES, effect_sizes_alongside
from rankstats.significance.imputed_ranks import imputed_rank_test, max_abs_z
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.signed_rank_sums import signed_rank_asymptotic
from rankstats.significance.studentized_range import q_alpha, studentized_range_sf
from rankstats.significance.zero_methods import DEFAULT as DEFAULT_ZERO_METHOD
from rankstats.significance.zero_methods import check_zero_method

METHODS = ("nemenyi", "conover", "wilcoxon-holm")
ADJUSTMENTS = ("holm", "bonferroni", "none")
#: Differences per chunk of pairs given to scipy's Wilcoxon test at once (bounds the memory).
_WILCOXON_CELLS = 4_000_000


def critical_difference(alpha: float, n_systems: int, n_blocks: int) -> float:
    r"""Nemenyi's critical difference :math:`q_\alpha \sqrt{k (k + 1) / 6N}` of average ranks.

    Examples
    --------
    >>> round(critical_difference(0.05, 4, 14), 2)  # Demšar (2006), Sec. 3.2.2
    1.25
    """
    k = n_systems
    return q_alpha(alpha, k) * float(np.sqrt(k * (k + 1) / (6.0 * n_blocks)))


def _adjust(p: np.ndarray, correction: str) -> np.ndarray:
    if correction == "holm":
        return holm_adjust(p)
    if correction == "bonferroni":
        return np.minimum(1.0, p * len(p))
    return p.copy()


def _nemenyi(blocks: Blocks, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = blocks.ranks.shape[1]
    q = nemenyi_arrays(blocks.ranks, a, b)
    return q, studentized_range_sf(q * np.sqrt(2.0), k)


def nemenyi_arrays(
    ranks: np.ndarray, a: np.ndarray, b: np.ndarray, keep: np.ndarray | None = None
) -> np.ndarray:
    r"""Nemenyi's statistic :math:`|\bar R_a - \bar R_b| / \sqrt{k (k + 1) / 6N}` of the pairs
    ``(a, b)`` for a batch of rank matrices ``(..., N, k)`` → ``(..., pairs)``.

    The statistic of :func:`posthoc` (``method="nemenyi"``, complete blocks; Nemenyi 1963,
    Demšar 2006), with leading batch axes for the power simulations (:mod:`rankstats.planning`);
    ``keep`` (``(..., N)``) selects the blocks of each batch. Its single-step p-value is
    :math:`P(Q_k \ge q \sqrt 2)`, ``Q_k`` the studentized range of ``k`` means.
    """
    k = ranks.shape[-1]
    n, deviations = centred_ranks(ranks, keep)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = deviations.sum(axis=-2) / n[..., None]  # centred: the centre cancels below
        return np.abs(mean[..., a] - mean[..., b]) / np.sqrt(k * (k + 1) / (6.0 * n))[..., None]


def _conover(blocks: Blocks, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t, df = conover_arrays(blocks.ranks, a, b)
    return t, 2.0 * stats.t.sf(t, df)


def conover_arrays(
    ranks: np.ndarray, a: np.ndarray, b: np.ndarray, keep: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""Conover's (1999) pooled t statistics of the pairs ``(a, b)`` and their degrees of freedom,
    for a batch of rank matrices ``(..., N, k)`` → ``(..., pairs)`` and ``(...)``.

    :math:`t = |R_a - R_b| / \sqrt{2 N (A - C)(1 - T / N(k-1)) / df}` with rank sums ``R``,
    :math:`A - C = \sum_{ij} (R_{ij} - (k+1)/2)^2`, ``T`` Friedman's statistic in Conover's form
    and ``df = (N − 1)(k − 1)``: the statistic of :func:`posthoc` (``method="conover"``), with
    leading batch axes for the power simulations; ``keep`` selects the blocks of each batch.
    Two-sided p-value ``2 t.sf(t, df)``; 0 where every block is one tie.
    """
    k = ranks.shape[-1]
    n, deviations = centred_ranks(ranks, keep)
    # A − C = Σ_ij (R_ij − (k+1)/2)²: no cancellation between two large sums.
    centred_sums = deviations.sum(axis=-2)  # R_j − N (k+1)/2
    spread = np.sum(deviations**2, axis=(-2, -1))
    between = np.sum(centred_sums**2, axis=-1)
    df = (n - 1) * (k - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_conover = (k - 1) * between / spread  # Friedman's statistic in Conover's form
        scale = np.sqrt(2.0 * n * spread * (1.0 - t_conover / (n * (k - 1))) / df)
        t = np.abs(centred_sums[..., a] - centred_sums[..., b]) / scale[..., None]
    t = np.where(np.isnan(t), 0.0, t)  # 0/0: every block one tie (no difference at all)
    return t, df


def _wilcoxon_method(d: np.ndarray) -> np.ndarray:
    """The method scipy's ``method="auto"`` picks for each row of differences on its own:
    ``"asymptotic"`` above 50 blocks or with ties or zeros (above 13 blocks), ``"exact"``
    without them, a permutation test (``"permutation"``) for 13 blocks or fewer with them."""
    n = d.shape[1]
    if n > 50:
        return np.full(len(d), "asymptotic", dtype=object)
    ordered = np.sort(np.abs(d), axis=1)
    zeros = (d == 0).any(axis=1)
    ties = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1) if n > 1 else np.zeros(len(d), bool)
    special = zeros | ties
    return np.where(~special, "exact", np.where(n <= 13, "permutation", "asymptotic")).astype(
        object
    )


def _wilcoxon(
    blocks: Blocks, a: np.ndarray, b: np.ndarray, zero_method: str = DEFAULT_ZERO_METHOD
) -> tuple[np.ndarray, np.ndarray]:
    if blocks.values is None:
        raise ValueError(
            "method='wilcoxon-holm' tests the score differences and needs scores: give a Scores "
            "table, not Rankings"
        )
    columns = np.ascontiguousarray(blocks.values.T)  # one system per row: rows gathered fast
    n = columns.shape[1]
    statistic = np.empty(len(a))
    p = np.empty(len(a))
    chunk = max(1, _WILCOXON_CELLS // max(n, 1))
    for start in range(0, len(a), chunk):  # chunks of pairs, each ranked by one sort
        rows = slice(start, start + chunk)
        d = columns[a[rows]] - columns[b[rows]]
        method = _wilcoxon_method(d)
        # Equal scores in every block: no evidence of a difference (scipy returns NaN).
        same = np.flatnonzero((d == 0).all(axis=1))
        method[same] = "none"
        statistic[start + same], p[start + same] = 0.0, 1.0
        asymptotic = method == "asymptotic"
        if asymptotic.all():
            statistic[rows], p[rows] = signed_rank_asymptotic(d, zero_method)
        elif asymptotic.any():
            pick = np.flatnonzero(asymptotic)
            statistic[start + pick], p[start + pick] = signed_rank_asymptotic(d[pick], zero_method)
        pick = np.flatnonzero(method == "exact")  # N ≤ 50: scipy's exact distribution
        if len(pick):
            res = stats.wilcoxon(d[pick], axis=1, method="exact", zero_method=zero_method)
            statistic[start + pick], p[start + pick] = res.statistic, res.pvalue
        # Few blocks with ties or zeros: scipy's exhaustive permutation test, one pair at a time
        # (at most 13 blocks, 2**13 sign patterns).
        for i in np.flatnonzero(method == "permutation"):
            res = stats.wilcoxon(d[i], zero_method=zero_method)
            statistic[start + i] = res.statistic
            p[start + i] = res.pvalue
    return statistic, p


_TESTS = {"nemenyi": _nemenyi, "conover": _conover, "wilcoxon-holm": _wilcoxon}
_DEFAULT_ADJUST = {"nemenyi": "single-step", "conover": "holm", "wilcoxon-holm": "holm"}


def check_posthoc(
    method: str,
    alpha: float = 0.05,
    correction: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
    imputed: bool = False,
    zero_method: str | None = None,
) -> tuple[str, str]:
    """The arguments of :func:`posthoc` checked before any computing (``imputed``: the blocks
    given are imputed already): ``(missing, correction)``, the word in the one vocabulary and the
    adjustment used. Each combination is refused here once, in the words of the caller
    (:mod:`rankstats._util.advice`); ``zero_method`` (None: the default) is checked against
    :data:`~rankstats.significance.zero_methods.ZERO_METHODS` and refused with another method
    than ``"wilcoxon-holm"`` (the rank tests have no zero differences to treat)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, not {method!r}")
    probability("alpha", alpha)
    if zero_method is not None:
        check_zero_method(zero_method)
        if method != "wilcoxon-holm":
            raise AdviceError(
                "{zero_method} applies to {wilcoxon} (the treatment of zero score "
                "differences); " + method + " compares average ranks",
                zero_method=None,
                wilcoxon=Spelled("method='wilcoxon-holm'", "--posthoc wilcoxon-holm"),
            )
    missing = check_missing_blocks(missing, min_coverage)
    imputed = imputed or missing == "imputed"
    if imputed and method != "nemenyi":
        raise AdviceError(
            "{method} needs complete blocks: with {imputed} use {nemenyi} (z tests on the "
            "imputed ranks, single-step or {holm}; Conover's pooled t and Wilcoxon's paired "
            "score differences have no counterpart on imputed ranks), or {complete}",
            method=Spelled(f"method={method!r}", f"--posthoc {method}"),
            imputed=("missing", "imputed"),
            nemenyi=Spelled("method='nemenyi'", "--posthoc nemenyi"),
            holm=("correction", "holm"),
            complete=("missing", "complete-case"),
        )
    if method == "nemenyi":
        if imputed:
            correction = correction or "single-step"
            if correction not in ("single-step", *ADJUSTMENTS):
                raise ValueError(
                    f"correction must be one of 'single-step', {', '.join(map(repr, ADJUSTMENTS))}"
                )
        elif correction not in (None, "single-step"):
            raise AdviceError(
                "{correction} applies to {conover} and wilcoxon-holm (and to nemenyi with "
                "{imputed}); Nemenyi's p-values are single-step family-wise already",
                correction=None,
                conover=Spelled("method='conover'", "--posthoc conover"),
                imputed=("missing", "imputed"),
            )
        else:
            correction = "single-step"
    elif correction is None:
        correction = _DEFAULT_ADJUST[method]
    elif correction not in ADJUSTMENTS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, ADJUSTMENTS))}")
    return missing, correction


@renamed_parameters(level="by", adjust="correction")
def posthoc(
    data: Scores | Rankings | Blocks,
    method: str = "nemenyi",
    alpha: float = 0.05,
    correction: str | None = None,
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
    effect_sizes: bool = True,
    *,
    seed: int = 0,
    draws: int | None = None,
    zero_method: str | None = None,
) -> PosthocResult:
    """Compare every pair of systems over complete blocks (see
    :mod:`rankstats.significance.posthoc_tests`).

    Parameters
    ----------
    data : Scores, Rankings or Blocks
        Scores are ranked per block (:func:`~rankstats.significance.blocks.rank_blocks`); effect
        sizes and ``"wilcoxon-holm"`` need scores.
    method : {"nemenyi", "conover", "wilcoxon-holm"}
    alpha : float
        Family-wise error level of ``significant`` and of the critical difference.
    correction : {"holm", "bonferroni", "none"}, optional
        Multiplicity adjustment of the Conover and Wilcoxon p-values (default Holm). Nemenyi's
        p-values are single-step family-wise already and take no adjustment, except with
        ``missing="imputed"``: ``"single-step"`` (default, max ``|z|``) or an adjustment of the
        two-sided normal p-values of ``z`` (``"holm"``: valid under any dependence).
    by, missing, min_coverage
        As in :func:`rankstats.significance.friedman_test.friedman`; ``missing="imputed"`` takes
        ``method="nemenyi"`` only.
    effect_sizes : bool
        Add Cliff's δ, Cohen's d and Akinshin's γ to the table (NaN when False, without
        scores, or with ``missing="imputed"``; Cliff's δ costs about 0.12 s for 100 systems ×
        10,000 blocks on one thread: :mod:`rankstats.significance.effect_sizes`).
    seed, draws
        ``missing="imputed"``, single-step, unequal variances: the seed and number of Monte
        Carlo draws of max ``|z|`` (default :data:`rankstats.significance.imputed_ranks.DRAWS`).
    zero_method : {"wilcox", "pratt", "zsplit"}, optional
        ``"wilcoxon-holm"`` only: the treatment of zero score differences, passed to
        ``scipy.stats.wilcoxon`` (default ``"wilcox"``: dropped;
        :mod:`rankstats.significance.zero_methods`). Kept in :attr:`PosthocResult.zero_method`.

    Returns
    -------
    PosthocResult

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.posthoc_tests import posthoc
    >>> res = posthoc(rs.load_dataset("glue"), method="conover")
    >>> res.correction, res.n_pairs
    ('holm', 5460)
    """
    imputed = isinstance(data, Blocks) and data.imputed
    random_seed("seed", seed)
    if draws is not None:
        count("draws", draws, 1)
    missing, correction = check_posthoc(
        method, alpha, correction, missing, min_coverage, imputed, zero_method=zero_method
    )
    wilcoxon = method == "wilcoxon-holm"
    zeros = (zero_method or DEFAULT_ZERO_METHOD) if wilcoxon else None
    blocks = rank_blocks(data, by=by, missing=missing, min_coverage=min_coverage)
    n, k = blocks.ranks.shape
    if n < 2:
        raise ValueError(f"post-hoc tests need at least 2 blocks, not {n}")
    mean = blocks.ranks.mean(axis=0)
    order = np.argsort(mean, kind="stable")  # best first
    i, j = np.triu_indices(k, 1)
    a, b = order[i], order[j]  # a ranked better on average than b
    details = ""
    sizes_of = None
    if effect_sizes and blocks.values is not None and not blocks.imputed:
        # Cliff's δ is counted meanwhile on a second thread (the costly effect size).
        sizes_of = effect_sizes_alongside(blocks.values, a, b)
    if blocks.imputed:
        statistic, p, p_adjusted, cd, q, details = _imputed_pairs(
            blocks, a, b, alpha, correction, seed, draws
        )
    else:
        statistic, p = _wilcoxon(blocks, a, b, zeros) if wilcoxon else _TESTS[method](blocks, a, b)
        p_adjusted = p.copy() if correction == "single-step" else _adjust(p, correction)
        nemenyi = method == "nemenyi"
        # q_alpha is cached: the CD and q_α of the result compute the quantile once.
        cd = critical_difference(alpha, k, n) if nemenyi else float("nan")
        q = q_alpha(alpha, k) if nemenyi else float("nan")
    systems = np.asarray(blocks.systems, dtype=object)
    table = pd.DataFrame(
        {
            "system_a": systems[a],
            "system_b": systems[b],
            "mean_rank_a": mean[a],
            "mean_rank_b": mean[b],
            "rank_difference": mean[b] - mean[a],
            "statistic": statistic,
            "p_value": p,
            "p_adjusted": p_adjusted,
            "significant": p_adjusted < alpha,
        }
    )
    if sizes_of is not None:
        sizes = sizes_of()
    else:
        sizes = pd.DataFrame(np.nan, index=range(len(a)), columns=EFFECT_SIZES)
    table = pd.concat([table, sizes.set_axis(table.index)], axis=1)
    return PosthocResult(
        table=table,
        method=method,
        alpha=alpha,
        correction=correction,
        critical_difference=cd,
        q_alpha=q,
        mean_ranks=pd.Series(mean[order], index=list(systems[order]), name="mean_rank"),
        n_blocks=n,
        n_systems=k,
        blocks=blocks,
        details=details,
        zero_method=zeros,
    )


def _imputed_pairs(
    blocks: Blocks,
    a: np.ndarray,
    b: np.ndarray,
    alpha: float,
    correction: str,
    seed: int,
    draws: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float, str]:
    """``z`` of every pair of imputed rank sums, its two-sided normal p-value, the adjusted
    p-value, the critical difference (NaN when the pair variances differ) and ``q_α``."""
    test = imputed_rank_test(blocks.ranks, blocks.observed, blocks.systems)
    n = blocks.n_blocks
    variance = test.pair_variance(a, b)
    se = np.sqrt(variance)
    z = np.abs(test.rank_sums[a] - test.rank_sums[b]) / se
    p = 2.0 * stats.norm.sf(z)
    equal = bool(np.ptp(variance) <= 1e-9 * np.max(variance))
    spread = (
        f"the standard errors of the differences of average imputed ranks range from "
        f"{se.min() / n:.3g} to {se.max() / n:.3g}"
    )
    if correction != "single-step":
        note = (
            "z on imputed expected ranks (exact permutation covariance), normal p-values "
            + ("adjusted by " + correction.capitalize() if correction != "none" else "unadjusted")
            + "; "
            "no single critical difference"
        )
        return z, p, _adjust(p, correction), float("nan"), float("nan"), note
    dist = max_abs_z(test.covariance, draws=draws, seed=seed)
    c = dist.critical_value(alpha)
    note = f"z on imputed expected ranks (exact permutation covariance); {dist.describe()}"
    if equal:
        cd = c * float(se[0]) / n if len(se) else float("nan")
    else:
        cd = float("nan")
        note += f"; no single critical difference: {spread}"
    return z, p, dist.sf(z), cd, c, note

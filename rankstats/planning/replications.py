r"""The replication engine: many simulated benchmarks, every test applied to all of them at once.

For a :class:`~rankstats.planning.design.BenchmarkDesign`, ``R`` benchmarks are drawn in chunks of
replications (``(r, N, T, K)`` arrays, no Python loop over replications), ranked per block, and
each test is applied by the *same* function that computes it for a user's table, with a leading
replication axis:

==============  ==========================================================================  ======
test            statistic (function) and decision                                            blocks
==============  ==========================================================================  ======
``hoeffding``   pair sums (:func:`~rankstats.core.pair_probabilities.pair_sum_arrays`) and   ≥ 2
                Hoeffding intervals, Holm over the pairs
                (:func:`~rankstats.aggregation.hoeffding_intervals.hoeffding_arrays`),
                imputed estimand: significant when the adjusted p-value < α
``friedman``    :func:`~rankstats.significance.friedman_test.friedman_arrays` (tie-corrected);  all
                rejects when the χ² p-value < α (omnibus: no pair)
``nemenyi``     :func:`~rankstats.significance.posthoc_tests.nemenyi_arrays`; significant when all
                :math:`q > q_\alpha` (Demšar's critical difference: the same decision as
                Nemenyi's single-step p-value < α)
``conover``     :func:`~rankstats.significance.posthoc_tests.conover_arrays`, Holm over the     all
                pairs
``imputed``     the omnibus test on imputed expected ranks                                    ≥ 2
                (:func:`~rankstats.significance.imputed_ranks.imputed_arrays`; ``rs.friedman
                (missing="imputed")``): p < α; a disconnected design is not computable
``imputed-holm`` its z tests of every pair, Holm (``rs.posthoc(method="nemenyi",               ≥ 2
                missing="imputed", correction="holm")``; the default single-step adjustment needs
                a Monte Carlo max-|z| distribution per benchmark)
``sign``        :func:`~rankstats.paired_analysis.paired_tests.sign_test_p_values`, Holm over   pair
                the pairs (the ``sign_p_holm`` of :func:`rankstats.paired`)
``mcnemar``     the same on binary outcomes: the exact (conditional binomial) McNemar test   pair
                (``outcome="binary"`` designs only)
``wilcoxon``    :func:`~rankstats.paired_analysis.paired_tests.wilcoxon_p_values`, Holm         pair
                (zero differences treated by ``zero_method``:
                :mod:`rankstats.significance.zero_methods`)
``t``           :func:`~rankstats.paired_analysis.paired_tests.paired_t_p_values`, Holm         pair
``bayes``       the Bayesian signed-rank test with a ROPE (``rs.bayes_signed_rank``,            pair
                Benavoli et al. 2017): claims the region whose posterior share reaches the
                threshold (:func:`~rankstats.significance.bayesian_signed_rank.
                posterior_sample_rows`), for the named pair and the adjacent pairs only
==============  ==========================================================================  ======

"Blocks" says which blocks each test uses when scores are missing: every ranking with at least
two scores (as :class:`~rankstats.Scores` keeps them), complete blocks only (complete-case), or
the blocks where both systems of the pair were scored. A block is one (task, instance)
(``by="instance"``) or one task, its scores averaged over the instances (``"task"``). With
two systems Holm changes nothing. A p-value that does not exist (a pair with fewer than two
common blocks for the t-test) counts as 1, no rejection.

Every pair decision is signed: +1 when the first system of the pair (in the design's order) is
significantly better, −1 when the second is, 0 otherwise; the estimate behind it (positive when
the first is better) is kept for the Type-S / Type-M errors of
:mod:`rankstats.planning.power_result`.

The draws come from ``SeedSequence(seed).spawn(chunks)``, one child per chunk of a size fixed by
the design alone, so the same seed gives the same numbers on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from rankstats._util.advice import AdviceError, Spelled, escape
from rankstats._util.resources import power_bytes, require_memory
from rankstats.aggregation.aggregators import mean_scores, snap_ties
from rankstats.aggregation.hoeffding_intervals import hoeffding_arrays, holm_adjust
from rankstats.core.metrics import ranking_metrics
from rankstats.core.pair_probabilities import pair_sum_arrays, ranking_borda
from rankstats.core.rankings import average_ranks
from rankstats.paired_analysis.paired_tests import (
    paired_t_p_values,
    sign_test_p_values,
    wilcoxon_p_values,
)
from rankstats.planning.chunks import run_chunks
from rankstats.planning.design import BenchmarkDesign, pair_indices
from rankstats.significance.bayesian_signed_rank import (
    posterior_sample_rows,
    region_share_rows,
)
from rankstats.significance.blocks import centred_ranks
from rankstats.significance.friedman_test import friedman_arrays
from rankstats.significance.imputed_ranks import imputed_arrays
from rankstats.significance.posthoc_tests import conover_arrays, nemenyi_arrays
from rankstats.significance.studentized_range import q_alpha
from rankstats.significance.zero_methods import DEFAULT as DEFAULT_ZERO_METHOD
from rankstats.significance.zero_methods import check_zero_method

TESTS = (
    "hoeffding",
    "friedman",
    "nemenyi",
    "conover",
    "imputed",
    "imputed-holm",
    "sign",
    "mcnemar",
    "wilcoxon",
    "t",
    "bayes",
)
#: The omnibus tests (one decision per benchmark); the others decide about pairs.
OMNIBUS = ("friedman", "imputed")
PAIR_TESTS = tuple(t for t in TESTS if t not in OMNIBUS)
LEVELS = ("instance", "task")
#: Aggregators whose recovery of the true order is measured in every replication.
AGGREGATORS = ("borda", "mean")
#: Posterior weights held at once by the Bayesian test (comparisons × draws × blocks).
BAYES_CELLS = 1 << 22
#: Scores per chunk of replications (bounds the memory: about 30 arrays of this size at the peak).
CHUNK_CELLS = 1_000_000


@dataclass(frozen=True)
class BayesOptions:
    """The Bayesian signed-rank test's settings in a power simulation.

    ``pairs``: positions on the pair axis it decides (the named pair and the adjacent pairs: each
    costs ``samples × blocks`` Gamma draws per benchmark); ``rope``, ``threshold``, ``prior`` as
    in :func:`rankstats.bayes_signed_rank`; ``samples`` posterior draws per decision.
    """

    pairs: tuple[int, ...]
    rope: float = 0.01
    threshold: float = 0.95
    prior: float = 0.5
    samples: int = 1000

    def settings(self) -> dict[str, float | int]:
        """As recorded in :attr:`~rankstats.PowerResult.bayes`."""
        return {"rope": self.rope, "threshold": self.threshold, "posterior_draws": self.samples}


@dataclass(frozen=True, eq=False)
class Replicates:
    """What the simulations produced, per replication (the input of the power tables).

    Attributes
    ----------
    decisions : dict of str to ndarray
        Test → signed pair decisions ``(R, P)`` (int8: +1, 0, −1), pairs ``a < b`` in the
        design's order; the omnibus tests (``"friedman"``, ``"imputed"``) → rejections ``(R,)``
        (bool).
    estimates : dict of str to ndarray
        Test → the estimate behind each pair decision ``(R, P)``, positive when ``a`` is better.
    computable : dict of str to ndarray
        Test → ``(R,)`` bool: the test had the blocks it needs (complete-case tests may have none).
    recovery : dict of str to ndarray
        ``"<aggregator>_tau"`` (Kendall τ_b of the aggregate order to the truth) and
        ``"<aggregator>_top1"`` (1 when the true best is the single best), ``(R,)`` each.
    rope_claims : dict of str to ndarray
        ``"bayes"`` → ``(R, P)`` bool: practical equivalence claimed.
    tested : dict of str to ndarray
        Test → ``(P,)`` bool: the pairs it decides (every pair, but for ``"bayes"``).
    n_replications : int
        Replications done (fewer than asked when interrupted).
    """

    design: BenchmarkDesign
    tests: tuple[str, ...]
    by: str
    alpha: float
    seed: int
    decisions: dict[str, np.ndarray]
    estimates: dict[str, np.ndarray]
    computable: dict[str, np.ndarray]
    recovery: dict[str, np.ndarray]
    n_replications: int
    complete: bool
    rope_claims: dict[str, np.ndarray]
    tested: dict[str, np.ndarray]

    @classmethod
    def joined(
        cls,
        design: object,
        tests: tuple[str, ...],
        by: str,
        alpha: float,
        seed: int,
        chunks: tuple[dict[str, dict[str, np.ndarray]], int, bool],
        tested: dict[str, np.ndarray],
    ) -> Replicates:
        """The replications of :func:`rankstats.planning.chunks.run_chunks` (``chunks``: its
        joined parts, replications done, complete)."""
        parts, done, complete = chunks
        return cls(
            design=design,  # type: ignore[arg-type]
            tests=tests,
            by=by,
            alpha=alpha,
            seed=seed,
            decisions=parts["decisions"],
            estimates=parts["estimates"],
            computable=parts["computable"],
            recovery=parts["recovery"],
            n_replications=done,
            complete=complete,
            rope_claims=parts["rope_claims"],
            tested=tested,
        )


def check_tests(tests: str | Sequence[str]) -> tuple[str, ...]:
    """The tests asked for, in the order of :data:`TESTS`; ValueError naming an unknown one."""
    asked = (tests,) if isinstance(tests, str) else tuple(tests)
    unknown = [t for t in asked if t not in TESTS]
    if unknown or not asked:
        raise ValueError(
            f"unknown test(s) {unknown}; tests are {', '.join(TESTS)}"
            if unknown
            else f"tests must name at least one of {', '.join(TESTS)}"
        )
    return tuple(t for t in TESTS if t in asked)


def zero_method_of(tests: tuple[str, ...], zero_method: str | None) -> str | None:
    """The Wilcoxon test's treatment of zero differences (None when ``tests`` has no Wilcoxon
    test; the default when not given): checked against
    :data:`~rankstats.significance.zero_methods.ZERO_METHODS`, and refused without a Wilcoxon
    test (it would be ignored)."""
    if zero_method is None:
        return DEFAULT_ZERO_METHOD if "wilcoxon" in tests else None
    check_zero_method(zero_method)
    if "wilcoxon" not in tests:
        raise AdviceError(
            "{zero_method} applies to the Wilcoxon signed-rank test ({tests}); the tests "
            f"simulated are {escape(', '.join(tests))}",
            zero_method=None,
            tests=Spelled("'wilcoxon'", "--tests wilcoxon"),
        )
    return zero_method


def chunk_size(design: BenchmarkDesign) -> int:
    """Replications per chunk: a function of the design only (the draws must not depend on the
    machine)."""
    cells = design.n_systems * design.n_tasks * design.n_instances
    return max(1, CHUNK_CELLS // cells)


def check_memory(design: BenchmarkDesign, tests: tuple[str, ...], replications: int) -> None:
    """The results of :func:`simulate_tests` (a decision and an estimate per pair, benchmark and
    test) must fit in memory: ResourceError otherwise, before anything is drawn."""
    scores = design.n_systems * design.n_tasks * design.n_instances
    require_memory(
        power_bytes(design.n_systems, replications, len(tests), scores),
        f"rs.power ({scores:,} simulated scores per benchmark)",
        n_systems=design.n_systems,
        fewer="systems, tasks or instances per benchmark, or fewer replications",
    )


def simulate_tests(
    design: BenchmarkDesign,
    tests: Sequence[str],
    by: str = "instance",
    alpha: float = 0.05,
    n_replications: int = 2000,
    seed: int = 0,
    progress: bool = True,
    n_jobs: int = -1,
    bayes: BayesOptions | None = None,
    zero_method: str | None = None,
) -> Replicates:
    """Draw ``n_replications`` benchmarks of ``design`` and apply every test to each
    (``zero_method``: the Wilcoxon test's zero differences, None for the default).

    Arguments are checked by the caller (:func:`rankstats.power`). An interrupt (Ctrl-C) stops
    after the chunk under way: the replications done are returned with ``complete=False``.
    """
    tests = check_tests(tests)

    def work(count: int, child: np.random.SeedSequence) -> dict[str, dict[str, np.ndarray]]:
        cube = design.draw(count, np.random.default_rng(child))
        # The posterior draws of the Bayesian test from a child of the chunk's seed: the
        # benchmarks do not depend on whether it is simulated.
        posterior = np.random.default_rng(child.spawn(1)[0])
        return _one_chunk(design, cube, tests, by, alpha, bayes, posterior, zero_method)

    chunks = run_chunks(n_replications, chunk_size(design), seed, work, progress, n_jobs)
    tested = {t: _tested(t, design.n_systems, bayes) for t in tests if t in PAIR_TESTS}
    return Replicates.joined(design, tests, by, alpha, seed, chunks, tested)


def _tested(test: str, n: int, bayes: BayesOptions | None) -> np.ndarray:
    mask = np.ones(n * (n - 1) // 2, dtype=bool)
    if test == "bayes":
        mask[:] = False
        mask[list(bayes.pairs if bayes else ())] = True
    return mask


def block_scores(cube: np.ndarray, by: str) -> np.ndarray:
    """``(r, N, T, K)`` scores → ``(r, B, N)`` blocks: one per (task, instance), or per task
    (the mean over its instances; NaN when the system has none)."""
    r, n, t, k = cube.shape
    if by == "instance":
        return cube.transpose(0, 2, 3, 1).reshape(r, t * k, n)
    return _nan_mean(cube, axis=3).transpose(0, 2, 1)


def _nan_mean(values: np.ndarray, axis: int) -> np.ndarray:
    """``nanmean`` without its empty-slice warning (NaN there): warnings filters are not
    thread-safe, and the chunks run in threads."""
    present = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, values, 0.0).sum(axis=axis) / present.sum(axis=axis)


def _one_chunk(
    design: BenchmarkDesign,
    cube: np.ndarray,
    tests: tuple[str, ...],
    by: str,
    alpha: float,
    bayes: BayesOptions | None = None,
    posterior: np.random.Generator | None = None,
    zero_method: str | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    scores = block_scores(cube, by)
    r, n_blocks, n = scores.shape
    observed = ~np.isnan(scores)
    n_observed = observed.sum(axis=-1)
    keep = n_observed >= 2  # the rankings a Scores table keeps
    complete = n_observed == n
    ranks = average_ranks(scores.reshape(-1, n)).reshape(scores.shape)
    ia, ib = pair_indices(n)
    decisions: dict[str, np.ndarray] = {}
    estimates: dict[str, np.ndarray] = {}
    computable: dict[str, np.ndarray] = {}

    if "hoeffding" in tests:
        wins, wins_observed, compared, _, _, n_rankings, _ = pair_sum_arrays(ranks, keep)
        h = hoeffding_arrays(wins, wins_observed, compared, n_rankings, alpha, "holm")
        estimate = h["estimate"][..., ia, ib] - 0.5
        decisions["hoeffding"] = signed(h["significant"][..., ia, ib], estimate)
        estimates["hoeffding"] = estimate
        computable["hoeffding"] = n_rankings > 0

    if {"friedman", "nemenyi", "conover"} & set(tests):
        n_complete, deviations = centred_ranks(ranks, complete)
        ok = n_complete >= 2
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_rank = deviations.sum(axis=-2) / n_complete[..., None]  # centred
        rank_gap = mean_rank[..., ib] - mean_rank[..., ia]  # > 0: a ranked better (lower)
        if "friedman" in tests:
            chi2, _ = friedman_arrays(ranks, complete)
            p = stats.chi2.sf(chi2, n - 1)
            decisions["friedman"] = ok & (p < alpha)
            computable["friedman"] = ok & np.isfinite(chi2)
        if "nemenyi" in tests:
            q = nemenyi_arrays(ranks, ia, ib, complete)
            significant = ok[..., None] & (q > q_alpha(alpha, n))
            decisions["nemenyi"] = signed(significant, rank_gap)
            estimates["nemenyi"] = np.where(ok[..., None], rank_gap, 0.0)
            computable["nemenyi"] = ok
        if "conover" in tests:
            t_stat, df = conover_arrays(ranks, ia, ib, complete)
            p = np.where(ok[..., None], 2.0 * stats.t.sf(t_stat, df[..., None]), 1.0)
            significant = holm_adjust(p) < alpha
            decisions["conover"] = signed(significant, rank_gap)
            estimates["conover"] = np.where(ok[..., None], rank_gap, 0.0)
            computable["conover"] = ok

    if {"imputed", "imputed-holm"} & set(tests):
        counted = observed & keep[..., None]
        expected = n - ranking_borda(ranks.reshape(-1, n)).reshape(ranks.shape)
        arrays = imputed_arrays(expected, counted)
        connected = arrays["connected"]
        if "imputed" in tests:
            p = stats.chi2.sf(arrays["statistic"], n - 1)
            decisions["imputed"] = connected & (p < alpha)
            computable["imputed"] = connected
        if "imputed-holm" in tests:
            sigma, sums = arrays["covariance"], arrays["rank_sums"]
            variance = sigma[..., ia, ia] + sigma[..., ib, ib] - 2.0 * sigma[..., ia, ib]
            gap = sums[..., ib] - sums[..., ia]  # > 0: a ranked better (lower imputed ranks)
            with np.errstate(invalid="ignore", divide="ignore"):
                z = gap / np.sqrt(variance)
                p = 2.0 * stats.norm.sf(np.abs(z))
            p = np.where(connected[..., None] & np.isfinite(p), p, 1.0)
            decisions["imputed-holm"] = signed(holm_adjust(p) < alpha, gap)
            with np.errstate(invalid="ignore", divide="ignore"):
                estimates["imputed-holm"] = gap / np.maximum(keep.sum(axis=-1), 1)[..., None]
            computable["imputed-holm"] = connected

    paired = [t for t in ("sign", "mcnemar", "wilcoxon", "t") if t in tests]
    if paired:
        d = scores[..., ia] - scores[..., ib]  # (r, B, P), NaN unless both were scored
        columns = d.transpose(1, 0, 2).reshape(n_blocks, -1)
        common = (~np.isnan(d)).sum(axis=1)
        for test in paired:
            if test in ("sign", "mcnemar"):  # McNemar: the sign test of binary outcomes
                wins_a, wins_b = np.sum(d > 0, axis=1), np.sum(d < 0, axis=1)
                p = sign_test_p_values(wins_a, wins_b)
                with np.errstate(invalid="ignore", divide="ignore"):
                    estimate = (wins_a + 0.5 * (common - wins_a - wins_b)) / common - 0.5
            elif test == "t":
                mean_diff, p = paired_t_p_values(columns)
                p, estimate = p.reshape(r, -1), mean_diff.reshape(r, -1)
            else:
                zeros = zero_method or DEFAULT_ZERO_METHOD
                p = wilcoxon_p_values(columns, False, zeros).reshape(r, -1)
                estimate = _nan_mean(d, axis=1)
            p = np.where(np.isnan(p), 1.0, p)
            estimate = np.where(np.isnan(estimate), 0.0, estimate)
            decisions[test] = signed(holm_adjust(p) < alpha, estimate)
            estimates[test] = estimate
            computable[test] = (common >= 2).all(axis=-1)

    rope_claims: dict[str, np.ndarray] = {}
    if "bayes" in tests:
        if bayes is None or posterior is None:
            raise ValueError("the Bayesian signed-rank test needs its options and a generator")
        _bayes(scores, bayes, posterior, decisions, estimates, computable, rope_claims)

    recovery = _recovery(design, scores, ranks, keep)
    return {
        "decisions": decisions,
        "estimates": estimates,
        "computable": computable,
        "recovery": recovery,
        "rope_claims": rope_claims,
    }


def _bayes(
    scores: np.ndarray,
    options: BayesOptions,
    rng: np.random.Generator,
    decisions: dict[str, np.ndarray],
    estimates: dict[str, np.ndarray],
    computable: dict[str, np.ndarray],
    rope_claims: dict[str, np.ndarray],
) -> None:
    """The Bayesian signed-rank decisions of the chosen pairs, in groups of comparisons whose
    posterior draws fit in memory (the others stay 0: not decided)."""
    r, _, n = scores.shape
    ia, ib = pair_indices(n)
    chosen = np.asarray(options.pairs, dtype=np.int64)
    d = scores[..., ia[chosen]] - scores[..., ib[chosen]]  # (r, B, p)
    rows = np.moveaxis(d, 1, 2).reshape(r * len(chosen), -1)  # one row per comparison
    shares = np.empty((len(rows), 3))
    group = max(1, BAYES_CELLS // (options.samples * (rows.shape[1] + 1)))
    for lo in range(0, len(rows), group):  # groups of comparisons: memory, each vectorised
        draws = posterior_sample_rows(
            rows[lo : lo + group], options.rope, options.prior, options.samples, rng
        )
        shares[lo : lo + group] = region_share_rows(draws)
    best = np.argmax(shares, axis=1)  # a tie to the first of a, rope, b (as decide())
    claimed = shares[np.arange(len(shares)), best] >= options.threshold
    sign = np.where(best == 0, 1, np.where(best == 2, -1, 0))
    full = np.zeros((r, len(ia)), dtype=np.int8)
    rope = np.zeros((r, len(ia)), dtype=bool)
    full[:, chosen] = (claimed * sign).reshape(r, len(chosen))
    rope[:, chosen] = (claimed & (best == 1)).reshape(r, len(chosen))
    mean = np.zeros((r, len(ia)))
    mean[:, chosen] = np.nan_to_num(_nan_mean(d, axis=1))
    decisions["bayes"] = full
    rope_claims["bayes"] = rope
    estimates["bayes"] = mean
    computable["bayes"] = (~np.isnan(d)).sum(axis=1).min(axis=1) >= 1


def signed(significant: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """The signed decisions of :class:`Replicates`: +1 / −1 where significant (the sign of the
    estimate), 0 elsewhere."""
    return (significant * np.sign(estimate)).astype(np.int8)


def _recovery(
    design: BenchmarkDesign, scores: np.ndarray, ranks: np.ndarray, keep: np.ndarray
) -> dict[str, np.ndarray]:
    """Kendall τ_b to the truth and the true best first, for σ^l (Borda over the rankings kept)
    and σ^μ (the mean over tasks of the mean score in the task)."""
    r, n_blocks, n = scores.shape
    borda = np.where(
        keep[..., None], ranking_borda(ranks.reshape(-1, n)).reshape(ranks.shape), 0.0
    ).sum(axis=-2)
    # σ^μ from block scores: each block is one task at level "task", one instance otherwise.
    tasks = design.n_tasks
    per_task = scores.reshape(r, tasks, n_blocks // tasks, n)
    kept = keep.reshape(r, tasks, n_blocks // tasks, 1) & ~np.isnan(per_task)
    mean = mean_scores(np.where(kept, per_task, 0.0).sum(axis=2), kept.sum(axis=2))
    return recovery_metrics(design, {"borda": borda, "mean": mean})


def recovery_metrics(
    design: BenchmarkDesign, aggregates: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """``"<aggregator>_tau"`` and ``"<aggregator>_top1"`` of :attr:`Replicates.recovery` from
    each aggregator's scores ``(R, N)`` (higher = better): Kendall τ_b to the design's truth and
    the true best first alone (:func:`~rankstats.core.metrics.ranking_metrics`)."""
    truth_rank = average_ranks(design.mu[None, :])[0]  # 1 = the best (scipy's rankdata of −μ)
    out = {}
    for name, score in aggregates.items():
        # Snapped as rs.aggregate's scores are, so that equal sums added in another order tie.
        metrics = ranking_metrics(snap_ties(score), truth_rank, k=1)
        out[f"{name}_tau"] = metrics["kendall_tau"]
        out[f"{name}_top1"] = metrics["top1"]
    return out

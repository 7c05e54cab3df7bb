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
``sign``        :func:`~rankstats.paired_analysis.paired_tests.sign_test_p_values`, Holm over   pair
                the pairs (the ``sign_p_holm`` of :func:`rankstats.paired`)
``wilcoxon``    :func:`~rankstats.paired_analysis.paired_tests.wilcoxon_p_values`, Holm         pair
``t``           :func:`~rankstats.paired_analysis.paired_tests.paired_t_p_values`, Holm         pair
==============  ==========================================================================  ======

"Blocks" says which blocks each test uses when scores are missing: every ranking with at least
two scores (as :class:`~rankstats.Scores` keeps them), complete blocks only (complete-case), or
the blocks where both systems of the pair were scored. A block is one (task, instance)
(``level="instance"``) or one task, its scores averaged over the instances (``"task"``). With
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

import os
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy import stats

from rankstats._util.progress import meter
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
from rankstats.planning.design import BenchmarkDesign, pair_indices
from rankstats.significance.blocks import centred_ranks
from rankstats.significance.friedman_test import friedman_arrays
from rankstats.significance.posthoc_tests import conover_arrays, nemenyi_arrays
from rankstats.significance.studentized_range import q_alpha

TESTS = ("hoeffding", "friedman", "nemenyi", "conover", "sign", "wilcoxon", "t")
#: Tests that decide about pairs (all but the omnibus Friedman test).
PAIR_TESTS = tuple(t for t in TESTS if t != "friedman")
LEVELS = ("instance", "task")
#: Aggregators whose recovery of the true order is measured in every replication.
AGGREGATORS = ("borda", "mean")
#: Scores per chunk of replications (bounds the memory: about 30 arrays of this size at the peak).
CHUNK_CELLS = 1_000_000


@dataclass(frozen=True, eq=False)
class Replicates:
    """What the simulations produced, per replication (the input of the power tables).

    Attributes
    ----------
    decisions : dict of str to ndarray
        Test → signed pair decisions ``(R, P)`` (int8: +1, 0, −1), pairs ``a < b`` in the
        design's order; ``"friedman"`` → rejections ``(R,)`` (bool).
    estimates : dict of str to ndarray
        Test → the estimate behind each pair decision ``(R, P)``, positive when ``a`` is better.
    computable : dict of str to ndarray
        Test → ``(R,)`` bool: the test had the blocks it needs (complete-case tests may have none).
    recovery : dict of str to ndarray
        ``"<aggregator>_tau"`` (Kendall τ_b of the aggregate order to the truth) and
        ``"<aggregator>_top1"`` (1 when the true best is the single best), ``(R,)`` each.
    replications : int
        Replications done (fewer than asked when interrupted).
    """

    design: BenchmarkDesign
    tests: tuple[str, ...]
    level: str
    alpha: float
    seed: int
    decisions: dict[str, np.ndarray]
    estimates: dict[str, np.ndarray]
    computable: dict[str, np.ndarray]
    recovery: dict[str, np.ndarray]
    replications: int
    complete: bool


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


def chunk_size(design: BenchmarkDesign) -> int:
    """Replications per chunk: a function of the design only (the draws must not depend on the
    machine)."""
    cells = design.n_systems * design.n_tasks * design.n_instances
    return max(1, CHUNK_CELLS // cells)


def simulate_tests(
    design: BenchmarkDesign,
    tests: Sequence[str],
    level: str = "instance",
    alpha: float = 0.05,
    replications: int = 2000,
    seed: int = 0,
    progress: bool = True,
    n_jobs: int = -1,
) -> Replicates:
    """Draw ``replications`` benchmarks of ``design`` and apply every test to each.

    Arguments are checked by the caller (:func:`rankstats.power`). An interrupt (Ctrl-C) stops
    after the chunk under way: the replications done are returned with ``complete=False``.
    """
    tests = check_tests(tests)
    per_chunk = chunk_size(design)
    n_chunks = -(-replications // per_chunk)
    children = np.random.SeedSequence(seed).spawn(n_chunks)

    def run(c: int) -> tuple[int, dict[str, dict[str, np.ndarray]]]:
        r = min(per_chunk, replications - c * per_chunk)
        cube = design.draw(r, np.random.default_rng(children[c]))
        return r, _one_chunk(design, cube, tests, level, alpha)

    parts: list[dict[str, dict[str, np.ndarray]]] = []
    done, complete = 0, True
    workers = min(n_chunks, _workers(n_jobs))
    # NumPy releases the GIL in the array work: threads share the chunks without copies; the
    # results are taken in chunk order, so they do not depend on the number of threads.
    with (
        meter("power simulation", total=replications, unit="replications", enabled=progress) as m,
        ThreadPoolExecutor(max_workers=workers) as pool,
    ):
        try:
            for r, part in pool.map(run, range(n_chunks)):
                parts.append(part)
                done += r
                m.advance(r)
        except KeyboardInterrupt:
            complete = False
            pool.shutdown(wait=True, cancel_futures=True)
    if not parts:
        raise KeyboardInterrupt("interrupted before the first chunk of replications")
    joined = {
        kind: {key: np.concatenate([p[kind][key] for p in parts]) for key in parts[0][kind]}
        for kind in parts[0]
    }
    return Replicates(
        design=design,
        tests=tests,
        level=level,
        alpha=alpha,
        seed=seed,
        decisions=joined["decisions"],
        estimates=joined["estimates"],
        computable=joined["computable"],
        recovery=joined["recovery"],
        replications=done,
        complete=complete,
    )


def _workers(n_jobs: int) -> int:
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


def block_scores(cube: np.ndarray, level: str) -> np.ndarray:
    """``(r, N, T, K)`` scores → ``(r, B, N)`` blocks: one per (task, instance), or per task
    (the mean over its instances; NaN when the system has none)."""
    r, n, t, k = cube.shape
    if level == "instance":
        return cube.transpose(0, 2, 3, 1).reshape(r, t * k, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a system without a score in a task
        return np.nanmean(cube, axis=3).transpose(0, 2, 1)


def _one_chunk(
    design: BenchmarkDesign, cube: np.ndarray, tests: tuple[str, ...], level: str, alpha: float
) -> dict[str, dict[str, np.ndarray]]:
    scores = block_scores(cube, level)
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
        decisions["hoeffding"] = _signed(h["significant"][..., ia, ib], estimate)
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
            decisions["nemenyi"] = _signed(significant, rank_gap)
            estimates["nemenyi"] = np.where(ok[..., None], rank_gap, 0.0)
            computable["nemenyi"] = ok
        if "conover" in tests:
            t_stat, df = conover_arrays(ranks, ia, ib, complete)
            p = np.where(ok[..., None], 2.0 * stats.t.sf(t_stat, df[..., None]), 1.0)
            significant = holm_adjust(p) < alpha
            decisions["conover"] = _signed(significant, rank_gap)
            estimates["conover"] = np.where(ok[..., None], rank_gap, 0.0)
            computable["conover"] = ok

    paired = [t for t in ("sign", "wilcoxon", "t") if t in tests]
    if paired:
        d = scores[..., ia] - scores[..., ib]  # (r, B, P), NaN unless both were scored
        columns = d.transpose(1, 0, 2).reshape(n_blocks, -1)
        common = (~np.isnan(d)).sum(axis=1)
        for test in paired:
            if test == "sign":
                wins_a, wins_b = np.sum(d > 0, axis=1), np.sum(d < 0, axis=1)
                p = sign_test_p_values(wins_a, wins_b)
                with np.errstate(invalid="ignore", divide="ignore"):
                    estimate = (wins_a + 0.5 * (common - wins_a - wins_b)) / common - 0.5
            elif test == "t":
                mean_diff, p = paired_t_p_values(columns)
                p, estimate = p.reshape(r, -1), mean_diff.reshape(r, -1)
            else:
                p = wilcoxon_p_values(columns).reshape(r, -1)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    estimate = np.nanmean(d, axis=1)
            p = np.where(np.isnan(p), 1.0, p)
            estimate = np.where(np.isnan(estimate), 0.0, estimate)
            decisions[test] = _signed(holm_adjust(p) < alpha, estimate)
            estimates[test] = estimate
            computable[test] = (common >= 2).all(axis=-1)

    recovery = _recovery(design, scores, ranks, keep)
    return {
        "decisions": decisions,
        "estimates": estimates,
        "computable": computable,
        "recovery": recovery,
    }


def _signed(significant: np.ndarray, estimate: np.ndarray) -> np.ndarray:
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
    truth_rank = stats.rankdata(-design.mu)
    out = {}
    for name, score in (("borda", borda), ("mean", mean)):
        # Snapped as rs.aggregate's scores are, so that equal sums added in another order tie.
        metrics = ranking_metrics(snap_ties(score), truth_rank, k=1)
        out[f"{name}_tau"] = metrics["kendall_tau"]
        out[f"{name}_top1"] = metrics["top1"]
    return out

r"""The battle power engine: many simulated battle logs, each fitted and tested, all at once.

For a :class:`~rankstats.planning.battle_design.BattleDesign`, ``R`` logs are drawn as counts per
ordered pair (``(R, P, 3)``: wins of the model shown first, of the second, ties) and each is
fitted as :func:`rankstats.fit_battles` would fit it, by the same likelihood
(:func:`rankstats.core.bradley_terry_mle.bt_derivatives`) solved for the whole stack
(:func:`rankstats.core.bradley_terry_stack.fit_bt_stack`), with the same decisions per log:

- **ties**: Davidson's parameter when the log holds ties (``fit_ties="auto"``), always, or ties
  as half wins; ``"davidson"`` on a log without ties has no MLE;
- **order effect**: estimated when the log's played pairs identify it (``fit_order=None``;
  :func:`rankstats.battles.design.decide_order_effect`), always (a log that cannot identify it
  is an error, as ``order_effect=True``), or never;
- **existence**: the MLE exists iff the "beats or ties" graph is strongly connected
  (:func:`rankstats.core.bradley_terry_stack.strongly_connected_stack`).

A log for which ``fit_battles`` would raise (no MLE, or the order effect asked for and not
identified) is *not computable*: no decision, and counted in ``computable``.  The tests:

==============  ================================================================================
``battles``     Wald tests of every rating difference with the Fisher covariance, Holm over the
                pairs (:meth:`rankstats.BattleFit.differences`,
                :func:`~rankstats.battles.rating_differences.wald_differences`)
``battles-ub``  the Fisher intervals at level 1 − α separate (one lies entirely above the
                other): the leaderboard's rank (UB) rule (:meth:`rankstats.BattleFit.table`,
                :func:`~rankstats.battles.rating_differences.intervals_above`)
==============  ================================================================================

The recovery of the true order is that of the fitted ratings (``bt_tau``, ``bt_top1``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.battles.design import identified_stack
from rankstats.battles.rating_differences import (
    fisher_bounds,
    intervals_above,
    wald_differences,
)
from rankstats.core.bradley_terry_mle import Pairs
from rankstats.core.bradley_terry_stack import fit_bt_stack, strongly_connected_stack
from rankstats.core.metrics import ranking_metrics
from rankstats.planning.battle_design import BattleDesign
from rankstats.planning.chunks import run_chunks
from rankstats.planning.design import pair_indices
from rankstats.planning.replications import Replicates

BATTLE_TESTS = ("battles", "battles-ub")
#: Counts and covariance entries per chunk of replications (bounds the memory).
CHUNK_CELLS = 500_000


def check_battle_tests(tests: str | Sequence[str]) -> tuple[str, ...]:
    """The battle tests asked for, in the order of :data:`BATTLE_TESTS`; ValueError naming the
    others."""
    asked = (tests,) if isinstance(tests, str) else tuple(tests)
    unknown = [t for t in asked if t not in BATTLE_TESTS]
    if unknown or not asked:
        raise ValueError(
            f"test(s) {unknown} do not apply to battle logs; a BattleDesign's tests are "
            f"{', '.join(BATTLE_TESTS)}"
            if unknown
            else f"tests must name at least one of {', '.join(BATTLE_TESTS)}"
        )
    return tuple(t for t in BATTLE_TESTS if t in asked)


def chunk_size(design: BattleDesign) -> int:
    """Replications per chunk: a function of the design only."""
    n = design.n_models
    pairs = len(design.pair_support()[0])
    return max(1, CHUNK_CELLS // (3 * pairs + (n + 2) ** 2))


def simulate_battle_tests(
    design: BattleDesign,
    tests: Sequence[str],
    alpha: float = 0.05,
    n_replications: int = 2000,
    seed: int = 0,
    progress: bool = True,
    n_jobs: int = -1,
) -> Replicates:
    """Draw ``n_replications`` battle logs of ``design``, fit each and apply every test.

    Arguments are checked by the caller (:func:`rankstats.power`); an interrupt returns the
    replications done with ``complete=False``.
    """
    tests = check_battle_tests(tests)
    support = design.pair_support()[:2]

    def work(count: int, child: np.random.SeedSequence) -> dict[str, dict[str, np.ndarray]]:
        counts = design.draw(count, np.random.default_rng(child))
        return battle_chunk(design, counts, support, tests, alpha)

    chunks = run_chunks(n_replications, chunk_size(design), seed, work, progress, n_jobs)
    n_pairs = design.n_models * (design.n_models - 1) // 2
    tested = {t: np.ones(n_pairs, dtype=bool) for t in tests}
    return Replicates.joined(design, tests, "battle", alpha, seed, chunks, tested)


def fit_logs(
    design: BattleDesign, counts: np.ndarray, support: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit every simulated log as :func:`rankstats.fit_battles` would: ``(theta (R, N),
    covariance (R, N, N), computable (R,))``, NaN where not computable."""
    n = design.n_models
    first, second = support
    r = counts.shape[0]
    w1, w2, t = (counts[..., k].astype(np.float64) for k in range(3))
    has_ties = t.sum(axis=1) > 0
    ties = {"auto": has_ties, "davidson": np.ones(r, bool), "half": np.zeros(r, bool)}[
        design.fit_ties
    ]
    computable = strongly_connected_stack(n, Pairs(n, first, second, w1, w2, t))
    if design.fit_ties == "davidson":
        computable &= has_ties  # fit_battles(ties=True) on a log without ties: no MLE
    identified = identified_stack(n, counts.sum(axis=2) > 0, first, second)
    if design.fit_order is True:
        computable &= identified
    order = identified if design.fit_order is None else np.full(r, bool(design.fit_order))
    theta = np.full((r, n), np.nan)
    covariance = np.full((r, n, n), np.nan)
    for use_ties in (False, True):
        for use_order in (False, True):
            rows = np.flatnonzero(computable & (ties == use_ties) & (order == use_order))
            if not len(rows):
                continue
            half = 0.0 if use_ties else 0.5
            pairs = Pairs(
                n,
                first,
                second,
                w1[rows] + half * t[rows],
                w2[rows] + half * t[rows],
                t[rows] if use_ties else np.zeros((len(rows), len(first))),
            )
            start = np.concatenate(
                [
                    design.mu,
                    [design.tie if design.tie is not None else 0.0] if use_ties else [],
                    [design.order_effect] if use_order else [],
                ]
            )
            fit = fit_bt_stack(pairs, start, use_ties, use_order)
            theta[rows] = fit.params[:, :n]
            covariance[rows] = fit.covariance[:, :n, :n]
            computable[rows] &= fit.converged
    return theta, covariance, computable


def battle_chunk(
    design: BattleDesign,
    counts: np.ndarray,
    support: tuple[np.ndarray, np.ndarray],
    tests: tuple[str, ...],
    alpha: float,
) -> dict[str, dict[str, np.ndarray]]:
    """The decisions, estimates and recovery of one chunk of simulated logs."""
    theta, covariance, computable = fit_logs(design, counts, support)
    a, b = pair_indices(design.n_models)
    difference, _, p = wald_differences(theta, covariance, a, b)
    decisions, estimates, able = {}, {}, {}
    for test in tests:
        if test == "battles":
            significant = (holm_adjust(p) < alpha) & computable[:, None]
            decision = (significant * np.sign(np.nan_to_num(difference))).astype(np.int8)
        else:
            low, high = fisher_bounds(theta, covariance, 1.0 - alpha)
            above = intervals_above(low, high)
            decision = above[:, a, b].astype(np.int8) - above[:, b, a].astype(np.int8)
        decisions[test] = decision
        estimates[test] = difference
        able[test] = computable
    truth_rank = stats.rankdata(-design.mu)
    tau = np.full(len(theta), np.nan)
    top1 = np.zeros(len(theta))
    if computable.any():
        metrics = ranking_metrics(theta[computable], truth_rank, k=1)
        tau[computable] = metrics["kendall_tau"]
        top1[computable] = metrics["top1"]
    return {
        "decisions": decisions,
        "estimates": estimates,
        "computable": able,
        "recovery": {"bt_tau": tau, "bt_top1": top1},
        "rope_claims": {},
    }

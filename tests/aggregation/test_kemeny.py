"""Kemeny search against brute force over all orders; heuristics against the exact search."""

import inspect
import itertools
import math
import sys
import time

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.aggregation.kemeny_heuristics import (
    heuristic_order,
    kemeny_cost,
    kwiksort,
    local_search,
)
from rankstats.aggregation.kemeny_search import NotProvedOptimalWarning, condorcet_blocks
from rankstats.aggregation.linear_ordering import solve_linear_ordering


def random_profile(rng, n, n_rankings, p_missing=0.2, n_levels=None):
    """Partial rankings with ties (few score levels) and missing entries, as a Rankings."""
    levels = n_levels or n
    scores = rng.integers(0, levels, size=(n_rankings, n)).astype(float)
    scores[rng.random(scores.shape) < p_missing] = np.nan
    # Keep at least two observed systems per ranking so no DataWarning is raised.
    scores[:, :2] = np.where(np.isnan(scores[:, :2]), 0.0, scores[:, :2])
    return rs.Rankings.from_rank_matrix(pd.DataFrame(scores, columns=[f"s{i}" for i in range(n)]))


def brute_force_cost(wins):
    """Minimum of Σ_{a above b} W[b, a] over all n! orders (vectorised over the orders)."""
    n = wins.shape[0]
    perms = np.array(list(itertools.permutations(range(n))))
    first, second = np.triu_indices(n, 1)
    return wins[perms[:, second], perms[:, first]].sum(axis=1).min()


def expected_distance_by_enumeration(order, ranks):
    """Σ over rankings of E d(order, Σ_l): enumerate every complete ranking compatible with each
    partial ranking (uniformly), count the pairs it orders against ``order``."""
    n = len(order)
    position = np.empty(n, dtype=int)
    position[order] = np.arange(n)
    total = 0.0
    for row in ranks:
        observed = [i for i in range(n) if not np.isnan(row[i])]
        count, disagreements = 0, 0
        for perm in itertools.permutations(range(n)):
            pos = np.empty(n, dtype=int)
            pos[list(perm)] = np.arange(n)
            if all(pos[a] < pos[b] for a in observed for b in observed if row[a] < row[b]):
                count += 1
                disagreements += sum(
                    (pos[i] < pos[j]) != (position[i] < position[j])
                    for i, j in itertools.combinations(range(n), 2)
                )
        total += disagreements / count
    return total


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_exact_equals_brute_force(n):
    rng = np.random.default_rng(100 + n)
    for _ in range(8 if n < 8 else 3):
        rk = random_profile(rng, n, n_rankings=int(rng.integers(2, 7)), n_levels=4)
        pw = rs.pairwise(rk)
        res = rs.kemeny(rk, method="exact")
        assert res.optimal
        assert res.cost == pytest.approx(brute_force_cost(pw.wins), abs=1e-9)
        assert res.lower_bound == pytest.approx(res.cost)
        assert sorted(res.order) == sorted(rk.systems)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_cost_is_the_expected_kendall_distance(n):
    """The objective recomputed independently: linear extensions of every partial ranking."""
    rng = np.random.default_rng(7 + n)
    for _ in range(3):
        rk = random_profile(rng, n, n_rankings=3, p_missing=0.3, n_levels=3)
        res = rs.kemeny(rk, method="exact")
        index = {s: i for i, s in enumerate(rk.systems)}
        order = np.array([index[s] for s in res.order])
        # Tied systems are broken uniformly by the enumeration, as the imputation does.
        assert res.cost == pytest.approx(expected_distance_by_enumeration(order, rk.ranks))


def test_split_never_changes_the_optimal_cost():
    rng = np.random.default_rng(2024)
    n_blocks = []
    for _ in range(100):
        n = int(rng.integers(4, 11))
        # Few rankings with few levels: exact majority ties are frequent.
        rk = random_profile(rng, n, n_rankings=int(rng.integers(2, 6)), n_levels=3)
        split = rs.kemeny(rk, method="exact")
        whole = rs.kemeny(rk, method="exact", split=False)
        assert split.optimal and whole.optimal
        assert split.cost == pytest.approx(whole.cost, abs=1e-9)
        n_blocks.append(len(split.components))
    # The test exercises the split: most profiles decompose.
    assert np.mean(np.array(n_blocks) > 1) > 0.5


def test_split_with_exact_ties_against_brute_force():
    # a ties b exactly; c beats both; d loses to all: blocks must not force a wrong side.
    rk = rs.Rankings.from_orderings(
        [["c", "a", "b", "d"], ["b", "c", "a", "d"], ["a", "b", "c", "d"], ["c", "b", "a", "d"]]
    )
    pw = rs.pairwise(rk)
    res = rs.kemeny(rk, method="exact")
    assert res.cost == pytest.approx(brute_force_cost(pw.wins))
    blocks = condorcet_blocks(pw.wins)
    assert sum(len(b) for b in blocks) == 4
    # Every strict majority points forward across blocks.
    label = np.empty(4, dtype=int)
    for k, b in enumerate(blocks):
        label[b] = k
    margin = pw.wins - pw.wins.T
    i, j = np.nonzero(margin > 0)
    assert np.all(label[i] <= label[j])


def test_heuristic_and_bounds_against_exact():
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = int(rng.integers(5, 16))
        rk = random_profile(rng, n, n_rankings=int(rng.integers(3, 9)), n_levels=n)
        exact = rs.kemeny(rk, method="exact")
        heur = rs.kemeny(rk, method="heuristic", seed=int(rng.integers(1000)))
        assert heur.cost >= exact.cost - 1e-9
        assert heur.lower_bound <= exact.cost + 1e-9
        assert 0 <= heur.gap < 1


def test_lp_lower_bound_is_below_the_optimum():
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(5, 9))
        wins = rs.pairwise(random_profile(rng, n, 5, p_missing=0.0)).wins
        lines = []
        exact = solve_linear_ordering(wins, progress=lines.append)
        bounds = [float(line.split("bound ")[1].split(",")[0]) for line in lines]
        assert exact.optimal
        best = kemeny_cost(wins, exact.order)
        assert best == pytest.approx(brute_force_cost(wins))
        # Every intermediate relaxation bound (LP, then ILP with fewer cuts) is valid.
        assert len(bounds) >= 1
        assert max(bounds) <= best + 1e-9
        assert np.all(np.diff(bounds) >= -1e-9)


def test_local_search_never_worsens_its_start():
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(2, 30))
        wins = rs.pairwise(random_profile(rng, n, 6)).wins
        start = rng.permutation(n)
        polished = local_search(wins, start)
        assert sorted(polished.tolist()) == list(range(n))
        assert kemeny_cost(wins, polished) <= kemeny_cost(wins, start) + 1e-9
        # No single insertion move improves the result (checked by brute force).
        cost = kemeny_cost(wins, polished)
        for p in range(n):
            rest = np.delete(polished, p)
            for q in range(n):
                moved = np.insert(rest, q, polished[p])
                assert kemeny_cost(wins, moved) >= cost - 1e-9


def test_kwiksort_is_a_seeded_permutation():
    wins = rs.pairwise(random_profile(np.random.default_rng(0), 25, 5)).wins
    a = kwiksort(wins, np.random.default_rng(1))
    b = kwiksort(wins, np.random.default_rng(1))
    assert sorted(a.tolist()) == list(range(25))
    np.testing.assert_array_equal(a, b)
    assert heuristic_order(wins, 4).tolist() == heuristic_order(wins, 4).tolist()


def test_time_limit_returns_the_best_order_with_its_gap_and_warns():
    rng = np.random.default_rng(0)
    ranks = np.argsort(rng.random((7, 30)), axis=1) + 1.0
    rk = rs.Rankings(ranks, tuple(f"s{i}" for i in range(30)), pd.RangeIndex(7))
    exact = rs.kemeny(rk, method="exact", time_limit=None)
    assert exact.optimal and exact.time_limit is None
    for method in ("exact", "auto"):
        # No exception when time runs out, for either method: the best order and its gap.
        with pytest.warns(NotProvedOptimalWarning, match=r"NOT proved optimal.*gap"):
            res = rs.kemeny(rk, method=method, time_limit=1e-9)
        assert not res.optimal and res.time_limit == 1e-9
        assert sorted(res.order) == sorted(rk.systems)
        assert res.lower_bound <= exact.cost + 1e-9 <= res.cost + 1e-9
        assert res.gap == pytest.approx((res.cost - res.lower_bound) / res.cost)
        assert "time limit" in res.message and "not proved optimal" in repr(res)


def test_default_time_limit_is_finite():
    assert inspect.signature(rs.kemeny).parameters["time_limit"].default == 60.0
    res = rs.kemeny(rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]]))
    assert res.time_limit == 60.0 and res.optimal


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "10", True])
def test_time_limit_must_be_positive_or_none(bad):
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]])
    with pytest.raises(ValueError, match="time_limit"):
        rs.kemeny(rk, time_limit=bad)


def _discordant_pairs(order, rk):
    """Total Kendall distance of ``order`` to complete rankings without ties, counted pair by
    pair from the rank matrix (independently of rs.pairwise)."""
    index = {s: i for i, s in enumerate(rk.systems)}
    pos = np.array([index[s] for s in order])
    ranks = rk.ranks[:, pos]  # columns in consensus order: a pair (p < q) agrees if rank_p < rank_q
    return float(sum((ranks[:, [p]] > ranks[:, p + 1 :]).sum() for p in range(len(pos))))


def test_hard_profile_is_stopped_by_the_time_limit():
    """200 uniformly random rankings of 100 systems: no proof in 2 s; the call returns on time
    with a consistent cost, bound and gap (the issue: time_limit=None ran past 300 s)."""
    rng = np.random.default_rng(1)
    n = 100
    ranks = np.argsort(rng.random((200, n)), axis=1) + 1.0
    rk = rs.Rankings(ranks, tuple(f"s{i}" for i in range(n)), pd.RangeIndex(200))
    start = time.perf_counter()
    with pytest.warns(NotProvedOptimalWarning, match="NOT proved optimal"):
        res = rs.kemeny(rk, time_limit=2.0)
    elapsed = time.perf_counter() - start
    assert elapsed < 4.0
    assert not res.optimal
    assert sorted(res.order) == sorted(rk.systems)
    assert res.cost == pytest.approx(_discordant_pairs(res.order, rk))
    assert res.lower_bound <= res.cost
    # Every pair costs at least its minority count: a valid bound is at least that.
    wins = rs.pairwise(rk).wins
    assert res.lower_bound >= np.triu(np.minimum(wins, wins.T), 1).sum() - 1e-6
    assert 0 < res.gap < 0.05  # 0.86 % on the development machine
    assert res.gap == pytest.approx((res.cost - res.lower_bound) / res.cost)


def test_aggregate_details_carry_the_proof_status(monkeypatch):
    module = sys.modules[
        "rankstats.aggregation.kemeny_search"
    ]  # rankstats.aggregation.kemeny_search is also the function's name
    scores = rs.load_dataset("xtreme_missing")
    agg = rs.aggregate(scores, method="kemeny")
    details = agg.details
    assert {"kemeny", "optimal", "gap", "lower_bound", "cost", "time_limit"} <= set(details)
    assert details["optimal"] is True and details["gap"] == 0.0
    assert details["cost"] == details["lower_bound"] == details["kemeny"].cost
    assert details["time_limit"] == 60.0
    # Out of time: the aggregate still returns, with the gap to print.
    monkeypatch.setattr(module, "DEFAULT_TIME_LIMIT", 1e-9)
    rng = np.random.default_rng(0)
    ranks = np.argsort(rng.random((7, 30)), axis=1) + 1.0
    rk = rs.Rankings(ranks, tuple(f"s{i}" for i in range(30)), pd.RangeIndex(7))
    with pytest.warns(NotProvedOptimalWarning):
        slow = rs.aggregate(rk, method="kemeny")
    assert slow.details["optimal"] is False and slow.details["time_limit"] == 1e-9
    assert slow.details["gap"] == pytest.approx(
        (slow.details["cost"] - slow.details["lower_bound"]) / slow.details["cost"]
    )
    assert slow.order == slow.details["kemeny"].order


def test_inputs_agree_and_aggregate_registration():
    scores = rs.load_dataset("xtreme_missing")
    rk = rs.Rankings.from_scores(scores, by="task")
    by_scores = rs.kemeny(scores)
    by_rankings = rs.kemeny(rk)
    by_pairwise = rs.kemeny(rs.pairwise(rk))
    assert by_scores.cost == by_rankings.cost == by_pairwise.cost
    assert by_scores.order == by_rankings.order == by_pairwise.order
    agg = rs.aggregate(scores, method="kemeny")
    assert agg.order == by_scores.order
    assert agg.scores[agg.order[0]] == len(agg.order) - 1
    assert agg.details["kemeny"].optimal


def test_condorcet_winner_and_unanimity():
    rk = rs.Rankings.from_orderings([["b", "a", "c", "d"]] * 3 + [["d", "c", "a", "b"]])
    res = rs.kemeny(rk)
    assert res.order == ["b", "a", "c", "d"]
    assert res.cost == pytest.approx(6.0)  # one ranking reverses all 6 pairs
    assert res.mean_distance == pytest.approx(1.5)
    assert "optimal" in repr(res)


def test_bad_input():
    rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a"]])
    with pytest.raises(ValueError, match="method must be one of"):
        rs.kemeny(rk, method="brute")
    with pytest.raises(ValueError, match="time_limit"):
        rs.kemeny(rk, time_limit=0)
    with pytest.raises(TypeError, match="Rankings, Scores or Pairwise"):
        rs.kemeny(np.zeros((2, 2)))


def test_single_and_two_systems():
    res = rs.kemeny(rs.Rankings.from_orderings([["a", "b"], ["b", "a"], ["a", "b"]]))
    assert res.order == ["a", "b"] and res.cost == 1.0 and res.optimal
    assert math.isclose(res.gap, 0.0)

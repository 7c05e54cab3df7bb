"""Dispersion against brute force, enumeration and the 2022 paper's Table 5 (the Kendall distance
itself is tested in test_metrics.py)."""

import doctest
import importlib
import itertools
import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.aggregation.dispersion_analysis import (
    _pairwise_term,
    _state_matrices,
    expected_distance,
)
from rankstats.core.pair_probabilities import pair_sums


# ---------------------------------------------------------------------------- dispersion
def completions(row):
    """All complete orders compatible with a partial ranking (positions), uniformly weighted."""
    n = len(row)
    observed = [i for i in range(n) if not np.isnan(row[i])]
    out = []
    for perm in itertools.permutations(range(n)):
        pos = np.empty(n)
        pos[list(perm)] = np.arange(n)
        if all(pos[a] < pos[b] for a in observed for b in observed if row[a] < row[b]):
            out.append(pos)
    return out


def tied_pairs(row):
    n = len(row)
    return {
        (i, j)
        for i, j in itertools.combinations(range(n), 2)
        if not np.isnan(row[i]) and row[i] == row[j]
    }


def enumerated_distance(row_a, row_b):
    """E d(Σ_a, Σ_b) by enumeration: independent uniform completions; pairs tied (both
    evaluated, equal) in a ranking keep their tie, as in the Kendall distance with ties."""
    ca, cb = completions(row_a), completions(row_b)
    ta, tb = tied_pairs(row_a), tied_pairs(row_b)
    total = 0.0
    for pa in ca:
        for pb in cb:
            for i, j in itertools.combinations(range(len(row_a)), 2):
                in_a, in_b = (i, j) in ta, (i, j) in tb
                if in_a and in_b:
                    continue
                if in_a != in_b:
                    total += 0.5
                elif (pa[i] < pa[j]) != (pb[i] < pb[j]):
                    total += 1
    return total / (len(ca) * len(cb))


def partial_profile(rng, n, n_rankings, p_missing=0.3, levels=3):
    ranks = rng.integers(0, levels, size=(n_rankings, n)).astype(float)
    ranks[rng.random(ranks.shape) < p_missing] = np.nan
    ranks[:, :2] = np.where(np.isnan(ranks[:, :2]), 0.0, ranks[:, :2])
    return rs.Rankings.from_rank_matrix(pd.DataFrame(ranks, columns=[f"s{i}" for i in range(n)]))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_exact_pairwise_term_equals_enumeration(n):
    rng = np.random.default_rng(n)
    rk = partial_profile(rng, n, 4)
    rows = rk.ranks
    brute = np.mean(
        [enumerated_distance(rows[a], rows[b]) for a in range(4) for b in range(4) if a != b]
    )
    dp = rs.dispersion(rk, method="exact")
    assert dp.pairwise == pytest.approx(brute, abs=1e-12)
    # The per-pair sampled kernel agrees with the enumeration too.
    a, b = np.array([0, 1, 2]), np.array([1, 3, 0])
    expected = [enumerated_distance(rows[i], rows[j]) for i, j in zip(a, b, strict=True)]
    np.testing.assert_allclose(expected_distance(rows[a], rows[b]), expected, atol=1e-12)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_consensus_term_equals_enumeration(n):
    rng = np.random.default_rng(10 + n)
    rk = partial_profile(rng, n, 5)
    # A consensus with a tie, and a strict one.
    for consensus in (rng.integers(0, 2, size=n).astype(float), rng.permutation(n) + 1.0):
        series = pd.Series(consensus, index=list(rk.systems))
        brute = np.mean([enumerated_distance(consensus, row) for row in rk.ranks])
        assert rs.dispersion(rk, consensus=series).consensus == pytest.approx(brute, abs=1e-12)


def test_dispersion_reads_the_one_imputation_kernel():
    """The exact dispersion is computed from rankstats.core.pair_probabilities.pair_sums (the kernel
    behind rs.pairwise): its sums equal the per-ranking pair states of the sampled path, summed."""
    rk = partial_profile(np.random.default_rng(0), 12, 30, levels=5)
    sums = pair_sums(rk.ranks, second_moment=True)
    np.testing.assert_array_equal(sums.wins, rs.pairwise(rk).wins)
    above, tied = _state_matrices(rk.ranks)
    np.testing.assert_allclose(above.sum(axis=0) + tied.sum(axis=0) / 2, sums.wins, atol=1e-12)
    np.testing.assert_array_equal(tied.sum(axis=0), sums.ties)
    product = (above * np.swapaxes(above, 1, 2)).sum(axis=0)
    np.testing.assert_allclose(product, sums.self_product, atol=1e-12)
    assert rs.dispersion(rk, method="exact").pairwise == _pairwise_term(sums)


def test_consensus_term_is_the_kemeny_objective():
    rk = partial_profile(np.random.default_rng(1), 9, 12, levels=4)
    res = rs.kemeny(rk)
    dp = rs.dispersion(rk, consensus=res)
    assert dp.consensus * rk.n_rankings == pytest.approx(res.cost)


def test_random_baseline_is_the_mean_over_all_orders():
    rk = partial_profile(np.random.default_rng(2), 5, 6)
    systems = list(rk.systems)
    values = [
        rs.dispersion(rk, consensus=[systems[i] for i in perm]).consensus
        for perm in itertools.permutations(range(5))
    ]
    assert np.mean(values) == pytest.approx(rs.dispersion(rk).random_baseline)
    assert rs.dispersion(rk).random_baseline == 5 * 4 / 4


def test_bounds_hold():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(3, 12))
        # Lower bound γ/2 ≤ L(σ): any consensus, partial rankings with ties.
        rk = partial_profile(rng, n, int(rng.integers(2, 10)), levels=int(rng.integers(2, 5)))
        sigma = pd.Series(rng.integers(0, n, size=n).astype(float), index=list(rk.systems))
        dp = rs.dispersion(rk, consensus=sigma)
        assert dp.consensus >= dp.lower_bound - 1e-9
        # Upper bound L(σ*) ≤ γ: Kemeny consensus of complete rankings without ties.
        ranks = np.argsort(rng.random((int(rng.integers(2, 10)), n)), axis=1) + 1.0
        full = rs.Rankings(ranks, rk.systems, pd.RangeIndex(len(ranks)))
        dk = rs.dispersion(full, consensus=rs.kemeny(full))
        assert dk.lower_bound - 1e-9 <= dk.consensus <= dk.upper_bound + 1e-9


def test_complete_rankings_pairwise_term_by_direct_loop():
    rng = np.random.default_rng(4)
    ranks = np.argsort(rng.random((9, 30)), axis=1) + 1.0
    rk = rs.Rankings(ranks, tuple(f"s{i}" for i in range(30)), pd.RangeIndex(9))
    i, j = np.triu_indices(30, 1)

    def discordant(a, b):  # complete rankings without ties: discordant pairs only
        return np.sum((a[i] - a[j]) * (b[i] - b[j]) < 0)

    direct = np.mean([discordant(ranks[a], ranks[b]) for a in range(9) for b in range(a)])
    assert rs.dispersion(rk).pairwise == pytest.approx(direct)


def test_sampled_estimate_covers_the_exact_value():
    rng = np.random.default_rng(5)
    rk = partial_profile(rng, 15, 300, p_missing=0.2, levels=6)
    exact = rs.dispersion(rk, method="exact").pairwise
    misses = 0
    for seed in range(10):
        dp = rs.dispersion(rk, method="sampled", rtol=0.02, seed=seed)
        low, high = dp.pairwise_interval
        misses += not (low <= exact <= high)
        assert dp.draws > 0 and dp.method == "sampled"
        assert high - low <= 2 * 0.02 * dp.pairwise * 1.0001
    assert misses == 0  # δ = 0.05 per run; the intervals are conservative


def test_dispersion_errors():
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]])
    with pytest.raises(ValueError, match="missing: \\['c'\\]"):
        rs.dispersion(rk, consensus=["a", "b"])
    with pytest.raises(ValueError, match="unknown: \\['z'\\]"):
        rs.dispersion(rk, consensus=["a", "b", "c", "z"])
    with pytest.raises(ValueError, match="at least two rankings"):
        rs.dispersion(rs.Rankings.from_orderings([["a", "b"]]))
    with pytest.raises(ValueError, match="needs Scores"):
        rs.dispersion_table(rk, candidates=["mean"])
    with pytest.raises(ValueError, match="unknown candidate"):
        rs.dispersion_table(rk, candidates=["best"])


def test_dispersion_table_orders_candidates():
    tab = rs.dispersion_table(rs.load_dataset("superglue"))
    assert tab["candidate"].tolist() == ["kemeny", "borda", "mean", "random"]
    assert tab.set_index("candidate")["distance"].idxmin() == "kemeny"
    assert tab["above_lower_bound"].all()
    assert tab.loc[tab.candidate == "random", "distance"].item() == 24 * 23 / 4


# ---------------------------------------------------------------------------- Table 5 (2022)
def _reference(name, order):
    path = resources.files("rankstats.datasets") / "data" / "reference"
    ranks = pd.read_csv(path / f"{name}_task_ranks_{order}.csv")
    return ranks["Model"].tolist(), ranks.drop(columns="Model").to_numpy().T


def _inverse(perm):
    inv = np.empty_like(perm)
    inv[perm] = np.arange(len(perm))
    return inv


# Ties in the Borda totals were broken by the numpy sort of the time: in file order for GLUE
# and XTREME, in reverse file order for SuperGLUE's two tied pairs.
TIE_ORDER = {"glue": "file", "superglue": "reverse", "xtrem": "file"}


@pytest.mark.parametrize("name", ["glue", "superglue", "xtrem"])
def test_table5_published_values(name):
    """The paper's distance compares inverse permutations; with it the published values
    come out exactly (reference_values.json, Colombo et al. 2022, Table 5)."""
    path = resources.files("rankstats.datasets") / "data" / "reference" / "reference_values.json"
    published = json.loads(path.read_text())[name]
    models, task_ranks = _reference(name, "fileorder")
    n = len(models)
    totals = task_ranks.sum(axis=0)
    tie_key = np.arange(n) if TIE_ORDER[name] == "file" else -np.arange(n)
    borda = _inverse(np.lexsort((tie_key, totals)))  # 0 = worst, as the paper's argsort
    mean_models, _ = _reference(name, "meanorder")
    position = {m: k for k, m in enumerate(mean_models)}
    mean = np.array([n - 1 - position[m] for m in models])
    inverse_tasks = np.array([_inverse(r) for r in task_ranks])
    paper_borda = rs.kendall_distance(_inverse(borda), inverse_tasks).mean()
    paper_mean = rs.kendall_distance(_inverse(mean), inverse_tasks).mean()
    assert paper_borda == pytest.approx(published["dispersion_borda"], abs=1e-9)
    assert paper_mean == pytest.approx(published["dispersion_mean"], abs=1e-9)
    # With the Kendall distance proper (on the rank vectors) the values differ.
    assert rs.kendall_distance(borda, task_ranks).mean() != pytest.approx(paper_borda)


def test_docstring_examples():
    # rankstats.aggregation.kemeny_search / rankstats.aggregation.dispersion_analysis are the
    # functions: fetch the modules by name.
    for name in (
        "rankstats.aggregation.kemeny_search",
        "rankstats.aggregation.dispersion_analysis",
    ):
        module = importlib.import_module(name)
        failures, tests = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert tests > 0
        assert failures == 0

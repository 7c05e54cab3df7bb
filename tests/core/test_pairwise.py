"""The closed-form imputation against exhaustive enumeration of linear extensions."""

import importlib
import itertools

import numpy as np
import pytest

import rankstats as rs
from rankstats.core.pair_probabilities import Pairwise


def enumerate_probabilities(ranks: np.ndarray) -> np.ndarray:
    """P[i, j] by listing every complete ranking compatible with one partial ranking.

    A permutation is compatible when every strict preference between observed systems is kept;
    tied observed systems and unobserved systems may go anywhere. Uniform over compatible ones.
    """
    n = len(ranks)
    obs = [i for i in range(n) if not np.isnan(ranks[i])]
    counts = np.zeros((n, n))
    total = 0
    for perm in itertools.permutations(range(n)):
        pos = np.empty(n, dtype=int)
        pos[list(perm)] = np.arange(n)
        if all(pos[a] < pos[b] for a in obs for b in obs if ranks[a] < ranks[b]):
            total += 1
            counts += pos[:, None] < pos[None, :]
    return counts / total


def random_partial(rng, n):
    k = rng.integers(0, n + 1)
    ranks = np.full(n, np.nan)
    chosen = rng.choice(n, size=k, replace=False)
    # Few distinct values so that ties are frequent; ranks deliberately not compact.
    ranks[chosen] = rng.integers(1, 4, size=k) * 3.0
    return ranks


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_closed_form_equals_enumeration(n):
    rng = np.random.default_rng(n)
    for _ in range(6 if n == 7 else 20):
        raw = random_partial(rng, n)
        import pandas as pd

        rk = rs.Rankings.from_rank_matrix(pd.DataFrame([raw]))
        pw = rs.pairwise(rk)
        expected = enumerate_probabilities(raw)
        np.fill_diagonal(expected, 0.0)
        np.testing.assert_allclose(pw.wins, expected, atol=1e-12)


def test_both_observed_counts():
    rk = rs.Rankings.from_orderings([["a", ("b", "c")], ["c", "a"], ["b"]], systems="abcd")
    pw = rs.pairwise(rk)
    # compared: a-b 1, a-c 2, b-c 1; d never.
    np.testing.assert_array_equal(
        pw.compared, [[0, 1, 2, 0], [1, 0, 1, 0], [2, 1, 0, 0], [0, 0, 0, 0]]
    )
    assert pw.wins_observed[0, 2] == 1.0 and pw.wins_observed[2, 0] == 1.0
    assert pw.wins_observed[1, 2] == 0.5
    np.testing.assert_array_equal(pw.n_evaluated, [2, 2, 2, 0])


def test_identities_and_additivity():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 9)).round(1)
    x[rng.random(x.shape) < 0.3] = np.nan
    import pandas as pd

    rk = rs.Rankings.from_rank_matrix(pd.DataFrame(-x))
    pw = rs.pairwise(rk)
    off = ~np.eye(9, dtype=bool)
    np.testing.assert_allclose((pw.wins + pw.wins.T)[off], 300)
    np.testing.assert_allclose(pw.wins_observed + pw.wins_observed.T, pw.compared)
    # Each ranking distributes N(N-1)/2 Borda points.
    assert pw.wins.sum() == pytest.approx(300 * 9 * 8 / 2)
    half = rs.pairwise(rs.Rankings.from_rank_matrix(pd.DataFrame(-x[:120])))
    rest = rs.pairwise(rs.Rankings.from_rank_matrix(pd.DataFrame(-x[120:])))
    both = half + rest
    np.testing.assert_allclose(both.wins, pw.wins)
    np.testing.assert_allclose(both.compared, pw.compared)
    assert both.n_rankings == 300
    assert isinstance(Pairwise.empty(pw.systems) + pw, Pairwise)


def test_blocks_do_not_change_the_result(monkeypatch):
    import pandas as pd

    mod = importlib.import_module("rankstats.core.pair_probabilities")

    rng = np.random.default_rng(2)
    x = rng.normal(size=(1000, 6))
    x[rng.random(x.shape) < 0.2] = np.nan
    rk = rs.Rankings.from_rank_matrix(pd.DataFrame(-x))
    whole = rs.pairwise(rk)
    monkeypatch.setattr(mod, "_BLOCK_CELLS", 37)
    blocked = rs.pairwise(rk)
    np.testing.assert_allclose(blocked.wins, whole.wins)
    np.testing.assert_allclose(blocked.wins_observed, whole.wins_observed)


def test_adding_different_systems_fails():
    a = rs.pairwise(rs.Rankings.from_orderings([["a", "b"]]))
    b = rs.pairwise(rs.Rankings.from_orderings([["b", "a"]]))
    with pytest.raises(ValueError, match="different systems"):
        a + b

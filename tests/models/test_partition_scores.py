"""Per-ranking Plackett–Luce score contributions (``pl_ranking_scores``): their sum is the
gradient of ``pl_derivatives``, and each row is the finite-difference gradient of that one
ranking's log-likelihood (Efron ties, sub-rankings and top-k rankings)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import rankstats as rs
from rankstats.models._data import pl_data
from rankstats.models._mle import pl_derivatives, pl_loglik, pl_ranking_scores

ORDERINGS = [
    ["a", "b", "c", "d"],
    ["b", ("a", "c"), "d"],
    [("c", "d"), "a"],
    ["d", "b"],
    [("a", "b", "c"), "d"],
    ["c", "a", ("b", "d")],
    ["a", ("b", "c", "d")],
]


def one_ranking(data, r):
    """The PLData of ranking ``r`` alone (rows are independent: a slice of every array)."""
    rows = slice(r, r + 1)
    return dataclasses.replace(
        data,
        index=data.index[rows],
        group_start=data.group_start[rows],
        group_end=data.group_end[rows],
        fraction=data.fraction[rows],
        term=data.term[rows],
        rankers=data.rankers[rows],
    )


def numeric_gradient(function, theta, h=1e-6):
    eye = np.eye(len(theta))
    return np.array([(function(theta + h * e) - function(theta - h * e)) / (2 * h) for e in eye])


@pytest.mark.parametrize("kind", ["subset", "top_k"])
def test_rows_are_finite_difference_gradients_and_sum_to_the_gradient(kind):
    data = pl_data(rs.Rankings.from_orderings(ORDERINGS), kind=kind)
    theta = np.array([0.4, -0.3, 1.1, -1.2])
    scores = pl_ranking_scores(data, theta)
    assert scores.shape == (len(ORDERINGS), 4)
    _, gradient, _ = pl_derivatives(data, theta)
    np.testing.assert_allclose(scores.sum(axis=0), gradient, atol=1e-12)
    for r in range(len(ORDERINGS)):
        single = one_ranking(data, r)
        expected = numeric_gradient(lambda t, single=single: pl_loglik(single, t), theta)
        np.testing.assert_allclose(scores[r], expected, atol=1e-7)
    # shift invariance: every row sums to zero over the systems
    np.testing.assert_allclose(scores.sum(axis=1), 0.0, atol=1e-12)


def test_blocks_of_rankings_give_the_same_scores(monkeypatch):
    from rankstats.models import _mle

    rng = np.random.default_rng(3)
    orders = [list(rng.permutation(list("abcdef"))[: rng.integers(2, 7)]) for _ in range(50)]
    data = pl_data(rs.Rankings.from_orderings(orders))
    theta = rng.normal(size=6)
    whole = pl_ranking_scores(data, theta)
    monkeypatch.setattr(_mle, "_BLOCK", 40)  # one or two rankings per block
    np.testing.assert_allclose(pl_ranking_scores(data, theta), whole, atol=1e-13)

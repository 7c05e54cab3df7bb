"""Size of the rank tree's instability tests when the worths do not change: simulated
Plackett–Luce rankings with random numeric and categorical covariates independent of them.  Each
test's rejection rate at α = 0.05 must lie within 3.5 Monte Carlo standard errors of 0.05, and
the tree (Bonferroni over the covariates) must split no more often than that."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

ALPHA = 0.05


def rejection_rates(replications, n, n_systems, subset, seed):
    rng = np.random.default_rng(seed)
    systems = np.array([f"s{i}" for i in range(n_systems)])
    theta = np.linspace(1.0, -1.0, n_systems)
    rejected = np.zeros((replications, 3), dtype=bool)  # numeric, categorical, the tree splits
    for r in range(replications):
        keys = theta + rng.gumbel(size=(n, n_systems))
        ranks = np.argsort(np.argsort(-keys, axis=1), axis=1) + 1.0
        if subset:  # sub-rankings: each ranker ranks a random 3 or more of the systems
            size = rng.integers(3, n_systems + 1, size=n)
            hidden = rng.uniform(size=(n, n_systems)).argsort(axis=1) >= size[:, None]
            ranks[hidden] = np.nan
        rk = rs.Rankings.from_rank_matrix(pd.DataFrame(ranks, columns=systems))
        covariates = pd.DataFrame(
            {"x": rng.normal(size=n), "g": rng.choice(["u", "v", "w"], size=n)}, index=rk.rankers
        )
        tests = rs.models.rank_tree(rk, covariates, max_depth=0).tests().set_index("covariate")
        rejected[r] = [
            tests.loc["x", "p_value"] < ALPHA,
            tests.loc["g", "p_value"] < ALPHA,
            tests["p_adjusted"].min() < ALPHA,
        ]
    return rejected.mean(axis=0)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "n_systems", "subset", "seed"), [(150, 4, False, 2026), (200, 6, True, 2027)]
)
def test_tests_hold_their_size_under_no_instability(n, n_systems, subset, seed):
    replications = 500
    rates = rejection_rates(replications, n, n_systems, subset, seed)
    se = np.sqrt(ALPHA * (1 - ALPHA) / replications)
    numeric, categorical, tree = rates
    assert abs(numeric - ALPHA) < 3.5 * se, rates
    assert abs(categorical - ALPHA) < 3.5 * se, rates
    assert tree < ALPHA + 3.5 * se, rates

"""The numba backend of the Mallows Gibbs sampler draws exactly the NumPy reference's chain.

Same seed → identical θ, σ and latent completions, sweep for sweep, on complete rankings, on
partial rankings with ties and unranked items, and on NASCAR; the statistical checks of the
reference (tests/models/test_mallows.py) therefore hold for both.
"""

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.models.mallows._gibbs import Chain, LogPrior, run_chain

pytest.importorskip("numba")

TIES = np.array(
    [[1.5, 1.5, 3, 4], [1, 2, 3.5, 3.5], [2, 1, 3, 4], [1, np.nan, 2.5, 2.5]], dtype=float
)


def partial_with_ties(n=12, size=15, seed=0):
    """Simulated Mallows rankings, 30 % unranked, ranks rounded into ties, renumbered."""
    rk = rs.simulate.mallows(n, 0.4, size=size, seed=seed)
    ranks = np.ceil(rk.ranks / 2.0)  # pairs of neighbours tie
    rng = np.random.default_rng(seed)
    ranks[rng.random(ranks.shape) < 0.3] = np.nan
    return rs.Rankings.from_rank_matrix(pd.DataFrame(ranks)).ranks


def assert_same_chains(ranks, sweeps, seed=0, step=1):
    """Run both backends ``step`` sweeps at a time; compare θ, σ and the completions."""
    prior = LogPrior(1.0, 0.1)
    start = np.arange(ranks.shape[1])
    a = Chain(ranks, prior, np.random.default_rng(seed), start, backend="numpy")
    b = Chain(ranks, prior, np.random.default_rng(seed), start, backend="numba")
    assert (a.backend, b.backend) == ("numpy", "numba")
    thetas = []
    for _ in range(0, sweeps, step):
        theta_a, sigma_a = a.run(step)
        theta_b, sigma_b = b.run(step)
        np.testing.assert_array_equal(theta_a, theta_b)
        np.testing.assert_array_equal(sigma_a, sigma_b)
        np.testing.assert_array_equal(a.positions, b.positions)
        np.testing.assert_array_equal(a.counts, b.counts)
        thetas.extend(theta_a)
    # The chain moved: not a trivially equal pair of frozen states.
    assert len(np.unique(thetas)) > 1


def test_identical_chains_complete_rankings():
    ranks = rs.simulate.mallows(8, 0.5, size=10, seed=1).ranks
    assert_same_chains(ranks, 200, step=50)


def test_identical_chains_ties_and_unranked_items_sweep_by_sweep():
    assert_same_chains(TIES, 60, seed=3)
    assert_same_chains(partial_with_ties(), 40, seed=4)


def test_identical_chains_large_theta_and_underflowing_weights():
    """Near-unanimous rankings: θ grows, most weights underflow to 0 in both backends."""
    ranks = np.tile(np.arange(1.0, 7.0), (40, 1))
    ranks[::3, 4] = np.nan
    assert_same_chains(ranks, 30, seed=5, step=10)


def test_identical_chains_nascar_short():
    assert_same_chains(rs.load_rankings("nascar").ranks, 10, seed=6, step=10)


@pytest.mark.slow
def test_identical_chains_nascar_a_few_hundred_sweeps():
    # 200 sweeps (2 blocks) of the NumPy reference: the cost is the reference, not numba
    assert_same_chains(rs.load_rankings("nascar").ranks, 200, seed=7, step=100)


def test_numba_chain_in_blocks_equals_one_run():
    prior = LogPrior(1.0, 0.1)
    theta, sigma = run_chain(
        TIES, 300, 50, prior, np.random.default_rng(9), np.arange(4), backend="numba"
    )
    chain = Chain(TIES, prior, np.random.default_rng(9), np.arange(4), backend="numba")
    chain.run(50, keep=False)
    parts = [chain.run(k) for k in (100, 1, 199)]
    np.testing.assert_array_equal(np.concatenate([t for t, _ in parts]), theta)
    np.testing.assert_array_equal(np.concatenate([p for _, p in parts]), sigma)


# short chains
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_fit_backends_give_the_same_fit():
    rk = rs.Rankings.from_rank_matrix(pd.DataFrame(partial_with_ties(n=8, size=10, seed=2)))
    settings = dict(draws=100, tune=20, chains=2, seed=4, progress=False, max_draws=100)
    fast = rs.models.Mallows().fit(rk, backend="numba", **settings)
    ref = rs.models.Mallows().fit(rk, backend="numpy", **settings)
    auto = rs.models.Mallows().fit(rk, **settings)
    assert (fast.info["backend"], ref.info["backend"], auto.info["backend"]) == (
        "numba",
        "numpy",
        "numba",
    )
    for name in ("theta", "position"):
        np.testing.assert_array_equal(fast.draws()[name], ref.draws()[name])
    assert fast.order == ref.order


# short chains
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_numba_chains_in_worker_processes_draw_the_same(monkeypatch):
    """Forked workers inherit the compiled kernels; their draws are the reference's."""
    from rankstats.models.mallows import timing

    if not timing.CAN_FORK:
        pytest.skip("chains run in parallel only where fork() is available")
    rk = rs.load_rankings("potato_visual")
    settings = dict(draws=60, tune=20, chains=3, seed=2, progress=False, max_draws=60)
    one = rs.models.Mallows().fit(rk, n_jobs=1, backend="numpy", **settings)
    monkeypatch.setattr(timing, "PARALLEL_FROM", 0.0)
    many = rs.models.Mallows().fit(rk, n_jobs=2, backend="numba", **settings)
    assert many.info["workers"] == 2 and many.info["backend"] == "numba"
    for name in ("theta", "position"):
        np.testing.assert_array_equal(many.draws()[name], one.draws()[name])

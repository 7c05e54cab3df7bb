"""Simulation-based calibration of the Mallows fit by Metropolis–Hastings (Talts et al. 2018).

Draw (ρ, α) from the prior, rankings from the model, fit them, and take the rank of the true α
(and of the true consensus position of one item) among the fit's draws: when the sampler and
the likelihood are right, these ranks are uniform. The check (χ² over 10 bins of 120
replications, p > 0.001) fails when the fit's prior differs from the one simulated from
(tested), the way a wrong partition function, acceptance ratio or augmentation would fail it.
The draws are thinned (one every 10 iterations) so that they are nearly independent.

Talts, S., Betancourt, M., Simpson, D., Vehtari, A. and Gelman, A. (2018). Validating Bayesian
inference algorithms with simulation-based calibration. arXiv:1804.06788.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.core.permutations.sampling import sample_mallows

pytestmark = pytest.mark.slow

N_ITEMS, N_RANKINGS, REPLICATIONS, DRAWS, BINS = 5, 8, 120, 99, 10
#: θ = α/n ~ Gamma(2, 4), mean 0.5: rankings of 5 items that agree, but not always.
SHAPE, RATE = 2.0, 4.0


def _ranks(model: rs.models.Mallows, shape: float, rate: float, distance: str) -> np.ndarray:
    """(replications, 2) ranks of the true α and of the true consensus position of item 0
    among DRAWS posterior draws (0 … DRAWS; ties broken at random)."""
    rng = np.random.default_rng(2024)
    out = np.empty((REPLICATIONS, 2), dtype=int)
    items = tuple("abcde")
    for rep in range(REPLICATIONS):
        theta = rng.gamma(shape, 1.0 / rate)
        alpha = theta * N_ITEMS
        rho = rng.permutation(N_ITEMS) + 1
        data = sample_mallows(rho, alpha, distance, N_RANKINGS, rng).astype(float)
        rk = rs.Rankings(data, items, pd.Index([f"r{j}" for j in range(N_RANKINGS)]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # one chain: no R-hat, no extension
            fit = model.fit(
                rk, draws=DRAWS, tune=300, thin=10, chains=1, seed=rep, progress=False,
                sampler="metropolis",
            )  # fmt: skip
        posterior = fit.draws()
        for k, (truth, draws) in enumerate(
            ((alpha, posterior["alpha"]), (float(rho[0]), posterior["position"][:, 0]))
        ):
            below = np.count_nonzero(draws < truth)
            ties = np.count_nonzero(draws == truth)
            out[rep, k] = below + rng.integers(0, ties + 1)
    return out


def _uniform_p(ranks: np.ndarray) -> float:
    counts = np.bincount(ranks * BINS // (DRAWS + 1), minlength=BINS)
    return float(stats.chisquare(counts).pvalue)


@pytest.mark.parametrize("distance", ["footrule", "cayley"])
def test_ranks_of_the_truth_are_uniform(distance):
    model = rs.models.Mallows(distance=distance, shape=SHAPE, rate=RATE)
    ranks = _ranks(model, SHAPE, RATE, distance)
    assert _uniform_p(ranks[:, 0]) > 0.001, "alpha"
    assert _uniform_p(ranks[:, 1]) > 0.001, "position"


def test_a_wrong_prior_fails_the_calibration():
    """The fit's prior, θ ~ Gamma(20, 20) (mean 1, sd 0.22), is not the one the data are
    simulated from (mean 0.5, sd 0.35)."""
    model = rs.models.Mallows(distance="footrule", shape=20.0, rate=20.0)
    ranks = _ranks(model, SHAPE, RATE, "footrule")
    assert _uniform_p(ranks[:, 0]) < 0.001


# ---------------------------------------------------------------------------- mixtures
MIX_ITEMS, MIX_RANKINGS, MIX_PSI = 5, 12, 2.0


def _mixture_ranks(psi_fit: float) -> np.ndarray:
    """(replications, 2) ranks of the true max α and max τ (label-invariant: the relabelling
    does not change them) among DRAWS posterior draws of a 2-cluster mixture, the data simulated
    from the mixture's prior with ψ = MIX_PSI and fitted with ψ = ``psi_fit``."""
    from rankstats.models.mallows._mixture import MixtureChain

    rng = np.random.default_rng(7)
    out = np.empty((REPLICATIONS, 2), dtype=int)
    alpha_rate = RATE / MIX_ITEMS  # θ ~ Gamma(SHAPE, RATE) is α ~ Gamma(SHAPE, RATE / n)
    for rep in range(REPLICATIONS):
        weight = rng.dirichlet([MIX_PSI, MIX_PSI])
        alpha = rng.gamma(SHAPE, 1.0 / alpha_rate, size=2)
        rho = [rng.permutation(MIX_ITEMS) + 1 for _ in range(2)]
        z = rng.choice(2, size=MIX_RANKINGS, p=weight)
        data = np.empty((MIX_RANKINGS, MIX_ITEMS))
        for k in range(2):
            if (z == k).any():
                data[z == k] = sample_mallows(
                    rho[k], alpha[k], "footrule", int((z == k).sum()), rng
                )
        chain = MixtureChain(
            data, "footrule", np.random.default_rng(rep), 2, alpha_shape=SHAPE,
            alpha_rate=alpha_rate, psi=psi_fit, alpha_sd=0.5,
        )  # fmt: skip
        chain.run(300, adapt=True)
        chain.set_pivot(chain.rho)
        draws = chain.run(DRAWS * 10, thin=10)
        for k, (truth, values) in enumerate(
            ((alpha.max(), draws.alpha.max(axis=1)), (weight.max(), draws.weight.max(axis=1)))
        ):
            out[rep, k] = np.count_nonzero(values < truth)
    return out


def test_a_two_cluster_mixture_is_calibrated():
    ranks = _mixture_ranks(MIX_PSI)
    assert _uniform_p(ranks[:, 0]) > 0.001, "max alpha"
    assert _uniform_p(ranks[:, 1]) > 0.001, "max weight"


def test_a_mixture_with_the_wrong_weight_prior_fails_the_calibration():
    """Fitted with ψ = 50 (weights near ½) to data simulated with ψ = 2."""
    ranks = _mixture_ranks(50.0)
    assert _uniform_p(ranks[:, 1]) < 0.001

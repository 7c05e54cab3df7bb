"""NUTS (PyMC) fits: the PyTensor likelihood equals the NumPy one, posteriors agree with the MAP /
normal approximation, diagnostics warn.  Few model graphs, one compile cache (tests/conftest.py);
small samples here, posterior-vs-MLE on large data and simulation-based calibration under slow."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankstats as rs
from rankstats._pymc import compat as _compat
from rankstats.errors import DataWarning
from rankstats.models import ConvergenceWarning
from rankstats.models import bradley_terry as bt_module
from rankstats.models import plackett_luce as pl_module
from rankstats.models._data import choice_sets, pl_data

pytensor = pytest.importorskip("pytensor")
from pytensor.graph.replace import clone_replace  # noqa: E402

pytestmark = pytest.mark.pymc  # runs PyMC / ArviZ: CI runs it on both stacks

SMALL = dict(draws=500, tune=500, chains=2, progress=False)


@pytest.fixture(scope="session")
def pl_nuts():
    return rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="nuts", seed=1, **SMALL)


@pytest.fixture(scope="session")
def bt_nuts():
    return rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="nuts", seed=2, **SMALL)


def _potential(model, name, value):
    x = pytensor.tensor.vector("x")
    graph = clone_replace(model.potentials[0], {model[name]: x})
    return pytensor.function([x], graph)


@pytest.mark.long
@pytest.mark.parametrize("layout", ["sets", "rankings"])
@pytest.mark.parametrize("kind", ["subset", "top_k"])
def test_pytensor_pl_likelihood_equals_numpy(kind, layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        rk = rs.Rankings.from_orderings(
            [
                ["a", "b", "c", "d"],
                ["b", ("a", "c"), "d"],
                [("c", "d", "e"), "a"],
                ["e", "a"],
                ["d", "e", ("b", "c")],
                ["a"],
            ]
        )
        data = pl_data(rk, kind)
    f = _potential(pl_module.pymc_model(data, 1.0, layout=layout), "log_worth", None)
    rng = np.random.default_rng(0)
    for _ in range(3):
        theta = rng.normal(size=5)
        theta -= theta.mean()
        expected = rs.models.PlackettLuce(kind=kind).log_likelihood(data, theta)
        assert float(f(theta)) == pytest.approx(expected, rel=1e-10)


@pytest.mark.long
def test_pytensor_bt_likelihood_equals_numpy():
    model_np = rs.models.BradleyTerry()
    counts = model_np.counts(rs.load_paired("pudding"))
    model = bt_module.pymc_model(counts, 1.0, ties=True)
    x = pytensor.tensor.vector("x")
    tie = pytensor.tensor.scalar("tie")
    graph = clone_replace(model.potentials[0], {model["log_worth"]: x, model["log_tie"]: tie})
    f = pytensor.function([x, tie], graph)
    theta = np.random.default_rng(1).normal(size=6)
    theta -= theta.mean()
    expected = model_np.log_likelihood(counts, theta, log_tie=-0.4)
    assert float(f(theta, -0.4)) == pytest.approx(expected, rel=1e-10)


def _agrees(fit, reference):
    """Posterior mean within 4 MCSE + 0.2 sd of the MAP; posterior sd within 25% of its se."""
    summary = fit.summary()
    rows = [f"log_worth[{s}]" for s in fit.systems]
    mean, sd, mcse = (summary.loc[rows, c].to_numpy() for c in ("mean", "sd", "mcse_mean"))
    np.testing.assert_array_less(np.abs(mean - reference.worth.to_numpy()), 4 * mcse + 0.2 * sd)
    np.testing.assert_allclose(sd, reference.se.to_numpy(), rtol=0.25)


@pytest.mark.slow  # NUTS on a compiled graph: 12-14 s per model in a fresh process
def test_pl_nuts_agrees_with_map(pl_nuts):
    ref = rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="map")
    _agrees(pl_nuts, ref)
    assert pl_nuts.order == ref.order == ["B", "C", "D", "A"]
    assert pl_nuts.info["converged"]
    assert pl_nuts.info["sampler"] == "pymc"  # a 1-second fit: "auto" keeps PyMC's NUTS
    expected_type = "DataTree" if _compat.DATATREE else "InferenceData"
    assert type(pl_nuts.idata).__name__ == expected_type
    summary = pl_nuts.summary()
    assert {"mean", "sd", "low", "high", "r_hat", "ess_bulk", "ess_tail", "mcse_mean"} <= set(
        summary.columns
    )
    assert (summary["r_hat"] < 1.01).all()


@pytest.mark.slow  # NUTS on a compiled graph: 12-14 s per model in a fresh process
def test_bt_nuts_agrees_with_map(bt_nuts):
    ref = rs.models.BradleyTerry().fit(rs.load_paired("pudding"), method="map")
    _agrees(bt_nuts, ref)
    post = bt_nuts.draws()["log_tie"]
    assert abs(post.mean() - ref.parameters["log_tie"]) < 0.2 * post.std()


@pytest.mark.slow  # NUTS on a compiled graph: 12-14 s per model in a fresh process
def test_nuts_fit_tables(pl_nuts, tmp_path):
    table = pl_nuts.pairwise()
    assert len(table) == 12 and table.loc[0, "system_a"] == "B"
    # posterior mean of P(a above b) is the mean over draws of α_a / (α_a + α_b)
    draws = pl_nuts.draws()["log_worth"]
    i, j = pl_nuts.systems.index("B"), pl_nuts.systems.index("C")
    expected = np.mean(1 / (1 + np.exp(draws[:, j] - draws[:, i])))
    row = table[(table.system_a == "B") & (table.system_b == "C")].iloc[0]
    assert row.estimate == pytest.approx(expected)
    dist = pl_nuts.rank_distribution()
    np.testing.assert_allclose(dist.sum(axis=1), 1.0)
    path = rs.models.save(pl_nuts, "salad", tmp_path, keep=50)
    back = rs.models.load("salad", "pl", tmp_path)
    assert back.method == "nuts" and back.order == pl_nuts.order
    assert _compat.group(back.idata).sizes["draw"] == 50
    assert path.stat().st_size < 200_000


@pytest.mark.long
def test_run_chain_samples_the_posterior_and_is_seeded():
    """``compat.run_chain`` (the SBC's loop, on either PyMC stack): a N(1, 0.5²) target, mean and
    sd within Monte Carlo error; the same seed gives the same draws, another seed others."""
    pm, _ = _compat.pymc()
    with _compat.quiet_pytensor(), pm.Model() as model:
        pm.Normal("x", 1.0, 0.5)
        step = pm.NUTS()
    start = model.initial_point()
    draws = np.array([p["x"] for p in _compat.run_chain(step, start, tune=300, draws=1000, seed=5)])
    again = np.array([p["x"] for p in _compat.run_chain(step, start, tune=300, draws=1000, seed=5)])
    other = np.array([p["x"] for p in _compat.run_chain(step, start, tune=300, draws=1000, seed=6)])
    np.testing.assert_array_equal(draws, again)
    assert not np.array_equal(draws, other)
    assert not step.tune  # the draws after the tuning steps come from a fixed step size
    # NUTS draws of a 1-d Gaussian are nearly independent: 5 standard errors of 1,000 draws
    assert abs(draws.mean() - 1.0) < 5 * 0.5 / np.sqrt(1000)
    assert abs(draws.std() - 0.5) < 5 * 0.5 / np.sqrt(2 * 1000)


@pytest.mark.long  # the first NUTS compile of a fresh checkout: about 30 s
def test_convergence_warning():
    with pytest.warns(ConvergenceWarning, match="bulk ESS"):
        fit = rs.models.PlackettLuce().fit(
            rs.load_rankings("salad"),
            method="nuts",
            draws=30,
            tune=30,
            chains=2,
            progress=False,
        )
    assert not fit.info["converged"]


def test_nutpie_sampler_when_installed():
    pytest.importorskip("nutpie")
    fit = rs.models.PlackettLuce().fit(
        rs.load_rankings("salad"), method="nuts", sampler="nutpie", seed=3, **SMALL
    )
    assert fit.order[0] == "B" and fit.info["sampler"] == "nutpie"


# ---------------------------------------------------------------- slow
@pytest.mark.slow
def test_sushi_posterior_mean_equals_mle_within_monte_carlo_error():
    rk = rs.load_rankings("sushi")
    mle = rs.models.PlackettLuce().fit(rk, method="mle")
    # Sized (issue 24): 2 x 500 draws, converged (asserted: bulk ESS >= 400): the relative MC
    # error of a posterior sd is at most 1 / sqrt(2 ESS) = 3.5 %, rtol 0.1 is 2.8 of it (4.5 at
    # ESS 1000, usual for NUTS on this near-Gaussian posterior); the mean check is in MCSE units.
    fit = rs.models.PlackettLuce().fit(
        rk, method="nuts", draws=500, tune=500, chains=2, progress=False
    )
    summary = fit.summary()
    rows = [f"log_worth[{s}]" for s in fit.systems]
    # 5000 rankings: the prior moves the mode by O(1e-4); allow 4 MCSE + that
    diff = np.abs(summary.loc[rows, "mean"].to_numpy() - mle.worth.to_numpy())
    np.testing.assert_array_less(diff, 4 * summary.loc[rows, "mcse_mean"].to_numpy() + 1e-3)
    np.testing.assert_allclose(summary.loc[rows, "sd"], mle.se, rtol=0.1)
    assert fit.info["converged"]


# Simulation-based calibration, sized (issue 24).  Defects to catch: a posterior whose sd is 30 %
# too small or 40 % too large (e.g. the likelihood counted twice, a wrong prior scale), and one
# whose mean is off by 0.65 posterior sd for a system (a sign or index error).  Idealised power
# (1000 replicates of independent ranks), each check at alpha = 0.001: the chi-square test of 5
# rank bins over 288 pooled ranks (72 simulations x 4 systems) of L = 49 draws, 0.89 (sd x 0.7)
# and 0.92 (sd x 1.4), above the former 60 simulations of L = 99 (0.83 / 0.88: L adds little); the
# mean rank of each system (z-test, Bonferroni over 4), 0.92 for a 0.65 sd shift.  The pooled
# histogram is blind to shifts that cancel across systems (zero-sum worths): hence the second.
# NUTS draws of this 3-dimensional posterior are nearly independent: 98 draws thinned by 2.
# Checked on draws rescaled or shifted after sampling (again with compat.run_chain, 2026-11-26):
# sd x 0.7 (both: p = 1e-5, 6e-7), sd x 1.4 (BT: p = 5e-5) and a 0.65 sd shift of one system
# (both) each fail; shifts of +-0.4 sd that cancel pass the pooled chi-square alone.
SBC_SIMS, SBC_DRAWS, SBC_THIN, SBC_TUNE = 72, 98, 2, 200


def _sbc(model_name: str, n_sims: int = SBC_SIMS, seed: int = 0) -> np.ndarray:
    """Simulation-based calibration (Talts et al. 2018): rank of the true value among
    ``SBC_DRAWS / SBC_THIN`` = 49 thinned posterior draws, per simulation and system.  One model
    graph and one NUTS step, compiled once and run chain by chain (``compat.run_chain`` resets
    the adaptation per chain as ``pm.sample`` does, without its per-call compiles), new data
    through ``pm.set_data``."""
    import pymc as pm

    rng = np.random.default_rng(seed)
    n, n_rankings, k = 4, 15, 3
    systems = [f"s{i}" for i in range(n)]
    ranks = []

    def simulate(theta):
        orderings = []
        for _ in range(n_rankings):
            subset = rng.choice(n, size=k, replace=False)
            g = rng.gumbel(size=k) + theta[subset]  # Gumbel-max = Plackett–Luce sampling
            orderings.append([systems[i] for i in subset[np.argsort(-g)]])
        return rs.Rankings.from_orderings(orderings, systems=systems)

    model = step = None
    for _ in range(n_sims):
        z = rng.normal(size=n)
        theta = z - z.mean()  # ZeroSumNormal(1)
        rk = simulate(theta)
        if model_name == "pl":
            data = pl_data(rk)
            if model is None:
                model = pl_module.pymc_model(data, 1.0, layout="sets")
            else:
                sets = choice_sets(data)
                with model:
                    pm.set_data(
                        {
                            "weights_t": np.ascontiguousarray(sets.weights.T),
                            "set_count": sets.count,
                            "chosen": sets.chosen,
                        }
                    )
        else:
            counts = rs.models.BradleyTerry().counts(rk)
            full = np.zeros((n * (n - 1) // 2, 2), dtype=np.int64)
            full[:] = np.array(np.triu_indices(n, 1)).T
            w, _ = counts.matrices()
            i, j = full[:, 0], full[:, 1]
            if model is None:
                from rankstats.core.bradley_terry_mle import Pairs

                model = bt_module.pymc_model(
                    Pairs.named(systems, i, j, w[i, j], w[j, i], np.zeros(len(i))),
                    1.0,
                    ties=False,
                )
            else:
                with model:
                    pm.set_data({"wins1": w[i, j], "wins2": w[j, i]})
        if step is None:
            with _compat.quiet_pytensor(), model:
                step = pm.NUTS()
                start = model.initial_point()  # pm.sample's start with a step given: no jitter
                (value,) = model.replace_rvs_by_values([model["log_worth"]])
                worth = model.compile_fn(value, inputs=model.value_vars)
        points = _compat.run_chain(
            step, start, tune=SBC_TUNE, draws=SBC_DRAWS, seed=int(rng.integers(2**31))
        )
        post = np.array([worth(p) for p in points[::SBC_THIN]])
        ranks.append((post < theta).sum(axis=0))
    return np.array(ranks)


@pytest.mark.slow
@pytest.mark.parametrize("model_name", ["pl", "bt"])
def test_simulation_based_calibration(model_name):
    from scipy import stats

    ranks = _sbc(model_name)  # (n_sims, n_systems), values 0..L
    n_draws = SBC_DRAWS // SBC_THIN  # L = 49
    counts = np.bincount((ranks * 5 // (n_draws + 1)).ravel(), minlength=5)  # 5 bins of 10 ranks
    p = stats.chisquare(counts).pvalue
    assert p > 0.001, (counts, p)
    # each system's mean rank: uniform on 0..L has mean L / 2 and variance ((L + 1)^2 - 1) / 12
    se = np.sqrt(((n_draws + 1) ** 2 - 1) / 12 / len(ranks))
    z = np.abs(ranks.mean(axis=0) - n_draws / 2) / se
    assert (z < stats.norm.isf(0.001 / 8)).all(), z

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

SMALL = dict(draws=500, tune=500, chains=2, progressbar=False)


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


def test_convergence_warning():
    with pytest.warns(ConvergenceWarning, match="bulk ESS"):
        fit = rs.models.PlackettLuce().fit(
            rs.load_rankings("salad"),
            method="nuts",
            draws=30,
            tune=30,
            chains=2,
            progressbar=False,
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
    fit = rs.models.PlackettLuce().fit(
        rk, method="nuts", draws=1000, tune=1000, chains=2, progressbar=False
    )
    summary = fit.summary()
    rows = [f"log_worth[{s}]" for s in fit.systems]
    # 5000 rankings: the prior moves the mode by O(1e-4); allow 4 MCSE + that
    diff = np.abs(summary.loc[rows, "mean"].to_numpy() - mle.worth.to_numpy())
    np.testing.assert_array_less(diff, 4 * summary.loc[rows, "mcse_mean"].to_numpy() + 1e-3)
    np.testing.assert_allclose(summary.loc[rows, "sd"], mle.se, rtol=0.1)


def _sbc(model_name: str, n_sims: int = 60, seed: int = 0) -> np.ndarray:
    """Simulation-based calibration (Talts et al. 2018): rank of the true value among 99 thinned
    posterior draws, per simulation and system."""
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

    model = None
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
        idata = _compat.sample(
            model,
            nuts_sampler="pymc",
            draws=396,
            tune=500,
            chains=1,
            progressbar=False,
            random_seed=int(rng.integers(2**31)),
            compute_convergence_checks=False,
        )
        post = _compat.group(idata)["log_worth"].to_numpy()[0, ::4]  # 99 thinned draws
        ranks.append((post < theta).sum(axis=0))
    return np.array(ranks)


@pytest.mark.slow
@pytest.mark.parametrize("model_name", ["pl", "bt"])
def test_simulation_based_calibration(model_name):
    from scipy import stats

    ranks = _sbc(model_name)  # (n_sims, n_systems), values 0..99
    counts = np.bincount((ranks // 20).ravel(), minlength=5)  # 5 bins of 20 ranks
    p = stats.chisquare(counts).pvalue
    assert p > 0.001, (counts, p)

"""The Plackett–Luce NUTS graph on sufficient statistics (issue 16): the collapsed choice sets and
the ``rankings`` layout give the same log-density as the padded graph they replace and as the
NumPy likelihood; ``sampler="auto"`` resolves to nutpie only when it imports."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankstats as rs
from rankstats._pymc import compat as _compat
from rankstats._pymc import nuts
from rankstats.errors import DataWarning
from rankstats.models import ConvergenceWarning, _mle
from rankstats.models import plackett_luce as pl_module
from rankstats.models._data import choice_sets, pl_data

pytensor = pytest.importorskip("pytensor")
from pytensor.graph.replace import clone_replace  # noqa: E402

pytestmark = pytest.mark.pymc  # runs PyMC / ArviZ: CI runs it on both stacks


def _load_bench_models() -> types.ModuleType:
    """tests/benchmarks/bench_models.py, which holds the padded-rankings graph of rankstats ≤
    issue 15 (``old_pymc_model``): the one copy of the reference graph, shared with the speed
    comparison."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_models.py"
    spec = importlib.util.spec_from_file_location("rankstats_bench_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_old_pymc_model = _load_bench_models().old_pymc_model


def _tied() -> rs.Rankings:
    return rs.Rankings.from_orderings(
        [
            ["a", "b", "c", "d"],
            ["b", ("a", "c"), "d"],
            [("c", "d", "e"), "a"],
            ["e", "a"],
            ["d", "e", ("b", "c")],
            [("a", "b", "c"), "d", "e"],
            ["b", ("a", "c"), "d"],
            ["e", ("a", "b", "c", "d")],
            ["a"],
        ]
    )


def _datasets():
    sushi = rs.load_rankings("sushi")
    return {
        "salad": rs.load_rankings("salad"),
        "sushi500": rs.Rankings(sushi.ranks[:500], sushi.systems, sushi.rankers[:500]),
        "nascar": rs.load_rankings("nascar"),
        "tied": _tied(),
    }


@pytest.fixture(scope="module")
def datasets():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return {
            (name, kind): pl_data(rk, kind)
            for name, rk in _datasets().items()
            for kind in ("subset", "top_k")
        }


CASES = [
    (name, kind) for name in ("salad", "sushi500", "nascar", "tied") for kind in ("subset", "top_k")
]


def _theta(n, seed):
    theta = np.random.default_rng(seed).normal(scale=1.5, size=n)
    return theta - theta.mean()


# ---------------------------------------------------------------- NumPy statistics
@pytest.mark.parametrize("case", CASES)
def test_choice_sets_loglik_equals_numpy(datasets, case):
    data = datasets[case]
    sets = choice_sets(data)
    n_choices = int(data.term.sum())
    assert sets.count.sum() == sets.chosen.sum() == n_choices
    assert len(np.unique(sets.weights, axis=0)) == sets.n_sets  # every row distinct
    assert ((sets.weights >= 0) & (sets.weights <= 1)).all() and (
        sets.weights.max(axis=1) == 1
    ).all()
    for seed in range(3):
        theta = _theta(data.n_systems, seed)
        m = theta.max()
        collapsed = sets.chosen @ theta - sets.count @ (
            np.log(sets.weights @ np.exp(theta - m)) + m
        )
        assert collapsed == pytest.approx(_mle.pl_loglik(data, theta), rel=1e-12)


def test_choice_sets_collapse():
    sushi = choice_sets(pl_data(rs.load_rankings("sushi")))
    assert sushi.count.sum() == 45_000 and sushi.n_sets <= 2**10 - 10  # subsets of ≥ 2 of 10
    nascar = pl_data(rs.load_rankings("nascar"))
    assert choice_sets(nascar, max_entries=100 * 87) is None  # 1,511 sets: not built densely
    assert choice_sets(nascar, max_entries=2000 * 87).n_sets == 1511
    # Efron: the 2nd (k = 1) of a 2-way tie {a, b} chooses from c + (1 - 1/2)(a + b)
    sets = choice_sets(pl_data(rs.Rankings.from_orderings([[("a", "b"), "c"]])))
    assert sorted(map(tuple, sets.weights.tolist())) == [(0.5, 0.5, 1.0), (1.0, 1.0, 1.0)]
    np.testing.assert_array_equal(sets.chosen, [1.0, 1.0, 0.0])


# ---------------------------------------------------------------- PyTensor graphs
def _potential(model):
    """``f(theta)``: the likelihood potential at the centred log-worths ``theta``."""
    x = pytensor.tensor.vector("x")
    graph = clone_replace(model.potentials[0], {model["log_worth"]: x})
    with _compat.quiet_pytensor():
        return pytensor.function([x], graph)


@pytest.mark.slow  # one PyTensor compile per case and layout (45 s cold on pymc 6); the default
# run checks both layouts against NumPy in tests/models/test_models_nuts.py
@pytest.mark.parametrize("layout", ["sets", "rankings"])
@pytest.mark.parametrize("case", CASES)
def test_graph_equals_old_graph_and_numpy(datasets, case, layout):
    data = datasets[case]
    new_model = pl_module.pymc_model(data, 1.0, layout=layout)
    old_model = _old_pymc_model(data, 1.0)
    new, old = _potential(new_model), _potential(old_model)
    with _compat.quiet_pytensor():
        new_logp, old_logp = new_model.compile_logp(), old_model.compile_logp()
    for seed in range(3):
        theta = _theta(data.n_systems, seed)
        assert float(new(theta)) == pytest.approx(_mle.pl_loglik(data, theta), rel=1e-9)
        assert float(new(theta)) == pytest.approx(float(old(theta)), rel=1e-9)
        # the whole log-density (ZeroSumNormal prior, Jacobian, likelihood) at a free value
        point = {"log_worth_zerosum__": _theta(data.n_systems - 1, seed + 10)}
        assert float(new_logp(point)) == pytest.approx(float(old_logp(point)), rel=1e-9)


@pytest.mark.slow  # PyMC compiles (cold cache: 15–20 s)
def test_graph_gradient_equals_old_graph(datasets):
    data = datasets[("tied", "subset")]
    point = {"log_worth_zerosum__": np.linspace(-1, 1, data.n_systems - 1)}
    with _compat.quiet_pytensor():
        expected = _old_pymc_model(data, 1.0).compile_dlogp()(point)
        for layout in ("sets", "rankings"):
            got = pl_module.pymc_model(data, 1.0, layout=layout).compile_dlogp()(point)
            np.testing.assert_allclose(got, expected, rtol=1e-9)


@pytest.mark.long
def test_graph_is_stable_for_large_log_worths(datasets):
    data = datasets[("salad", "subset")]
    theta = np.array([720.0, 700.0, 715.0, 705.0])  # e^720 overflows without the max-shift
    expected = _mle.pl_loglik(data, theta)
    assert np.isfinite(expected)
    with np.errstate(over="ignore"):
        assert not np.isfinite(_potential(_old_pymc_model(data, 1.0))(theta))
    for layout in ("sets", "rankings"):
        lik = _potential(pl_module.pymc_model(data, 1.0, layout=layout))(theta)
        assert float(lik) == pytest.approx(expected, rel=1e-9)


def test_auto_layout(datasets):
    sushi = pl_module.pymc_model(datasets[("sushi500", "subset")], 1.0)
    nascar = pl_module.pymc_model(datasets[("nascar", "subset")], 1.0)
    assert "weights_t" in sushi.named_vars and "index" not in sushi.named_vars
    assert "index" in nascar.named_vars and "weights_t" not in nascar.named_vars
    with pytest.raises(ValueError, match="layout"):
        pl_module.pymc_model(datasets[("salad", "subset")], 1.0, layout="dense")


# ---------------------------------------------------------------- sampler choice
def _fake_nutpie() -> types.ModuleType:
    """A stand-in for an installed nutpie (pymc is imported first: pymc 6 looks nutpie up at
    import time)."""
    _compat.pymc()
    module = types.ModuleType("nutpie")
    module.__spec__ = importlib.machinery.ModuleSpec("nutpie", None)
    return module


def test_resolve_sampler(monkeypatch):
    """``auto`` is PyMC's NUTS unless nutpie is installed and the model has
    NUTPIE_FROM_PARAMETERS parameters or more (nutpie's compile step pays off on large models)."""
    from pymc.sampling import mcmc

    large, small = nuts.NUTPIE_FROM_PARAMETERS, nuts.NUTPIE_FROM_PARAMETERS - 1
    fake = _fake_nutpie()
    monkeypatch.setitem(sys.modules, "nutpie", None)  # import nutpie raises ImportError
    assert nuts.resolve_sampler("auto") == "pymc"
    assert nuts.resolve_sampler("auto", large) == "pymc"
    monkeypatch.setitem(sys.modules, "nutpie", fake)
    monkeypatch.setattr(mcmc, "_nutpie_meets_min_version", lambda: True, raising=False)
    assert nuts.resolve_sampler("auto", large) == "nutpie"
    assert nuts.resolve_sampler("auto", small) == "pymc"
    assert nuts.resolve_sampler("auto") == "pymc"  # size unknown: PyMC's
    # pymc 6 refuses a nutpie older than it needs: auto then stays with PyMC's sampler
    monkeypatch.setattr(mcmc, "_nutpie_meets_min_version", lambda: False, raising=False)
    assert nuts.resolve_sampler("auto", large) == "pymc"
    assert nuts.resolve_sampler("pymc", large) == "pymc"
    assert nuts.resolve_sampler("nutpie") == "nutpie"
    with pytest.raises(ValueError, match="sampler"):
        rs.models.PlackettLuce().fit(rs.load_rankings("salad"), sampler="stan")


def test_the_cli_help_states_the_auto_rule():
    """``rankstats fit --help`` says what ``auto`` picks, with the threshold the code uses."""
    from rankstats.cli import build_parser

    parser = build_parser(["fit"])
    fit = next(a for a in parser._actions if a.dest == "command").choices["fit"]
    text = next(a.help for a in fit._actions if a.dest == "sampler")
    assert f"below {nuts.NUTPIE_FROM_PARAMETERS} parameters" in text
    assert f"nutpie from {nuts.NUTPIE_FROM_PARAMETERS} when installed" in text


@pytest.mark.long
@pytest.mark.parametrize(("installed", "large"), [(False, True), (True, False), (True, True)])
def test_fit_passes_the_resolved_sampler(monkeypatch, installed, large):
    """The fit resolves ``auto`` by its number of parameters and names the result to PyMC."""
    calls = []
    real = _compat.sample

    def sample(model, **kwargs):
        calls.append(kwargs["nuts_sampler"])
        return real(model, **{**kwargs, "nuts_sampler": "pymc"})

    monkeypatch.setitem(sys.modules, "nutpie", _fake_nutpie() if installed else None)
    from pymc.sampling import mcmc

    monkeypatch.setattr(mcmc, "_nutpie_meets_min_version", lambda: True, raising=False)
    monkeypatch.setattr(_compat, "sample", sample)
    # salad has 4 systems: it counts as large when the bar is 4
    monkeypatch.setattr(nuts, "NUTPIE_FROM_PARAMETERS", 4 if large else 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = rs.models.PlackettLuce().fit(
            rs.load_rankings("salad"), draws=30, tune=30, chains=1, progress=False
        )
    expected = "nutpie" if installed and large else "pymc"
    assert calls == [expected] and fit.info["sampler"] == expected
    assert _compat.attrs(fit.idata)["info_sampler"] == expected


@pytest.mark.slow  # PyMC compiles (cold cache: 15–20 s)
def test_rankings_layout_nuts_agrees_with_map(monkeypatch):
    """The ``rankings`` layout (chosen for NASCAR-like data) samples the same posterior."""
    monkeypatch.setattr(pl_module, "SETS_PER_RANKING_ENTRY", 0)
    rk = rs.load_rankings("salad")
    fit = rs.models.PlackettLuce().fit(
        rk, method="nuts", seed=4, draws=500, tune=500, chains=2, progress=False
    )
    ref = rs.models.PlackettLuce().fit(rk, method="map")
    summary = fit.summary()
    rows = [f"log_worth[{s}]" for s in fit.systems]
    mean, sd, mcse = (summary.loc[rows, c].to_numpy() for c in ("mean", "sd", "mcse_mean"))
    np.testing.assert_array_less(np.abs(mean - ref.worth.to_numpy()), 4 * mcse + 0.2 * sd)
    np.testing.assert_allclose(sd, ref.se.to_numpy(), rtol=0.25)

"""One model and one compiled log-density per structure (rankstats._pymc.shared): a fit that
reuses them gives the draws a fresh model gives, bit for bit, with its own system names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._pymc import shared
from rankstats._pymc.convergence import ConvergenceWarning

# NUTS on models compiled cold in a fresh checkout
pytestmark = [pytest.mark.long, pytest.mark.pymc]
SMALL = {"draws": 40, "tune": 40, "chains": 2, "cores": 1, "progressbar": False, "seed": 3}


def _renamed(rk: rs.Rankings, rows: slice, names: list[str]) -> rs.Rankings:
    return rs.Rankings.from_rank_matrix(pd.DataFrame(rk.ranks[rows], columns=names))


@pytest.fixture(scope="module")
def salad():
    return rs.load_rankings("salad")  # 32 rankings of 4 salads


def _compiles(monkeypatch) -> list[int]:
    """Counts the compilations of logp_dlogp_function made by shared models."""
    calls: list[int] = []
    original = shared.compile_once

    def counting(model):
        compile_ = model.logp_dlogp_function

        def wrapped(*args, **kwargs):
            calls.append(1)
            return compile_(*args, **kwargs)

        model.logp_dlogp_function = wrapped
        return original(model)

    monkeypatch.setattr(shared, "compile_once", counting)
    return calls


@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
@pytest.mark.parametrize("family", ["pl", "bt"])
def test_a_shared_model_gives_the_draws_of_a_fresh_one(family, salad, monkeypatch):
    model = {"pl": rs.models.PlackettLuce, "bt": rs.models.BradleyTerry}[family]
    first = _renamed(salad, slice(0, 32), list(salad.systems))
    second = _renamed(salad, slice(5, 25), ["w", "x", "y", "z"])  # other data and names
    shared.clear()
    fresh = model().fit(second, **SMALL)  # built and compiled for these data
    shared.clear()
    calls = _compiles(monkeypatch)
    model().fit(first, **SMALL)
    compiled = len(calls)
    reused = model().fit(second, **SMALL)  # the first fit's model, its data replaced
    assert compiled >= 1 and len(calls) == compiled, "the second fit compiled again"
    for name in fresh.idata.posterior.data_vars:
        np.testing.assert_array_equal(
            reused.idata.posterior[name].to_numpy(), fresh.idata.posterior[name].to_numpy()
        )
    assert list(reused.idata.posterior["log_worth"].coords["system"].values) == list("wxyz")
    (shared_one,) = shared._MODELS.values()
    assert shared_one.coords["system"] == tuple("wxyz")  # what nutpie would label its draws by
    assert list(reused.worth.index) == list("wxyz")
    np.testing.assert_array_equal(
        reused.idata.log_likelihood["loglik"].to_numpy(),
        fresh.idata.log_likelihood["loglik"].to_numpy(),
    )


def test_another_structure_builds_its_own_model(salad):
    from rankstats.models.plackett_luce import PlackettLuce

    shared.clear()
    with pytest.warns(ConvergenceWarning):
        PlackettLuce().fit(salad, **SMALL)
        PlackettLuce(prior_scale=2.0).fit(salad, **SMALL)  # a constant of the graph
    assert len(shared._MODELS) == 2


def test_data_must_name_every_data_variable():
    from rankstats.core.bradley_terry_mle import Pairs
    from rankstats.models.bradley_terry import build_model, graph_data

    pairs = Pairs(
        3,
        np.array([0, 0, 1]),
        np.array([1, 2, 2]),
        np.array([3.0, 2.0, 1.0]),
        np.array([1.0, 2.0, 2.0]),
        np.array([0.0, 0.0, 0.0]),
        ("a", "b", "c"),
    )
    shared.clear()
    key = ("test", 3)
    values = graph_data(pairs, ties=False)
    shared.shared_model(
        key, lambda data: build_model(pairs.systems, 1.0, False, False, data), values
    )
    with pytest.raises(ValueError, match="wins2"):
        shared.shared_model(key, None, {k: v for k, v in values.items() if k != "wins2"})
    shared.clear()


def test_a_later_fit_puts_its_names_into_the_shared_model():
    """The structure key fixes the number of systems, not their names: a later fit's names
    replace the first fit's in the model, where every sampler reads them (nutpie ignores
    ``idata_kwargs`` and labels its draws from the model's coordinates)."""
    from pymc.backends.arviz import coords_and_dims_for_inferencedata

    from rankstats.core.bradley_terry_mle import Pairs
    from rankstats.models.bradley_terry import build_model, graph_data

    def pairs(names):
        i, j = np.array([0, 0, 1]), np.array([1, 2, 2])
        return Pairs(3, i, j, np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 2.0]),
                     np.zeros(3), tuple(names))  # fmt: skip

    shared.clear()
    key = ("test-names", 3)
    first, second = pairs("abc"), pairs("zyx")
    model = shared.shared_model(
        key,
        lambda data: build_model(first.systems, 1.0, False, False, data),
        graph_data(first, ties=False),
        coords={"system": first.systems},
    )
    again = shared.shared_model(
        key, None, graph_data(second, ties=False), coords={"system": second.systems}
    )
    assert again is model
    assert model.coords["system"] == ("z", "y", "x")
    assert list(coords_and_dims_for_inferencedata(model)[0]["system"]) == ["z", "y", "x"]
    with pytest.raises(ValueError, match="3 'system' coordinates, the fit gives 2"):
        shared.shared_model(key, None, graph_data(second, ties=False), coords={"system": "ab"})
    shared.clear()

"""What the three rank models share (docs/user-guide/mallows.md, "Mallows and the other rank
models"): Plackett–Luce and Bradley–Terry run the NUTS / Newton–Raphson driver of
``models/_base.RankModel``; Mallows does not (its consensus is a permutation), but it is called
with the same keywords, has a ``name`` and a ``kind`` like them, and its fits are ``Fit``s."""

from __future__ import annotations

import inspect

import pytest

import rankstats as rs
from rankstats.models._base import RankModel

MODELS = (rs.models.PlackettLuce, rs.models.BradleyTerry, rs.models.Mallows)

#: RankModel.fit's arguments that Mallows does not take: NUTS's step-size target and Firth's
#: bias reduction of a maximum-likelihood estimate.
NUTS_AND_FIRTH_ONLY = {"target_accept", "bias_reduction"}


def _arguments(function) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]


def test_mallows_fit_takes_the_arguments_of_the_other_models_fit():
    shared = [name for name in _arguments(RankModel.fit) if name not in NUTS_AND_FIRTH_ONLY]
    mallows = _arguments(rs.models.Mallows.fit)
    assert set(shared) <= set(mallows), set(shared) - set(mallows)
    # data, method, draws, tune, chains, seed: also positionally in the same places.
    assert mallows[:6] == shared[:6]
    for model in (rs.models.PlackettLuce, rs.models.BradleyTerry):
        assert _arguments(model.fit) == _arguments(RankModel.fit)


@pytest.fixture(scope="module")
def fits():
    rk = rs.load_rankings("salad")  # 32 complete rankings of 4 dressings, no ties: MAP for all
    return rk, {model: model().fit(rk, method="map", seed=0) for model in MODELS}


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_every_model_names_its_fits_and_returns_the_same_results(fits, model):
    rk, fitted = fits
    fit, reference = fitted[model], fitted[rs.models.PlackettLuce]
    assert isinstance(fit, rs.models.Fit)
    assert fit.model == model.name and fit.method == "map"
    assert model().kind == "subset"
    assert list(fit.worth.index) == list(rk.systems)
    assert sorted(fit.order) == sorted(rk.systems)
    # Mallows' worth is the consensus position (1 = best), the others' a log-worth.
    assert fit.higher_is_better is (model is not rs.models.Mallows)
    pairs, expected = fit.pairwise(), reference.pairwise()
    assert list(pairs.columns) == list(expected.columns) and pairs.shape == expected.shape
    ranks = fit.rank_distribution()
    assert ranks.shape == (4, 4) and list(ranks.columns) == [1, 2, 3, 4]
    assert list(fit.summary().columns) == list(reference.summary().columns)


def test_a_mixture_has_the_model_name_too():
    assert rs.models.Mallows(clusters=2).name == "mallows"


@pytest.mark.parametrize(
    "method, says",
    [
        ("nuts", r"not 'nuts': the posterior is sampled by 'mcmc' \(the consensus is a permut"),
        ("mle", r"not 'mle': the maximum-likelihood fit is 'map' \(the Kemeny consensus"),
        ("pql", r"not 'pql': the Mallows model has no random effect"),
        ("gibbs", r"^method must be 'mcmc' or 'map', not 'gibbs'$"),
        (["map"], r"^method must be 'mcmc' or 'map', not \['map'\]$"),
    ],
)
def test_another_models_method_is_refused_with_its_name_here(method, says):
    rk = rs.load_rankings("salad")
    with pytest.raises(ValueError, match=says):
        rs.models.Mallows().fit(rk, method=method)

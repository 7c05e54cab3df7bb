"""The options objects of ``fit_battles`` (EloScale, NutsSettings, StyleControl): the old
keywords they replace still work for one release, warn, and give the same fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.battles.log import simulate_battles


@pytest.fixture(scope="module")
def battles():
    frame, _ = simulate_battles(5, 600, order_effect=0.2, seed=4)
    rng = np.random.default_rng(0)
    frame["z"] = rng.normal(size=len(frame)) * 3.0  # a covariate for style control
    return rs.read_battles(frame, covariates=["z"])


def _same(a: rs.BattleFit, b: rs.BattleFit) -> None:
    pd.testing.assert_frame_equal(a.table(), b.table())
    assert (a.anchor, a.anchor_rating) == (b.anchor, b.anchor_rating)
    assert a.info == b.info


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"anchor": "model-001"}, {"elo": rs.EloScale(anchor="model-001")}),
        (
            {"anchor": "model-002", "anchor_rating": 1114.0},
            {"elo": rs.EloScale(anchor="model-002", rating=1114.0)},
        ),
        ({"anchor_rating": 1500.0}, {"elo": rs.EloScale(rating=1500.0)}),
        ({"standardize": False}, {"covariates": rs.StyleControl(standardize=False)}),
        (
            {"covariates": True, "standardize": False},
            {"covariates": rs.StyleControl(standardize=False)},
        ),
        ({"covariates": False, "standardize": False}, {"covariates": False}),
        ({"posterior": False, "draws": 10, "chains": 1}, {}),  # no posterior: ignored, as before
    ],
)
def test_old_keywords_warn_and_fit_the_same(battles, old, new):
    with pytest.warns(FutureWarning, match=r"is now (elo|covariates|posterior)="):
        before = rs.fit_battles(battles, n_resamples=0, **old)
    _same(before, rs.fit_battles(battles, n_resamples=0, **new))


@pytest.mark.filterwarnings("ignore::FutureWarning")  # one per old keyword; "draws" is checked
def test_old_sampler_keywords_become_the_posterior_settings(monkeypatch, battles):
    """``posterior=True, draws=…`` samples with ``NutsSettings(draws=…)`` (the sampling step is
    stopped at its call: the settings it is given are what is checked)."""
    from rankstats.battles import bayes

    class Stop(Exception):
        pass

    seen = []

    def fake(*args, **kwargs):
        seen.append(args[5])
        raise Stop

    monkeypatch.setattr(bayes, "sample_posterior", fake)
    old = {"draws": 30, "tune": 20, "chains": 2, "sampler": "pymc", "progress": False}
    with pytest.warns(FutureWarning, match="draws is now posterior=NutsSettings"):
        with pytest.raises(Stop):
            rs.fit_battles(battles, n_resamples=0, posterior=True, **old)
    with pytest.raises(Stop):
        rs.fit_battles(battles, n_resamples=0, posterior=rs.NutsSettings(**old))
    with pytest.raises(Stop):
        rs.fit_battles(battles, n_resamples=0, posterior=True)
    assert seen == [rs.NutsSettings(**old), rs.NutsSettings(**old), rs.NutsSettings()]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_an_old_keyword_beside_its_options_object_is_an_error(battles):
    with pytest.raises(TypeError, match=r"elo=EloScale.*anchor_rating"):
        rs.fit_battles(battles, elo=rs.EloScale(), anchor_rating=1200.0)
    with pytest.raises(TypeError, match=r"posterior=NutsSettings.*draws"):
        rs.fit_battles(battles, posterior=rs.NutsSettings(), draws=10)


def test_the_options_are_checked():
    with pytest.raises(ValueError, match="draws"):
        rs.NutsSettings(draws=0)
    with pytest.raises(ValueError, match="sampler must be one of"):
        rs.NutsSettings(sampler="metropolis")
    with pytest.raises(TypeError, match="standardize"):
        rs.StyleControl(standardize="no")


def test_a_wrong_options_object_is_refused(battles):
    with pytest.raises(TypeError, match="elo must be an EloScale"):
        rs.fit_battles(battles, elo=1000.0)
    with pytest.raises(TypeError, match="posterior must be True or False"):
        rs.fit_battles(battles, posterior="yes")

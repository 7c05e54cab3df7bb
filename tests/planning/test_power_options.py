"""The options objects of rs.power and rs.sample_size (issue 46): BayesSettings and SizeSearch
give the same numbers as the keywords they replaced, which still work for one release with a
FutureWarning."""

import warnings

import pandas as pd
import pytest

import rankstats as rs

DESIGN = rs.BenchmarkDesign(n_systems=3, n_instances=20, phi=0.4)


def _quiet(function, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # the new spelling never warns
        return function(DESIGN, progress=False, n_jobs=1, **kw)


def test_power_bayes_settings_equal_the_old_keywords():
    settings = rs.BayesSettings(rope=0.05, threshold=0.9, posterior_draws=200)
    new = _quiet(rs.power, tests="bayes", n_replications=30, seed=1, bayes=settings)
    with pytest.warns(FutureWarning, match=r"rope is now bayes=BayesSettings\(rope=\.\.\.\)"):
        old = rs.power(
            DESIGN,
            tests="bayes",
            n_replications=30,
            seed=1,
            progress=False,
            n_jobs=1,
            rope=0.05,
            threshold=0.9,
            posterior_draws=200,
        )
    pd.testing.assert_frame_equal(new.pairs, old.pairs)
    assert new.bayes == old.bayes == {"rope": 0.05, "threshold": 0.9, "posterior_draws": 200}
    # The settings reach the test: a wider ROPE claims equivalence more often.
    wide = _quiet(rs.power, tests="bayes", n_replications=30, seed=1, bayes=rs.BayesSettings(2.0))
    assert wide.pairs["rope_claim"].sum() > new.pairs["rope_claim"].sum()


def test_sample_size_search_equals_the_old_keywords():
    search = rs.SizeSearch(target="all_adjacent", power=0.6, sizes=[10, 40, 160], refine=1)
    new = _quiet(rs.sample_size, test="sign", search=search, n_replications=40, seed=2)
    with pytest.warns(FutureWarning, match=r"now search=SizeSearch\("):
        old = rs.sample_size(
            DESIGN,
            test="sign",
            target="all_adjacent",
            power=0.6,
            sizes=[10, 40, 160],
            refine=1,
            n_replications=40,
            seed=2,
            progress=False,
            n_jobs=1,
        )
    pd.testing.assert_frame_equal(new.curve, old.curve)
    assert new.size == old.size


def test_bad_options_are_named():
    with pytest.raises(ValueError, match=r"power must be a number in \(0, 1\)"):
        _quiet(rs.sample_size, test="sign", search=rs.SizeSearch(power=1.5))
    with pytest.raises(ValueError, match="posterior_draws must be an integer ≥ 100"):
        _quiet(rs.power, tests="bayes", bayes=rs.BayesSettings(posterior_draws=10))
    with pytest.raises(TypeError, match="give only bayes"):
        rs.power(DESIGN, bayes=rs.BayesSettings(), rope=0.1)
    battles = rs.BattleDesign(n_models=3, n_battles=200)
    with pytest.raises(ValueError, match="rope belong"):
        rs.power(battles, bayes=rs.BayesSettings(rope=0.1), progress=False)

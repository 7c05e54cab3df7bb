"""The options objects of the Gumbel generators (issue 46): a ``Corruptions`` (and, for
``gumbel_cubes``, a ``ScoreModel``) gives the same benchmark as the keywords it replaced, which
still work for one release with a FutureWarning."""

import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.simulate.corruptions import Corruptions, ScoreModel
from rankstats.simulate.gumbel_benchmark import gumbel_cube, gumbel_cubes

LOOSE = {
    "adversarial_tasks": 1,
    "rescale": {"task02": 2.0},
    "missing_rate": 0.2,
    "missing_pattern": "block",
    "outliers": (0.05, 3.0),
    "instance_types": (2, 0.5),
    "round_to": 1,
}


def _new(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # the new spelling never warns
        return rs.simulate.gumbel(5, 3, 8, phi=0.4, seed=2, **kw)


def test_gumbel_corruptions_equal_the_old_keywords_which_warn():
    new = _new(corruptions=Corruptions(**LOOSE))
    with pytest.warns(FutureWarning, match=r"now corruptions=Corruptions\("):
        old = rs.simulate.gumbel(5, 3, 8, phi=0.4, seed=2, **LOOSE)
    pd.testing.assert_frame_equal(new.data, old.data)
    assert new.parameters == old.parameters
    assert new.parameters["adversarial_tasks"] == ["task01"]
    # The original corruption-free benchmark differs: the corruptions were applied.
    assert not new.data.equals(_new().data)


def test_the_older_missing_still_reads():
    with pytest.warns(FutureWarning, match=r"missing is now corruptions=Corruptions\(missing_rate"):
        older = rs.simulate.gumbel(5, 3, 8, phi=0.4, seed=2, missing=0.2)
    pd.testing.assert_frame_equal(_new(corruptions=Corruptions(missing_rate=0.2)).data, older.data)


def test_both_spellings_at_once_is_an_error():
    with pytest.raises(TypeError, match="give only corruptions"):
        rs.simulate.gumbel(5, 3, corruptions=Corruptions(), missing_rate=0.1)


def test_gumbel_cubes_score_model_equals_the_old_keywords():
    kw = {
        "locations": np.array([0.1, 0.4, -0.2, 0.0]),
        "noise": "normal",
        "correlation": 0.3,
        "system_scales": np.array([1.0, 0.5, 2.0, 1.0]),
        "identical": 0.2,
        "task_effects": np.array([[1.0, 2.0], [0.0, 0.5]]),
    }
    new = gumbel_cubes(
        3, 4, 3, 5, 0.5, 1.0, 7, corruptions=Corruptions(missing_rate=0.1), model=ScoreModel(**kw)
    )
    with pytest.warns(FutureWarning):
        old = gumbel_cubes(3, 4, 3, 5, 0.5, 1.0, 7, missing_rate=0.1, **kw)
    np.testing.assert_array_equal(new, old)
    assert np.isnan(new).any()
    single = gumbel_cube(4, 3, 5, 0.5, 1.0, 7, corruptions=Corruptions(missing_rate=0.1))
    np.testing.assert_array_equal(
        single, gumbel_cubes(1, 4, 3, 5, 0.5, 1.0, 7, missing_rate=0.1)[0]
    )


def test_gumbel_files_corruptions_equal_the_old_keywords(tmp_path):
    holes = Corruptions(missing_rate=0.3, missing_pattern="block", round_to=2)
    new, _ = rs.simulate.gumbel_files(tmp_path / "new", 4, 2, 30, 2, corruptions=holes, fmt="csv")
    with pytest.warns(FutureWarning):
        old, _ = rs.simulate.gumbel_files(
            tmp_path / "old", 4, 2, 30, 2, missing_rate=0.3, round_to=2, fmt="csv"
        )
    assert [f.read_text() for f in new] == [f.read_text() for f in old]
    with pytest.raises(ValueError, match="gumbel_files draws no outliers"):
        rs.simulate.gumbel_files(
            tmp_path / "x", 4, 2, 30, corruptions=Corruptions(outliers=(0.1, 1))
        )

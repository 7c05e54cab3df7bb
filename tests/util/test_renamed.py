"""The one mechanism for renamed parameters and attributes (``rankstats._util.renamed``)."""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import pytest

from rankstats._util.renamed import grouped_parameters, renamed_attribute, renamed_parameters

MESSAGE = r"^cores is now n_jobs \(in {}\); the old spelling will be removed in the next release$"


@renamed_parameters(cores="n_jobs", progressbar="progress")
def fit(data, n_jobs=1, progress=None):
    """Fit.

    Parameters
    ----------
    n_jobs : int
    progress : bool
    """
    return data, n_jobs, progress


class Model:
    @renamed_parameters(cores="n_jobs")
    def fit(self, data, *, n_jobs=1):
        return self, data, n_jobs


@renamed_parameters(n_boot="n_resamples", confidence="confidence_level")
@dataclasses.dataclass(frozen=True)
class Result:
    n_resamples: int
    confidence_level: float = 0.95


def test_an_old_keyword_is_translated_with_a_warning_naming_the_new_one():
    with pytest.warns(FutureWarning, match=MESSAGE.format("fit")) as caught:
        assert fit("d", cores=3) == ("d", 3, None)
    assert caught[0].filename == __file__  # the warning points at the user's line
    with pytest.warns(FutureWarning, match=r"^progressbar is now progress \(in fit\)"):
        assert fit("d", progressbar=False) == ("d", 1, False)


def test_the_new_keyword_and_positional_arguments_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit("d", n_jobs=2, progress=True) == ("d", 2, True)
        assert fit("d", 2, True) == ("d", 2, True)


def test_both_spellings_are_a_type_error_naming_both():
    with pytest.raises(TypeError, match=r"^fit\(\) got both n_jobs and its old spelling cores"):
        fit("d", cores=2, n_jobs=2)


def test_the_signature_and_docstring_show_only_the_new_names():
    assert list(inspect.signature(fit).parameters) == ["data", "n_jobs", "progress"]
    assert "cores" not in fit.__doc__ and "n_jobs" in fit.__doc__
    assert fit.__name__ == "fit"
    assert list(inspect.signature(Model.fit).parameters) == ["self", "data", "n_jobs"]
    assert list(inspect.signature(Result).parameters) == ["n_resamples", "confidence_level"]


def test_a_method_and_a_dataclass_constructor():
    model = Model()
    with pytest.warns(FutureWarning, match=MESSAGE.format(r"Model\.fit")):
        assert model.fit("d", cores=4) == (model, "d", 4)
    with pytest.warns(FutureWarning, match=r"^n_boot is now n_resamples \(in Result\)"):
        result = Result(n_boot=10)
    assert result == Result(10)
    assert dataclasses.replace(result, confidence_level=0.9).confidence_level == 0.9
    with pytest.raises(TypeError, match="got both n_resamples and its old spelling n_boot"):
        Result(10, n_boot=10)


def test_a_renamed_field_keeps_its_old_name_as_an_attribute_that_warns():
    result = Result(10, 0.9)
    with pytest.warns(FutureWarning, match=r"^n_boot is now n_resamples \(in Result\)"):
        assert result.n_boot == 10
    with pytest.warns(FutureWarning, match=r"^confidence is now confidence_level"):
        assert result.confidence == 0.9
    assert "n_boot" not in {f.name for f in dataclasses.fields(Result)}
    assert "n_boot" not in repr(result)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.n_boot = 3


def test_an_attribute_renamed_outside_a_dataclass():
    class Fit:
        draws = 7
        n_draws = renamed_attribute("draws")

    with pytest.warns(FutureWarning, match=r"^n_draws is now draws \(in Fit\)"):
        assert Fit().n_draws == 7
    assert isinstance(Fit.n_draws, renamed_attribute)


def test_a_rename_of_a_parameter_the_function_lacks_is_refused_at_definition():
    with pytest.raises(TypeError, match="must take n_jobs and not cores"):

        @renamed_parameters(cores="n_jobs")
        def bad(cores=1):
            return cores


def test_a_warning_inside_a_renamed_function_points_at_the_callers_line():
    """The wrapper adds a frame; the library's warnings skip it (``user_stacklevel``)."""
    import pandas as pd

    import rankstats as rs

    table = pd.DataFrame(
        {"a": [0.1, 0.5, 0.3, 0.2], "b": [0.2, 0.1, 0.4, 0.3], "c": [0, 0.2, 0.1, 0.5]}
    )
    with pytest.warns(UserWarning, match="only 4 blocks") as caught:
        rs.rank_confidence_sets(table, n_resamples=200)
    assert {w.filename for w in caught} == {__file__}
    with pytest.warns(FutureWarning) as caught:
        rs.rank_confidence_sets(table, n_boot=200)
    assert {w.filename for w in caught} == {__file__}


def test_n_jobs_minus_one_means_every_core_wherever_n_jobs_is_taken():
    """The vocabulary's rule (docs/vocabulary.md): -1 is all cores, in every function."""
    from rankstats._util.parallel import cpu_count, resolve_n_jobs

    assert resolve_n_jobs(-1) == cpu_count() and resolve_n_jobs(3) == 3
    assert resolve_n_jobs(None) is None
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="n_jobs must be a positive integer"):
            resolve_n_jobs(bad)


# ------------------------------------------------------------------ grouped_parameters
@dataclasses.dataclass(frozen=True)
class _Settings:
    draws: int = 1000
    rate: float = 0.5


@grouped_parameters(posterior=(_Settings, {"draws": "draws", "step_rate": "rate"}))
def _sample(data, posterior=False):
    return posterior


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_grouped_keywords_fold_into_the_options_object_of_a_step_that_is_on():
    assert _sample([], posterior=True, step_rate=0.1) == _Settings(rate=0.1)
    assert _sample([], posterior=_Settings(draws=5)) == _Settings(draws=5)
    assert _sample([], draws=10) is False  # the step is off: ignored, as the old keyword was
    with pytest.raises(TypeError, match="give only posterior"):
        _sample([], posterior=_Settings(), draws=10)


def test_a_grouped_keyword_warns_with_its_new_spelling():
    with pytest.warns(FutureWarning, match=r"step_rate is now posterior=_Settings\(rate=\.\.\.\)"):
        _sample([], posterior=True, step_rate=0.1)


def test_a_group_must_name_fields_of_its_options_object():
    with pytest.raises(TypeError, match="grouped_parameters"):
        grouped_parameters(posterior=(_Settings, ["chains"]))(_sample)

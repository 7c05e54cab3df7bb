"""Arguments are checked before they are used (issue 45, item 8): the checks of
``rankstats._util.arguments``, and a walk over the public API.

The walk finds every public function (``rankstats.__all__``, ``rs.models.*``, ``rs.simulate.*``)
and the model classes' constructors and ``fit`` methods, and calls each with a bad value of
every parameter whose name has one meaning across the library (``alpha``, ``delta``, ``chains``,
``seed``, ``by`` ...): each call must raise a ``ValueError`` or ``TypeError`` whose message
names the parameter. A new public function with one of these parameters is walked too: it
fails here until it checks them (or its required inputs are added to :data:`INPUTS`).
"""

from __future__ import annotations

import inspect
import math
import re
from functools import cache

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._util import arguments
from rankstats._util.advice import AdviceError

# ---------------------------------------------------------------------------- the checks


@pytest.mark.parametrize(
    ("check", "value", "error"),
    [
        (lambda v: arguments.count("n", v), 2.5, TypeError),
        (lambda v: arguments.count("n", v), True, TypeError),
        (lambda v: arguments.count("n", v), "3", TypeError),
        (lambda v: arguments.count("n", v), 0, ValueError),
        (lambda v: arguments.count("n", v, 0, 5), 6, ValueError),
        (lambda v: arguments.probability("n", v), "0.05", TypeError),
        (lambda v: arguments.probability("n", v), 1.0, ValueError),
        (lambda v: arguments.probability("n", v), math.nan, ValueError),
        (lambda v: arguments.share("n", v), 1.5, ValueError),
        (lambda v: arguments.choice("n", v, ("a", "b")), "c", ValueError),
        (lambda v: arguments.choice("n", v, ("a", "b")), ["a"], TypeError),
        (lambda v: arguments.flag("n", v), "yes", TypeError),
        (lambda v: arguments.random_seed("n", v), -1, ValueError),
        (lambda v: arguments.random_seed("n", v), 1.5, TypeError),
        (lambda v: arguments.positive("n", v), math.inf, ValueError),
    ],
)
def test_each_check_refuses_in_one_line_naming_the_parameter(check, value, error):
    with pytest.raises(error, match=r"^n must be .*, not ") as caught:
        check(value)
    assert "\n" not in str(caught.value)
    # A wrong type is a TypeError and (as the older checks raised) a ValueError.
    assert isinstance(caught.value, ValueError)


def test_good_values_come_back_as_plain_python_numbers():
    assert arguments.count("n", np.int64(3)) == 3 and type(arguments.count("n", np.int64(3))) is int
    assert arguments.probability("alpha", np.float32(0.5)) == 0.5
    assert arguments.random_seed("seed", None) is None
    rng = np.random.default_rng(0)
    assert arguments.random_seed("seed", rng) is rng
    assert arguments.flag("ties", np.bool_(True)) is True


def test_the_command_line_spells_the_parameter_as_its_flag():
    with pytest.raises(AdviceError) as caught:
        arguments.count("n_boot", 0)
    assert caught.value.cli().startswith("--n-resamples must be an integer")
    assert str(caught.value).startswith("n_boot must be an integer")


# ---------------------------------------------------------------------------- the walk
PROBABILITY = ["0.05", 0, 1, math.nan, True]
COUNT = [-1, 2.5, "3", True]
SEED = [-1, 1.5, "1"]
#: Parameter name → bad values: the names that mean the same thing in every public function.
BAD = {
    "alpha": PROBABILITY,
    "delta": PROBABILITY,
    "confidence_level": PROBABILITY,
    "ci_prob": PROBABILITY,
    "by": ["bogus", 3],
    "min_coverage": [-0.1, 1.5, "0.5"],
    "n_resamples": COUNT,
    "chains": COUNT,
    "draws": COUNT,
    "tune": COUNT,
    "k": COUNT,
    "batch_rows": [0, *COUNT],
    "n_replications": COUNT,
    "seed": SEED,
    "n_jobs": [2.5, "2"],
}


@cache
def _scores():
    return rs.simulate.gumbel(n_systems=4, n_tasks=6, n_instances=3, seed=3)


@cache
def _battles():
    return rs.read_battles(rs.simulate_battles(n_models=4, n_battles=300, seed=3)[0])


@cache
def _scores_file(directory):
    path = f"{directory}/scores.csv"
    data = _scores().data.astype({"system": str, "task": str})
    data.to_csv(path, index=False)
    return path


def _rankings():
    return rs.Rankings.from_scores(_scores(), by="task")


@cache
def _pl_fit():
    return rs.models.PlackettLuce().fit(_rankings(), method="mle")


#: Values of the required parameters (by name, or "function:parameter"), valid for every
#: function that takes them; a callable is called with the test's temporary directory.
INPUTS = {
    "data": lambda tmp: _scores(),
    "scores": lambda tmp: _scores(),
    "pilot": lambda tmp: _scores(),
    "rankings": lambda tmp: _rankings(),
    "pw": lambda tmp: rs.pairwise(_scores()),
    "battles": lambda tmp: _battles(),
    "battle_report:fit": lambda tmp: rs.fit_battles(_battles(), n_resamples=0),
    "fits": lambda tmp: _pl_fit(),
    "fit_or_model": lambda tmp: rs.models.PlackettLuce(),
    "models.ppc:fit": lambda tmp: _pl_fit(),
    "models.kfold:data": lambda tmp: _rankings(),
    "models.ppc:data": lambda tmp: _rankings(),
    "a": lambda tmp: _scores().systems[0],
    "b": lambda tmp: _scores().systems[1],
    "paths": lambda tmp: _scores_file(str(tmp)),
    "n": lambda tmp: 4,
    "distance": lambda tmp: "footrule",
    "theta": lambda tmp: 1.0,
    "size": lambda tmp: 5,
    "worths": lambda tmp: [1.0, 2.0, 3.0],
    "covariates": lambda tmp: pd.DataFrame(
        {"x": np.arange(len(_scores().tasks), dtype=float)}, index=list(_scores().tasks)
    ),
    "models.rank_tree:data": lambda tmp: _rankings(),
    "models.predict_worth:fit": lambda tmp: _pl_fit(),
    "model": lambda tmp: "pl",
    "parameters": lambda tmp: {"log_worth": np.zeros((10, 4))},
    "models.ppc_draws:data": lambda tmp: _rankings(),
    "directory": lambda tmp: tmp / "simulated",
    "simulate.gumbel_cube:n_systems": lambda tmp: 4,
    "simulate.gumbel_cube:n_tasks": lambda tmp: 3,
}


def _entries():
    """``(name, callable)`` of every public function, model constructor and ``fit`` method."""
    for name in rs.__all__:
        obj = getattr(rs, name)
        if inspect.isfunction(obj):
            yield name, obj
    for module in (rs.models, rs.simulate):
        prefix = module.__name__.rsplit(".", 1)[-1]
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{prefix}.{name}", obj
            elif inspect.isclass(obj) and hasattr(obj, "fit"):
                yield f"{prefix}.{name}", obj
                yield f"{prefix}.{name}.fit", obj.fit


def _cases():
    for name, function in _entries():
        for parameter in inspect.signature(function).parameters:
            for value in BAD.get(parameter, ()):
                yield pytest.param(name, parameter, value, id=f"{name}-{parameter}={value!r}")


ENTRIES = dict(_entries())


def test_the_walk_finds_the_functions_of_the_issue():
    names = {case.values[:2] for case in _cases()}
    for expected in [
        ("posthoc", "alpha"),
        ("friedman", "by"),
        ("scan_scores", "batch_rows"),
        ("models.PlackettLuce.fit", "chains"),
        ("rank_confidence_sets", "n_resamples"),
        ("fit_battles", "n_resamples"),
        ("bayes_signed_rank", "draws"),
        ("scan_scores", "n_jobs"),
    ]:
        assert expected in names


def _call(name, function, parameter, value, tmp_path):
    kwargs = {parameter: value}
    call = function
    if name.endswith(".fit"):
        call = ENTRIES[name.removesuffix(".fit")]().fit
    for other, spec in inspect.signature(function).parameters.items():
        required = spec.default is inspect.Parameter.empty and spec.kind not in (
            spec.VAR_POSITIONAL,
            spec.VAR_KEYWORD,
        )
        if other in ("self", parameter) or not required:
            continue
        make = INPUTS.get(f"{name.removesuffix('.fit')}:{other}") or INPUTS.get(other)
        assert make is not None, f"add a valid value of {other!r} ({name}) to INPUTS"
        kwargs[other] = make(tmp_path)
    return call(**kwargs)


@pytest.mark.parametrize(("name", "parameter", "value"), list(_cases()))
def test_every_public_function_checks_its_arguments_first(name, parameter, value, tmp_path):
    with pytest.raises((ValueError, TypeError)) as caught:
        _call(name, ENTRIES[name], parameter, value, tmp_path)
    message = str(caught.value)
    assert re.search(rf"\b{parameter}\b", message), message
    assert "\n" not in message.strip(), message


# ---------------------------------------------------------------------------- result methods
#: Instances of the public classes whose methods take one of the parameters of :data:`BAD`.
INSTANCES = {
    "BattleFit": lambda: rs.fit_battles(_battles(), n_resamples=0),
    "BayesSignedRank": lambda: rs.bayes_signed_rank(
        _scores(), *_scores().systems[:2], task=_scores().tasks[0], draws=2000
    ),
    "Calibration": lambda: rs.calibrate(_scores()),
    "Comparison": lambda: rs.compare(rs.pairwise(_scores()), _pl_fit()),
    "FriedmanResult": lambda: rs.friedman(_scores()),
    "models.Fit": _pl_fit,
    "models.MallowsFit": lambda: rs.models.Mallows().fit(_rankings(), method="map"),
    "models.QuasiVariances": lambda: rs.models.quasi_variances(np.eye(3) + 0.5),
}
#: Classes whose methods are not walked, and why.
NOT_WALKED = {
    "models.PartitionFunction": "its alpha is the Mallows dispersion α ≥ 0, not a level",
    "models.MallowsMixtureFit": "a mixture is fitted by MCMC only; its ci_prob / k / seed go "
    "through the checks MallowsFit's methods use (tests/models/test_mallows_mixture.py)",
    "BayesHierarchical": "fitted by NUTS; its table(ci_prob=) is BayesSignedRank's check",
    "BenchmarkDesign": "draw(n_replications=) is a step of rs.power / rs.sample_size, which "
    "check n_replications first",
    "BattleDesign": "as BenchmarkDesign",
}


#: Values of the required parameters of methods ("method:parameter"), else :data:`INPUTS`.
METHOD_INPUTS = {
    "ppc:data": lambda tmp: _rankings(),
    "top_k:k": lambda tmp: 2,
}


def _classes():
    for name in rs.__all__:
        obj = getattr(rs, name)
        if inspect.isclass(obj):
            yield name, obj
    for name in rs.models.__all__:
        obj = getattr(rs.models, name)
        if inspect.isclass(obj):
            yield f"models.{name}", obj


def _method_cases():
    for owner, cls in _classes():
        for method, function in inspect.getmembers(cls, inspect.isfunction):
            if method.startswith("_") or method == "fit":
                continue
            for parameter in inspect.signature(function).parameters:
                for value in BAD.get(parameter, ()):
                    yield owner, method, parameter, value


def test_every_class_with_such_methods_is_walked_or_says_why_not():
    owners = {case[0] for case in _method_cases()}
    assert owners <= set(INSTANCES) | set(NOT_WALKED), owners - set(INSTANCES) - set(NOT_WALKED)


@cache
def _instance(owner):
    return INSTANCES[owner]()


@pytest.mark.parametrize(
    ("owner", "method", "parameter", "value"),
    [
        pytest.param(*case, id=f"{case[0]}.{case[1]}-{case[2]}={case[3]!r}")
        for case in _method_cases()
        if case[0] in INSTANCES
    ],
)
def test_every_public_method_checks_its_arguments_first(owner, method, parameter, value):
    bound = getattr(_instance(owner), method)
    kwargs = {parameter: value}
    for other, spec in inspect.signature(bound).parameters.items():
        if other != parameter and spec.default is inspect.Parameter.empty:
            make = METHOD_INPUTS.get(f"{method}:{other}") or INPUTS.get(other)
            assert make is not None, f"add a valid value of {other!r} ({owner}.{method})"
            kwargs[other] = make(None)
    with pytest.raises((ValueError, TypeError)) as caught:
        bound(**kwargs)
    message = str(caught.value)
    assert re.search(rf"\b{parameter}\b", message), message
    assert "\n" not in message.strip(), message


# ---------------------------------------------------------------------------- the issue's cases
def test_the_cases_of_issue_45_name_their_parameter(tmp_path):
    """Each was used before it was checked (a comparison TypeError, ``by``, ``int()``,
    ``range()``, ZeroDivisionError, an AttributeError 'pairs')."""
    scores = _scores()
    cases = [
        (lambda: rs.posthoc(scores, alpha="0.05"), TypeError, r"^alpha must be a number"),
        (lambda: rs.friedman(scores, by="bogus"), ValueError, r"^by must be one of"),
        (lambda: rs.fit_battles(_battles(), ties="yes"), TypeError, r"^ties must be True or"),
        (
            lambda: rs.fit_battles(rs.simulate_battles(n_models=3, n_battles=20)[0]),
            TypeError,
            r"not DataFrame: read .* with rs\.read_battles",
        ),
        (
            lambda: rs.scan_scores(_scores_file(str(tmp_path)), batch_rows=0),
            ValueError,
            "batch_rows",
        ),
        (
            lambda: rs.scan_scores(_scores_file(str(tmp_path)), batch_rows=-1),
            ValueError,
            "batch_rows",
        ),
        (lambda: rs.models.PlackettLuce().fit(_rankings(), chains=0), ValueError, "^chains must"),
    ]
    for call, error, pattern in cases:
        with pytest.raises(error, match=pattern):
            call()


def _one_system_scores():
    with pytest.warns(rs.DataWarning, match="one system"):  # said once, not "evaluated on no task"
        return rs.Scores.from_long(
            pd.DataFrame({"system": ["a"] * 3, "task": ["t1", "t2", "t3"], "score": [1, 2, 3]})
        )


@pytest.mark.parametrize(
    "test",
    [rs.friedman, rs.posthoc, rs.rank_confidence_sets, rs.choose_test, rs.tukey_hsd],
    ids=lambda f: f.__name__,
)
def test_one_system_is_refused_before_computing(test):
    """Not equal scores, not '0 of 0 blocks, raise min_coverage': one line, before computing."""
    inputs = [_one_system_scores(), rs.Rankings.from_orderings([["a"], ["a"]])]
    if test not in (rs.friedman, rs.posthoc):  # the score-based tests take blocks × systems
        inputs = [inputs[0], pd.DataFrame({"a": [0.1, 0.2, 0.3]})]
    for data in inputs:
        with pytest.raises(
            ValueError, match=r"^comparing systems needs at least 2; the table has 1: a$"
        ):
            test(data)

"""Checks of a public function's arguments, run at its top before any work: each returns the
value (as a plain Python number where that helps) or raises one line naming the parameter.

A value of the wrong type raises :class:`ArgumentTypeError` (a ``TypeError`` and a
``ValueError``: callers that caught the older ``ValueError`` still do); a value out of range
raises :class:`~rankstats._util.advice.AdviceError`. The parameter is a template field
(:mod:`rankstats._util.advice`): ``str(err)`` reads ``alpha must be ...``, ``err.cli()``
``--alpha must be ...``.

Examples
--------
>>> probability("alpha", 0.05)
0.05
>>> probability("alpha", "0.05")
Traceback (most recent call last):
...
rankstats._util.arguments.ArgumentTypeError: alpha must be a number in (0, 1), not '0.05' (str)
>>> count("chains", 0)
Traceback (most recent call last):
...
rankstats._util.advice.AdviceError: chains must be an integer ≥ 1, not 0
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection

import numpy as np

from rankstats._util.advice import AdviceError, escape


class ArgumentTypeError(AdviceError, TypeError):
    """An argument of the wrong type (also a ``ValueError``, as the older checks raised)."""


def _shown(value: object) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return escape(text)


def _refuse(name: str, wanted: str, value: object, wrong_type: bool) -> None:
    kind = f" ({type(value).__name__})" if wrong_type else ""
    cls = ArgumentTypeError if wrong_type else AdviceError
    raise cls("{name} " + escape(wanted) + f", not {_shown(value)}{kind}", name=(name,))


def _scalar(value: object) -> object:
    """A 0-d array as its scalar (``np.array(0.05)`` is a number)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def is_integer(value: object) -> bool:
    """An integer that is not a bool (``True`` is an ``Integral`` in Python)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def is_real(value: object) -> bool:
    """A real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def count(name: str, value: object, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in ``[minimum, maximum]`` (a number of draws, chains, folds, rows ...)."""
    value = _scalar(value)
    bound = f"≥ {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if not is_integer(value):
        _refuse(name, f"must be an integer {bound}", value, wrong_type=True)
    if value < minimum or (maximum is not None and value > maximum):
        _refuse(name, f"must be an integer {bound}", value, wrong_type=False)
    return int(value)


def probability(name: str, value: object) -> float:
    """A number strictly between 0 and 1 (a level α, δ, a confidence, a credible mass)."""
    value = _scalar(value)
    if not is_real(value):
        _refuse(name, "must be a number in (0, 1)", value, wrong_type=True)
    if not 0.0 < value < 1.0:
        _refuse(name, "must be a number in (0, 1)", value, wrong_type=False)
    return float(value)


def share(name: str, value: object) -> float:
    """A number in ``[0, 1]`` (a fraction of blocks, of cells)."""
    value = _scalar(value)
    if not is_real(value):
        _refuse(name, "must be a number in [0, 1]", value, wrong_type=True)
    if not 0.0 <= value <= 1.0:
        _refuse(name, "must be a number in [0, 1]", value, wrong_type=False)
    return float(value)


def choice(name: str, value: object, choices: Collection[object]) -> object:
    """One of ``choices`` (the words of an option)."""
    listed = ", ".join(map(repr, choices))
    try:
        known = value in choices
    except TypeError:  # an unhashable value asked of a set
        known = False
    if not known:
        wrong_type = not isinstance(value, str) and all(isinstance(c, str) for c in choices)
        _refuse(name, f"must be one of {listed}", value, wrong_type)
    return value


def flag(name: str, value: object) -> bool:
    """``True`` or ``False`` (a string ``"yes"`` is not a bool)."""
    if not isinstance(value, bool | np.bool_):
        _refuse(name, "must be True or False", value, wrong_type=True)
    return bool(value)


def random_seed(name: str, value: object) -> object:
    """``None``, an integer ≥ 0, or a :class:`numpy.random.Generator` / ``SeedSequence``: what
    :func:`numpy.random.default_rng` takes."""
    if value is None or isinstance(value, np.random.Generator | np.random.SeedSequence):
        return value
    value = _scalar(value)
    if not is_integer(value):
        _refuse(name, "must be None or an integer ≥ 0", value, wrong_type=True)
    if value < 0:
        _refuse(name, "must be None or an integer ≥ 0", value, wrong_type=False)
    return value


def positive(name: str, value: object) -> float:
    """A finite number > 0 (a scale, a time limit)."""
    value = _scalar(value)
    if not is_real(value):
        _refuse(name, "must be a finite number > 0", value, wrong_type=True)
    if not (math.isfinite(value) and value > 0):
        _refuse(name, "must be a finite number > 0", value, wrong_type=False)
    return float(value)


def sampling(draws: object, tune: object, chains: object, seed_value: object = None) -> None:
    """The settings of a sampler: ``draws`` ≥ 1 kept per chain, ``tune`` ≥ 0 tuning steps,
    ``chains`` ≥ 1, and its ``seed`` (``tune=None``: the sampler's default)."""
    count("draws", draws, 1)
    if tune is not None:
        count("tune", tune, 0)
    count("chains", chains, 1)
    random_seed("seed", seed_value)

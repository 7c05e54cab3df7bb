"""The options objects: each command's options are a frozen dataclass built once from the
parsed namespace (:func:`from_namespace`, right after parsing, in :func:`rankstats.cli.main`); no
function below the parser sees the namespace. A group of options several commands share is a
frozen sub-object (``options.input.file``), declared once in :mod:`rankstats.cli.options.shared`.

Light on purpose (the standard library): ``rankstats --help`` imports the options modules.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any, TypeVar

T = TypeVar("T")

#: Options of ``rankstats`` itself, read by :func:`rankstats.cli.main` (not by a command).
GLOBAL = frozenset({"command", "debug", "quiet"})


# ---------------------------------------------------------------------------- options objects
def from_namespace(cls: type[T], namespace: argparse.Namespace, **derived: Any) -> T:
    """The options object ``cls`` of a parsed command line: each field from the option of its
    name (a field whose type is an options dataclass: that shared group, built from the same
    namespace; a field the command does not declare: its default), ``derived`` values as given.
    The one step that reads the namespace."""
    values = vars(namespace)
    obj = _build(cls, values, derived)
    unread = set(values) - GLOBAL - _names(cls)
    if unread:  # an option declared but held by no field: a bug of the options object
        raise TypeError(f"{cls.__name__} has no field for the options {sorted(unread)}")
    return obj


def _groups(cls: type) -> dict[str, type]:
    """The fields of ``cls`` that hold a shared group (typed by an options dataclass)."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: hints[f.name]
        for f in dataclasses.fields(cls)
        if dataclasses.is_dataclass(hints[f.name])
    }


def _build(cls: type, values: dict, derived: dict) -> Any:
    given: dict[str, Any] = {}
    groups = _groups(cls)
    for f in dataclasses.fields(cls):
        if f.name in derived:
            given[f.name] = derived[f.name]
        elif f.name in groups:
            given[f.name] = _build(groups[f.name], values, {})
        elif f.name in values:
            given[f.name] = values[f.name]
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: no option of this name was parsed")
    return cls(**given)


def _names(cls: type) -> set[str]:
    names: set[str] = set()
    groups = _groups(cls)
    for f in dataclasses.fields(cls):
        names |= _names(groups[f.name]) if f.name in groups else {f.name}
    return names


@dataclasses.dataclass(frozen=True)
class InputOptions:
    """FILE | ``--dataset`` and how a score table is read (``input_arguments``), with
    ``--by`` and ``--placeholders`` where the command has them."""

    file: str | None = None
    dataset: str | None = None
    system: str | list[str] = "system"
    task: str = "task"
    instance: str | None = None
    score: str = "score"
    layout: str = "auto"
    lower_is_better: list[str] = dataclasses.field(default_factory=list)
    sep: str | None = None
    encoding: str = "utf-8"
    na_values: list[str] | None = None
    ignore_memory_check: bool = False
    tasks: list[str] | None = None
    drop_columns: list[str] | None = None
    by: str | None = None
    placeholders: str = "keep"


@dataclasses.dataclass(frozen=True)
class RankingsFileOptions:
    """What FILE holds and the columns of a rankings file (``RANKINGS_FILE``);
    ``scores`` for a command that reads score tables only."""

    format: str = "scores"
    ranker: str | None = None
    preferred: str | None = None
    other: str | None = None


@dataclasses.dataclass(frozen=True)
class HoeffdingOptions:
    """The Hoeffding intervals (``significance_arguments``)."""

    delta: float = 0.05
    correction: str = "holm"
    form: str = "two-sided"
    estimand: str = "imputed"


@dataclasses.dataclass(frozen=True)
class OutputOptions:
    """Where the outputs go (``output_argument``) and whether figures are drawn."""

    out: str | None = None
    no_figures: bool = False


@dataclasses.dataclass(frozen=True)
class McmcOptions:
    """The sampler's draws, tuning steps and chains (``mcmc_arguments``)."""

    draws: int = 1000
    tune: int | None = 1000
    chains: int = 4

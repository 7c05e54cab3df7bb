r"""Synthetic benchmarks with a known true ranking, and the samplers behind them.

This package face re-exports the generators (``rs.simulate.gumbel``, ...); the code lives in
:mod:`~rankstats.simulate.gumbel_benchmark` (:func:`gumbel`, :func:`gumbel_cube`),
:mod:`~rankstats.simulate.ranking_samplers` (:func:`plackett_luce`, :func:`mallows`),
:mod:`~rankstats.simulate.benchmark_files` (:func:`gumbel_files`),
:mod:`~rankstats.simulate.simulated_scores` (:class:`SimulatedScores`) and
:mod:`~rankstats.simulate.argument_checks`.

``gumbel`` follows Colombo et al. (2022, Sec. 4.1): Gumbel scores whose instance rankings are
Plackett–Luce, with combinable corruptions (adversarial tasks, rescaled tasks, missing scores,
outliers, instance types, rounding: one :class:`~rankstats.simulate.corruptions.Corruptions`);
:mod:`~rankstats.simulate.gumbel_benchmark` states the model and each corruption.

``plackett_luce`` (Gumbel-max) and ``mallows`` (repeated insertion, Kendall distance) sample
rankings directly; both are vectorised over rankings.

Every argument of a generator is checked before any work (a ``ValueError`` naming the argument
and its valid range).  Outputs cannot be mistaken for complete data: ``to_csv`` / ``to_parquet``
write to a temporary name and rename, and :func:`gumbel_files` writes its parts into a temporary
directory that is renamed into place only after the last part, with ``rankstats-manifest.json``
listing the parts and their rows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from rankstats.simulate.benchmark_files import gumbel_files
from rankstats.simulate.corruptions import Corruptions
from rankstats.simulate.gumbel_benchmark import gumbel, gumbel_cube
from rankstats.simulate.labels import system_names as system_names  # rs.simulate.system_names
from rankstats.simulate.labels import task_names as task_names
from rankstats.simulate.ranking_samplers import mallows, mallows_expected_distance, plackett_luce
from rankstats.simulate.simulated_scores import SimulatedScores

# The experiments live in rankstats.simulate.robustness_experiments, which imports the generator
# modules (generators ← experiments, never the reverse, and never this package face). They stay
# documented as rs.simulate.<name>: the module __getattr__ below (PEP 562) imports them on first
# use, so loading the generators imports no experiment code.
_EXPERIMENTS = {
    "agreement": "rankstats.core.metrics",
    "perturb": "rankstats.simulate.robustness_experiments",
    "perturbation": "rankstats.simulate.robustness_experiments",
    "robustness": "rankstats.simulate.robustness_experiments",
}


if TYPE_CHECKING:  # for type checkers and linters only; nothing is imported at run time
    from rankstats.core.metrics import agreement
    from rankstats.simulate.robustness_experiments import perturb, perturbation, robustness


def __getattr__(name: str):
    if name in _EXPERIMENTS:
        return getattr(importlib.import_module(_EXPERIMENTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Corruptions",
    "SimulatedScores",
    "agreement",
    "gumbel",
    "gumbel_cube",
    "gumbel_files",
    "mallows",
    "mallows_expected_distance",
    "perturb",
    "perturbation",
    "plackett_luce",
    "robustness",
]

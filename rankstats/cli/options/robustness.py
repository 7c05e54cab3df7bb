"""The options of ``rankstats robustness`` (its implementation: :mod:`rankstats.cli.robustness`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.groups import OutputOptions
from rankstats.cli.options.shared import (
    add_n_jobs_argument,
    add_output_argument,
    add_progress_argument,
    add_scheduler_argument,
    add_seed_argument,
    at_least,
)
from rankstats.cli.usage import renamed

HELP = "run a robustness experiment of the papers"
EXAMPLE = "rankstats robustness --experiment colombo2022-manipulation --n-replications 20"


def arguments(parser: argparse.ArgumentParser) -> None:
    # The experiments live with the simulators (numpy, pandas): imported only when this
    # command's options are built.
    from rankstats.simulate.robustness_experiments import PRESETS

    parser.add_argument(
        "--experiment", choices=sorted(PRESETS), required=True, help="the preset to run"
    )
    renamed(
        parser,
        "--n-replications",
        old=("--reps",),
        type=at_least(1),
        default=None,
        help="replicates per grid cell (default: the preset's)",
    )
    parser.add_argument(
        "--aggregators",
        nargs="+",
        default=["mean", "borda", "borda2"],
        choices=METHODS,
        metavar="METHOD",
        help="aggregators compared (default: mean borda borda2; also median, copeland, kemeny, "
        "bt, pl)",
    )
    add_n_jobs_argument(parser, 1, "worker processes")
    parser.add_argument(
        "--backend",
        choices=["processes", "joblib"],
        default="processes",
        help="how --n-jobs runs the grid cells: the standard library's process pool (default) or "
        "joblib (loky; or a Dask cluster with --scheduler)",
    )
    add_scheduler_argument(parser, "the cells through joblib (implies --backend joblib)")
    add_seed_argument(parser)
    add_output_argument(parser, "robustness-out", "robustness.csv, summary.csv and the figure")
    add_progress_argument(parser)


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats robustness``."""

    experiment: str
    output: OutputOptions
    n_replications: int | None = None
    aggregators: list[str] = dataclasses.field(default_factory=lambda: ["mean", "borda", "borda2"])
    n_jobs: int = 1
    backend: str = "processes"
    scheduler: str | None = None
    seed: int = 0
    progress: bool | None = None

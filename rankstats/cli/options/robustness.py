"""The options of ``rankstats robustness`` (its implementation: :mod:`rankstats.cli.robustness`)."""

from __future__ import annotations

import dataclasses

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.groups import OutputOptions
from rankstats.cli.options.shared import (
    at_least,
    n_jobs_argument,
    opt,
    output_argument,
    progress_argument,
    scheduler_argument,
    seed_argument,
)

HELP = "run a robustness experiment of the papers"
EXAMPLE = "rankstats robustness --experiment colombo2022-manipulation --n-replications 20"


def _experiment() -> tuple:
    # The experiments live with the simulators (numpy, pandas): imported only when this
    # command's options are built.
    from rankstats.simulate.robustness_experiments import PRESETS

    return (opt("--experiment", choices=sorted(PRESETS), required=True, help="the preset to run"),)


# fmt: off
ARGUMENTS = (
    _experiment,
    opt("--n-replications", old=("--reps",), type=at_least(1), default=None,
        help="replicates per grid cell (default: the preset's)"),
    opt("--aggregators", nargs="+", default=["mean", "borda", "borda2"], choices=METHODS,
        metavar="METHOD",
        help="aggregators compared (default: mean borda borda2; also median, copeland, kemeny, "
        "bt, pl)"),
    n_jobs_argument(1, "worker processes"),
    opt("--backend", choices=["processes", "joblib"], default="processes",
        help="how --n-jobs runs the grid cells: the standard library's process pool (default) "
        "or joblib (loky; or a Dask cluster with --scheduler)"),
    scheduler_argument("the cells through joblib (implies --backend joblib)"),
    seed_argument(),
    output_argument("robustness-out", "robustness.csv, summary.csv and the figure"),
    progress_argument(),
)
# fmt: on


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

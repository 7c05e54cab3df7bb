"""The options of ``rankstats robustness`` (its implementation: :mod:`rankstats.cli.robustness`)."""

from __future__ import annotations

import argparse

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.shared import add_output_argument, at_least

HELP = "run a robustness experiment of the papers"
EXAMPLE = "rankstats robustness --experiment colombo2022-manipulation --reps 20"


def arguments(parser: argparse.ArgumentParser) -> None:
    # The experiments live with the simulators (numpy, pandas): imported only when this
    # command's options are built.
    from rankstats.simulate.robustness_experiments import PRESETS

    parser.add_argument(
        "--experiment", choices=sorted(PRESETS), required=True, help="the preset to run"
    )
    parser.add_argument(
        "--reps",
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
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="worker processes (-1: all cores; default 1)",
    )
    parser.add_argument(
        "--backend",
        choices=["processes", "joblib"],
        default="processes",
        help="how --jobs runs the grid cells: the standard library's process pool (default) or "
        "joblib (loky; or a Dask cluster with --scheduler)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the cells on this Dask cluster through joblib (implies --backend joblib; "
        "needs rankstats[dask])",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_output_argument(parser, "robustness-out", "robustness.csv, summary.csv and the figure")

"""The options of ``rankstats paired`` (its implementation: :mod:`rankstats.cli.paired`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    add_confidence_level_argument,
    add_figures_argument,
    add_input_arguments,
    add_n_resamples_argument,
    add_output_argument,
    add_progress_argument,
    add_seed_argument,
    add_zero_method_argument,
)

HELP = "paired instance-level tests and ratings on one metric"
EXAMPLE = "rankstats paired --dataset tac08 --task H:pyramid"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, task_flag="--task-column")
    parser.add_argument(
        "--task",
        dest="metric",
        default=None,
        metavar="METRIC",
        help="the metric (task) to analyse; required when the data holds several",
    )
    parser.add_argument(
        "--systems-as-columns",
        action="store_true",
        help="FILE is wide with one row per instance and one column per system "
        "(the pairformance format)",
    )
    add_confidence_level_argument(
        parser, "bootstrap intervals; α = 1 − confidence level marks significance"
    )
    add_n_resamples_argument(parser, 1000, 1, " (default 1000)")
    parser.add_argument(
        "--bt-ties",
        choices=["half", "davidson"],
        default="half",
        help="Bradley–Terry ties: half a win each way (default) or Davidson's tie parameter",
    )
    add_zero_method_argument(parser, "wilcox")
    add_seed_argument(parser)
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        metavar=("A", "B"),
        help="draw the pairing plot of A against B (repeatable; default: the two strongest)",
    )
    add_output_argument(parser, "paired-out", "pairs.csv, strengths.csv and the figures")
    add_figures_argument(parser)
    add_progress_argument(parser)


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats paired``."""

    input: InputOptions
    output: OutputOptions
    metric: str | None = None
    systems_as_columns: bool = False
    confidence_level: float = 0.95
    n_resamples: int = 1000
    bt_ties: str = "half"
    zero_method: str = "wilcox"
    seed: int = 0
    pair: list[list[str]] | None = None
    progress: bool | None = None

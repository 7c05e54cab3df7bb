"""The options of ``rankstats paired`` (its implementation: :mod:`rankstats.cli.paired`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    confidence_level_argument,
    figures_argument,
    input_arguments,
    n_resamples_argument,
    opt,
    output_argument,
    progress_argument,
    seed_argument,
    zero_method_argument,
)

HELP = "paired instance-level tests and ratings on one metric"
EXAMPLE = "rankstats paired --dataset tac08 --task H:pyramid"


# fmt: off
ARGUMENTS = (
    input_arguments(task_flag="--task-column"),
    opt("--task", dest="metric", default=None, metavar="METRIC",
        help="the metric (task) to analyse; required when the data holds several"),
    opt("--systems-as-columns", action="store_true",
        help="FILE is wide with one row per instance and one column per system "
        "(the pairformance format)"),
    confidence_level_argument("bootstrap intervals; α = 1 − confidence level marks significance"),
    n_resamples_argument(1000, 1, " (default 1000)"),
    opt("--bt-ties", choices=["half", "davidson"], default="half",
        help="Bradley–Terry ties: half a win each way (default) or Davidson's tie parameter"),
    zero_method_argument("wilcox"),
    seed_argument(),
    opt("--pair", nargs=2, action="append", metavar=("A", "B"),
        help="draw the pairing plot of A against B (repeatable; default: the two strongest)"),
    output_argument("paired-out", "pairs.csv, strengths.csv and the figures"),
    figures_argument(),
    progress_argument(),
)
# fmt: on


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

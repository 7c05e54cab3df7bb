"""The options of ``rankstats paired`` (its implementation: :mod:`rankstats.cli.paired`)."""

from __future__ import annotations

import argparse

from rankstats.cli.options.shared import (
    add_input_arguments,
    add_output_argument,
    add_zero_method_argument,
    at_least,
    probability,
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
    parser.add_argument(
        "--confidence",
        type=probability,
        default=0.95,
        help="level of the bootstrap intervals, in (0, 1); α = 1 − confidence marks "
        "significance (default 0.95)",
    )
    parser.add_argument(
        "--bootstrap", type=at_least(1), default=1000, help="bootstrap resamples (default 1000)"
    )
    parser.add_argument(
        "--bt-ties",
        choices=["half", "davidson"],
        default="half",
        help="Bradley–Terry ties: half a win each way (default) or Davidson's tie parameter",
    )
    add_zero_method_argument(parser, "wilcox")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        metavar=("A", "B"),
        help="draw the pairing plot of A against B (repeatable; default: the two strongest)",
    )
    add_output_argument(parser, "paired-out", "pairs.csv, strengths.csv and the figures")
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")

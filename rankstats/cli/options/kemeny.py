"""The options of ``rankstats kemeny`` (its implementation: :mod:`rankstats.cli.kemeny`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    add_input_arguments,
    add_output_argument,
    add_progress_argument,
    add_seed_argument,
    positive,
)

HELP = "Kemeny consensus (exact or with a bound) and the dispersion of the rankings"
EXAMPLE = "rankstats kemeny --dataset glue --time-limit 30"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, by=True)
    parser.add_argument(
        "--method",
        choices=["auto", "exact", "heuristic"],
        default="auto",
        help="auto: exact within the time limit, else best heuristic with its gap (default)",
    )
    parser.add_argument(
        "--time-limit",
        type=positive,
        default=60.0,
        help="seconds for the search (default 60); when it runs out, the best order is "
        "reported with its certified gap",
    )
    add_seed_argument(parser, "seed of the KwikSort starts")
    add_output_argument(parser, None, "kemeny.csv and kemeny.json (default: none written)")
    add_progress_argument(parser, " (elapsed, bound, gap)")


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats kemeny``."""

    input: InputOptions
    output: OutputOptions
    method: str = "auto"
    time_limit: float = 60.0
    seed: int = 0
    progress: bool | None = None

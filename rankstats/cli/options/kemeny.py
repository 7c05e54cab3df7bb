"""The options of ``rankstats kemeny`` (its implementation: :mod:`rankstats.cli.kemeny`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    input_arguments,
    opt,
    output_argument,
    positive,
    progress_argument,
    seed_argument,
)

HELP = "Kemeny consensus (exact or with a bound) and the dispersion of the rankings"
EXAMPLE = "rankstats kemeny --dataset glue --time-limit 30"


# fmt: off
ARGUMENTS = (
    input_arguments(by=True),
    opt("--method", choices=["auto", "exact", "heuristic"], default="auto",
        help="auto: exact within the time limit, else best heuristic with its gap (default)"),
    opt("--time-limit", type=positive, default=60.0,
        help="seconds for the search (default 60); when it runs out, the best order is "
        "reported with its certified gap"),
    seed_argument("seed of the KwikSort starts"),
    output_argument(None, "kemeny.csv and kemeny.json (default: none written)"),
    progress_argument(" (elapsed, bound, gap)"),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats kemeny``."""

    input: InputOptions
    output: OutputOptions
    method: str = "auto"
    time_limit: float = 60.0
    seed: int = 0
    progress: bool | None = None

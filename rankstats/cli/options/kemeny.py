"""The options of ``rankstats kemeny`` (its implementation: :mod:`rankstats.cli.kemeny`)."""

from __future__ import annotations

import argparse

from rankstats.cli.options.shared import add_input_arguments, positive

HELP = "Kemeny consensus (exact or with a bound) and the dispersion of the rankings"
EXAMPLE = "rankstats kemeny --dataset glue --time-limit 30"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
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
    parser.add_argument("--seed", type=int, default=0, help="seed of the KwikSort starts")
    parser.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="also write kemeny.csv and kemeny.json here (written as a whole)",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="progress (elapsed, bound, gap) also when stderr is not a terminal, as plain "
        "lines (default: a bar on a terminal only; --quiet: none)",
    )

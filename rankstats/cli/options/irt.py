"""The options of ``rankstats irt`` (its implementation: :mod:`rankstats.cli.irt`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    add_alpha_argument,
    add_confidence_level_argument,
    add_input_arguments,
    add_output_argument,
    add_seed_argument,
)

HELP = "item response theory: abilities, item parameters and fit from instance-level 0/1 results"
EXAMPLE = "rankstats irt answers.csv --model 2pl --out irt-out/"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "--model",
        choices=["rasch", "2pl", "3pl", "graded"],
        default="2pl",
        help="the item response model (default 2pl); graded: ordered categories 0, 1, ..., K-1",
    )
    parser.add_argument(
        "--method",
        choices=["EAP", "MAP", "ML"],
        default="EAP",
        help="ability estimates (default EAP, as mirt's fscores)",
    )
    parser.add_argument(
        "--slope-sd",
        type=float,
        default=None,
        metavar="SD",
        help="a N(1, SD²) prior on the slopes (Bayes modal items): keeps the items that separate "
        "few systems perfectly finite (default: none, maximum likelihood as mirt)",
    )
    add_confidence_level_argument(parser, "ability intervals")
    add_alpha_argument(parser, 0.05, "the rank confidence sets (1 − alpha coverage)")
    add_seed_argument(parser, "seed of the rank confidence sets' draws")
    add_output_argument(
        parser, None, "abilities.csv, items.csv, ranking.csv, item_fit.csv, flags.csv"
    )


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats irt``."""

    input: InputOptions
    output: OutputOptions
    model: str = "2pl"
    method: str = "EAP"
    slope_sd: float | None = None
    confidence_level: float = 0.95
    alpha: float = 0.05
    seed: int = 0

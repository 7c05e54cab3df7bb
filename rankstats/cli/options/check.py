"""The options of ``rankstats check`` (its implementation: :mod:`rankstats.cli.check`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import add_input_arguments, add_output_argument

HELP = "check a score table before any analysis: placeholders, aggregate columns, scales, folds"
EXAMPLE = (
    "rankstats check --dataset xtreme_table5\n  "
    "rankstats check results.csv --system name pretrained --instance fold"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    add_output_argument(parser, "rankstats-check", "check.json and check.csv")


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats check``."""

    input: InputOptions
    output: OutputOptions

"""The options of ``rankstats check`` (its implementation: :mod:`rankstats.cli.check`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions
from rankstats.cli.options.shared import input_arguments, output_argument

HELP = "check a score table before any analysis: placeholders, aggregate columns, scales, folds"
EXAMPLE = (
    "rankstats check --dataset xtreme_table5\n  "
    "rankstats check results.csv --system name pretrained --instance fold"
)


ARGUMENTS = (input_arguments(), output_argument("rankstats-check", "check.json and check.csv"))


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats check``."""

    input: InputOptions
    output: OutputOptions

"""The options of ``rankstats datasets`` (its implementation: :mod:`rankstats.cli.datasets`)."""

from __future__ import annotations

import argparse
import dataclasses

HELP = "list the bundled data sets"
EXAMPLE = "rankstats datasets"


def arguments(parser: argparse.ArgumentParser) -> None:
    pass


@dataclasses.dataclass(frozen=True)
class Options:
    """``rankstats datasets`` has no options."""

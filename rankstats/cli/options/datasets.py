"""The options of ``rankstats datasets`` (its implementation: :mod:`rankstats.cli.datasets`)."""

from __future__ import annotations

import dataclasses

HELP = "list the bundled data sets"
EXAMPLE = "rankstats datasets"


ARGUMENTS = ()


@dataclasses.dataclass(frozen=True)
class Options:
    """``rankstats datasets`` has no options."""

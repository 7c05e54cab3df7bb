"""The files of a report, written into its temporary directory and recorded under their final
names (shared by :func:`rankstats.report` and :func:`rankstats.battle_report`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rankstats._util.atomic import checkpoint
from rankstats._util.text import write_csv


class WrittenFiles:
    """Files written into the temporary directory, recorded under their final names.

    Each call is one finished file: it is recorded and the ``report-file`` checkpoint (the
    interruption hook of the atomicity tests) runs.
    """

    def __init__(self, tmp: Path, final: Path) -> None:
        self.tmp, self.final = tmp, final
        self.files: list[Path] = []

    def __call__(self, path: Path) -> None:
        self.files.append(self.final / path.relative_to(self.tmp))
        checkpoint("report-file")

    def text(self, name: str, content: str) -> None:
        """Write one UTF-8 text file and record it."""
        path = self.tmp / name
        path.write_text(content, encoding="utf-8")
        self(path)

    def csv(self, name: str, frame: pd.DataFrame) -> None:
        """Write one CSV file (formula-safe cells) and record it."""
        path = self.tmp / name
        write_csv(frame, path)
        self(path)

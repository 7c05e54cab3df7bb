"""The report's "Data check" section: the findings of :func:`rankstats.check_data` on the
scores the report ranks (placeholders, scales, missing and few scores, name collisions, uneven
instances, folds), each with its counts, examples and the option that acts on it, and
``data_check.csv``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rankstats._util.text import terminal
from rankstats.datacheck import DataCheck, run_detectors

#: The file the section writes.
FILE = "data_check.csv"


def run_data_check(scores: Any, check: DataCheck | None, warn: bool = True) -> DataCheck:
    """``check`` when the caller ran it (the CLI, in its own spelling), else the check of
    ``scores``, its warnings issued in Python's spelling."""
    if check is not None:
        return check
    check = DataCheck(tuple(run_detectors(scores)), scores, scores.name)
    if warn:
        check.warn(stacklevel=None)  # the user's line, past report's frames
    return check


def write_data_check(check: DataCheck, tmp: Path, written: Any) -> None:
    """``data_check.csv``: one row per finding (also when there is none: the header)."""
    written.csv(FILE, check.table)


def section(check: DataCheck, cli: bool = False) -> dict[str, Any]:
    """The values of the template's section (text only: the template escapes)."""
    return {
        "file": FILE,
        "findings": [
            {
                "severity": f.severity,
                "kind": f.kind,
                "message": terminal(f.message),
                "option": terminal(f.option if cli else f.api),
            }
            for f in check.findings
        ],
    }

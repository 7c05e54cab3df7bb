"""The score files of a streamed directory, checked against the manifest of a ``rankstats
simulate`` output.

A file that is neither a score table nor a known sidecar is refused by name (it would otherwise be
skipped silently); an interrupted simulation (no manifest, or one that does not say complete, or
files missing or extra) is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from rankstats.errors import UnreadableFileError, preview
from rankstats.io.file_bytes import first_line
from rankstats.io.sources import is_score_file_name

#: The manifest that ``rankstats simulate`` writes last: the files of a complete output.
MANIFEST = "rankstats-manifest.json"


#: Files that ``rankstats simulate`` and the CLI write beside data files (never read as data).
SIDECARS = frozenset({"truth.json", MANIFEST, ".rankstats-output"})


# ---------------------------------------------------------------------------- directories
def directory_files(directory: Path) -> tuple[list[Path], int | None]:
    """The score files of a streamed directory and the row count its manifest promises.

    Read: ``.parquet``, ``.pq``, ``.csv``, ``.tsv``, ``.tab``, ``.txt`` (the text ones also
    ``.gz`` / ``.bz2`` / ``.xz``) at any depth. Ignored: names starting with ``.`` or ``_`` (as
    Arrow's datasets: ``_SUCCESS``, ``_metadata``), the sidecars ``truth.json``,
    ``*.truth.json``, ``rankstats-manifest.json``, ``.rankstats-output``. Any other file is
    refused by name (it would otherwise be skipped silently). A ``rankstats simulate`` output
    (``truth.json``) must carry the ``rankstats-manifest.json`` that simulate writes last, and
    the files must be those it lists.
    """
    data, other = [], []
    for found in sorted(directory.rglob("*")):
        relative = found.relative_to(directory)
        if any(part.startswith((".", "_")) for part in relative.parts) or found.is_dir():
            continue
        if found.name in SIDECARS or found.name.endswith(".truth.json"):
            continue
        (data if is_score_file_name(found.name) else other).append(found)
    if other:
        names = [f.relative_to(directory).as_posix() for f in other]
        raise UnreadableFileError(
            f"{directory} holds {len(other)} file(s) that are not score tables and would be "
            f"skipped: {preview(names, 5)}; move them out, or pass the score files themselves "
            "(.parquet, .pq, .csv, .tsv, .tab, .txt, optionally .gz / .bz2 / .xz)"
        )
    rows = _check_manifest(directory, data)
    if not data:
        raise FileNotFoundError(
            f"no score file (.parquet, .pq, .csv, .tsv, .tab, .txt) in directory {directory}"
        )
    return data, rows


def _check_manifest(directory: Path, data: list[Path]) -> int | None:
    manifest = directory / MANIFEST
    incomplete = f"{directory} is an incomplete rankstats simulate output (interrupted?)"
    if not manifest.exists():
        if (directory / "truth.json").exists():
            raise UnreadableFileError(
                f"{incomplete}: it has truth.json but not {MANIFEST}, which simulate writes "
                "last; run the simulation again"
            )
        return None
    try:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        listed = [str(f) for f in meta["files"]]
        complete = meta.get("complete") is True
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UnreadableFileError(
            f"{incomplete}: {MANIFEST} is unreadable ({first_line(err)}); run the simulation again"
        ) from None
    if not complete:
        raise UnreadableFileError(f"{incomplete}: {MANIFEST} does not say complete: true")
    names = {f.relative_to(directory).as_posix() for f in data}
    absent = [f for f in listed if f not in names]
    if absent:
        raise UnreadableFileError(
            f"{incomplete}: {len(absent)} file(s) listed in {MANIFEST} are missing: "
            f"{preview(absent, 5)}; run the simulation again"
        )
    extra = sorted(names - set(listed))
    if extra:
        raise UnreadableFileError(
            f"{directory} holds {len(extra)} data file(s) not listed in its {MANIFEST}: "
            f"{preview(extra, 5)} (left by another run, or an incomplete rankstats simulate "
            "output (interrupted?)); remove them, or simulate into an empty directory"
        )
    rows = meta.get("rows")
    return int(rows) if isinstance(rows, int) else None

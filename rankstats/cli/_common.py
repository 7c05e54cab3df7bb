"""What the subcommands share when they run: reading the input (``FILE`` or ``--dataset``,
rankings files), escaping of names on the terminal, JSON helpers and the atomic output
directory. The library's errors pass through unchanged: those whose advice names options are
printed with their flags by :func:`rankstats.cli.main` (:mod:`rankstats._util.advice`).

The options themselves are declared in :mod:`rankstats.cli.options`; the exit codes and
:class:`~rankstats.cli.usage.UsageError` in :mod:`rankstats.cli.usage`.
"""

from __future__ import annotations

import contextlib
import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from rankstats._util.atomic import checkpoint
from rankstats._util.text import shorten, terminal
from rankstats.cli.options.groups import InputOptions, RankingsFileOptions
from rankstats.cli.usage import UsageError, spoken


def load_input(inp: InputOptions, fmt: str = "auto"):
    """Scores from ``FILE`` or ``--dataset`` (exactly one), read with the library's one reader
    (``fmt``: ``--format`` of a command that also reads rankings files)."""
    from rankstats.datasets import load_dataset
    from rankstats.io.score_files import read_scores

    if bool(inp.file) == bool(inp.dataset):
        raise UsageError("give a score FILE or --dataset NAME (exactly one)")
    if inp.dataset:
        given = [
            f
            for f in ("lower_is_better", "na_values", "tasks", "drop_columns", "sep")
            if getattr(inp, f)
        ]
        if inp.encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            given.append("encoding")
        if given:
            flags = ", ".join("--" + f.replace("_", "-") for f in given)
            raise UsageError(f"{flags} appl{'ies' if len(given) == 1 else 'y'} to FILE input only")
        return load_dataset(inp.dataset)
    path = Path(inp.file)
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a score file (or --stream for a directory)")
    _refuse_rankings_file(inp.file, fmt)
    directions = {t: False for t in inp.lower_is_better} if inp.lower_is_better else True
    options = {
        key: getattr(inp, key)
        for key in ("sep", "na_values", "tasks", "drop_columns", "encoding")
        if getattr(inp, key) is not None
    }
    return read_scores(
        path,
        system=inp.system,
        task=inp.task,
        instance=inp.instance,
        score=inp.score,
        higher_is_better=directions,
        layout=inp.layout,
        **options,
    )


_SCORE_OPTIONS = {
    "system": "system",
    "task": "task",
    "instance": None,
    "score": "score",
    "layout": "auto",
    "lower_is_better": [],
    "tasks": None,
    "drop_columns": None,
    "placeholders": "keep",
    "by": None,
}


def file_format(inp: InputOptions, rankings: RankingsFileOptions) -> str:
    """What ``FILE`` holds: ``--format``, or for ``auto`` a PrefLib type from the suffix, else
    ``scores``; options that do not apply to it are refused."""
    from rankstats.io.preflib import suffix_type
    from rankstats.io.sources import COMPRESSED_SUFFIXES

    chosen = rankings.format
    if chosen == "auto":
        chosen = (suffix_type(inp.file, COMPRESSED_SUFFIXES) if inp.file else None) or "scores"
    if chosen != "scores" and not inp.file:
        raise UsageError(f"--format {rankings.format} applies to FILE input only")
    rankings_only = {
        "--ranker": chosen in ("rank-matrix", "orderings", "preferences"),
        "--preferred": chosen in ("pairwise", "preferences"),
        "--other": chosen in ("pairwise", "preferences"),
    }
    for flag, allowed in rankings_only.items():
        if getattr(rankings, flag[2:]) is not None and not allowed:
            what = {"--ranker": "rank-matrix / orderings / preferences"}.get(
                flag, "pairwise / preferences"
            )
            raise UsageError(f"{flag} applies to --format {what} files")
    if chosen != "scores":
        given = [
            "--" + key.replace("_", "-")
            for key, default in _SCORE_OPTIONS.items()
            if getattr(inp, key) != default
        ]
        if chosen != "rank-matrix" and inp.na_values:
            given.append("--na-values")
        if given:
            raise UsageError(
                f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to score tables, "
                f"not to a {chosen} file"
            )
    return chosen


def _refuse_rankings_file(file: str, fmt: str) -> None:
    """A PrefLib file given to a command that reads score tables (``--format scores`` reads
    it as one anyway)."""
    from rankstats.io.preflib import suffix_type
    from rankstats.io.sources import COMPRESSED_SUFFIXES

    kind = suffix_type(file, COMPRESSED_SUFFIXES)
    if kind and fmt != "scores":
        raise UsageError(
            f"{file} is a PrefLib rankings file (.{kind}), not a score table: this command "
            "reads scores; fit a model to the rankings with rankstats fit FILE, or report on "
            "them with rankstats report FILE"
        )


def load_rankings_file(
    inp: InputOptions,
    rankings: RankingsFileOptions,
    chosen: str,
    several_per_ranker: bool = False,
    cycles: str = "refuse",
):
    """``(data, what)`` of a rankings FILE in format ``chosen``: Rankings, or the paired counts
    of a pairwise file (``item1, item2, wins1, wins2``); ``several_per_ranker``: a ``--ranker``
    label may repeat (rank-matrix, orderings); ``cycles``: of assessors' preferences."""
    from rankstats.io.ranking_files import read_paired_comparisons, read_rankings

    options = {"sep": inp.sep, "encoding": inp.encoding}
    if chosen == "preferences":
        from rankstats.io.preference_files import read_preferences

        data = read_preferences(
            inp.file,
            rankings.ranker or "assessor",
            rankings.preferred or "preferred",
            rankings.other or "other",
            cycles=cycles,
            **options,
        )
        return data, "assessors' preferences"
    if chosen == "pairwise":
        data = read_paired_comparisons(
            inp.file, rankings.preferred or "preferred", rankings.other or "other", **options
        )
        return data, "paired comparisons"
    extra = {}
    if chosen in ("rank-matrix", "orderings"):
        extra = {"ranker": rankings.ranker, "several_per_ranker": several_per_ranker}
    if chosen == "rank-matrix":
        extra["na_values"] = inp.na_values
    return read_rankings(inp.file, chosen, **options, **extra), f"{chosen} rankings"


def level_of(by: str | None, scores) -> str:
    """``--by`` (default: instance when the data has instances); refuses an impossible one."""
    from rankstats.core.rankings import default_level

    level = default_level(scores, by)
    if level == "instance" and not scores.has_instances:
        raise UsageError("--by instance needs an instance column: name it with --instance COLUMN")
    return level


# ---------------------------------------------------------------------------- outputs
def written(tmp: Path, final: Path, files: list[Path]) -> str:
    """``wrote a, b, c`` with the final paths of files written in the temporary directory."""
    return "wrote " + ", ".join(str(final / Path(f).relative_to(tmp)) for f in files)


def file_done() -> None:
    """Test hook between two output files (``RANKSTATS_FAIL_AT=cli-file:N``)."""
    checkpoint("cli-file")


def write_tables(directory: Path, tables: dict) -> list[Path]:
    """Each table (a DataFrame; None: not written) as ``directory / name``, a CSV file, with one
    progress tick per file; the files."""
    from rankstats._util.text import write_csv

    files = []
    for name, frame in tables.items():
        if frame is not None:
            files.append(directory / name)
            write_csv(frame, files[-1])
            file_done()
    return files


@contextlib.contextmanager
def noted(notes: list[str]) -> Iterator[None]:
    """Every :class:`~rankstats.errors.DataWarning` of the block is kept in ``notes`` (for the
    JSON) as the command line prints it (:func:`~rankstats.cli.usage.spoken`: flags) and shown
    when the block ends, before its error if any; errors pass to the command's handler."""
    from rankstats.errors import DataWarning

    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always", DataWarning)
            try:
                yield
            finally:
                caught = list(recorded)
    finally:
        for w in caught:
            if issubclass(w.category, DataWarning):
                notes.append(spoken(w.message))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def json_default(value: object) -> object:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def clean(records: list[dict]) -> list[dict]:
    """Replace NaN by None so the JSON is standard."""
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
        for r in records
    ]


def write_json(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, indent=1, default=json_default, ensure_ascii=False))
    return path


def short(name: object, width: int) -> str:
    """A name for a terminal column: control characters escaped, cut to ``width``."""
    return shorten(terminal(name), width)

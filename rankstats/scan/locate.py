"""Error path of ``rs.scan_scores``: name the files and lines of a bad key.

The batch loop sees normalised rows (integer codes, no file), and with ``order="any"`` the rows
were spilled to partitions first. When it refuses a key (a duplicated (system, task, instance),
rows of an instance that are apart), the driver reads the units once more and names where the
offending rows are: ``"scores.csv line 20"`` for text (physical lines, as
:func:`rankstats.read_scores` counts them), ``"scores.parquet data row 7"`` for Parquet.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from rankstats._util.advice import escape
from rankstats.errors import InvalidScoresError
from rankstats.io import tables as _tables
from rankstats.scan.reader import (
    UNGROUPED_HINT,
    NotGroupedError,
    Spec,
    Unit,
    batches,
    normalise_batch,
)

_SHOWN = 2  # rows named in a message


def _first_row(unit: Unit) -> int:
    """Data rows of the file before ``unit`` (a Parquet row group), 0 for a whole file."""
    path, group = unit
    if not group:
        return 0
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path)
    return sum(meta.row_group(g).num_rows for g in range(group))


def _matches(
    units: Sequence[Unit], spec: Spec, task: str, instance: object, system: str | None
) -> Iterator[tuple[Unit, int]]:
    """(unit, data row of its file) of every row of (``task``, ``instance``) [and ``system``],
    in input order."""
    t = spec.tasks.index(task)
    s = spec.systems.index(system) if system is not None else None
    wanted = str(instance)
    for unit in units:
        offset = _first_row(unit)
        for batch in batches([unit], spec):
            rows = normalise_batch(batch, spec)
            hit = rows["t"].to_numpy() == t
            if s is not None:
                hit &= rows["s"].to_numpy() == s
            if hit.any():
                hit[hit] = rows["i"][hit].astype(str).to_numpy() == wanted
            for r in np.flatnonzero(hit):
                yield unit, offset + int(r)
            offset += batch.num_rows


def _where(unit: Unit, row: int, spec: Spec) -> str:
    path = unit[0]
    source = spec.sources.get(path)
    if source is not None and source.kind == "csv":
        return f"{path} {_tables.locate(source, [row])[0]}"
    return f"{path} data row {row + 1}"


def duplicate_error(
    units: Sequence[Unit], spec: Spec, key: tuple[str, str, object]
) -> InvalidScoresError:
    """The error for a (system, task, instance) key met twice, naming the first two rows."""
    system, task, instance = key
    found = []
    for unit, row in _matches(units, spec, task, instance, system):
        found.append(_where(unit, row, spec))
        if len(found) == _SHOWN:
            break
    where = f": {' and '.join(found)}" if found else ""
    return InvalidScoresError(
        f"duplicated (system, task, instance) key: system {system!r}, task {task!r}, instance "
        f"{instance!r} appears more than once{where}; each key must appear once"
    )


def apart_rows(
    units: Sequence[Unit], spec: Spec, task: str, instance: object
) -> tuple[str, str] | None:
    """For rows of (``task``, ``instance``) that are not contiguous: the first row and the
    first row that comes back after other rows (``None`` when not found)."""
    first = previous = None
    for unit, row in _matches(units, spec, task, instance, None):
        if first is None:
            first = previous = (unit, row)
            continue
        # Row numbers count from the start of the file (across row groups); an instance may
        # continue at the first row of the next file.
        follows = row == previous[1] + 1 if unit[0] == previous[0][0] else row == 0
        if not follows:
            return _where(*first, spec), _where(unit, row, spec)
        previous = (unit, row)
    return None


def not_grouped_error(units: Sequence[Unit], spec: Spec, err: NotGroupedError) -> NotGroupedError:
    """``err`` with the first row of its instance and the row where it comes back after others
    (when the message does not name its files already)."""
    if err.key is None or any(unit[0] in str(err) for unit in units):
        return err
    task, instance = err.key
    rows = apart_rows(units, spec, task, instance)
    if rows is None:
        return err
    return NotGroupedError(
        escape(
            f"the rows of (task, instance) ({task!r}, {instance!r}) are not contiguous: "
            f"{rows[0]}, and again {rows[1]} after other rows"
        )
        + " ({hint})",
        err.key,
        hint=UNGROUPED_HINT,
    )

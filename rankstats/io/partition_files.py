r"""Mallows partition functions read from CSV tables: the files that
:meth:`~rankstats.core.permutations.partition.PartitionFunction.save` writes, and tables of
:math:`\log Z_n(\alpha)` brought from elsewhere (BayesMallows' ``estimate_partition_function``
evaluated on a grid of α, say), as a
:class:`~rankstats.core.permutations.partition.PartitionFunction` that a Mallows fit can use.

The table's checks are
:func:`rankstats.core.permutations.partition_store.check_table`'s; here the file is parsed
and every refusal is one line that names the file and the problem.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats.core.permutations.partition import PartitionFunction, partition_function_from_grid
from rankstats.core.permutations.partition_store import (
    COLUMNS,
    CSV_HEADER,
    FORMAT_VERSION,
    REQUIRED,
)


def read_partition_function(
    source: str | os.PathLike | pd.DataFrame,
    *,
    distance: str | None = None,
    n: int | None = None,
) -> PartitionFunction:
    r"""Read a partition function of the Mallows model from a CSV table.

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        A CSV file with the columns ``alpha`` (a grid from 0, increasing) and ``log_z``
        (:math:`\log Z_n(\alpha)`), and optionally ``expected_distance``
        (:math:`E_\alpha[d]`) and ``log_z_se`` (its standard error); lines that begin with
        ``#`` are comments, except the header :meth:`PartitionFunction.save
        <rankstats.core.permutations.partition.PartitionFunction.save>` writes (``# key: value``:
        distance, n, method, …), which is checked. Or a table with those columns (the
        metadata, if any, in its ``.attrs``, as
        :meth:`~rankstats.core.permutations.partition.PartitionFunction.to_frame` leaves them).
    distance, n : optional
        The distance and number of items of a table without rankstats' header (required
        then); with it, they must agree with it.

    Returns
    -------
    PartitionFunction
        A file of an importance-sampling estimate: that estimate, identical to the one saved
        (method ``"importance sampling"``, its draws and seed). Any other table: method
        ``"imported"``, :math:`\log Z` between the grid's points the cubic Hermite spline
        through ``log_z`` with slopes ``−E[d]/n`` (``E[d]`` the column, else the slopes of the
        monotone PCHIP interpolant of ``log_z``); an α beyond the grid is refused.

    Raises
    ------
    ValueError
        One line naming the file and the problem: not a table, a missing or unknown column, a
        non-numeric or non-finite value, an α grid that does not start at 0 or does not
        increase, :math:`\log Z_n(0)` not :math:`\log n!`, a :math:`\log Z` that increases
        with α, ``E[d]`` outside ``[0, max distance]``, a negative standard error, a distance
        or ``n`` that is invalid, missing or disagrees with the header, a newer format.

    Examples
    --------
    A table computed in R (BayesMallows), evaluated on a grid that starts at 0:

    >>> import numpy as np, pandas as pd
    >>> from rankstats.core.permutations.partition import partition_function
    >>> alpha = np.linspace(0.0, 20.0, 41)
    >>> exact = partition_function(10, "spearman")
    >>> table = pd.DataFrame({"alpha": alpha, "log_z": exact.log_z(alpha)})
    >>> pf = read_partition_function(table, distance="spearman", n=10)
    >>> pf
    PartitionFunction(spearman, n=10, imported, alpha in [0, 20] on 41 points)
    >>> bool(abs(pf.log_z(3.3) - exact.log_z(3.3)) < 1e-4)
    True
    """
    name = "the table" if isinstance(source, pd.DataFrame) else str(source)
    try:
        if isinstance(source, pd.DataFrame):
            frame, meta = source, dict(source.attrs)
        else:
            frame, meta = _parse(Path(source))
        return _build(frame, meta, distance, n)
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def _parse(path: Path) -> tuple[pd.DataFrame, dict]:
    """The table of a CSV file (as text: floats are converted exactly by :func:`_column`) and
    its rankstats header as a dict (empty without one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"not a UTF-8 text file ({err.reason} at byte {err.start})") from None
    lines = text.splitlines()
    meta: dict = {}
    if lines and lines[0].strip() == CSV_HEADER:
        for line in lines[1:]:
            if not line.startswith("#"):
                break
            key, colon, value = line[1:].partition(":")
            if colon:
                meta[key.strip()] = value.strip()
    body = "\n".join(line for line in lines if not line.startswith("#"))
    if not body.strip():
        raise ValueError("no table in the file (a header row alpha,log_z,... and values)")
    try:
        frame = pd.read_csv(io.StringIO(body), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"not a CSV table: {str(err).strip()}") from None
    return frame, meta


def _build(frame: pd.DataFrame, meta: dict, distance: str | None, n: int | None):
    columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in REQUIRED if c not in columns]
    unknown = [c for c in columns if c not in COLUMNS]
    if missing or unknown:
        problem = "no column " + ", ".join(missing) if missing else ""
        if unknown:
            problem += ("; " if problem else "") + "unknown column(s) " + ", ".join(unknown)
        raise ValueError(
            f"{problem} (the columns: alpha, log_z, and optionally expected_distance, "
            f"log_z_se; from R: write.csv(..., row.names = FALSE))"
        )
    frame = frame.set_axis(columns, axis=1)
    values = {c: _column(frame[c], c) for c in COLUMNS if c in columns}
    version = meta.get("format_version", FORMAT_VERSION)
    if _whole(version, "format_version") > FORMAT_VERSION:
        raise ValueError(
            f"format_version {version} is newer than this rankstats reads ({FORMAT_VERSION}): "
            f"update rankstats"
        )
    distance = _agreed("distance", meta.get("distance"), distance, str)
    n = _agreed("n", meta.get("n"), n, lambda v: _whole(v, "n"))
    estimate = meta.get("method") == "importance sampling"
    return partition_function_from_grid(
        distance,
        n,
        values["alpha"],
        values["log_z"],
        expected_distance=values.get("expected_distance"),
        log_z_se=values.get("log_z_se"),
        method="importance sampling" if estimate else "imported",
        draws=_whole(meta.get("draws", 0), "draws") if estimate else 0,
        seed=_whole(meta["seed"], "seed") if estimate and "seed" in meta else None,
    )


def _column(values: pd.Series, name: str) -> np.ndarray:
    """A column as float64, each cell converted by Python's ``float`` (exact: what
    :meth:`~pandas.DataFrame.to_csv` wrote comes back bit for bit)."""
    out = np.empty(len(values))
    for i, cell in enumerate(values):
        try:
            out[i] = float(cell)
        except (TypeError, ValueError):
            raise ValueError(f"column {name} is not a number at row {i + 1}: {cell!r}") from None
    return out


def _whole(value, name: str) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None
    if not number.is_integer():
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    return int(number)


def _agreed(name: str, stored, given, convert):
    """The file's ``name`` and the caller's, which must agree when both are there."""
    if stored is None:
        if given is None:
            raise ValueError(
                f"no {name}: the table has no rankstats header; "
                f"pass read_partition_function(..., distance=..., n=...)"
            )
        return given
    stored = convert(stored)
    if given is not None and given != stored:
        raise ValueError(f"the table is for {name} = {stored!r}, not {given!r}")
    return stored

"""Integer codes of keys: ``pd.factorize`` without a hash table where the values allow it.

A key column of integers of compact range is its own code (``value − min``), and a set of codes
in ``[0, span)`` is factorised, or checked for duplicates, through a table of ``span`` flags (a
few linear passes) instead of a hash table. The results equal pandas' (``pd.factorize(...,
sort=True)``, ``Series.duplicated(keep=False)``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# A direct-address table (one cell per possible key) replaces a hash table when it has at most
# this many cells per row, plus a floor: filling and reading it is a few linear passes, while
# hashing millions of distinct keys misses the cache on nearly every row (8 M rows: 0.1 s against
# 1.0 s for ``Series.duplicated``).
_TABLE_CELLS_PER_ROW = 4
_TABLE_MIN_CELLS = 1 << 22


def _small_table(span: int, n_rows: int) -> bool:
    return span <= _TABLE_CELLS_PER_ROW * n_rows + _TABLE_MIN_CELLS


def _integer_offsets(column: pd.Series) -> tuple[np.ndarray, np.integer, int] | None:
    """``(value − min, min, max − min + 1)`` of a NumPy integer column whose range is compact
    (see :func:`_small_table`), else ``None``: such a column is its own code, no hash table."""
    if not (isinstance(column.dtype, np.dtype) and column.dtype.kind in "iu" and len(column)):
        return None
    values = column.to_numpy()
    low, high = values.min(), values.max()
    span = int(high) - int(low) + 1
    if not _small_table(span, len(values)):
        return None
    if values.dtype.kind == "u":  # values ≥ low: no wrap-around
        return (values - low).astype(np.int64), low, span
    return np.subtract(values, np.int64(low), dtype=np.int64), low, span


def instance_codes(column: pd.Series) -> tuple[np.ndarray, int]:
    """Codes of an instance column (equal codes for equal values, ``-1`` for a missing key) and
    their range."""
    offsets = _integer_offsets(column)
    if offsets is not None:
        return offsets[0], offsets[2]
    code, uniques = pd.factorize(column)
    return code, len(uniques)


def dense_codes(key: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(key, sort=True)`` for integers ``key`` in ``[0, span)``: codes
    ``0 .. k − 1`` in increasing order of value (int64) and the ``k`` distinct values, from a
    table of ``span`` flags when that is small (no hash table), else by ``pd.factorize``."""
    if _small_table(span, len(key)):
        present = np.zeros(span, dtype=bool)
        present[key] = True
        rank = np.cumsum(present, dtype=np.int32 if len(key) < 2**31 else np.int64)
        return (rank[key] - 1).astype(np.int64), np.flatnonzero(present)
    code, uniques = pd.factorize(key, sort=True)
    return code.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


def sorted_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(column, sort=True)`` as (int64 codes, labels as an array), without a hash
    table for a NumPy integer column of compact range: codes are then ``value − min`` and the
    labels ``min .. max`` (values absent from the column included; ``labels[codes]`` is the
    column either way)."""
    offsets = _integer_offsets(column)
    if offsets is not None:
        code, low, span = offsets
        if column.dtype.kind == "u":
            return code, low + np.arange(span, dtype=column.dtype)
        return code, (np.arange(span, dtype=np.int64) + np.int64(low)).astype(column.dtype)
    code, uniques = pd.factorize(column, sort=True)
    return code.astype(np.int64, copy=False), np.asarray(uniques)


def duplicated_keys(key: np.ndarray, span: int) -> np.ndarray | None:
    """``None`` when the integers ``key`` (in ``[0, span)``) are distinct, else the mask of every
    row whose key appears more than once (``Series.duplicated(keep=False)``)."""
    if _small_table(span, len(key)):
        present = np.zeros(span, dtype=bool)
        present[key] = True
        if np.count_nonzero(present) == len(key):
            return None
        return np.bincount(key, minlength=span)[key] > 1
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    return pd.Series(key).duplicated(keep=False).to_numpy()


def row_codes(data: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """``(system, task, ranking, n_rankings)`` codes of a validated long table's rows."""
    system_code = data["system"].cat.codes.to_numpy(np.int64)
    task_code = data["task"].cat.codes.to_numpy(np.int64)
    if "instance" not in data.columns:
        return system_code, task_code, None, len(data["task"].cat.categories)
    inst_code, n_inst = instance_codes(data["instance"])
    n_tasks = len(data["task"].cat.categories)
    ranking, distinct = dense_codes(task_code * n_inst + inst_code, n_tasks * n_inst)
    return system_code, task_code, ranking, len(distinct)

r"""Mallows partition functions on disk: the cache that spares a new process the importance-
sampling estimate, and the CSV table a user exports, reads back or brings from elsewhere.

Only arrays, metadata and files are handled here:
:mod:`rankstats.core.permutations.partition` builds the objects and imports this module (never the
reverse), and :mod:`rankstats.io.partition_files` reads the CSV tables.

**Disk cache.** One ``.npz`` file (NumPy, no pickle) per argument set, in
``$RANKSTATS_CACHE_DIR/partition/`` (else ``$XDG_CACHE_HOME/rankstats/partition/``, else
``~/.cache/rankstats/partition/``); ``RANKSTATS_CACHE_DIR=""`` turns it off. The file name
carries the arguments, :data:`FORMAT_VERSION` and the algorithm version of
:mod:`rankstats.core.permutations.partition`, and the file repeats them: a file of another version,
or one that cannot be read, is ignored and overwritten. Files are written to a temporary file in
the same folder and renamed (a reader never sees half a file, and two processes computing the
same function at once both leave a whole one). A folder that cannot be written costs one warning
per process, never an error.

**CSV table** (:meth:`~rankstats.core.permutations.partition.PartitionFunction.save`): ``# key:
value`` header lines (:data:`CSV_HEADER` first, then ``format_version``, ``distance``, ``n``,
``method``, ``draws``, ``seed``, …), then the columns :data:`COLUMNS`, floats written to their
shortest exact representation (read back bit for bit).
"""

from __future__ import annotations

import math
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np

from rankstats._util.atomic import output_file
from rankstats.core.permutations.distances import check_distance, max_distance

#: Version of the files' layout (cache and CSV). A reader refuses a CSV of a newer format.
FORMAT_VERSION = 1
#: The first line of a CSV table written by rankstats: what marks the ``# key: value`` lines
#: after it as metadata (other ``#`` lines, a user's comments, are skipped).
CSV_HEADER = "# rankstats partition function"
#: The columns of a CSV table: α, :math:`\log Z_n(\alpha)`, its Monte Carlo standard error and
#: :math:`E_\alpha[d]`. ``alpha`` and ``log_z`` are required in a table brought from elsewhere.
COLUMNS = ("alpha", "log_z", "log_z_se", "expected_distance")
REQUIRED = ("alpha", "log_z")
#: How far :math:`\log Z_n(0)` of a table may be from :math:`\log n!` (a share of ``log n!``):
#: loose enough for a polynomial fitted to a noisy estimate (BayesMallows), tight enough to catch
#: a table of another ``n`` (``log (n+1)! − log n! = log(n+1)``, 4 % of ``log n!`` at 20 items).
LOG_Z0_TOLERANCE = 0.01

_warned = False  # the one warning about a folder that cannot be written


def cache_directory() -> Path | None:
    """The folder of the disk cache, or ``None`` when ``RANKSTATS_CACHE_DIR`` is set empty."""
    value = os.environ.get("RANKSTATS_CACHE_DIR")
    if value is not None:
        return Path(value).expanduser() / "partition" if value else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # the XDG rule: absolute
    return base / "rankstats" / "partition"


def cache_file(key: dict, algorithm_version: int) -> Path | None:
    """The cache file of one argument set (``distance``, ``n``, ``method``, for a grid
    ``alpha_max``, and for an estimate ``draws``, ``seed``), or ``None`` when the cache is off."""
    directory = cache_directory()
    if directory is None:
        return None
    parts = [key["distance"], f"n{key['n']}", key["method"].replace(" ", "_")]
    if "alpha_max" in key:  # repr: the float exactly, so that two grids never share a file
        parts.append(f"alpha{key['alpha_max']!r}")
    if "draws" in key:
        parts += [f"draws{key['draws']}", f"seed{key['seed']}"]
    parts.append(f"v{FORMAT_VERSION}.{algorithm_version}")
    return directory / ("-".join(parts) + ".npz")


def read_cached(path: Path, key: dict, names: tuple[str, ...]) -> dict[str, np.ndarray] | None:
    """The arrays ``names`` of a cache file whose stored key equals ``key`` (float64, 1-D,
    finite where they should be), or ``None``: no file, an unreadable or corrupt one, or one of
    another version or argument set (the caller computes and overwrites it)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            stored = {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        return None
    for name, value in key.items():
        meta = stored.get(f"meta_{name}")
        if meta is None or meta.shape != () or meta.item() != value:
            return None
    arrays = {}
    for name in names:
        array = stored.get(name)
        if array is None or array.dtype != np.float64 or array.ndim != 1 or len(array) == 0:
            return None
        arrays[name] = array
    if len({len(a) for a in arrays.values()}) > 1 or any(
        np.isnan(a).any() for a in arrays.values()
    ):
        return None
    return arrays


def write_cached(path: Path, key: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and ``key`` to ``path`` atomically; a folder that cannot be written
    costs one warning per process (the function was computed: the cache only saves time)."""
    meta = {f"meta_{name}": np.asarray(value) for name, value in key.items()}
    try:
        with output_file(path, "the partition-function cache") as temporary:
            with open(temporary, "wb") as out:  # a file object: no ".npz" appended
                np.savez_compressed(out, **arrays, **meta)
    except OSError as err:
        global _warned
        if not _warned:
            _warned = True
            warnings.warn(
                f"rankstats could not write its partition-function cache in {path.parent} "
                f"({err.strerror or err}); the values are computed, just not kept. Set "
                f"RANKSTATS_CACHE_DIR to a writable folder, or to '' to turn the cache off.",
                RuntimeWarning,
                stacklevel=4,
            )


def write_table(path: str | os.PathLike, frame, metadata: dict) -> Path:
    """Write a CSV table: the ``# key: value`` header of ``metadata``, then ``frame``
    (atomically: a reader never sees half a table)."""
    path = Path(path)
    lines = [CSV_HEADER, f"# format_version: {FORMAT_VERSION}"]
    lines += [f"# {name}: {value}" for name, value in metadata.items() if value is not None]
    with output_file(path, "save") as temporary:
        with open(temporary, "w", encoding="utf-8", newline="") as out:
            out.write("\n".join(lines) + "\n")
            frame.to_csv(out, index=False, lineterminator="\n")  # floats: shortest exact repr
    return path


def check_table(
    distance: str,
    n: int,
    alpha: np.ndarray,
    log_z: np.ndarray,
    expected: np.ndarray | None,
    se: np.ndarray | None,
) -> None:
    r"""Refuse a table of :math:`\log Z_n(\alpha)` that cannot be one, with a ``ValueError``
    naming the problem: ``distance`` or ``n`` invalid, fewer than two rows, a non-finite value,
    an α grid that does not start at 0 or does not increase, :math:`\log Z_n(0)` far from
    :math:`\log n!` (:data:`LOG_Z0_TOLERANCE`), a :math:`\log Z` that increases with α (its
    slope is :math:`-E_\alpha[d]/n \le 0`) by more than 3 standard errors of the two values,
    ``E[d]`` outside ``[0, max distance]``, a negative standard error."""
    check_distance(distance)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a whole number of items ≥ 1, not {n!r}")
    if len(alpha) < 2:
        raise ValueError(f"the table has {len(alpha)} row(s): at least two values of alpha needed")
    columns = {"alpha": alpha, "log_z": log_z, "expected_distance": expected, "log_z_se": se}
    for name, values in columns.items():
        if values is None:
            continue
        if len(values) != len(alpha):
            raise ValueError(f"column {name} has {len(values)} values for {len(alpha)} alphas")
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            raise ValueError(f"column {name} is not finite at row {bad[0] + 1}: {values[bad[0]]}")
    log_factorial = math.lgamma(n + 1)
    if alpha[0] != 0:
        raise ValueError(
            f"the alpha grid starts at {alpha[0]:g}, not at 0 (add the row alpha = 0, "
            f"log_z = log {n}! = {log_factorial!r})"
        )
    step = np.flatnonzero(np.diff(alpha) <= 0)
    if len(step):
        i = step[0]
        raise ValueError(
            f"alpha does not increase at row {i + 2}: {alpha[i + 1]:g} after {alpha[i]:g}"
        )
    if abs(log_z[0] - log_factorial) > LOG_Z0_TOLERANCE * max(log_factorial, 1.0):
        raise ValueError(
            f"log_z at alpha = 0 is {log_z[0]:g}, not log {n}! = {log_factorial:g} (every "
            f"distance: Z_n(0) counts the n! rankings); is n = {n} right?"
        )
    noise = 0.0 if se is None else 3.0 * np.clip(se[:-1] + se[1:], 0.0, None)  # its own error
    rise = np.flatnonzero(np.diff(log_z) > 1e-9 * np.maximum(np.abs(log_z[:-1]), 1.0) + noise)
    if len(rise):
        i = rise[0]
        raise ValueError(
            f"log_z increases from alpha = {alpha[i]:g} to {alpha[i + 1]:g} ({log_z[i]:g} to "
            f"{log_z[i + 1]:g}); log Z_n(alpha) decreases in alpha (its slope is -E[d]/n)"
        )
    top = max_distance(n, distance)
    if expected is not None:
        out = np.flatnonzero((expected < 0) | (expected > top))
        if len(out):
            i = out[0]
            raise ValueError(
                f"expected_distance {expected[i]:g} at alpha = {alpha[i]:g} is outside "
                f"[0, {top}], the range of the {distance} distance on {n} items"
            )
    if se is not None and np.any(se < 0):
        i = int(np.flatnonzero(se < 0)[0])
        raise ValueError(f"log_z_se is negative at alpha = {alpha[i]:g}: {se[i]:g}")

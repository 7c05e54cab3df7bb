r"""Memory needed by the pairwise statistics, estimated from the input's shape before computing.

The ``N × N`` pairwise statistics grow with the square of the number of systems: 2,000 systems
need a few hundred MB for :func:`rankstats.pairwise` and close to 1 GB for the Hoeffding table,
50,000 systems need 19 GiB for *one* ``N × N`` matrix.  Instead of starting and dying with a
``MemoryError`` minutes later, :func:`rankstats.pairwise` and :func:`rankstats.hoeffding` compare
the estimate of their peak memory with what the machine has and refuse up front
(:class:`~rankstats.errors.ResourceError`) unless ``RANKSTATS_IGNORE_MEMORY=1`` is set.

The estimates are derived from the code (the arrays each step allocates, in float64) and checked
against ``tracemalloc`` peaks in ``tests/util/test_resources.py``; with ``N`` systems and ``L``
rankings (``B = min(L, 4·10⁶ / N)`` rankings per block of :func:`rankstats.pairwise`):

=====================================  =====================================================
step                                   peak bytes
=====================================  =====================================================
``pairwise(Rankings)``                 ``72 N² (+ 24 N² when L > B) + 48 B N + B N²``
                                       (the last term only when ``B N² ≤ 10⁶``)
``Rankings.from_scores`` (instances)   ``70 L N + 48 L``
``hoeffding(Pairwise)``                ``240 N²`` (``N (N − 1)`` rows of 12 columns and the
                                       arrays they are built from)
``Pairwise`` result                    ``24 N²``
=====================================  =====================================================
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from rankstats._util.advice import AdviceResourceError, Spelled, escape

#: Environment variable that turns the check off (the CLI's ``--ignore-memory-check`` sets it).
IGNORE_ENV = "RANKSTATS_IGNORE_MEMORY"

# Mirrors rankstats.core.pair_probabilities._BLOCK_CELLS and _BROADCAST_CELLS (imported lazily to
# avoid a cycle).
_BLOCK_CELLS = 4_000_000
_BROADCAST_CELLS = 1_000_000
# Bytes per cell of the (block, N) float64 temporaries of one pairwise block: the observed mask
# (1), obs, unobs, q and its np.where temporary, obs − q, the transposed copy (8 each), plus slack.
_BLOCK_BYTES_PER_CELL = 48
# N × N float64 arrays alive at the peak of one block: the 3 running sums, strict, compared,
# ties, wins_observed and two matrix products of the `wins` expression.
_PAIRWISE_SQUARES = 9
# Per (ranking, system) cell of Rankings.from_scores: the (L, N) score matrix, its ranks and the
# temporaries of average_ranks (the long table's codes are freed once the matrix is built:
# measured 58 and 43 bytes a cell at 20 × 30,000 and 300 × 1,000, tests/util/test_resources.py).
_RANKINGS_BYTES_PER_CELL = 70
_RANKINGS_BYTES_PER_RANKING = 48
# Per ordered pair (i, j) of hoeffding: 12 output columns (two of them object) and about 15
# float64 / int64 / bool arrays of length N (N − 1) they are computed from.
_HOEFFDING_BYTES_PER_PAIR = 240
# Mirrors rankstats.planning.replications.CHUNK_CELLS: simulated scores per chunk of benchmarks,
# about 30 float64 arrays of them alive at the peak.
_POWER_CHUNK_CELLS = 1_000_000
_POWER_BYTES_PER_SCORE = 30 * 8
# Estimates below this are never checked: reading /proc costs more than they can matter.
_NEGLIGIBLE = 32 * 2**20
# cgroup limits at or above this mean "no limit" (cgroup v1 writes 2**63 − 4096).
_UNLIMITED = 2**60


def pairwise_peak_bytes(n_systems: int, n_rankings: int) -> int:
    """Peak memory of :func:`rankstats.pairwise` on ``Rankings`` of this shape (input excluded).

    Parameters
    ----------
    n_systems, n_rankings : int
        ``N`` and ``L`` of the ``(L, N)`` rank matrix.

    Returns
    -------
    int
        Bytes: ``72 N²`` for the ``N × N`` sums and the temporaries of one block (``+ 24 N²``
        when several blocks are added up), ``48 B N`` for the ``(B, N)`` temporaries of a block
        of ``B = min(L, 4·10⁶ / N)`` rankings, and ``B N²`` for the boolean comparison cube of
        small blocks (``B N² ≤ 10⁶``).
    """
    n, rows = max(int(n_systems), 0), max(int(n_rankings), 0)
    block = min(rows, max(1, _BLOCK_CELLS // max(n, 1)))
    squares = _PAIRWISE_SQUARES + (3 if rows > block else 0)
    total = 8 * squares * n * n + _BLOCK_BYTES_PER_CELL * block * n
    if block * n * n <= _BROADCAST_CELLS:
        total += block * n * n
    return int(total)


def rankings_bytes(n_systems: int, n_rankings: int) -> int:
    """Peak memory of :meth:`rankstats.Rankings.from_scores` (``70 L N + 48 L`` bytes).

    An upper estimate: at task level, or with missing scores, it needs less.
    """
    n, rows = max(int(n_systems), 0), max(int(n_rankings), 0)
    return int(_RANKINGS_BYTES_PER_CELL * rows * n + _RANKINGS_BYTES_PER_RANKING * rows)


def hoeffding_bytes(n_systems: int) -> int:
    """Peak memory of :func:`rankstats.hoeffding` (``240 N²`` bytes; the ``Pairwise`` input
    excluded)."""
    n = max(int(n_systems), 0)
    return int(_HOEFFDING_BYTES_PER_PAIR * n * n)


def power_bytes(n_systems: int, replications: int, n_tests: int, scores: int = 0) -> int:
    """Peak memory of :func:`rankstats.power`: per test, a decision (1 byte) and an estimate (8
    bytes) of every pair in every simulated benchmark, and about 30 bytes per pair and benchmark
    of temporaries while the tables are read off them; plus the chunk of simulated scores
    (``scores``: one benchmark's systems × tasks × instances), about 30 float64 arrays of
    :data:`rankstats.planning.replications.CHUNK_CELLS` scores, or of one benchmark when it is
    larger (a chunk holds at least one).

    >>> power_bytes(10, 2000, 3, scores=10 * 5 * 100) // 2**20  # a chunk of 1e6 scores
    233
    >>> power_bytes(10, 10, 3, scores=10**10) // 2**40  # 1e9 instances of 10 systems: 2.2 TiB
    2
    """
    n = max(int(n_systems), 0)
    pairs = n * (n - 1) // 2
    results = max(int(replications), 0) * pairs * (9 * max(int(n_tests), 1) + 30)
    return int(results + _POWER_BYTES_PER_SCORE * max(int(scores), _POWER_CHUNK_CELLS))


def pairwise_bytes(
    n_systems: int,
    n_rankings: int,
    *,
    from_scores: bool = False,
    hoeffding: bool = False,
) -> int:
    r"""Estimated peak memory of the pairwise statistics of ``L`` rankings of ``N`` systems.

    Parameters
    ----------
    n_systems : int
        Number of systems ``N``.
    n_rankings : int
        Number of rankings ``L`` (tasks, or (task, instance) pairs at instance level).
    from_scores : bool
        Include ranking a score table first (:meth:`rankstats.Rankings.from_scores`, the path
        of ``rs.aggregate(scores, "borda")`` / ``"borda2"`` and ``rs.pairwise(scores)``); the
        rank matrix stays alive while the pairwise statistics are computed.
    hoeffding : bool
        Include :func:`rankstats.hoeffding` on the result (the ``Pairwise`` stays alive).

    Returns
    -------
    int
        Bytes at the peak, beyond the input already in memory: the largest of the steps, each
        with what earlier steps keep alive (see the module docstring for the formulas).

    Examples
    --------
    >>> from rankstats._util.resources import pairwise_bytes
    >>> round(pairwise_bytes(2_000, 20) / 2**20)          # MiB
    276
    >>> round(pairwise_bytes(50_000, 20) / 2**30)         # GiB
    168
    """
    n, rows = max(int(n_systems), 0), max(int(n_rankings), 0)
    kept = 8 * rows * n if from_scores else 0  # the rank matrix
    peak = kept + pairwise_peak_bytes(n, rows)
    if from_scores:
        peak = max(peak, rankings_bytes(n, rows))
    if hoeffding:
        peak = max(peak, kept + 24 * n * n + 8 * n + hoeffding_bytes(n))
    return int(peak)


# ---------------------------------------------------------------------------- available memory
def available_memory() -> int:
    """Bytes this process can still allocate: the smaller of the machine and its cgroup.

    The machine: ``MemAvailable`` of ``/proc/meminfo`` (free memory plus reclaimable caches).
    The cgroup (a container's or a job scheduler's limit): ``memory.max − memory.current``
    (cgroup v2) or ``memory.limit_in_bytes − memory.usage_in_bytes`` (v1), plus the
    reclaimable ``inactive_file`` cache, for the process's own cgroup and its ancestors.
    Without ``/proc`` (macOS, Windows) it falls back on ``os.sysconf`` (available, else
    physical pages); when nothing is known it returns a number larger than any estimate.

    Returns
    -------
    int
        Bytes.
    """
    candidates = []
    machine = _meminfo_available()
    if machine is None:
        machine = _sysconf_memory()
    if machine is not None:
        candidates.append(machine)
    for limit_file, usage_file, stat_file, inactive_key in _cgroup_files():
        limit = _read_int(limit_file)
        if limit is None or limit >= _UNLIMITED:
            continue
        usage = _read_int(usage_file) or 0
        inactive = _stat_value(stat_file, inactive_key)
        candidates.append(max(0, limit - usage + inactive))
    return int(min(candidates)) if candidates else 2**62


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", "rb") as handle:
            for line in handle:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _sysconf_memory() -> int | None:
    for pages in ("SC_AVPHYS_PAGES", "SC_PHYS_PAGES"):
        try:
            return int(os.sysconf(pages)) * int(os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, ValueError, OSError):
            continue
    return None


@functools.lru_cache(maxsize=1)
def _cgroup_files() -> tuple[tuple[Path, Path, Path, str], ...]:
    """(limit, usage, stat, inactive key) of the process's cgroup and its ancestors.

    Found once per process (the cgroup of a process does not move); the values are read on
    every call.
    """
    found: list[tuple[Path, Path, Path, str]] = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        lines = []
    root = Path("/sys/fs/cgroup")
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, relative = parts
        if controllers == "":  # cgroup v2: "0::/path"
            base, names = root, ("memory.max", "memory.current", "memory.stat", "inactive_file")
        elif "memory" in controllers.split(","):  # cgroup v1
            base = root / "memory"
            names = (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "memory.stat",
                "total_inactive_file",
            )
        else:
            continue
        directory = base / relative.lstrip("/")
        while True:
            if (directory / names[0]).is_file():
                limit, usage, stat, key = names
                found.append((directory / limit, directory / usage, directory / stat, key))
            if directory == base or base not in directory.parents:
                break
            directory = directory.parent
    if not found:
        # Inside a container the cgroup namespace may hide the path: the root files are ours.
        for base, names in (
            (root, ("memory.max", "memory.current", "memory.stat", "inactive_file")),
            (
                root / "memory",
                (
                    "memory.limit_in_bytes",
                    "memory.usage_in_bytes",
                    "memory.stat",
                    "total_inactive_file",
                ),
            ),
        ):
            if (base / names[0]).is_file():
                limit, usage, stat, key = names
                found.append((base / limit, base / usage, base / stat, key))
    return tuple(dict.fromkeys(found))


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if text == "max":
        return _UNLIMITED
    try:
        return int(text)
    except ValueError:
        return None


def _stat_value(path: Path, key: str) -> int:
    try:
        with open(path, "rb") as handle:
            for line in handle:
                name, _, value = line.partition(b" ")
                if name.decode() == key:
                    return int(value)
    except (OSError, ValueError):
        return 0
    return 0


# ---------------------------------------------------------------------------- the check
def _gib(nbytes: float) -> str:
    gib = nbytes / 2**30
    return f"{gib:.1f} GiB" if gib >= 0.95 else f"{gib:.2g} GiB"


def memory_check_disabled() -> bool:
    """True when ``RANKSTATS_IGNORE_MEMORY`` is set to a true value (``1``, ``true``, ``yes``)."""
    return os.environ.get(IGNORE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def require_memory(
    nbytes: int,
    what: str,
    *,
    n_systems: int | None = None,
    n_rankings: int | None = None,
    fewer: str = "systems",
) -> None:
    """Refuse, before computing, a step whose estimated memory exceeds what is available.

    Parameters
    ----------
    nbytes : int
        Estimated peak memory (e.g. :func:`pairwise_bytes`).
    what : str
        The step, for the message (``"rs.pairwise"``, ``"rankstats rank"``).
    n_systems, n_rankings : int, optional
        The shape behind the estimate, named in the message.
    fewer : str
        What the message advises to reduce (``"systems"``; :func:`rankstats.power`: the
        benchmark's size or the replications).

    Raises
    ------
    ResourceError
        ``nbytes`` exceeds :func:`available_memory`, and ``RANKSTATS_IGNORE_MEMORY`` is not
        set.  A subclass of ``MemoryError``; the one-line message says how much is needed,
        how much there is, and how to go on anyway.

    Notes
    -----
    Estimates under 32 MiB are accepted without reading ``/proc``, so the check costs
    nanoseconds on small inputs and some tens of microseconds on large ones.

    Examples
    --------
    >>> require_memory(1_000, "rs.pairwise", n_systems=10)    # small: nothing to check
    """
    if nbytes <= _NEGLIGIBLE or memory_check_disabled():
        return
    available = available_memory()
    if nbytes <= available:
        return
    shape = []
    if n_systems is not None:
        shape.append(f"{n_systems:,} systems → {n_systems * n_systems:,} pairwise cells")
    if n_rankings is not None:
        shape.append(f"{n_rankings:,} rankings")
    detail = f" ({', '.join(shape)})" if shape else ""
    raise AdviceResourceError(
        escape(
            f"{what} needs about {_gib(nbytes)}{detail} but this machine has {_gib(available)} "
            f"available; use fewer {fewer}, or "
        )
        + "{ignore} to try anyway",
        ignore=Spelled(f"set {IGNORE_ENV}=1", "pass --ignore-memory-check"),
    )

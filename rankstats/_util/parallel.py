"""Run independent jobs in this process, in a process pool, or under joblib (e.g. on Dask).

The robustness experiments (:mod:`rankstats.simulate.robustness_experiments`) split their work into
grid cells; each cell is one call ``run(*job)`` that returns its table rows.  :func:`run_cells`
yields the results in job order whatever the backend, so the tables do not depend on ``n_jobs`` or
on the backend.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

BACKENDS = ("processes", "joblib")


def cpu_count() -> int:
    """Cores this process may run on (its CPU affinity where the platform has one)."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def resolve_n_jobs(n_jobs: int | None) -> int | None:
    """``n_jobs`` checked (≥ 1, or -1 for all cores: scikit-learn's convention) with -1
    replaced by :func:`cpu_count`; ``None`` (the caller's default) stays ``None``.

    Raises
    ------
    ValueError
        ``n_jobs`` not a positive integer nor -1.
    """
    if n_jobs is None:
        return None
    _check_n_jobs(n_jobs)
    return cpu_count() if n_jobs == -1 else int(n_jobs)


def _check_n_jobs(n_jobs: object) -> None:
    if (
        isinstance(n_jobs, bool)
        or not isinstance(n_jobs, numbers.Integral)
        or n_jobs == 0
        or n_jobs < -1
    ):
        raise ValueError(
            f"n_jobs must be a positive integer (≥ 1) or -1 (all cores), not {n_jobs!r}"
        )


def check_parallel(n_jobs: int, backend: str) -> None:
    """``n_jobs`` (≥ 1, or -1 for all cores) and ``backend``, before any work.

    Raises
    ------
    ValueError
        An unknown backend, or ``n_jobs`` not a positive integer nor -1.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    _check_n_jobs(n_jobs)


def run_cells(
    jobs: Sequence[tuple], n_jobs: int, backend: str, run: Callable[..., Any]
) -> Iterator[Any]:
    """``run(*job)`` of every job, in job order, in this process or by ``n_jobs`` workers.

    Parameters
    ----------
    jobs : sequence of tuple
        Positional arguments of each call (picklable when ``n_jobs != 1``).
    n_jobs : int
        1 runs in this process; otherwise that many workers (-1: all cores).
    backend : {"processes", "joblib"}
        :class:`concurrent.futures.ProcessPoolExecutor`, or ``joblib.Parallel`` under the active
        ``joblib.parallel_config`` (``backend="dask"`` spreads the jobs over a Dask cluster).
    run : callable
        A module-level function (workers import it by name).

    Yields
    ------
    object
        The result of each job, in the order of ``jobs``.  When the caller stops early (an
        interrupt), the jobs not started yet are cancelled instead of being run to completion.
    """
    if n_jobs == 1:
        for job in jobs:
            yield run(*job)
    elif backend == "joblib":
        try:
            import joblib
        except ImportError as err:
            raise ImportError(
                'backend="joblib" needs joblib: pip install "rankstats[dask]"'
            ) from err
        parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator")
        yield from parallel(joblib.delayed(run)(*job) for job in jobs)
    else:
        pool = ProcessPoolExecutor(max_workers=n_jobs if n_jobs > 0 else None)
        try:
            futures = [pool.submit(run, *job) for job in jobs]
            for future in futures:
                yield future.result()
        finally:
            # On an interrupt (or any error) the cells not started yet are cancelled instead of
            # being run to completion before control returns to the caller.
            pool.shutdown(wait=True, cancel_futures=True)

"""The matrix products of the pairwise kernels on one BLAS thread, process-wide and re-entrant."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_blas_lock = threading.Lock()
_blas_users = 0
_blas_limit: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the kernel's matrix products on one BLAS thread.

    They are thin (``N × B`` by ``B × N``): threads only add synchronisation. With 20 systems ×
    200,000 rankings on two busy cores, the four products took 141 ms on OpenBLAS's default
    threads and 67 ms on one (as with ``OPENBLAS_NUM_THREADS=1``); the architecture review saw
    2.4 times on a quiet machine and up to 400 times on a busy many-core one. The limit is
    process-wide, so concurrent kernels (Dask's threaded scheduler) share one: the first sets
    it, the last restores the previous setting.
    """
    global _blas_users, _blas_limit
    with _blas_lock:
        if _blas_users == 0:
            _blas_limit = _blas_controller().limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limit.restore_original_limits()
                _blas_limit = None


def _reset_blas_users() -> None:
    """In a child forked while a kernel ran in another thread: no kernel runs here."""
    global _blas_lock, _blas_users, _blas_limit
    _blas_lock, _blas_users, _blas_limit = threading.Lock(), 0, None


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_reset_blas_users)


@functools.cache
def _blas_controller() -> Any:
    """The BLAS libraries loaded in this process (inspected once: 0.2 ms; a limit then 10 µs)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()

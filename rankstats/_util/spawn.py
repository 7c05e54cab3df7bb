"""Worker processes that never re-run the user's script.

``multiprocessing``'s ``spawn`` (and ``forkserver``) start method makes every new process import
the parent's ``__main__`` module again, so that functions defined in a script can be found by
name. A script that calls ``rs.scan_scores(..., n_jobs=2)`` at its top level, without an
``if __name__ == "__main__":`` guard, is therefore run once more in every worker (and the
workers, trying to start processes while they import, crash the pool). ``fork`` avoids the
re-import but is unsafe with Arrow's reader threads.

rankstats' workers run only functions of rankstats itself, so they need nothing from
``__main__``: :func:`spawn_context` is the ``spawn`` context whose processes are started with the
main module's ``__spec__`` and ``__file__`` hidden for the instant the start data are pickled —
exactly the state of an interactive session, for which ``multiprocessing`` imports nothing. The
user's script runs once, guarded or not.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from multiprocessing.context import SpawnContext, SpawnProcess

_lock = threading.Lock()
_MISSING = object()


@contextlib.contextmanager
def _main_hidden() -> Iterator[None]:
    """``__main__`` without ``__spec__`` / ``__file__`` (what ``spawn`` reads to re-import it),
    restored on exit."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    with _lock:
        saved = {k: main.__dict__.get(k, _MISSING) for k in ("__spec__", "__file__")}
        main.__dict__["__spec__"] = None
        main.__dict__.pop("__file__", None)
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is _MISSING:
                    main.__dict__.pop(key, None)
                else:
                    main.__dict__[key] = value


class _NoMainProcess(SpawnProcess):
    """A ``spawn`` process that does not import the parent's ``__main__``."""

    def start(self) -> None:
        with _main_hidden():
            super().start()


class _NoMainContext(SpawnContext):
    Process = _NoMainProcess


def spawn_context() -> SpawnContext:
    """The ``spawn`` multiprocessing context whose workers never import ``__main__``.

    Pass it as ``mp_context=`` to :class:`concurrent.futures.ProcessPoolExecutor` for workers
    that run module-level functions of rankstats (picklable by their module name).
    """
    return _NoMainContext()

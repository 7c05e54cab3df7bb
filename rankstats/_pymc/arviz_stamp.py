"""Import ArviZ 0.2x safely from several processes at once (pytest-xdist, Dask, multiprocessing).

ArviZ 0.23 writes a once-a-day stamp when it is imported (``arviz/__init__.py``,
``_warn_once_per_day``): it writes ``<user cache>/arviz/daily_warning.tmp`` and renames it to
``daily_warning``.  The temporary name is fixed, so two processes that import ArviZ at the same
moment on a day without a stamp race: the second rename finds no file and the import fails with
``FileNotFoundError`` (seen on a fresh machine, two pytest workers collecting at once).

:func:`settle` writes today's stamp first, under a name of this process's own, and renames it into
place (an atomic replace; the last writer wins and every writer writes the same date).  ArviZ then
reads today's date and writes nothing.  rankstats calls it before every import of ArviZ or PyMC
(``compat`` does, and every PyMC import goes through ``compat``); the tests' ``conftest.py``
calls it before any test module imports ArviZ itself.  ArviZ 1.x writes no stamp: nothing to do.
"""

from __future__ import annotations

import datetime
import os
import tempfile
from importlib import metadata
from pathlib import Path


def stamp_path() -> Path | None:
    """Where ArviZ 0.x keeps its stamp, or None when ArviZ 0.x (or platformdirs) is absent."""
    try:
        major = int(metadata.version("arviz").split(".")[0])
        from platformdirs import user_cache_dir
    except (metadata.PackageNotFoundError, ImportError, ValueError):
        return None
    if major >= 1:
        return None
    # The same call ArviZ 0.23 makes (``user_cache_dir("arviz", "arviz")``).
    return Path(user_cache_dir("arviz", "arviz")) / "daily_warning"


def settle() -> None:
    """Write today's ArviZ stamp atomically under a unique temporary name (see the module)."""
    path = stamp_path()
    if path is None:
        return
    today = datetime.date.today().isoformat()
    try:
        if path.read_text().strip() == today:
            return
    except (OSError, UnicodeDecodeError):
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix="daily_warning.", dir=path.parent)
        with os.fdopen(handle, "w") as stream:
            stream.write(today)
        os.replace(temporary, path)
    except OSError:
        # A read-only cache: ArviZ's own write fails there too, with its own message; nothing
        # of ours should hide it.
        return

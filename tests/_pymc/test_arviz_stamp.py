"""ArviZ 0.2x's daily stamp cannot break an import of rankstats' PyMC layer (issue 45, item 1).

ArviZ 0.23 writes ``<cache>/arviz/daily_warning.tmp`` then renames it when imported on a day
without a stamp; two processes doing so at once race.  The trap below makes ArviZ's own write
fail deterministically (its temporary name is a directory), so a process that lets ArviZ write
its stamp fails, and one that imports through ``rankstats._pymc.compat`` must not.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rankstats._pymc import arviz_stamp

pytestmark = pytest.mark.skipif(
    arviz_stamp.stamp_path() is None, reason="ArviZ 1.x writes no daily stamp"
)


def _fresh_cache(tmp_path: Path) -> dict[str, str]:
    """An environment whose user cache is empty, as on a new machine (platformdirs reads
    XDG_CACHE_HOME on Linux), with ArviZ's fixed temporary name taken by a directory."""
    cache = tmp_path / "cache"
    (cache / "arviz" / "daily_warning.tmp").mkdir(parents=True)
    return {**_keep_fonts(), "XDG_CACHE_HOME": str(cache)}


def _keep_fonts() -> dict[str, str]:
    """The environment with matplotlib's cache where it is now: a new user cache would make
    matplotlib (which ArviZ imports) scan every font again, 10-20 s, for nothing tested here."""
    import matplotlib

    return {**os.environ, "MPLCONFIGDIR": os.environ.get("MPLCONFIGDIR", matplotlib.get_cachedir())}


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.long  # a process importing ArviZ (the check that the trap works)
@pytest.mark.pymc
def test_the_trap_catches_arviz_writing_its_stamp(tmp_path):
    # The check below can fail: ArviZ imported on its own writes the stamp and falls in the trap.
    plain = _python("import arviz", _fresh_cache(tmp_path))
    assert plain.returncode != 0
    assert "daily_warning.tmp" in plain.stderr


def test_rankstats_leaves_arviz_nothing_to_write(tmp_path):
    env = _fresh_cache(tmp_path)
    done = _python("import rankstats._pymc.compat", env)
    assert done.returncode == 0, done.stderr
    stamp = Path(env["XDG_CACHE_HOME"]) / "arviz" / "daily_warning"
    assert stamp.read_text() == datetime.date.today().isoformat()
    assert sorted(p.name for p in stamp.parent.iterdir()) == ["daily_warning", "daily_warning.tmp"]


@pytest.mark.long
@pytest.mark.pymc
def test_many_processes_import_at_once_on_a_fresh_machine(tmp_path):
    env = {**_keep_fonts(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    code = "import rankstats._pymc.compat"
    processes = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    errors = [p.communicate(timeout=300)[1] for p in processes]
    assert [p.returncode for p in processes] == [0] * 4, errors

"""``rs.scan_scores(n_jobs=2)`` in a script without ``if __name__ == "__main__":``: the workers
never re-run the script (``multiprocessing``'s spawn re-imports ``__main__``), and the result is
the in-memory one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

pytestmark = pytest.mark.long

SCRIPT = """
import rankstats as rs
print("SCRIPT RAN", flush=True)
big = rs.scan_scores({files!r}, n_jobs=2, order={order!r})
print("ORDER", ",".join(rs.aggregate(big, method="borda").order), flush=True)
"""


def _files(tmp_path: Path) -> tuple[list[str], pd.DataFrame]:
    rng = np.random.default_rng(3)
    frames = []
    for i in range(3):
        frame = pd.DataFrame(
            {
                "system": np.tile(["a", "b", "c", "d"], 15),
                "task": f"t{i}",
                "instance": np.repeat(np.arange(15), 4),
                "score": rng.normal(size=60) + np.tile([0.0, 0.3, 0.6, 0.9], 15),
            }
        )
        frames.append(frame)
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"part{i}.csv"
        frame.to_csv(path, index=False)
        paths.append(str(path))
    return paths, pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("order", ["grouped", "any"])
@pytest.mark.parametrize("how", ["script", "module"])
def test_script_without_main_guard_runs_once(tmp_path, how, order):
    files, data = _files(tmp_path)
    (tmp_path / "unguarded.py").write_text(textwrap.dedent(SCRIPT.format(files=files, order=order)))
    command = (
        [sys.executable, "unguarded.py"] if how == "script" else [sys.executable, "-m", "unguarded"]
    )
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("SCRIPT RAN") == 1, done.stdout + done.stderr
    # The reference: the same table in memory, ranked per (task, instance).
    scores = rs.Scores.from_long(data, system="system", task="task", instance="instance")
    expected = rs.aggregate(rs.Rankings.from_scores(scores, by="instance"), method="borda").order
    line = next(t for t in done.stdout.splitlines() if t.startswith("ORDER "))
    assert line.split(" ", 1)[1].split(",") == list(expected)


def test_main_module_is_restored_after_starting_workers():
    from rankstats._util.spawn import _main_hidden

    main = sys.modules["__main__"]
    before = (main.__dict__.get("__spec__"), main.__dict__.get("__file__"))
    with _main_hidden():
        assert main.__spec__ is None and "__file__" not in main.__dict__
    assert (main.__dict__.get("__spec__"), main.__dict__.get("__file__")) == before

"""Start-up time of the ``rankstats`` command (issue 24), as whole processes.

Run: ``python tests/benchmarks/bench_cli.py [--repeat 5]``

Each command runs in a fresh interpreter (``subprocess``), next to a reference run the same way;
the commands take turns (one run of each, ``--repeat`` times), so a change in the machine's load
touches all of them alike. Reported: the best wall time and the best CPU time (user + system of
the child process) of each.

1. ``rankstats --help`` against ``python -c pass`` (the interpreter alone: the floor) and against
   ``python -c "import pandas, matplotlib.pyplot"``. Goal: < 0.5 s (it builds the parser from
   the light option modules, :mod:`rankstats.cli.options`, and imports no numerical library).
2. ``rankstats rank --dataset xtreme_missing`` (tables, CSV, JSON and the heat map) against
   ``python -c "import pandas, matplotlib.pyplot"``, the libraries it cannot do without.
   Goal: ≤ 1.5×, wall and CPU.

``uptime`` is printed with the numbers, since other processes on the machine change them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PANDAS_MATPLOTLIB = "import pandas, matplotlib.pyplot"


def timed(argv: Sequence[str]) -> tuple[float, float]:
    """``(wall, CPU)`` seconds of one run of ``argv`` (which must succeed)."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def best_times(commands: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float]]:
    """``{name: (best wall, best CPU)}`` of ``repeat`` rounds, one run of every command each."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(timed(argv))
    return {
        name: (min(w for w, _ in times), min(c for _, c in times)) for name, times in runs.items()
    }


def python(*args: str) -> list[str]:
    """``argv`` running this interpreter with ``args``."""
    return [sys.executable, *args]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (best kept)")
    args = parser.parse_args(argv)
    repeat = args.repeat

    print("uptime:", uptime())
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out")
        times = best_times(
            {
                "floor": python("-c", "pass"),
                "libraries": python("-c", PANDAS_MATPLOTLIB),
                "help": python("-m", "rankstats", "--help"),
                "rank": python(
                    "-m", "rankstats", "rank", "--dataset", "xtreme_missing", "--out", out
                ),
            },
            repeat,
        )
    floor, libraries, help_time, rank = (times[k] for k in ("floor", "libraries", "help", "rank"))

    print(f"best of {repeat} alternating runs, seconds: wall / CPU (user + system)")
    print(f"  python -c pass                            {floor[0]:7.3f} / {floor[1]:6.3f}")
    print(f"  python -c {PANDAS_MATPLOTLIB!r:32} {libraries[0]:7.3f} / {libraries[1]:6.3f}")
    print(
        f"  rankstats --help                          {help_time[0]:7.3f} / {help_time[1]:6.3f}"
        f"   = {help_time[0] / floor[0]:.2f}× the empty interpreter, "
        f"{help_time[0] / libraries[0]:.2f}× pandas + matplotlib (goal < 0.5 s)"
    )
    print(
        f"  rankstats rank --dataset xtreme_missing   {rank[0]:7.3f} / {rank[1]:6.3f}"
        f"   = {rank[0] / libraries[0]:.2f}× wall, {rank[1] / libraries[1]:.2f}× CPU "
        "of pandas + matplotlib (goal ≤ 1.5×)"
    )
    print("uptime:", uptime())


if __name__ == "__main__":
    main()

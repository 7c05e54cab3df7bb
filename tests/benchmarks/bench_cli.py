"""Start-up time of the ``rankstats`` command (issue 24), as whole processes.

Run: ``python tests/benchmarks/bench_cli.py [--repeat 5]``

Each command runs in a fresh interpreter (``subprocess``), best of ``--repeat`` wall times, next
to a reference run the same way:

1. ``rankstats --help`` against ``python -c pass`` (the interpreter alone: the floor) and against
   ``python -c "import pandas, matplotlib.pyplot"``. Goal: < 0.5 s (it builds the parser from
   the light option modules, :mod:`rankstats.cli.options`, and imports no numerical library).
2. ``rankstats rank --dataset xtreme_missing`` (tables, CSV, JSON and the heat map) against
   ``python -c "import pandas, matplotlib.pyplot"``, the libraries it cannot do without.
   Goal: ≤ 1.5×.

``uptime`` is printed with the numbers, since other processes on the machine change them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PANDAS_MATPLOTLIB = "import pandas, matplotlib.pyplot"


def best_time(argv: Sequence[str], repeat: int) -> float:
    """The best wall time in seconds of ``repeat`` runs of ``argv`` (each must succeed)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def python(*args: str) -> list[str]:
    """``argv`` running this interpreter with ``args``."""
    return [sys.executable, *args]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (best kept)")
    args = parser.parse_args(argv)
    repeat = args.repeat

    floor = best_time(python("-c", "pass"), repeat)
    libraries = best_time(python("-c", PANDAS_MATPLOTLIB), repeat)
    help_time = best_time(python("-m", "rankstats", "--help"), repeat)
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out")
        rank_argv = python("-m", "rankstats", "rank", "--dataset", "xtreme_missing", "--out", out)
        rank_time = best_time(rank_argv, repeat)

    print(f"best of {repeat} runs, wall time in seconds")
    print(f"  python -c pass                            {floor:7.3f}")
    print(f"  python -c {PANDAS_MATPLOTLIB!r:32} {libraries:7.3f}")
    print(
        f"  rankstats --help                          {help_time:7.3f}   "
        f"= {help_time / floor:.2f}× the empty interpreter, "
        f"{help_time / libraries:.2f}× pandas + matplotlib (goal < 0.5 s)"
    )
    print(
        f"  rankstats rank --dataset xtreme_missing   {rank_time:7.3f}   "
        f"= {rank_time / libraries:.2f}× pandas + matplotlib (goal ≤ 1.5×)"
    )
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()

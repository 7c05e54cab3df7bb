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
3. What that goal leaves out, measured beside it: ``rank --no-figures`` against the same
   import (everything but the figure), and ``rank`` against :data:`BY_HAND` — the same CSV read
   with pandas, a 15 × 15 matrix of mean differences drawn by matplotlib as an annotated heat
   map with a colour bar and saved as a 150-dpi PNG and a PDF (``bbox_inches="tight"``), which
   is what a user would write without rankstats. The heat map's drawing costs what matplotlib
   costs for it (its text, the PDF's font subsets), which no import order removes.

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

#: The heat map a user would draw by hand from the same file (argument 1: the CSV; 2: the stem).
BY_HAND = """
import sys
import numpy as np, pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
table = pd.read_csv(sys.argv[1], index_col="system")
mean = table.mean(axis=1).sort_values(ascending=False)
diff = mean.to_numpy()[:, None] - mean.to_numpy()[None, :]
n = len(mean)
fig, ax = plt.subplots(figsize=(n * 0.45 + 3.5, n * 0.45 + 3))
image = ax.imshow(diff, cmap="RdBu_r")
ax.set_xticks(range(n), mean.index, rotation=90, fontsize=7)
ax.set_yticks(range(n), mean.index, fontsize=7)
for i in range(n):
    for j in range(n):
        if i != j:
            ax.text(j, i, f"{diff[i, j]:.1f}", ha="center", va="center", fontsize=5)
ax.set_title("mean differences, system a minus system b", fontsize=9)
fig.colorbar(image, ax=ax, shrink=0.8, label="difference of the means")
fig.savefig(sys.argv[2] + ".png", dpi=150, bbox_inches="tight")
fig.savefig(sys.argv[2] + ".pdf", bbox_inches="tight")
"""


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


def xtreme_csv() -> Path:
    """The bundled ``xtreme_missing`` table (the file ``--dataset xtreme_missing`` reads)."""
    import rankstats

    return Path(rankstats.__file__).parent / "datasets" / "data" / "xtreme_missing.csv"


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
                "no_figures": python(
                    "-m",
                    "rankstats",
                    "rank",
                    "--dataset",
                    "xtreme_missing",
                    "--out",
                    out,
                    "--no-figures",
                ),
                "by_hand": python("-c", BY_HAND, str(xtreme_csv()), str(Path(tmp) / "hand")),
            },
            repeat,
        )
    floor, libraries, help_time, rank = (times[k] for k in ("floor", "libraries", "help", "rank"))
    no_figures, by_hand = times["no_figures"], times["by_hand"]

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
    print(
        f"  rankstats rank ... --no-figures           {no_figures[0]:7.3f} / {no_figures[1]:6.3f}"
        f"   = {no_figures[0] / libraries[0]:.2f}× wall, {no_figures[1] / libraries[1]:.2f}× CPU "
        "of pandas + matplotlib"
    )
    print(
        f"  the heat map by hand (pandas, matplotlib) {by_hand[0]:7.3f} / {by_hand[1]:6.3f}"
        f"   rank = {rank[0] / by_hand[0]:.2f}× wall, {rank[1] / by_hand[1]:.2f}× CPU of it"
    )
    print("uptime:", uptime())


if __name__ == "__main__":
    main()

"""Speed of the common path against the bare NumPy floor, and import / start-up times.

Run (from the repository root)::

    python tests/benchmarks/bench_core.py            # 20 systems × 500,000 instances
    python tests/benchmarks/bench_core.py --small    # 20 × 20,000: a quick check

Builds one long DataFrame (``system``, ``task``, ``instance``, ``score``; 20 tasks, seeded, 20 %
of the system × instance cells absent: 8.0 M scores at full size, with text system and task
columns as a CSV reader returns them), then times in ONE process, best of ``--repeat``:

* the NumPy floor: ``argsort`` along systems of the instance × system score matrix plus the
  column sums of the positions (what any Borda-type ranking must at least do);
* ``rs.Scores.from_long(df, instance="instance")`` (validation);
* ``rs.aggregate(scores, "borda")`` (σ^l) and ``rs.aggregate(scores, "borda2")`` (σ^2l);
* ``rs.pairwise(rs.Rankings.from_scores(scores, by="instance"))`` + ``rs.hoeffding(...)``;
* the README's whole path: validation + σ^l + σ^2l + pairwise + Hoeffding;

each with its ratio to the floor; then ``import rankstats`` and ``import pandas`` in fresh
interpreters and the wall time of ``rankstats --help`` (best of 3). The machine load
(``uptime``) is printed before and after: the timings are wall clock.

Goals (issue "fast from the first import"): whole path ≤ 3× the floor; validation ≤ the analysis
(σ^l + σ^2l + pairwise + Hoeffding); ``import rankstats`` ≤ 1.5× ``import pandas``;
``rankstats --help`` < 1 s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def load() -> str:
    """The ``uptime`` line (load averages), or ``/proc/loadavg`` where uptime is missing."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: " + " ".join(Path("/proc/loadavg").read_text().split()[:3])


def make_frame(n_systems: int, n_instances: int, missing: float, n_tasks: int, seed: int):
    """The long table: text system / task names, integer instances, Gumbel scores."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    system = np.tile(np.arange(n_systems), n_instances)
    instance = np.repeat(np.arange(n_instances), n_systems)
    score = rng.gumbel(loc=0.05 * system)
    keep = rng.random(system.size) >= missing
    names = np.array([f"sys{i:02d}" for i in range(n_systems)], dtype=object)
    tasks = np.array([f"task{t:02d}" for t in range(n_tasks)], dtype=object)
    return pd.DataFrame(
        {
            "system": pd.array(names[system[keep]], dtype="str"),
            "task": pd.array(tasks[instance[keep] % n_tasks], dtype="str"),
            "instance": instance[keep],
            "score": score[keep],
        }
    )


def best(fn, repeat: int, setup=None):
    """Best of ``repeat`` timings of ``fn()`` (``fn(setup())`` with an untimed ``setup``)."""
    seconds, result = np.inf, None
    for _ in range(repeat):
        args = () if setup is None else (setup(),)
        start = time.perf_counter()
        result = fn(*args)
        seconds = min(seconds, time.perf_counter() - start)
    return seconds, result


def floor_matrix(df, n_systems: int) -> np.ndarray:
    """The instance × system score matrix (NaN = absent), built outside the timing."""
    matrix = np.full((int(df["instance"].max()) + 1, n_systems), np.nan)
    system = df["system"].str.slice(3).astype(int).to_numpy()
    matrix[df["instance"].to_numpy(), system] = df["score"].to_numpy()
    return matrix


def numpy_floor(matrix: np.ndarray) -> np.ndarray:
    order = np.argsort(-matrix, axis=1)  # NaN last
    positions = np.empty_like(order)
    np.put_along_axis(positions, order, np.arange(matrix.shape[1])[None, :], axis=1)
    return positions.sum(axis=0) + np.isnan(matrix).sum(axis=0)


def interpreter_seconds(code: str, repeat: int = 3) -> float:
    """Best time of ``code`` (an import) measured inside a fresh interpreter."""
    timer = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", timer], capture_output=True, text=True, check=True
        )
        runs.append(float(done.stdout.strip().splitlines()[-1]))
    return min(runs)


def help_seconds(repeat: int = 3) -> float:
    """Best wall time of ``rankstats --help``, run as ``python -m rankstats --help`` (the same
    imports as the console script, and the package this interpreter imports)."""
    runs, command = [], [sys.executable, "-m", "rankstats", "--help"]
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        runs.append(time.perf_counter() - start)
    return min(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="20 × 20,000 (a quick run)")
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--instances", type=int, default=None)
    parser.add_argument("--missing", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=None, help="best of (default 3; 5 small)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_instances = args.instances or (20_000 if args.small else 500_000)
    repeat = args.repeat or (5 if args.small else 3)

    print(f"before: {load()}")
    print(f"threads: OMP={os.environ.get('OMP_NUM_THREADS', '-')}, cpus={os.cpu_count()}")
    # Import times first, in fresh interpreters, before this process loads anything heavy.
    t_pandas = interpreter_seconds("import pandas")
    t_rankstats = interpreter_seconds("import rankstats")
    t_help = help_seconds()

    import pandas as pd

    import rankstats as rs

    df = make_frame(args.systems, n_instances, args.missing, n_tasks=20, seed=args.seed)
    print(
        f"table: {args.systems} systems × {n_instances:,} instances, {args.missing:.0%} missing "
        f"→ {len(df):,} scores; pandas {pd.__version__}, numpy {np.__version__}"
    )
    matrix = floor_matrix(df, args.systems)
    t_floor, _ = best(lambda: numpy_floor(matrix), repeat)

    t_valid, _ = best(lambda: rs.Scores.from_long(df, instance="instance"), repeat)

    # Each step alone on a fresh table (a Scores object builds its rankings and pairwise
    # statistics once and shares them between estimators: the README path below).
    def fresh():
        return rs.Scores.from_long(df, instance="instance")

    t_borda, sigma_l = best(lambda sc: rs.aggregate(sc, "borda"), repeat, fresh)
    t_borda2, sigma_2l = best(lambda sc: rs.aggregate(sc, "borda2"), repeat, fresh)

    def intervals(sc):
        pw = rs.pairwise(rs.Rankings.from_scores(sc, by="instance"))
        return rs.hoeffding(pw, delta=0.05, correction="holm", order=sigma_2l.order)

    t_ci, _ = best(intervals, repeat, fresh)

    def readme():
        sc = rs.Scores.from_long(df, instance="instance")
        res_l = rs.aggregate(sc, method="borda")
        res = rs.aggregate(sc, method="borda2")
        pw = rs.pairwise(rs.Rankings.from_scores(sc, by="instance"))
        ci = rs.hoeffding(pw, delta=0.05, correction="holm", order=res.order)
        return res_l, res, ci

    t_whole, (res_l, res, _) = best(readme, repeat)
    assert res_l.order == sigma_l.order and res.order == sigma_2l.order

    analysis = t_whole - t_valid  # σ^l + σ^2l + Hoeffding after validation, as a user runs them
    rows = [
        ("NumPy floor (argsort along systems + sums)", t_floor),
        ('Scores.from_long(df, instance="instance")', t_valid),
        ('aggregate(scores, "borda")  σ^l (fresh table)', t_borda),
        ('aggregate(scores, "borda2")  σ^2l (fresh table)', t_borda2),
        ("pairwise(Rankings.from_scores(..)) + hoeffding (fresh table)", t_ci),
        ("README path: validation + σ^l + σ^2l + Hoeffding", t_whole),
    ]
    print(f"\n{'step':<62} {'seconds':>8} {'× floor':>8}")
    for label, seconds in rows:
        print(f"{label:<62} {seconds:8.3f} {seconds / t_floor:8.1f}")
    print(
        f"\n{'import pandas (fresh interpreter, best of 3)':<62} {t_pandas:8.3f}\n"
        f"{'import rankstats (fresh interpreter, best of 3)':<62} {t_rankstats:8.3f} "
        f"{t_rankstats / t_pandas:7.2f}× pandas\n"
        f"{'rankstats --help (wall, best of 3)':<62} {t_help:8.3f}"
    )
    goals = [
        (f"README path ≤ 3× floor ({t_whole / t_floor:.1f}×)", t_whole <= 3 * t_floor),
        (f"validation ≤ analysis ({t_valid:.2f} s vs {analysis:.2f} s)", t_valid <= analysis),
        (
            f"import rankstats ≤ 1.5× import pandas ({t_rankstats / t_pandas:.2f}×)",
            t_rankstats <= 1.5 * t_pandas,
        ),
        (f"rankstats --help < 1 s ({t_help:.2f} s)", t_help < 1.0),
    ]
    print("\nGoals")
    for label, ok in goals:
        print(f"  [{'ok' if ok else 'FAIL'}] {label}")
    print(f"\nafter: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

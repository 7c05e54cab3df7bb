"""Leaderboard scale, end to end through the ``rankstats`` command (issue 47, item 6).

Run: ``python tests/benchmarks/bench_leaderboard.py [--scale 1.0] [--keep DIR]``

Two synthetic leaderboards, written to files and run through every command as a user would
(``python -m rankstats ...`` in a fresh process, from the files):

* an MTEB-like score table: 300 systems × 60 tasks, 30 % of the (system, task) cells not
  evaluated, 1,000 instances per task — a wide task-level CSV (``mteb_tasks.csv``: the table a
  leaderboard publishes) and the long instance-level Parquet file it comes from
  (``mteb_instances.parquet``, about 12.6 million rows);
* a chatbot-arena log: 250 models, 3 million battles (``model_a, model_b, winner``; ties).

``--scale f`` multiplies the systems, instances, models and battles by ``f`` (a quick run:
``--scale 0.1``).  Each command is timed (wall) with the peak resident memory of its process
(``os.wait4``: the rusage of that child alone), next to the anchors of issue 47:
``pandas.read_csv`` of the same file (``check``), choix ``ilsr_rankings`` on the same rankings
(``fit --model pl``), choix ``ilsr_pairwise_dense`` on the battles' win matrix (the battles
fit), scikit-posthocs ``posthoc_nemenyi_friedman`` on the complete table (``significance``),
and ``import pandas, matplotlib.pyplot`` (``rank --dataset xtreme_missing``).  Ratio = anchor
time / rankstats time (≥ 1: rankstats is at least as fast).  ``uptime`` is printed before and
after: the load of the machine changes every number.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

TASKS = 60
MISSING = 0.30


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


#: A small launcher between this process and each command: a child forked from this (large)
#: process would report this process's resident memory as its own peak (Linux keeps the peak
#: across ``exec``); the launcher is a fresh small interpreter, so its children's peak is theirs.
LAUNCHER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[2:]).returncode
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write(f"{wall} {peak}")
sys.exit(code)
"""


#: Compiled modules of the commands, kept between runs (``PYTHONPYCACHEPREFIX``): an
#: environment with ``PYTHONDONTWRITEBYTECODE`` and no ``__pycache__`` in its site-packages
#: compiles every module of pandas, matplotlib, scipy, ... from source in every process (8 s of
#: the 17 s of a ``check`` profiled at load 15), which an installed package never does.  The
#: first command of each kind fills it; :func:`main` runs a warm-up first.
PYCACHE = Path(tempfile.gettempdir()) / "rankstats-bench-pycache"


def run(argv: Sequence[str], log: Path) -> tuple[float, float, int]:
    """``(wall seconds, peak MiB, exit code)`` of one command (its own process's peak)."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # see PYCACHE
    numbers = log.with_suffix(".rusage")
    with open(log, "w") as out:
        argv = [sys.executable, "-c", LAUNCHER, str(numbers), *argv]
        code = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
    wall, peak = numbers.read_text().split()
    return float(wall), int(peak) / 1024, code


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


# ------------------------------------------------------------------------------ the data
def mteb_like(n_systems: int, n_instances: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(instances long, tasks wide)``: scores in [0, 1] of systems of increasing skill;
    ``MISSING`` of the (system, task) cells not evaluated (the whole cell: every instance)."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(-1.0, 1.0, n_systems)
    difficulty = rng.normal(0.0, 1.0, size=(TASKS, n_instances))
    evaluated = rng.random((n_systems, TASKS)) >= MISSING
    evaluated[:, 0] = True  # every system has one task
    sys_i, task_i = np.nonzero(evaluated)
    logit = skill[sys_i, None] - difficulty[task_i] + rng.normal(0, 1.0, (len(sys_i), n_instances))
    score = 1.0 / (1.0 + np.exp(-logit))
    systems = np.array([f"model-{i:04d}" for i in range(n_systems)])
    tasks = np.array([f"task{t:02d}" for t in range(TASKS)])
    long = pd.DataFrame(
        {
            "system": np.repeat(systems[sys_i], n_instances),
            "task": np.repeat(tasks[task_i], n_instances),
            "instance": np.tile(np.arange(n_instances), len(sys_i)),
            "score": score.ravel(),
        }
    )
    cells = np.full((n_systems, TASKS), np.nan)
    cells[sys_i, task_i] = score.mean(axis=1)
    wide = pd.DataFrame(cells, index=pd.Index(systems, name="system"), columns=tasks)
    return long, wide


def arena_log(n_models: int, n_battles: int, seed: int = 1) -> pd.DataFrame:
    """Battles of uniformly drawn pairs, Bradley–Terry outcomes with 10 % ties."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-2.0, 2.0, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p_a = 1.0 / (1.0 + np.exp(strength[b] - strength[a]))
    u = rng.random(n_battles)
    tie = u < 0.1
    a_wins = ~tie & (rng.random(n_battles) < p_a)
    winner = np.where(tie, "tie", np.where(a_wins, "model_a", "model_b"))
    models = np.array([f"bot-{i:03d}" for i in range(n_models)])
    return pd.DataFrame({"model_a": models[a], "model_b": models[b], "winner": winner})


# ------------------------------------------------------------------------------ the anchors
def read_time(path: Path) -> float:
    """Best of three ``pandas.read_csv`` of ``path`` (default engine, inferred types)."""
    return min(timed(lambda: pd.read_csv(path)) for _ in range(3))


def choix_pl(wide: pd.DataFrame) -> float:
    """choix ``ilsr_rankings`` on the task rankings of the wide table (observed systems only)."""
    import choix

    values = wide.to_numpy()
    rankings = []
    for column in values.T:
        seen = np.flatnonzero(~np.isnan(column))
        rankings.append(seen[np.argsort(-column[seen], kind="stable")].tolist())

    def fit() -> None:
        try:
            choix.ilsr_rankings(len(values), rankings, alpha=1e-6, max_iter=100)
        except RuntimeError as err:  # "Did not converge": the time spent is still the anchor's
            print(f"choix ilsr_rankings: {err}")

    return timed(fit)


def choix_bt(log: pd.DataFrame) -> float:
    """choix ``ilsr_pairwise_dense`` on the win matrix of the log (a tie: ½ a win each)."""
    import choix

    def fit() -> None:
        models = pd.Index(np.union1d(log["model_a"], log["model_b"]))
        a, b = models.get_indexer(log["model_a"]), models.get_indexer(log["model_b"])
        w = np.where(log["winner"] == "model_a", 1.0, np.where(log["winner"] == "tie", 0.5, 0.0))
        wins = np.zeros((len(models), len(models)))
        np.add.at(wins, (a, b), w)
        np.add.at(wins, (b, a), 1.0 - w)
        choix.ilsr_pairwise_dense(wins, alpha=1e-6)

    return timed(fit)


def posthocs_nemenyi(wide: pd.DataFrame) -> float:
    """scikit-posthocs ``posthoc_nemenyi_friedman`` on the blocks (tasks) × systems table,
    missing cells filled by the system's mean (the package needs complete blocks)."""
    import scikit_posthocs as sp

    table = wide.T.fillna(wide.mean(axis=1))
    return timed(lambda: sp.posthoc_nemenyi_friedman(table.to_numpy()))


# ------------------------------------------------------------------------------ the run
def commands(data: Path, out: Path, n_resamples: int) -> dict[str, list[str]]:
    rs = [sys.executable, "-m", "rankstats"]
    tasks, inst, arena = (str(data / n) for n in ("mteb_tasks.csv", "mteb.parquet", "arena.csv"))
    q = ["--no-progress"]
    return {
        "check tasks.csv": [*rs, "check", tasks, "--out", str(out / "check")],
        "check instances": [*rs, "check", inst, "--out", str(out / "check_i")],
        "check 1M-row CSV": [*rs, "check", str(data / "million.csv"), "--out", str(out / "c1m")],
        "rank --by task": [*rs, "rank", tasks, *q, "--out", str(out / "rank")],
        "rank --by instance": [*rs, "rank", inst, "--by", "instance", *q, "--out", str(out / "ri")],
        "significance (imputed)": [
            *rs,
            "significance",
            tasks,
            "--missing",
            "imputed",
            *q,
            "--out",
            str(out / "sig"),
        ],
        "fit pl mle": [
            *rs,
            "fit",
            tasks,
            "--model",
            "pl",
            "--method",
            "mle",
            *q,
            "--out",
            str(out / "pl"),
        ],
        "fit bt mle": [
            *rs,
            "fit",
            tasks,
            "--model",
            "bt",
            "--method",
            "mle",
            *q,
            "--out",
            str(out / "bt"),
        ],
        f"battles ({n_resamples} resamples)": [
            *rs,
            "battles",
            arena,
            "--n-resamples",
            str(n_resamples),
            *q,
            "--out",
            str(out / "battles"),
        ],
        "report": [*rs, "report", tasks, *q, "--out", str(out / "report")],
        "power --battle-log": [
            *rs,
            "power",
            "--battle-log",
            arena,
            "--n-replications",
            "200",
            *q,
            "--out",
            str(out / "power"),
        ],
        "rank --dataset xtreme_missing": [
            *rs,
            "rank",
            "--dataset",
            "xtreme_missing",
            *q,
            "--out",
            str(out / "xtreme"),
        ],
        "import pandas, matplotlib.pyplot": [
            sys.executable,
            "-c",
            "import pandas, matplotlib.pyplot",
        ],
    }


def write_data(folder: Path, scale: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    n_systems = max(10, round(300 * scale))
    n_instances = max(10, round(1000 * scale))
    long, wide = mteb_like(n_systems, n_instances)
    wide.to_csv(folder / "mteb_tasks.csv")
    long.to_parquet(folder / "mteb.parquet", index=False)
    log = arena_log(max(10, round(250 * scale)), max(10_000, round(3_000_000 * scale)))
    log.to_csv(folder / "arena.csv", index=False)
    rng = np.random.default_rng(2)  # the 1M-row table of item 5 (50 systems × 20k instances)
    million = pd.DataFrame(
        {
            "system": np.repeat([f"s{i:02d}" for i in range(50)], 20_000),
            "task": "task",
            "instance": np.tile(np.arange(20_000), 50),
            "score": rng.random(1_000_000),
        }
    )
    million.to_csv(folder / "million.csv", index=False)
    print(
        f"data: {n_systems} systems × {TASKS} tasks × {n_instances} instances "
        f"({len(long):,} rows, {MISSING:.0%} of the cells missing); arena log "
        f"{log['model_a'].nunique()} models × {len(log):,} battles; a 1,000,000-row CSV"
    )
    return wide, log


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full sizes")
    parser.add_argument("--n-resamples", type=int, default=1000, help="battles bootstrap")
    parser.add_argument("--keep", type=Path, help="write the data and outputs here")
    parser.add_argument("--only", nargs="*", help="run only the commands starting so")
    args = parser.parse_args(argv)
    print("uptime:", uptime())
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        wide, log = write_data(folder, args.scale)
        print(f"(written in {time.perf_counter() - start:.1f} s)")
        anchors = {
            "check 1M-row CSV": ("pandas.read_csv", read_time(folder / "million.csv")),
            "check tasks.csv": ("pandas.read_csv", read_time(folder / "mteb_tasks.csv")),
            "check instances": (
                "pandas.read_parquet", timed(lambda: pd.read_parquet(folder / "mteb.parquet")),
            ),
            "fit pl mle": ("choix ilsr_rankings", choix_pl(wide)),
            "significance (imputed)": ("scikit-posthocs Nemenyi", posthocs_nemenyi(wide)),
        }  # fmt: skip
        bt = choix_bt(log)
        results = {}
        warm = [sys.executable, "-m", "rankstats", "rank", "--dataset", "xtreme_missing"]
        run([*warm, "--no-progress", "--out", str(folder / "warm")], folder / "warm.log")
        print(f"{'command':34} {'wall s':>8} {'peak MiB':>9} {'exit':>4}  anchor")
        for name, argv in commands(folder, folder / "out", args.n_resamples).items():
            if args.only and not any(name.startswith(o) for o in args.only):
                continue
            wall, peak, code = run(argv, folder / f"{name.split()[0]}_{len(results)}.log")
            results[name] = wall
            note = ""
            if name in anchors:
                what, seconds = anchors[name]
                note = f"{what} {seconds:.2f} s: ratio {seconds / wall:.2f}"
            elif name.startswith("battles"):
                note = f"choix ilsr_pairwise_dense (the fit alone) {bt:.2f} s"
            print(f"{name:34} {wall:8.2f} {peak:9.0f} {code:>4}  {note}", flush=True)
            if code:
                print(
                    f"   failed: see {folder / (name.split()[0] + '_' + str(len(results) - 1))}.log"
                )
        if (
            "rank --dataset xtreme_missing" in results
            and "import pandas, matplotlib.pyplot" in results
        ):
            ratio = (
                results["rank --dataset xtreme_missing"]
                / results["import pandas, matplotlib.pyplot"]
            )
            print(f"rank --dataset xtreme_missing = {ratio:.2f}× importing pandas + matplotlib")
    print("uptime:", uptime())


if __name__ == "__main__":
    main()

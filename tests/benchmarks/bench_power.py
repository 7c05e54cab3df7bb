"""Speed of the power simulations (issue 26), on the user's path.

Run: ``python tests/benchmarks/bench_power.py``

1. ``rs.power(n_systems=10, n_instances=1000, phi=0.1, tests=["hoeffding", "friedman",
   "nemenyi"], replications=10_000)``: the issue's goal, under 10 s on 2 cores (validation,
   drawing, ranking, every test and the tables included), with one thread and with all cores.
2. A power curve over 10 sizes (``rs.sample_size`` with its default grid of 10 to 10,000
   instances, 1,000 replications per size, ``refine=0`` so that exactly 10 sizes are simulated)
   for 10 systems: goal under 60 s.
3. The Bayesian signed-rank test's decisions: ``rs.power(n_systems=4, n_instances=50, phi=0.3,
   tests=["bayes"], rope=0.05, pair=("sys04", "sys01"))`` (2,000 replications × 4 pairs × 1,000
   posterior draws).
4. Beside them, the same simulation written the obvious way — a Python loop over replications,
   each benchmark built as a ``Scores`` table and tested with ``rs.hoeffding_test``,
   ``rs.friedman`` and ``rs.posthoc`` — timed on 50 replications and scaled, for the ratio.
5. Battle logs: ``rs.power(rs.BattleDesign(n_models=10, n_battles=5000, tie=-1.0,
   order_effect=0.1), replications=10_000)`` (both battle tests), against a loop that reads each
   simulated log with ``rs.read_battles`` and fits it with ``rs.fit_battles(bootstrap=0)`` and
   ``BattleFit.differences`` (50 logs, scaled).

The load of the machine (``uptime``) is printed before and after: the timings are wall times.
"""

from __future__ import annotations

import subprocess
import time
import warnings

import numpy as np

import rankstats as rs
from rankstats.simulate.gumbel_benchmark import cube_to_scores


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def timed(label: str, call) -> float:
    start = time.perf_counter()
    call()
    elapsed = time.perf_counter() - start
    print(f"{label}: {elapsed:.2f} s")
    return elapsed


def loop_per_replication(n: int) -> None:
    design = rs.BenchmarkDesign(n_systems=10, n_instances=1000, phi=0.1)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cube in design.draw(n, rng):
            frame = cube_to_scores(cube, design.names, ["t"], instances=True)
            scores = rs.Scores.from_long(frame, instance="instance")
            rs.hoeffding_test(rs.pairwise(scores))
            rs.friedman(scores, by="instance")
            rs.posthoc(scores, method="nemenyi", by="instance")


def battle_loop(n: int) -> None:
    design = rs.BattleDesign(n_models=10, n_battles=5000, tie=-1.0, order_effect=0.1)
    first, second, _ = design.pair_support()
    names = np.array(design.names, dtype=object)
    labels = np.array(["model_a", "model_b", "tie"], dtype=object)
    for counts in design.draw(n, np.random.default_rng(0)):
        rows = np.repeat(np.arange(3 * len(first)), counts.ravel())
        pair, outcome = rows // 3, rows % 3
        frame = {
            "model_a": names[first[pair]],
            "model_b": names[second[pair]],
            "winner": labels[outcome],
        }
        import pandas as pd

        fit = rs.fit_battles(rs.read_battles(pd.DataFrame(frame)), n_resamples=0)
        fit.differences()
        fit.table()


def main() -> None:
    print("load before:", uptime())
    kw = dict(
        n_systems=10,
        n_instances=1000,
        phi=0.1,
        tests=["hoeffding", "friedman", "nemenyi"],
        replications=10_000,
        progress=False,
    )
    rs.power(**{**kw, "replications": 100})  # imports and first calls out of the timing
    one = timed(
        "1. 10,000 replications, 10 × 1,000, Hoeffding + Friedman + Nemenyi, 1 thread",
        lambda: rs.power(n_jobs=1, **kw),
    )
    every = timed("   the same, all cores (the default)", lambda: rs.power(**kw))
    curve = timed(
        "2. power curve, 10 sizes (10 … 10,000 instances), 1,000 replications each",
        lambda: rs.sample_size(
            n_systems=10, phi=0.1, test="hoeffding", refine=0, n_replications=1000, progress=False
        ),
    )
    timed(
        "3. Bayesian signed-rank, 2,000 replications × 4 pairs × 1,000 posterior draws",
        lambda: rs.power(
            n_systems=4,
            n_instances=50,
            phi=0.3,
            tests=["bayes"],
            rope=0.05,
            pair=("sys04", "sys01"),
            progress=False,
        ),
    )
    n_loop = 50
    loop = timed(
        f"4. Python loop over {n_loop} replications with the user-facing tests",
        lambda: loop_per_replication(n_loop),
    )
    per_10k = loop / n_loop * 10_000
    print(
        f"   scaled to 10,000 replications: {per_10k:.0f} s; "
        f"rs.power is {per_10k / every:.0f}× faster (1 thread: {per_10k / one:.0f}×)"
    )
    battle = rs.BattleDesign(n_models=10, n_battles=5000, tie=-1.0, order_effect=0.1)
    rs.power(battle, n_replications=100, progress=False)
    logs = timed(
        "5. battle logs: 10,000 × (10 models, 5,000 battles), Wald + rank (UB)",
        lambda: rs.power(battle, n_replications=10_000, progress=False),
    )
    fitted = timed(f"   loop over {n_loop} logs with rs.fit_battles", lambda: battle_loop(n_loop))
    per_logs = fitted / n_loop * 10_000
    print(f"   scaled to 10,000 logs: {per_logs:.0f} s; rs.power is {per_logs / logs:.0f}× faster")
    print(f"goals: (1) < 10 s: {every:.2f} s; (2) < 60 s: {curve:.1f} s")
    print("load after:", uptime())


if __name__ == "__main__":
    main()

"""Cost of Firth's bias-reduced fit (``bias_reduction=True``) against the MLE, as a user runs them:

- **Plackett–Luce on open_clip's leaderboard** (121 systems × 38 task rankings): the file read
  and validated (``rs.read_scores`` → ``rs.Rankings.from_scores``, FMoW's placeholder zeros
  read as not evaluated), then ``PlackettLuce().fit(rk, method="mle")`` with and without
  ``bias_reduction``;
- **battles**: a simulated log (``rankstats.battles.log.simulate_battles``: Davidson ties, an
  order effect) read and fitted, ``fit_battles(read_battles(log), bootstrap=0)`` with and without
  ``bias_reduction``.

Each line gives the wall time (best of ``--repeat``), the ratio, the Newton iterations of the
battle fits and the largest difference between the two estimates (centred log-worths); the load
of the machine (``uptime``) is printed before and after (the timings are wall times on a shared
machine).  ``--differences`` also times the bias-reduced fits with the penalty's gradient from
central differences of the Hessian (the objective's exact trace removed,
:mod:`rankstats.core.firth`), as before the traces.

    python tests/benchmarks/bench_firth.py [--models 500] [--battles 500000] [--repeat 3]
        [--differences] [--openclip PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import time
from pathlib import Path

import numpy as np

import rankstats as rs
from rankstats.core import firth

DROP = ["params (M)", "FLOPs (B)", "Average perf. on 38 datasets"]
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "outside"


def uptime(when: str) -> None:
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"uptime ({when}): {load}")


def best_of(function, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


@contextlib.contextmanager
def by_differences():
    """The penalty's gradient from differences of the Hessian: the traces are not looked up."""
    original = firth.trace_of
    firth.trace_of = lambda function: None
    try:
        yield
    finally:
        firth.trace_of = original


def openclip(path: Path, repeat: int, differences: bool) -> None:
    def rankings() -> rs.Rankings:
        scores = rs.read_scores(path, system=["name", "pretrained"], drop_columns=DROP)
        return rs.Rankings.from_scores(rs.datacheck.drop_placeholders(scores))

    def fit(bias_reduction: bool):
        return rs.models.PlackettLuce().fit(rankings(), method="mle", bias_reduction=bias_reduction)

    rk = rankings()
    print(f"Plackett–Luce, open_clip ({len(rk.systems)} systems × {len(rk.rankers)} rankings):")
    report(fit, repeat, differences, lambda f: f.worth.to_numpy())


def battles(n_models: int, n_battles: int, repeat: int, differences: bool) -> None:
    from rankstats.battles.fitting import fit_battles
    from rankstats.battles.log import read_battles, simulate_battles

    frame, _ = simulate_battles(n_models=n_models, n_battles=n_battles, seed=0)

    def fit(bias_reduction: bool):
        return fit_battles(read_battles(frame), n_resamples=0, bias_reduction=bias_reduction)

    print(f"battles ({n_models} models, {n_battles:,} battles; Davidson ties, order effect):")
    report(fit, repeat, differences, lambda f: f.log_worth, iterations=True)


def report(fit, repeat: int, differences: bool, worths, iterations: bool = False) -> None:
    mle_time, mle = best_of(lambda: fit(False), repeat)
    firth_time, reduced = best_of(lambda: fit(True), repeat)
    steps = ""
    if iterations:
        steps = (
            f" (Newton iterations {mle.info['newton_iterations']} / "
            f"{reduced.info['newton_iterations']})"
        )
    gap = np.max(np.abs(worths(mle) - worths(reduced)))
    print(
        f"  MLE {mle_time:.2f} s, bias-reduced {firth_time:.2f} s: ratio "
        f"{firth_time / mle_time:.1f}{steps}; largest change of a log-worth {gap:.3f}"
    )
    if differences:
        with by_differences():
            slow_time, slow = best_of(lambda: fit(True), 1)
        agree = np.max(np.abs(worths(slow) - worths(reduced)))
        print(
            f"  bias-reduced by differences of the Hessian: {slow_time:.2f} s "
            f"({slow_time / firth_time:.0f} × the exact trace); largest difference {agree:.1e}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=500)
    parser.add_argument("--battles", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--differences", action="store_true")
    parser.add_argument("--openclip", type=Path, default=SHARED / "openclip_results.csv")
    args = parser.parse_args()
    uptime("before")
    openclip(args.openclip, args.repeat, args.differences)
    battles(args.models, args.battles, args.repeat, args.differences)
    uptime("after")


if __name__ == "__main__":
    main()

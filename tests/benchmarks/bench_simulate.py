"""Speed of the simulators and of the robustness runner, next to the reference tools.

Run in the benchmark environment (the reference tools are never dependencies of rankstats)::

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e ".[dask]" prefsampling choix
    .venv-bench/bin/python tests/benchmarks/bench_simulate.py [--no-study] [--jobs 2]

1. Mallows (Kendall) at 10,000 rankings of 50 items: ``rs.simulate.mallows`` against
   ``prefsampling.ordinal.mallows`` (goal: ≥ 50× faster).
2. Plackett–Luce at 10,000 rankings of 50 items: ``rs.simulate.plackett_luce`` against
   ``prefsampling.ordinal.plackett_luce`` and ``choix.generate_rankings`` (goal: ≥ 50×).
   Each pair is also checked to sample the same law (mean Kendall distance to the centre, and
   P(item 0 first)), so that the ratio compares like with like.
3. The manipulation study of Colombo et al. (2022): N = T = K = 20, 3 values of φ, 0..20
   adversarial tasks, 100 repetitions, mean / borda / borda2 (goal: < 3 min on 2 cores), and the
   same grid with exact Kemeny added at 10 repetitions.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import rankstats as rs
from rankstats.simulate.robustness_experiments import PRESETS, robustness

N_RANKINGS, N_ITEMS = 10_000, 50


def best_of(function, repeat: int = 3) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = function()
        best = min(best, time.perf_counter() - start)
    return best, out


def mean_distance_to_identity(orderings: np.ndarray) -> float:
    """Mean number of discordant pairs between each ordering (best first) and 0, 1, ..., n-1."""
    ranks = np.argsort(orderings, axis=1)
    i, j = np.triu_indices(orderings.shape[1], 1)
    return float((ranks[:, i] > ranks[:, j]).sum(axis=1).mean())


def ours_orderings(rk: rs.Rankings) -> np.ndarray:
    return np.argsort(rk.ranks, axis=1)


def bench_mallows(theta: float) -> None:
    print(f"\nMallows–Kendall, θ = {theta}: {N_RANKINGS:,} rankings of {N_ITEMS} items")
    center = [str(i) for i in range(N_ITEMS)]
    ours_t, ours = best_of(lambda: rs.simulate.mallows(N_ITEMS, theta, N_RANKINGS, center, 0))
    expected = rs.simulate.mallows_expected_distance(N_ITEMS, theta)
    print(
        f"  rankstats     {ours_t * 1e3:9.1f} ms   mean distance "
        f"{mean_distance_to_identity(ours_orderings(ours)):.3f} (closed form {expected:.3f})"
    )
    try:
        from prefsampling.ordinal import mallows as ps_mallows
    except ImportError:
        print("  prefsampling  not installed (run in the benchmark environment)")
        return
    ref_t, ref = best_of(lambda: ps_mallows(N_RANKINGS, N_ITEMS, np.exp(-theta), seed=0), 1)
    print(
        f"  prefsampling  {ref_t * 1e3:9.1f} ms   mean distance "
        f"{mean_distance_to_identity(np.asarray(ref)):.3f}   ratio {ref_t / ours_t:7.1f}×"
    )


def bench_plackett_luce() -> None:
    print(f"\nPlackett–Luce (Gumbel-max): {N_RANKINGS:,} rankings of {N_ITEMS} items")
    log_worth = np.linspace(1.0, -1.0, N_ITEMS)
    worths = np.exp(log_worth)
    first = worths[0] / worths.sum()
    ours_t, ours = best_of(lambda: rs.simulate.plackett_luce(worths, N_RANKINGS, seed=0))
    p_first = float((ours.ranks[:, 0] == 1).mean())
    print(
        f"  rankstats     {ours_t * 1e3:9.1f} ms   P(item 0 first) {p_first:.4f} (law {first:.4f})"
    )
    try:
        from prefsampling.ordinal import plackett_luce as ps_pl
    except ImportError:
        print("  prefsampling  not installed (run in the benchmark environment)")
    else:
        ref_t, ref = best_of(lambda: ps_pl(N_RANKINGS, N_ITEMS, list(worths), seed=0), 1)
        p_ref = float((np.asarray(ref)[:, 0] == 0).mean())
        print(
            f"  prefsampling  {ref_t * 1e3:9.1f} ms   P(item 0 first) {p_ref:.4f}   "
            f"ratio {ref_t / ours_t:7.1f}×"
        )
    try:
        import random

        import choix
    except ImportError:
        print("  choix         not installed (run in the benchmark environment)")
        return
    random.seed(0)
    ref_t, ref = best_of(lambda: choix.generate_rankings(log_worth, N_RANKINGS, N_ITEMS), 1)
    p_ref = float(np.mean([r[0] == 0 for r in ref]))
    print(
        f"  choix         {ref_t * 1e3:9.1f} ms   P(item 0 first) {p_ref:.4f}   "
        f"ratio {ref_t / ours_t:7.1f}×"
    )


def bench_study(n_jobs: int) -> None:
    preset = PRESETS["colombo2022-manipulation"]
    grid, base = preset["grid"], preset["base"]
    n_cells = int(np.prod([len(v) for v in grid.values()]))
    print(
        f"\nManipulation study (Colombo et al. 2022): {n_cells} cells, N = T = K = 20, "
        f"n_jobs = {n_jobs}"
    )
    start = time.perf_counter()
    res = robustness(("mean", "borda", "borda2"), grid, 100, seed=0, n_jobs=n_jobs, base=base)
    elapsed = time.perf_counter() - start
    print(f"  mean / borda / borda2, 100 repetitions: {elapsed:7.1f} s (goal < 180 s)")
    tau = res.summary().pivot_table(index="adversarial_tasks", columns="aggregator", values="mean")
    print("  mean Kendall τ over φ at 0 / 5 / 8 / 10 adversarial tasks:")
    print(tau.loc[[0, 5, 8, 10]].round(3).to_string())
    start = time.perf_counter()
    robustness(("mean", "borda", "borda2", "kemeny"), grid, 10, seed=0, n_jobs=n_jobs, base=base)
    elapsed = time.perf_counter() - start
    print(f"  with exact Kemeny added, 10 repetitions:  {elapsed:7.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-study", action="store_true", help="samplers only")
    parser.add_argument("--jobs", type=int, default=2, help="workers for the study (default 2)")
    args = parser.parse_args()
    for theta in (0.1, 1.0):
        bench_mallows(theta)
    bench_plackett_luce()
    if not args.no_study:
        bench_study(args.jobs)

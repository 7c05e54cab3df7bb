"""Speed and memory of the Mallows fit with each distance (Metropolis–Hastings, issue 25).

Run: ``python tests/benchmarks/bench_mallows_distances.py [--quick]``

1. Cost of one Metropolis–Hastings iteration (one leap-and-shift move of ρ, one move of α, and
   one swap proposal per partial ranking) for every distance, in NumPy (the reference) and in
   the numba kernels, on potato_visual (12 × 20 complete) and sushi (5,000 × 10 complete), next
   to the exact Kendall Gibbs sampler's sweep (every item of σ re-inserted) in NumPy and numba.
   Issue 25's goal: a Metropolis–Hastings sweep (n iterations: every item proposed once on
   average) within 2× of the Gibbs sampler's sweep for n ≤ 100 — measured here against the
   numba Gibbs sweep on the same data, for the two data sets and for simulated complete
   rankings (100 assessors; Kendall Mallows, φ = 0.3) of n = 10, 20, 50 and 100 items (Ulam: at
   most 40, where its partition function stops), and for 1,000 simulated rankings of 20 items
   with half of each unranked. Each numba time is the best of three runs.
2. The user's path, ``rs.models.Mallows(distance="footrule", prior="bayesmallows").fit(rk)``
   with its defaults, to R-hat ≤ 1.01 and bulk ESS ≥ 400: potato_visual (goal < 10 s) and
   sushi (goal < 60 s), with the draws, extensions, processes and diagnostics it ended with.
3. Memory: 10,000 assessors ranking 20 items with half of each ranking unranked (augmented),
   500 iterations of a chain; peak resident memory of the process (goal < 2 GB).

The load of the machine (``uptime``) is printed before and after: the timings are wall times.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.core.permutations.partition import partition_function
from rankstats.models.mallows._gibbs import Chain, LogPrior, resolve_backend
from rankstats.models.mallows._metropolis import MetropolisChain

#: Part 3, run in a fresh interpreter.
MEMORY = """
import resource, time
import numpy as np

def peak_mb():  # this process's own peak: ru_maxrss also counts the parent's, kept across exec
    try:
        with open("/proc/self/status") as status:
            return next(int(x.split()[1]) for x in status if x.startswith("VmHWM:")) / 1024
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


from rankstats.models.mallows._metropolis import MetropolisChain
rng = np.random.default_rng(0)
n_rankings, n = 10_000, 20
order = np.argsort(rng.random((n_rankings, n)), axis=1)
hidden = rng.random((n_rankings, n)) < 0.5
# Each assessor ranks the items not hidden, 1 .. k in a random order; the hidden ones: NaN.
key = np.where(hidden, np.inf, np.argsort(order, axis=1))
ranks = np.argsort(np.argsort(key, axis=1), axis=1) + 1.0
ranks[hidden] = np.nan
before = peak_mb()
start = time.perf_counter()
chain = MetropolisChain(ranks, "footrule", rng)
chain.run(500)
peak = peak_mb()
print(
    f"memory: {n_rankings:,} assessors x {n} items, half unranked ({chain.backend}): 500 "
    f"iterations in "
    f"{time.perf_counter() - start:.1f} s; peak resident memory {peak:.0f} MB (the data and "
    f"imports alone: {before:.0f} MB; goal < 2,048 MB)"
)
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def iteration_ms(
    ranks: np.ndarray,
    distance: str,
    iterations: int,
    backend: str,
    partition=None,
    repeats: int = 1,
) -> float:
    """ms per iteration of a chain on ``ranks``: the best of ``repeats`` runs (the machine is
    shared: the best is the least disturbed)."""
    chain = MetropolisChain(
        ranks, distance, np.random.default_rng(0), backend=backend, partition=partition
    )
    chain.run(50)  # the partition function and the first allocations, not timed
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        chain.run(iterations)
        best = min(best, (time.perf_counter() - start) / iterations * 1e3)
    return best


def sweep_ms(ranks: np.ndarray, sweeps: int, backend: str, repeats: int = 1) -> float:
    """ms per Gibbs sweep on ``ranks``, the best of ``repeats`` runs."""
    chain = Chain(
        ranks, LogPrior(1.0, 0.1), np.random.default_rng(0), np.arange(ranks.shape[1]),
        backend=backend,
    )  # fmt: skip
    chain.run(10)
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        chain.run(sweeps)
        best = min(best, (time.perf_counter() - start) / sweeps * 1e3)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="part 1 only, fewer iterations")
    args = parser.parse_args()
    print("uptime:", uptime())
    data = {"potato_visual": rs.load_rankings("potato_visual"), "sushi": rs.load_rankings("sushi")}
    iterations = 500 if args.quick else 2000
    numba = resolve_backend("auto") == "numba"
    for name, rk in data.items():
        ranks = rk.ranks
        gibbs = {"numpy": sweep_ms(ranks, 200, "numpy")}
        if numba:
            gibbs["numba"] = sweep_ms(ranks, 1000, "numba", repeats=3)
        print(
            f"\n{name} ({rk.n_rankings} × {rk.n_systems}): Kendall Gibbs sweep "
            + ", ".join(f"{k} {v:.3f} ms" for k, v in gibbs.items())
        )
        best = min(gibbs.values())
        for distance in rs.models.DISTANCES:
            ms = iteration_ms(ranks, distance, iterations, "numpy")
            line = (
                f"  {distance:>9}: NumPy {ms:.3f} ms per iteration, a sweep (n iterations) "
                f"{ms * rk.n_systems / best:.1f}× the fastest Gibbs sweep"
            )
            if numba:
                fast = iteration_ms(ranks, distance, 20 * iterations, "numba", repeats=3)
                line += (
                    f"; numba {fast * 1e3:.2f} µs per iteration ({ms / fast:.0f}× faster), a "
                    f"sweep {fast * rk.n_systems:.4f} ms = {fast * rk.n_systems / best:.2f}× "
                    f"(goal ≤ 2)"
                )
            print(line)
    if numba:
        print("\nsimulated complete rankings, 100 assessors: numba sweep (n iterations) / numba "
              "Gibbs sweep (goal ≤ 2)")  # fmt: skip
        for n in (10, 20, 50, 100):
            ranks = rs.simulate.mallows(n, 0.3, size=100, seed=n).ranks
            best = sweep_ms(ranks, 1000 if args.quick else 3000, "numba", repeats=3)
            cells = []
            for distance in rs.models.DISTANCES:
                if distance == "ulam" and n > 40:
                    cells.append(f"{distance} n/a")
                    continue
                # Spearman beyond 14 items: an importance-sampling estimate of 1,000 draws per
                # grid point (the default 20,000 take 4 minutes on 100 items; the cost of an
                # iteration is the same)
                rough = n > 14 and distance == "spearman"
                pf = partition_function(n, distance, draws=1000) if rough else None
                many = max(20 * iterations, 200 * n)
                ms = iteration_ms(ranks, distance, many, "numba", pf, repeats=3) * n
                cells.append(f"{distance} {ms:.4f} ms = {ms / best:.2f}×")
            print(f"  n = {n:>3}: Gibbs {best:.4f} ms; " + ", ".join(cells))
        # Partial rankings: the latent ranks move too (the Gibbs sampler re-inserts each
        # latent item, Metropolis–Hastings proposes one swap per ranking and iteration).
        rng = np.random.default_rng(1)
        ranks = rs.simulate.mallows(20, 0.3, size=1000, seed=1).ranks
        ranks[rng.random(ranks.shape) < 0.5] = np.nan
        ranks = rs.Rankings.from_rank_matrix(pd.DataFrame(ranks)).ranks  # renumbered 1 … k
        best = sweep_ms(ranks, 200, "numba", repeats=3)
        cells = []
        for distance in rs.models.DISTANCES:
            pf = partition_function(20, distance, draws=1000)
            ms = iteration_ms(ranks, distance, 2000, "numba", pf, repeats=3) * 20
            cells.append(f"{distance} {ms:.3f} ms = {ms / best:.2f}×")
        print(f"  1,000 × 20, half unranked: Gibbs {best:.3f} ms; " + ", ".join(cells))
    if args.quick:
        print("uptime:", uptime())
        return
    print()
    for name, goal in (("potato_visual", 10.0), ("sushi", 60.0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            fit = rs.models.Mallows(distance="footrule", prior="bayesmallows").fit(
                data[name], progress=False
            )
            seconds = time.perf_counter() - start
        summary = fit.summary()
        print(
            f"fit {name} (footrule, defaults): {seconds:.1f} s (goal < {goal:.0f} s); "
            f"{fit.info['chains']} chains × {fit.info['draws']} draws (thin "
            f"{fit.info['thin']}, {fit.info['extensions']} extension(s), "
            f"{fit.info['workers']} process(es)); α = {fit.parameters['alpha']:.3f}; "
            f"max R-hat {np.nanmax(summary['r_hat']):.4f}, min bulk ESS "
            f"{np.nanmin(summary['ess_bulk']):.0f}; warnings: {len(caught)}"
        )
    # In a process of its own: the peak resident memory of this one counts the fits above.
    result = subprocess.run(
        [sys.executable, "-c", MEMORY], capture_output=True, text=True, check=True
    )
    print(result.stdout.strip())
    print("uptime:", uptime())


if __name__ == "__main__":
    main()

"""Speed and memory of the Mallows fit with each distance (Metropolis–Hastings, issue 25).

Run: ``python tests/benchmarks/bench_mallows_distances.py [--quick]``

1. Cost of one Metropolis–Hastings iteration (one leap-and-shift move of ρ, one move of α, and
   one swap proposal per partial ranking) for every distance, on potato_visual (12 × 20
   complete) and sushi (5,000 × 10 complete), next to the exact Kendall Gibbs sampler's sweep
   (every item of σ re-inserted) in NumPy and numba: issue 25's goal is a cost per sweep within
   2× of the Gibbs sampler's for n ≤ 100.
2. The user's path, ``rs.models.Mallows(distance="footrule", prior="bayesmallows").fit(rk)``
   with its defaults, to R-hat ≤ 1.01 and bulk ESS ≥ 400: potato_visual (goal < 10 s) and
   sushi (goal < 60 s), with the draws, extensions, processes and diagnostics it ended with.
3. Memory: 10,000 assessors ranking 20 items with half of each ranking unranked (augmented),
   500 iterations of a chain; peak resident memory of the process (goal < 2 GB).

The load of the machine (``uptime``) is printed before and after: the timings are wall times.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import warnings

import numpy as np

import rankstats as rs
from rankstats.models._mallows_metropolis import MetropolisChain
from rankstats.models._mallows_sampler import Chain, LogPrior, resolve_backend

#: Part 3, run in a fresh interpreter.
MEMORY = """
import resource, time
import numpy as np
from rankstats.models._mallows_metropolis import MetropolisChain
rng = np.random.default_rng(0)
n_rankings, n = 10_000, 20
order = np.argsort(rng.random((n_rankings, n)), axis=1)
hidden = rng.random((n_rankings, n)) < 0.5
# Each assessor ranks the items not hidden, 1 .. k in a random order; the hidden ones: NaN.
key = np.where(hidden, np.inf, np.argsort(order, axis=1))
ranks = np.argsort(np.argsort(key, axis=1), axis=1) + 1.0
ranks[hidden] = np.nan
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.perf_counter()
chain = MetropolisChain(ranks, "footrule", rng)
chain.run(500)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(
    f"memory: {n_rankings:,} assessors x {n} items, half unranked: 500 iterations in "
    f"{time.perf_counter() - start:.1f} s; peak resident memory {peak:.0f} MB (the data and "
    f"imports alone: {before:.0f} MB; goal < 2,048 MB)"
)
"""


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def iteration_ms(ranks: np.ndarray, distance: str, iterations: int) -> float:
    chain = MetropolisChain(ranks, distance, np.random.default_rng(0))
    chain.run(50)  # the partition function and the first allocations, not timed
    start = time.perf_counter()
    chain.run(iterations)
    return (time.perf_counter() - start) / iterations * 1e3


def sweep_ms(ranks: np.ndarray, sweeps: int, backend: str) -> float:
    chain = Chain(
        ranks, LogPrior(1.0, 0.1), np.random.default_rng(0), np.arange(ranks.shape[1]),
        backend=backend,
    )  # fmt: skip
    chain.run(10)
    start = time.perf_counter()
    chain.run(sweeps)
    return (time.perf_counter() - start) / sweeps * 1e3


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
            gibbs["numba"] = sweep_ms(ranks, 200, "numba")
        print(
            f"\n{name} ({rk.n_rankings} × {rk.n_systems}): Kendall Gibbs sweep "
            + ", ".join(f"{k} {v:.3f} ms" for k, v in gibbs.items())
        )
        best = min(gibbs.values())
        for distance in rs.models.DISTANCES:
            ms = iteration_ms(ranks, distance, iterations)
            print(
                f"  {distance:>9}: {ms:.3f} ms per iteration ({ms / best:.2f}× the fastest "
                f"Gibbs sweep); n iterations (every item once on average) "
                f"{ms * rk.n_systems / best:.1f}×"
            )
    if args.quick:
        print("uptime:", uptime())
        return
    print()
    for name, goal in (("potato_visual", 10.0), ("sushi", 60.0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            fit = rs.models.Mallows(distance="footrule", prior="bayesmallows").fit(
                data[name], progressbar=False
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

"""Speed of the Mallows Gibbs sampler (rankstats.models.Mallows): NumPy reference vs numba.

Run: ``python tests/benchmarks/bench_mallows.py``

Both backends run the same chain (same seed) one after the other; the script checks that θ,
σ and the final latent completions are identical while it times them, and prints the ratio.

1. 20 items × 12 complete rankings (potato_visual): 10,000 full sweeps (every item of σ
   re-inserted, θ updated). Goal: < 5 s (NumPy).
2. NASCAR (87 items, 36 partial rankings of 43): 5,000 sweeps (latent completions, consensus,
   θ). Goal (issue 16): ≤ 10 s with numba.
3. Measured scaling of the cost per sweep in n (complete data, L = 12) and in L (n = 20,
   half of each ranking unranked), both backends.

The load of the machine (``uptime``) is printed before and after: the timings are wall times.
"""

import subprocess
import time

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.models.mallows._gibbs import Chain, LogPrior, resolve_backend


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def timed_chain(ranks, n_sweeps, backend, seed=0):
    """Wall seconds of ``n_sweeps`` sweeps, and the chain's draws and final completions."""
    chain = Chain(
        ranks, LogPrior(1.0, 0.1), np.random.default_rng(seed), np.arange(ranks.shape[1]),
        backend=backend,
    )  # fmt: skip
    start = time.perf_counter()
    theta, sigma = chain.run(n_sweeps)
    return time.perf_counter() - start, (theta, sigma, chain.positions)


def side_by_side(label, ranks, n_sweeps):
    seconds = {}
    draws = {}
    for backend in ("numpy", "numba"):
        seconds[backend], draws[backend] = timed_chain(ranks, n_sweeps, backend)
    same = all(np.array_equal(a, b) for a, b in zip(draws["numpy"], draws["numba"], strict=True))
    print(
        f"{label}: {n_sweeps:,} sweeps: numpy {seconds['numpy']:.2f} s, numba "
        f"{seconds['numba']:.2f} s, ratio {seconds['numpy'] / seconds['numba']:.1f}×; "
        f"identical θ, σ and completions: {same}"
    )
    return seconds, same


def per_sweep_ms(ranks, n_sweeps, backend):
    return timed_chain(ranks, n_sweeps, backend)[0] / n_sweeps * 1e3


if __name__ == "__main__":
    print("uptime before:", uptime())
    start = time.perf_counter()
    resolve_backend("numba")  # import numba; compile the kernels or load them from the cache
    print(f"numba kernels compiled or loaded from the cache: {time.perf_counter() - start:.2f} s")

    potato = rs.load_rankings("potato_visual").ranks
    _, same_potato = side_by_side("potato_visual (20 items × 12 complete)", potato, 10_000)
    nascar = rs.load_rankings("nascar").ranks
    longest = int((~np.isnan(nascar)).sum(axis=1).max())
    label = f"NASCAR ({nascar.shape[1]} items, {nascar.shape[0]} rankings of {longest})"
    seconds, same_nascar = side_by_side(label, nascar, 5_000)
    print(f"  goal ≤ 10 s with numba: {'met' if seconds['numba'] <= 10 else 'NOT met'}")

    print("\ncost per sweep (ms), complete rankings, L = 12:      numpy    numba")
    for n in (10, 20, 40, 80):
        ranks = rs.simulate.mallows(n, 0.5, size=12, seed=1).ranks
        a, b = per_sweep_ms(ranks, 1000, "numpy"), per_sweep_ms(ranks, 1000, "numba")
        print(f"  n = {n:3d}: {a:37.3f} {b:8.3f}")
    print("cost per sweep (ms), n = 20, half of each ranking unranked:")
    rng = np.random.default_rng(2)
    for n_rankings in (10, 20, 40, 80):
        ranks = rs.simulate.mallows(20, 0.5, size=n_rankings, seed=3).ranks.copy()
        ranks[rng.random(ranks.shape) < 0.5] = np.nan
        ranks = rs.Rankings.from_rank_matrix(pd.DataFrame(ranks)).ranks
        a, b = per_sweep_ms(ranks, 300, "numpy"), per_sweep_ms(ranks, 300, "numba")
        print(f"  L = {n_rankings:3d}: {a:37.3f} {b:8.3f}")
    print("uptime after:", uptime())
    if not (same_potato and same_nascar):
        raise SystemExit("the backends' chains differ")

"""Speed of the Mallows Gibbs sampler (rankstats.models.Mallows).

Run: ``python tests/benchmarks/bench_mallows.py``

1. 20 items × 12 complete rankings (potato_visual): 10,000 full sweeps (every item of σ
   re-inserted, θ updated). Goal: < 5 s.
2. NASCAR-sized sub-rankings (87 items, 36 rankings of 43): 5,000 sweeps (latent completions,
   consensus, θ). Goal: < 60 s.
3. Measured scaling of the cost per sweep in n (complete data, L = 12) and in L (n = 20,
   half of each ranking unranked).
"""

import time

import numpy as np

import rankstats as rs
from rankstats.models._mallows_sampler import run_chain


def sweeps_per_second(ranks, n_sweeps, seed=0):
    start = time.perf_counter()
    run_chain(
        ranks,
        n_sweeps,
        0,
        lambda t: -0.1 * t,
        np.random.default_rng(seed),
        np.arange(ranks.shape[1]),
    )
    return (time.perf_counter() - start) / n_sweeps


potato = rs.load_rankings("potato_visual").ranks
per = sweeps_per_second(potato, 10_000)
print(f"potato_visual (20 items × 12 complete): 10,000 sweeps in {per * 1e4:.2f} s (goal < 5 s)")

nascar = rs.load_rankings("nascar").ranks
per = sweeps_per_second(nascar, 500)
print(
    f"NASCAR ({nascar.shape[1]} items, {nascar.shape[0]} rankings of "
    f"{int((~np.isnan(nascar)).sum(axis=1).max())}): 5,000 sweeps ≈ {per * 5000:.1f} s "
    f"(timed on 500; goal < 60 s)"
)

print("\ncost per sweep, complete rankings, L = 12:")
for n in (10, 20, 40, 80):
    rk = rs.simulate.mallows(n, 0.5, size=12, seed=1)
    print(f"  n = {n:3d}: {sweeps_per_second(rk.ranks, 1000) * 1e3:7.3f} ms")
print("cost per sweep, n = 20, half of each ranking unranked:")
rng = np.random.default_rng(2)
for n_rankings in (10, 20, 40, 80):
    ranks = rs.simulate.mallows(20, 0.5, size=n_rankings, seed=3).ranks.copy()
    ranks[rng.random(ranks.shape) < 0.5] = np.nan
    ranks = rs.Rankings.from_rank_matrix(__import__("pandas").DataFrame(ranks)).ranks
    print(f"  L = {n_rankings:3d}: {sweeps_per_second(ranks, 300) * 1e3:7.3f} ms")

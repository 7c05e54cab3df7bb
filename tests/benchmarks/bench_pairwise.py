"""Speed of the pairwise imputation and of the instance-level Borda pipeline.

Run: ``python tests/benchmarks/bench_pairwise.py [--instances 500000]``

1. Per ranking at n = 50 systems: the closed form ``P = m_j / (k + 1)`` (rankstats) against the
   counting formula of Himmi et al. (2023), implemented here faithfully as the reference: for an
   unobserved item u and an observed item at 0-based partial position p among k observed of n, the
   number of compatible permutations placing u before it is

       Σ_{i=0}^{n-k-1} V(i, n-k-1) · (i+1) · S(p, i+1) · (n-k-i-1)! · S(n-k-i-1, k-p-1),

   V(a, b) = b! / (b-a)!, S(a, b) = (a+b)! / (a! b!), over the total (n-k)! · S(k, n-k);
   O(n) per pair, O(n^3) per ranking, exact integer arithmetic (the reference used Decimal).
2. Instance level: 20 systems × 500,000 instances (10 million scores, 20 % missing) through
   ``pairwise`` + σ^l + σ^2l + Hoeffding; the validation of the input table is timed separately.
   Reports throughput (scores / s) and the peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import time
from math import comb, factorial

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.aggregation.aggregators import aggregate
from rankstats.core.rankings import Rankings


def _v(a: int, b: int) -> int:
    return factorial(b) // factorial(b - a)


def _s(a: int, b: int) -> int:
    return comb(a + b, a)


def paper_matrix(ranks: np.ndarray) -> np.ndarray:
    """P for one partial ranking by the paper's counting formula (ranks: 1 = best, NaN)."""
    n = len(ranks)
    observed = ~np.isnan(ranks)
    k = int(observed.sum())
    total = factorial(n - k) * _s(k, n - k)

    def before(p: int) -> int:
        return sum(
            _v(i, n - k - 1)
            * (i + 1)
            * _s(p, i + 1)
            * factorial(n - k - i - 1)
            * _s(n - k - i - 1, k - p - 1)
            for i in range(n - k)
        )

    p_mat = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            if observed[i] and observed[j]:
                p_mat[i, j] = float(ranks[i] < ranks[j]) + 0.5 * (ranks[i] == ranks[j])
            elif not observed[i] and not observed[j]:
                p_mat[i, j] = 0.5
            elif not observed[i]:
                p_mat[i, j] = before(int(ranks[j]) - 1) / total
            else:
                p_mat[i, j] = 1 - before(int(ranks[i]) - 1) / total
            p_mat[j, i] = 1 - p_mat[i, j]
    return p_mat


def bench_per_ranking(n: int = 50, n_rankings: int = 20, batch: int = 2000, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_rankings):
        k = int(rng.integers(n // 4, 3 * n // 4))
        row = np.full(n, np.nan)
        row[rng.choice(n, k, replace=False)] = rng.permutation(k) + 1.0
        rows.append(row)
    ranks = np.array(rows)
    systems = tuple(f"s{i}" for i in range(n))

    start = time.perf_counter()
    reference = [paper_matrix(r) for r in ranks]
    t_paper = (time.perf_counter() - start) / n_rankings

    repeats = 200
    start = time.perf_counter()
    for _ in range(repeats):
        for r in range(n_rankings):
            rs.pairwise(Rankings(ranks[r : r + 1], systems, pd.RangeIndex(1)))
    t_one = (time.perf_counter() - start) / (repeats * n_rankings)
    # Many rankings in one call: the way rankstats processes a benchmark.
    many = ranks[np.arange(batch) % n_rankings]
    rk = Rankings(many, systems, pd.RangeIndex(batch))
    start = time.perf_counter()
    for _ in range(5):
        rs.pairwise(rk)
    t_batch = (time.perf_counter() - start) / (5 * batch)

    pw = rs.pairwise(Rankings(ranks, systems, pd.RangeIndex(n_rankings)))
    expected = sum(reference)
    np.fill_diagonal(expected, 0.0)
    err = np.abs(pw.wins - expected).max()
    print(f"[per ranking, n = {n}, {n_rankings} partial rankings]")
    print(f"  paper counting formula  {t_paper * 1e3:10.3f} ms / ranking")
    print(
        f"  closed form, one call per ranking  {t_one * 1e6:8.1f} µs  "
        f"(ratio {t_paper / t_one:,.0f}×)"
    )
    print(
        f"  closed form, {batch} rankings per call {t_batch * 1e6:6.1f} µs  "
        f"(ratio {t_paper / t_batch:,.0f}×)"
    )
    print(f"  max |difference| between the two: {err:.2e}")


def make_scores(n_systems: int, n_instances: int, missing: float, n_tasks: int, seed: int):
    rng = np.random.default_rng(seed)
    n_rows = n_systems * n_instances
    instance = np.repeat(np.arange(n_instances), n_systems)
    system = np.tile(np.arange(n_systems), n_instances)
    score = rng.gumbel(loc=0.05 * system).astype(np.float64)
    keep = rng.random(n_rows) >= missing
    return pd.DataFrame(
        {
            "system": pd.Categorical.from_codes(
                system[keep], [f"sys{i:02d}" for i in range(n_systems)]
            ),
            "task": pd.Categorical.from_codes(
                (instance[keep] % n_tasks), [f"task{t}" for t in range(n_tasks)]
            ),
            "instance": instance[keep],
            "score": score[keep],
        }
    )


def bench_pipeline(n_systems: int, n_instances: int, missing: float, seed: int = 0) -> None:
    df = make_scores(n_systems, n_instances, missing, n_tasks=20, seed=seed)
    n_scores = n_systems * n_instances
    start = time.perf_counter()
    scores = rs.Scores.from_long(df, instance="instance")
    t_valid = time.perf_counter() - start

    start = time.perf_counter()
    rk = Rankings.from_scores(scores, by="instance")
    t_rank = time.perf_counter() - start
    start = time.perf_counter()
    pw = rs.pairwise(rk)
    sigma_l = aggregate(pw, method="borda")
    t_pair = time.perf_counter() - start
    start = time.perf_counter()
    sigma_2l = aggregate(rk, method="borda2")
    t_b2 = time.perf_counter() - start
    start = time.perf_counter()
    ci = rs.hoeffding(pw, delta=0.05, correction="holm", order=sigma_l.order)
    t_ci = time.perf_counter() - start
    total = t_rank + t_pair + t_b2 + t_ci
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\n[instance level: {n_systems} systems × {n_instances:,} instances = "
        f"{n_scores:,} cells, {missing:.0%} missing → {len(df):,} scores]"
    )
    print(f"  validation (Scores.from_long, reported separately) {t_valid:7.2f} s")
    print(f"  ranking per instance                                {t_rank:7.2f} s")
    print(f"  pairwise + σ^l                                      {t_pair:7.2f} s")
    print(f"  σ^2l                                                {t_b2:7.2f} s")
    print(f"  Hoeffding (Holm)                                    {t_ci:7.2f} s")
    print(
        f"  total after validation                              {total:7.2f} s "
        f"(goal < 10 s) → {len(df) / total / 1e6:.2f} M scores / s "
        f"({n_scores / total / 1e6:.2f} M cells / s)"
    )
    print(
        f"  peak resident memory {peak_mb:,.0f} MB (goal < 2048 MB); "
        f"{int(ci.significant.sum() // 2)} significant pairs; best: {sigma_l.order[0]}, "
        f"{sigma_2l.order[0]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=500_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--missing", type=float, default=0.2)
    args = parser.parse_args()
    bench_per_ranking()
    bench_pipeline(args.systems, args.instances, args.missing)


if __name__ == "__main__":
    main()

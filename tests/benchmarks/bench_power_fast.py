"""Power on sufficient statistics (issue 47, item 2): ``rs.power`` against a plain simulation.

Run: ``python tests/benchmarks/bench_power_fast.py``

For each test with a sufficient-statistic path (:mod:`rankstats.planning.sufficient`), 10,000
replications of ``rs.power`` (validation, the draws, the p-values, the power tables and the
recovery of the true order included) are timed against a plain vectorised NumPy simulation of
the same test written in a few lines (its statistic drawn directly, its p-value by SciPy, the
power as a mean: nothing else). The goal is a ratio of at most 2. Then the documented examples
of ``docs/user-guide/power.md`` that these paths serve, and the engine on the same designs for
the speed-up. Each timing is the best of 3 (after one warm-up call); the load (``uptime``) is
printed before and after: these are wall times on a shared machine.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

import numpy as np
from scipy import stats

import rankstats as rs
from rankstats.planning.design import BenchmarkDesign
from rankstats.planning.power_result import power_tables
from rankstats.planning.replications import simulate_tests

R = 10_000
ALPHA = 0.05


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def best(call: Callable[[], object], repeat: int = 3) -> float:
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def plain_mcnemar(design: BenchmarkDesign) -> float:
    p10, p01 = design.discordance("sys01", "sys02")
    rng = np.random.default_rng(0)
    table = rng.multinomial(design.n_instances, [p10, p01, 1 - p10 - p01], size=R)
    b, c = table[:, 0], table[:, 1]
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(b, c), b + c, 0.5))
    return float(np.mean((p < ALPHA) & (c > b)))


def plain_sign(design: BenchmarkDesign) -> float:
    win = design.win_probability("sys02", "sys01")
    rng = np.random.default_rng(0)
    wins = rng.binomial(design.n_instances, win, size=R)
    losses = design.n_instances - wins
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, losses), design.n_instances, 0.5))
    return float(np.mean((p < ALPHA) & (wins > losses)))


def plain_t(design: BenchmarkDesign) -> float:
    n, gap = design.n_instances, design.mu[1] - design.mu[0]
    sd = design.scale * np.sqrt(2 * (1 - design.correlation))
    rng = np.random.default_rng(0)
    mean = rng.normal(gap, sd / np.sqrt(n), size=R)
    s = sd * np.sqrt(rng.chisquare(n - 1, size=R) / (n - 1))
    p = 2 * stats.t.sf(np.abs(mean / (s / np.sqrt(n))), n - 1)
    return float(np.mean((p < ALPHA) & (mean > 0)))


def plain_friedman(design: BenchmarkDesign) -> float:
    """Friedman's test on Gumbel scores drawn in full (there is no shorter plain version)."""
    rng = np.random.default_rng(0)
    k, n = design.n_systems, design.n_instances
    reject = 0
    for lo in range(0, R, 1000):
        scores = design.mu + design.scale * rng.gumbel(size=(min(1000, R - lo), n, k))
        ranks = np.argsort(np.argsort(-scores, axis=2), axis=2) + 1.0
        sums = ranks.sum(axis=1)
        chi2 = 12 / (n * k * (k + 1)) * (sums**2).sum(axis=1) - 3 * n * (k + 1)
        reject += int(np.sum(stats.chi2.sf(chi2, k - 1) < ALPHA))
    return reject / R


def engine(design: BenchmarkDesign, test: str, replications: int) -> None:
    rep = simulate_tests(design, (test,), replications=replications, seed=0, progress=False)
    power_tables(rep, None)


CASES = [
    (
        "mcnemar",
        BenchmarkDesign.from_accuracies([0.80, 0.82], agreement=0.975, n_instances=500),
        plain_mcnemar,
    ),
    ("sign", BenchmarkDesign(n_systems=2, n_instances=100, phi=0.3), plain_sign),
    ("t", BenchmarkDesign(n_systems=2, n_instances=50, noise="normal", phi=0.3), plain_t),
    ("friedman", BenchmarkDesign(n_systems=5, n_instances=100, phi=0.1), plain_friedman),
]


def ratios() -> None:
    for test, design, plain in CASES:
        ours = best(lambda d=design, t=test: rs.power(d, tests=t, n_replications=R, progress=False))
        theirs = best(lambda d=design, f=plain: f(d))
        method = rs.power(design, tests=test, n_replications=10, progress=False).method
        print(
            f"{test:9s} ({method}): rs.power {1000 * ours:7.1f} ms, plain NumPy "
            f"{1000 * theirs:7.1f} ms, ratio {ours / theirs:5.2f}"
        )


def documented() -> None:
    card = BenchmarkDesign.from_accuracies([0.80, 0.82], agreement=0.975, n_instances=500)
    calls = {
        "McNemar, 10,000 replications (power.md)": lambda: rs.power(
            card, tests="mcnemar", n_replications=10_000, progress=False
        ),
        "sample_size, 5 systems, sign test, 1,000 replications (power.md)": lambda: rs.sample_size(
            n_systems=5, phi=0.2, test="sign", power=0.8, n_replications=1000, progress=False
        ),
        "sample_size, McNemar over the accuracy gap, 2,000 replications (power.md)": lambda: (
            rs.sample_size(
                card, test="mcnemar", vary="accuracy_gap", n_replications=2000, progress=False
            )
        ),
    }
    for label, call in calls.items():
        print(f"{label}: {best(call, repeat=1):.3f} s")
    for test, design, _ in CASES[:2]:
        slow = best(lambda d=design, t=test: engine(d, t, R), repeat=1)
        fast = best(lambda d=design, t=test: rs.power(d, tests=t, n_replications=R, progress=False))
        print(
            f"{test}: engine {slow:.2f} s, sufficient statistic {fast:.3f} s ({slow / fast:.0f}×)"
        )


if __name__ == "__main__":
    print(uptime())
    ratios()
    documented()
    print(uptime())

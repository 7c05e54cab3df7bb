"""Rough wall-time estimates of the Mallows fits from the data size, and the number of worker
processes their chains run in (:func:`chain_workers`); :func:`rankstats.models.timing.fit_estimate`
turns them into the line ``rankstats fit`` prints. Calibrated as the estimates there.

* Mallows Gibbs sweep, in ms: ``0.15 + 0.14 n²/10³ + 0.08 m + 0.26 m L n/10⁴`` with ``L``
  rankings, ``n`` systems and ``m`` the most latent items (unranked or tied) in one ranking
  (measured: potato_visual 0.30 ms, superglue 1.6, nascar 10.6, glue 11.6, simulated 200 × 50
  with 30 % missing 9.0); the chains run one after the other, or in parallel processes when
  that is expected to take 20 s or more (:func:`chain_workers`).  With the numba kernels
  (``backend="numba"``, or ``"auto"`` when numba is installed) a sweep costs about
  1 / :data:`NUMBA_SPEEDUP` of that (measured 7–12× on potato_visual and nascar).
* Metropolis–Hastings (any distance): :data:`METROPOLIS_MS`.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

from rankstats.models.mallows._gibbs import EXTEND_FACTOR, latent_structure

__all__ = [
    "CAN_FORK",
    "EXTEND_FACTOR",
    "METROPOLIS_NUMBA_SPEEDUP",
    "METROPOLIS_THIN",
    "NUMBA_SPEEDUP",
    "PARALLEL_FROM",
    "chain_workers",
    "mallows_seconds",
    "metropolis_iteration_ms",
]

MALLOWS_MS = (0.15, 0.14, 0.08, 0.26)
#: Speed-up of the numba Mallows kernels over the NumPy path (measured 7–12×; the low end).
NUMBA_SPEEDUP = 7.0


def mallows_sweep_ms(n_rankings: int, n_systems: int, n_latent: int) -> float:
    """Estimated milliseconds per Gibbs sweep (see the module docstring)."""
    a, b, c, d = MALLOWS_MS
    L, n, m = n_rankings, n_systems, n_latent
    return a + b * n * n / 1e3 + c * m + d * m * L * n / 1e4


#: Metropolis–Hastings (any distance), ms per iteration: ``a + b N n``, plus ``c + d N n²``
#: when ranks are augmented (partial rankings, ties, preferences); ``N`` rankings or assessors,
#: ``n`` systems. Measured: potato_visual 0.07, sushi 0.19, beach preferences 0.13.
METROPOLIS_MS = (0.065, 2.4e-6, 0.06, 1e-6)
#: How many times faster the numba kernels run a Metropolis–Hastings iteration, at least
#: (tests/benchmarks/bench_mallows_distances.py: 200–9,000 × on potato, sushi and 1,000 × 20
#: with half the ranks latent; the estimate stays on the pessimistic side).
METROPOLIS_NUMBA_SPEEDUP = 100.0
#: The fit's default thinning (:data:`rankstats.models.mallows.metropolis_fit.THIN`).
METROPOLIS_THIN = 10


def metropolis_iteration_ms(data) -> float:
    """Estimated ms per Metropolis–Hastings iteration on ``data`` (Rankings or
    AssessorPreferences)."""
    a, b, c, d = METROPOLIS_MS
    ranks = getattr(data, "ranks", None)
    if ranks is None:  # preferences: every rank is latent
        size, n = data.above.shape[:2]
        augmented = True
    else:
        size, n = ranks.shape
        augmented = bool(np.isnan(ranks).any()) or _any_ties(ranks)
    return a + b * size * n + ((c + d * size * n * n) if augmented else 0.0)


def _any_ties(ranks: np.ndarray) -> bool:
    ordered = np.sort(ranks, axis=1)
    return bool((np.diff(ordered, axis=1) == 0).any())


def mallows_seconds(
    ranks: np.ndarray, sweeps_per_chain: int, chains: int, workers: int = 1, fast: bool = False
) -> float:
    """Estimated seconds of ``chains`` chains of ``sweeps_per_chain`` sweeps on ``ranks``, run
    in ``workers`` processes (``fast``: with the numba kernels)."""
    L, n = ranks.shape
    m = latent_structure(ranks).shape[1]
    rounds = math.ceil(chains / max(workers, 1))
    ms = mallows_sweep_ms(L, n, m) / (NUMBA_SPEEDUP if fast else 1.0)
    return rounds * sweeps_per_chain * ms / 1e3


#: Chains run in parallel processes when the first block is expected to take this long (s).
PARALLEL_FROM = 20.0

#: Worker processes are forked (Linux): a spawned or forkserver worker re-runs the user's main
#: script, which breaks every script without ``if __name__ == "__main__":``. Elsewhere the
#: chains run one after the other.
CAN_FORK = sys.platform.startswith("linux")


def chain_workers(ranks: np.ndarray, sweeps: int, chains: int, n_jobs: int | None = None) -> int:
    """Processes the chains of a fit run in: ``min(chains, n_jobs)`` (default: every CPU) when
    forking is available and the chains are expected to take ``PARALLEL_FROM`` seconds or more
    one after the other (:func:`mallows_seconds`), else 1.

    The estimate is that of the NumPy backend whichever backend runs: the numba kernels are about
    ten times faster, but a fit that is long in NumPy is usually extended (slow mixing) and gains
    from the processes all the same, and ``rankstats fit`` announces the same number of processes
    (:func:`rankstats.models.timing.fit_estimate` calls this function)."""
    workers = min(chains, n_jobs or os.cpu_count() or 1)
    if workers < 2 or not CAN_FORK:
        return 1
    return workers if mallows_seconds(ranks, sweeps, chains) >= PARALLEL_FROM else 1

"""Rough wall-time estimates of the model fits from the data size (``rankstats fit`` prints one
before a fit that takes more than a few seconds).

The formulas are calibrated on the bundled data (salad, superglue, nascar, glue and simulated
Mallows rankings up to 200 × 150) on a 2-core machine; they are approximate (a factor of two
either way: NUTS tree depths depend on the posterior, not only on the data size).

* Mallows Gibbs sweep, in ms: ``0.15 + 0.14 n²/10³ + 0.08 m + 0.26 m L n/10⁴`` with ``L``
  rankings, ``n`` systems and ``m`` the most latent items (unranked or tied) in one ranking
  (measured: potato_visual 0.30 ms, superglue 1.6, nascar 10.6, glue 11.6, simulated 200 × 50
  with 30 % missing 9.0); the chains run one after the other, or in parallel processes when
  that is expected to take 20 s or more (:func:`chain_workers`).  With the numba kernels
  (``backend="numba"``, or ``"auto"`` when numba is installed) a sweep costs about
  1 / :data:`NUMBA_SPEEDUP` of that (measured 7–12× on potato_visual and nascar).
* NUTS (PyMC): about 5 s to import PyMC and compile the model, then
  ``a + b · size · √n`` ms per iteration and chain (:data:`NUTS_MS`; ``size``: cells of the
  Plackett–Luce graph — distinct choice sets × systems, or the padded choice table when the
  sets are too many, as ``plackett_luce.pymc_model`` decides — or Bradley–Terry pairs), chains
  in parallel on the cores.
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np

from rankstats.core.bradley_terry_mle import Pairs
from rankstats.models._data import SETS_PER_RANKING_ENTRY, PLData, as_rankings, choice_sets, pl_data
from rankstats.models._mallows_sampler import EXTEND_FACTOR, latent_structure
from rankstats.models.pair_counts import comparison_counts

MALLOWS_MS = (0.15, 0.14, 0.08, 0.26)
#: Speed-up of the numba Mallows kernels over the NumPy path (measured 7–12×; the low end).
NUMBA_SPEEDUP = 7.0
NUTS_STARTUP_S = 5.0
#: ms per NUTS iteration and chain: ``a + b · size · √n``, per model.  Bradley–Terry: calibrated
#: on salad, superglue and glue; Plackett–Luce: on the collapsed graph (sushi 5.5 s, NASCAR 7.8 s
#: for 2 chains × 2,000 iterations at load 0.6–1.0, tests/benchmarks/bench_models.py).
NUTS_MS = {"bt": (0.5, 1e-3), "pl": (0.3, 1e-4)}


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
#: The fit's default thinning (:data:`rankstats.models.mallows_metropolis_fit.THIN`).
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


def numba_kernels(backend: str) -> bool:
    """Whether a Mallows fit with ``backend`` will run the numba kernels (without importing
    numba: ``"auto"`` uses them when numba is installed)."""
    import importlib.util

    return backend == "numba" or (
        backend == "auto" and importlib.util.find_spec("numba") is not None
    )


def nuts_seconds(
    size: int,
    n_systems: int,
    iterations: int,
    chains: int,
    cores: int | None = None,
    model: str = "bt",
):
    """Estimated seconds of a PyMC NUTS fit (start-up and compilation included)."""
    cores = cores or min(chains, os.cpu_count() or 1)
    a, b = NUTS_MS[model]
    per_iteration = (a + b * size * math.sqrt(n_systems)) / 1e3
    return NUTS_STARTUP_S + math.ceil(chains / cores) * iterations * per_iteration


def nuts_size(model: str, prepared: PLData | Pairs) -> tuple[int, str]:
    """``(size, unit)`` of the graph a NUTS fit evaluates (the ``size`` of :func:`nuts_seconds`).

    Plackett–Luce: the graph ``plackett_luce.pymc_model`` builds (layout ``"auto"``), the
    distinct choice sets × systems when they are few enough, else the padded choice cells;
    Bradley–Terry: the compared pairs.
    """
    if model != "pl":
        return len(prepared.item1), "compared pairs"
    size = int(np.prod(prepared.index.shape))
    sets = choice_sets(prepared, max_entries=SETS_PER_RANKING_ENTRY * size)
    if sets is None:
        return size, "choice cells"
    return int(sets.weights.size), "cells of the distinct choice sets"


#: Chains run in parallel processes when the first block is expected to take this long (s).
PARALLEL_FROM = 20.0

#: Worker processes are forked (Linux): a spawned or forkserver worker re-runs the user's main
#: script, which breaks every script without ``if __name__ == "__main__":``. Elsewhere the
#: chains run one after the other.
CAN_FORK = sys.platform.startswith("linux")


def chain_workers(ranks: np.ndarray, sweeps: int, chains: int, cores: int | None = None) -> int:
    """Processes the chains of a fit run in: ``min(chains, cores)`` (default: every CPU) when
    forking is available and the chains are expected to take ``PARALLEL_FROM`` seconds or more
    one after the other (:func:`mallows_seconds`), else 1.

    The estimate is that of the NumPy backend whichever backend runs: the numba kernels are about
    ten times faster, but a fit that is long in NumPy is usually extended (slow mixing) and gains
    from the processes all the same, and ``rankstats fit`` announces the same number of processes
    (:func:`fit_estimate` calls this function)."""
    workers = min(chains, cores or os.cpu_count() or 1)
    if workers < 2 or not CAN_FORK:
        return 1
    return workers if mallows_seconds(ranks, sweeps, chains) >= PARALLEL_FROM else 1


def describe(seconds: float) -> str:
    """``about 40 s`` / ``about 3 min``."""
    if seconds < 90:
        return f"about {max(1, round(seconds, -1 if seconds >= 20 else 0)):.0f} s"
    return f"about {seconds / 60:.0f} min"


#: A fit expected to take at least this many seconds is announced before it starts.
ANNOUNCE_FROM = 5.0


def fit_estimate(
    model: str,
    data,
    method: str,
    draws: int,
    tune: int,
    chains: int,
    max_draws: int | None = None,
    kind: str | None = None,
    backend: str = "auto",
    distance: str = "kendall",
    thin: int | None = None,
) -> str | None:
    """The line announcing a fit of ``model`` on ``data`` (prepared rankings or pair counts), or
    None when it should take less than :data:`ANNOUNCE_FROM` seconds (optimum fits always).

    Used by ``rankstats fit`` and ``rankstats report --models``, so both say the same thing.
    """
    if method in ("mle", "map", "pql"):
        return None
    iterations = draws + tune
    if model == "mallows" and (distance != "kendall" or kind == "top_k"):
        thin = METROPOLIS_THIN if thin is None else thin
        fast = numba_kernels(backend)
        ms = metropolis_iteration_ms(data) / (METROPOLIS_NUMBA_SPEEDUP if fast else 1.0)
        steps = tune + thin * draws
        workers = min(chains, os.cpu_count() or 1) if CAN_FORK else 1
        rounds = math.ceil(chains / workers)
        one_after_other = ms * chains * steps / 1e3
        seconds = ms * rounds * steps / 1e3 if one_after_other >= 10.0 else one_after_other
        what = (
            f"{len(data.systems)} systems, {chains} chain(s) × {steps} Metropolis–Hastings "
            "iterations" + (", numba kernels" if fast else ", NumPy kernels")
        )
        cap = max_draws or EXTEND_FACTOR * draws
        longest = ms * rounds * (tune + thin * cap) / 1e3
        more = (
            f"; up to {describe(longest)} if the chains are extended to {cap} draws"
            if cap > draws
            else ""
        )
    elif model == "mallows":
        # The number of processes follows the NumPy estimate (as chain_workers does).
        workers = chain_workers(data.ranks, iterations, chains)
        fast = numba_kernels(backend)
        seconds = mallows_seconds(data.ranks, iterations, chains, workers, fast)
        what = (
            f"{data.n_rankings} rankings × {data.n_systems} systems, {chains} chain(s) × "
            f"{iterations} sweeps"
            + (f" in {workers} processes" if workers > 1 else ", one chain after the other")
            + (", numba kernels" if fast else ", NumPy kernels")
        )
        cap = max_draws or EXTEND_FACTOR * draws
        longest = mallows_seconds(data.ranks, tune + cap, chains, workers, fast)
        more = (
            f"; up to {describe(longest)} if the chains are extended to {cap} draws"
            if cap > draws
            else ""
        )
    else:
        kind = kind or "subset"
        # The data the fit prepares (PlackettLuce._prepare, BradleyTerry.counts).
        if model == "pl":
            prepared = data if isinstance(data, PLData) else pl_data(as_rankings(data), kind=kind)
        else:
            prepared = comparison_counts(data, kind=kind)
        size, unit = nuts_size(model, prepared)
        n = len(prepared.systems)
        seconds = nuts_seconds(size, n, iterations, chains, model=model)
        what = (
            f"{size} {unit} of {n} systems, {chains} chain(s) × {iterations} iterations, "
            "PyMC start-up and compilation included"
        )
        more = ""
    if seconds < ANNOUNCE_FROM:
        return None
    return f"expected time: {describe(seconds)} (estimate from {what}; approximate{more})"

"""Rough wall-time estimates of the model fits from the data size (``rankstats fit`` prints one
before a fit that takes more than a few seconds).

The formulas are calibrated on the bundled data (salad, superglue, nascar, glue and simulated
Mallows rankings up to 200 × 150) on a 2-core machine; they are approximate (a factor of two
either way: NUTS tree depths depend on the posterior, not only on the data size).

* Mallows (Gibbs and Metropolis–Hastings): :mod:`rankstats.models.mallows.timing`, which also
  decides the worker processes of their chains.
* NUTS (PyMC): about 5 s to import PyMC and compile the model, then
  ``a + b · size · √n`` ms per iteration and chain (:data:`NUTS_MS`; ``size``: cells of the
  Plackett–Luce graph — distinct choice sets × systems, or the padded choice table when the
  sets are too many, as ``plackett_luce.pymc_model`` decides — or Bradley–Terry pairs), chains
  in parallel on the cores.
"""

from __future__ import annotations

import math
import os

import numpy as np

from rankstats.core.bradley_terry_mle import Pairs
from rankstats.models._data import SETS_PER_RANKING_ENTRY, PLData, as_rankings, choice_sets, pl_data
from rankstats.models.mallows.timing import (
    CAN_FORK,
    EXTEND_FACTOR,
    METROPOLIS_NUMBA_SPEEDUP,
    METROPOLIS_THIN,
    chain_workers,
    mallows_seconds,
    metropolis_iteration_ms,
)
from rankstats.models.pair_counts import comparison_counts

NUTS_STARTUP_S = 5.0
#: ms per NUTS iteration and chain: ``a + b · size · √n``, per model.  Bradley–Terry: calibrated
#: on salad, superglue and glue; Plackett–Luce: on the collapsed graph (sushi 5.5 s, NASCAR 7.8 s
#: for 2 chains × 2,000 iterations at load 0.6–1.0, tests/benchmarks/bench_models.py).
NUTS_MS = {"bt": (0.5, 1e-3), "pl": (0.3, 1e-4)}


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
    n_jobs: int | None = None,
    model: str = "bt",
):
    """Estimated seconds of a PyMC NUTS fit (start-up and compilation included)."""
    n_jobs = n_jobs or min(chains, os.cpu_count() or 1)
    a, b = NUTS_MS[model]
    per_iteration = (a + b * size * math.sqrt(n_systems)) / 1e3
    return NUTS_STARTUP_S + math.ceil(chains / n_jobs) * iterations * per_iteration


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

"""Rough wall-time estimates of the model fits from the data size (``rankstats fit`` prints one
before a fit that takes more than a few seconds).

The formulas are calibrated on the bundled data (salad, superglue, nascar, glue and simulated
Mallows rankings up to 200 × 150) on a 2-core machine; they are approximate (a factor of two
either way: NUTS tree depths depend on the posterior, not only on the data size).

* Mallows Gibbs sweep, in ms: ``0.15 + 0.14 n²/10³ + 0.08 m + 0.26 m L n/10⁴`` with ``L``
  rankings, ``n`` systems and ``m`` the most latent items (unranked or tied) in one ranking
  (measured: potato_visual 0.30 ms, superglue 1.6, nascar 10.6, glue 11.6, simulated 200 × 50
  with 30 % missing 9.0); the chains run one after the other, or in parallel processes when
  that is expected to take 20 s or more (``mallows.chain_workers``).  With the numba kernels
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

import numpy as np

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


def mallows_seconds(
    ranks: np.ndarray, sweeps_per_chain: int, chains: int, workers: int = 1, fast: bool = False
) -> float:
    """Estimated seconds of ``chains`` chains of ``sweeps_per_chain`` sweeps on ``ranks``, run
    in ``workers`` processes (``fast``: with the numba kernels)."""
    from rankstats.models._mallows_sampler import latent_structure

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
) -> str | None:
    """The line announcing a fit of ``model`` on ``data`` (prepared rankings or pair counts), or
    None when it should take less than :data:`ANNOUNCE_FROM` seconds (optimum fits always).

    Used by ``rankstats fit`` and ``rankstats report --models``, so both say the same thing.
    """
    if method in ("mle", "map"):
        return None
    iterations = draws + tune
    if model == "mallows":
        from rankstats.models import mallows

        # The number of processes follows the NumPy estimate (as mallows.chain_workers does).
        workers = mallows.chain_workers(data.ranks, iterations, chains)
        fast = numba_kernels(backend)
        seconds = mallows_seconds(data.ranks, iterations, chains, workers, fast)
        what = (
            f"{data.n_rankings} rankings × {data.n_systems} systems, {chains} chain(s) × "
            f"{iterations} sweeps"
            + (f" in {workers} processes" if workers > 1 else ", one chain after the other")
            + (", numba kernels" if fast else ", NumPy kernels")
        )
        cap = max_draws or mallows.EXTEND_FACTOR * draws
        longest = mallows_seconds(data.ranks, tune + cap, chains, workers, fast)
        more = (
            f"; up to {describe(longest)} if the chains are extended to --max-draws {cap}"
            if cap > draws
            else ""
        )
    else:
        from rankstats.models import BradleyTerry, PlackettLuce

        options = {} if kind is None else {"kind": kind}
        if model == "pl":
            from rankstats.models._data import choice_sets
            from rankstats.models.plackett_luce import SETS_PER_RANKING_ENTRY

            prepared = PlackettLuce(**options)._prepare(data)
            size = int(np.prod(prepared.index.shape))
            unit = "choice cells"
            # The graph the fit builds (plackett_luce.pymc_model, layout "auto"): the distinct
            # choice sets × systems when they are few enough, else the padded choice cells.
            sets = choice_sets(prepared, max_entries=SETS_PER_RANKING_ENTRY * size)
            if sets is not None:
                size, unit = int(sets.weights.size), "cells of the distinct choice sets"
        else:
            prepared = BradleyTerry(**options)._prepare(data)
            size = len(prepared.item1)
            unit = "compared pairs"
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

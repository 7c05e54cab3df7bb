r"""The exact Gibbs fit of the Bayesian Mallows model with Kendall distance (the sampler is
:mod:`rankstats.models.mallows._gibbs`): chains, their extension until they converge, ArviZ
output and the Kemeny consensus of the draws.

.. math:: P(\pi \mid \sigma, \theta) = \frac{e^{-\theta\, d(\pi, \sigma)}}{Z_n(\theta)},

σ uniform a priori, θ ~ Gamma(shape, rate) or BayesMallows' α = nθ ~ Exponential(0.001)
(:class:`~rankstats.models.Mallows`).  Chains start at the Borda order; every kept draw is a
sweep (no thinning: a sweep moves every item).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import warn_convergence
from rankstats._util.progress import meter
from rankstats.core.rankings import Rankings
from rankstats.models.mallows._chains import (
    fork_pool,
    kemeny_consensus,
    parallel_block,
    sample_until_converged,
)
from rankstats.models.mallows._gibbs import (
    BACKENDS,
    EXTEND_FACTOR,
    Chain,
    LogPrior,
    advance,
    resolve_backend,
)
from rankstats.models.mallows.fit import MallowsFit, persisted_attributes
from rankstats.models.mallows.timing import chain_workers


def fit_gibbs(
    rk: Rankings,
    log_prior: LogPrior,
    prior: dict[str, object],
    *,
    draws: int,
    tune: int,
    chains: int,
    seed: int | None,
    progress: bool,
    max_draws: int | None,
    n_jobs: int | None,
    on_extend: Callable[[int, int, list[str]], None] | None,
    backend: str,
) -> MallowsFit:
    """Fit by the exact Gibbs sampler (arguments as :meth:`rankstats.models.Mallows.fit`;
    ``rk`` validated by the caller; ``prior``: the attributes ``prior``, ``shape``, ``rate``
    the fit records)."""
    max_draws, backend = _checked(draws, max_draws, backend)
    n = rk.n_systems
    samplers = _chains(rk, log_prior, seed, chains, backend)
    thetas: list[list[np.ndarray]] = [[] for _ in range(chains)]
    positions: list[list[np.ndarray]] = [[] for _ in range(chains)]
    workers = chain_workers(rk.ranks, tune + draws, chains, n_jobs)
    parallel = workers > 1
    pool = None

    def store(c: int, draws: tuple[np.ndarray, np.ndarray]) -> None:
        thetas[c].append(draws[0])
        positions[c].append(draws[1])

    def block(n_tune: int, n_keep: int, label: str) -> None:
        nonlocal pool
        if parallel:
            if pool is None:
                pool = fork_pool(workers)
            return parallel_block(pool, samplers, store, advance, n_tune, n_keep, label, progress)
        with meter(label, total=chains * (n_tune + n_keep), unit="sweeps", enabled=progress) as bar:
            for c, chain in enumerate(samplers):
                try:
                    chain.run(n_tune, keep=False, callback=lambda _: bar.advance())
                    t, p = chain.run(n_keep, callback=lambda _: bar.advance())
                except KeyboardInterrupt as err:
                    if len(err.args) == 3:
                        thetas[c].append(err.args[1])
                        positions[c].append(err.args[2])
                    raise
                thetas[c].append(t)
                positions[c].append(p)

    try:
        theta, pos, problems, extensions, interrupted = sample_until_converged(
            block,
            lambda: _stacked(thetas, positions, n),
            tune=tune,
            draws=draws,
            max_draws=max_draws,
            chains=chains,
            on_extend=on_extend,
            label="Mallows Gibbs sampler",
            name="theta",
        )
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    run = {
        "draws": draws,
        "tune": tune,
        "seed": seed,
        "max_draws": max_draws,
        "extensions": extensions,
        "interrupted": interrupted,
        "workers": workers if parallel else 1,
        "backend": backend,
    }
    return _result(rk, prior, theta, pos, problems, run)


def _checked(draws: int, max_draws: int | None, backend: str) -> tuple[int, str]:
    """The extension cap (default ``EXTEND_FACTOR × draws``, at least ``draws``) and the
    backend that runs: numba compiles (or loads) its kernels here, before the chains start and
    the workers fork, and only when a Mallows chain is sampled."""
    max_draws = EXTEND_FACTOR * draws if max_draws is None else max_draws
    if max_draws < draws:
        raise ValueError(f"max_draws ({max_draws}) must be ≥ draws ({draws})")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    return max_draws, resolve_backend(backend)


def _chains(
    rk: Rankings, log_prior: LogPrior, seed: int | None, chains: int, backend: str
) -> list[Chain]:
    """The chains, all from the Borda order, seeded by ``SeedSequence(seed).spawn(chains)``."""
    from rankstats.aggregation.aggregators import aggregate

    start = np.array([rk.systems.index(s) for s in aggregate(rk, method="borda").order])
    return [
        Chain(rk.ranks, log_prior, np.random.default_rng(seq), start, backend=backend)
        for seq in np.random.SeedSequence(seed).spawn(chains)
    ]


def _stacked(thetas: list, positions: list, n: int) -> tuple[list, list]:
    """The draws so far, chain by chain: θ ``(draws,)`` and the positions ``(draws, n)``."""
    theta_c = [np.concatenate(t) if t else np.empty(0) for t in thetas]
    pos_c = [np.concatenate(p) if p else np.empty((0, n)) for p in positions]
    return theta_c, pos_c


def _result(
    rk: Rankings,
    prior: dict[str, object],
    theta: np.ndarray,
    pos: np.ndarray,
    problems: list[str],
    run: dict[str, object],
) -> MallowsFit:
    """The :class:`MallowsFit` of the draws ``theta`` ``(chains, draws)`` and ``pos``
    ``(chains, draws, n)``; the convergence warning when ``problems``."""
    n = rk.n_systems
    draws, tune, seed = run["draws"], run["tune"], run["seed"]
    max_draws, extensions, interrupted = run["max_draws"], run["extensions"], run["interrupted"]
    kept = theta.shape[1]
    cap_reached = bool(problems) and kept >= max_draws and not interrupted
    idata = _compat.from_dict(
        {"theta": theta, "position": pos},
        coords={"system": list(rk.systems)},
        dims={"position": ["system"]},
        attrs={
            "rankstats_model": "mallows",
            "rankstats_method": "mcmc",
            **prior,
            "draws": kept,
            "tune": tune,
            "chains": theta.shape[0],
            "seed": str(seed),
            "max_draws": max_draws,
            "extensions": extensions,
        },
    )
    warn_convergence(
        problems,
        hint=(
            "the chains were extended to {cap} sweeps and still fail the check: raise "
            "{max_draws} or {tune}; "
            if cap_reached
            else "run longer chains ({draws}, {tune}, {max_draws}) or more chains; "
        )
        + "items whose consensus positions swap freely (weak data) mix slowly",
        cap=("max_draws", max_draws),
    )
    # The marginal likelihood of each observed ranking per draw (log_likelihood group).
    from rankstats.models import pointwise_likelihood as pointwise

    pointwise.add_to_mallows_fit(rk, idata)
    flat_pos = pos.reshape(-1, n)
    consensus = kemeny_consensus(flat_pos, rk.systems)
    _compat.set_attrs(
        idata,
        {
            **persisted_attributes(float(theta.mean()), consensus, rk.n_rankings, problems),
            # The posterior mean positions of all draws: a stored fit thinned by
            # ``models.save(keep=...)`` reads back with the same worth.
            "point_position": flat_pos.mean(axis=0),
        },
    )
    return MallowsFit(
        model="mallows",
        method="mcmc",
        systems=rk.systems,
        idata=idata,
        worth=pd.Series(flat_pos.mean(axis=0), index=list(rk.systems), name="position"),
        parameters={"theta": float(theta.mean())},
        info={
            "n_rankings": rk.n_rankings,
            "prior": prior["prior"],
            "consensus": consensus,
            "convergence_problems": problems,
            "interrupted": interrupted,
            "draws": kept,
            "tune": tune,
            "chains": theta.shape[0],
            "first_draws": draws,
            "max_draws": max_draws,
            "extensions": extensions,
            "cap_reached": cap_reached,
            "workers": run["workers"],
            "backend": run["backend"],
            "distance": "kendall",
            "kind": "subset",
            "sampler": "gibbs",
        },
    )

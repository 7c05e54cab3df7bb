r"""Fit of the Bayesian Mallows model with any distance by Metropolis–Hastings, in BayesMallows'
parametrisation (Vitelli et al. 2018): chains, their extension until they converge, ArviZ
output and the consensus.

.. math:: P(r \mid \rho, \alpha) = \frac{e^{-\alpha\, d(r, \rho) / n}}{Z_n(\alpha)},
          \qquad \alpha = n\,\theta,

ρ uniform over the permutations, α ~ Gamma(shape, rate) (BayesMallows: Exponential(0.001)).
The chain itself is :class:`rankstats.models.mallows._metropolis.MetropolisChain`; this module
runs several of them (in worker processes when that pays), extends them block by block until
R-hat ≤ 1.01 and bulk ESS ≥ 400 (the rules of every rankstats fit), and builds the
:class:`~rankstats.models.MallowsFit`.

The consensus reported (``fit.order``) is the Bayes estimate under the model's own distance —
the ranking that minimises the posterior expected distance to ρ: an assignment problem for the
footrule, Spearman and Hamming distances (:func:`scipy.optimize.linear_sum_assignment` on the
expected cost of each item at each rank, exact), the Kemeny consensus for Kendall, and for
Cayley and Ulam (no such structure) the best of the :data:`CANDIDATES` most frequent draws.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import warn_convergence
from rankstats.core.permutations.distances import ITEMWISE, central_ranking, rank_distance
from rankstats.core.permutations.partition import partition_function
from rankstats.core.preferences import AssessorPreferences
from rankstats.core.rankings import Rankings
from rankstats.models.mallows._chains import (
    check_thin_leap,
    extension_cap,
    kemeny_consensus,
    sample_until_converged,
    start_runner,
)
from rankstats.models.mallows._metropolis import MetropolisChain
from rankstats.models.mallows.fit import MallowsFit, persisted_attributes

#: Default kept draws per chain, the iterations between two kept draws, and the discarded
#: iterations at the start of every chain (BayesMallows leaves burn-in and thinning to the user).
DRAWS = 1000
THIN = 10
TUNE = 5000
#: Cap of the automatic extension: ``max_draws = EXTEND_FACTOR × draws``.
EXTEND_FACTOR = 20
#: Cayley and Ulam: the consensus is the best of this many most frequent draws.
CANDIDATES = 200


def advance(chain: MetropolisChain, iterations: int, keep: bool, thin: int):
    """Run ``chain`` ``iterations`` more iterations (in a worker process); the chain and the
    draws of every ``thin``-th (none when ``keep`` is False): α — with the Bernoulli error
    model, α and the error probability side by side, ``(draws, 2)`` — and ρ."""
    if not keep:  # tuning: α's proposal scale adapts, nothing is kept
        draws = chain.run(iterations, thin=iterations + chain.iterations + 1, adapt=True)
    else:
        draws = chain.run(iterations, thin=thin)
    if draws.error is not None:
        return chain, np.stack([draws.alpha, draws.error], axis=1), draws.rho
    return chain, draws.alpha, draws.rho


class _Advance:
    """:func:`advance` with ``thin`` bound, picklable for the worker processes."""

    def __init__(self, thin: int) -> None:
        self.thin = thin

    def __call__(self, chain: MetropolisChain, iterations: int, keep: bool):
        chain, *draws = advance(chain, iterations, keep, self.thin)
        return chain, tuple(draws)


def bayes_consensus(rho: np.ndarray, systems: tuple, distance: str) -> list[str]:
    """The ranking of ``systems`` that minimises the mean ``distance`` to the draws ``rho``
    ``(S, n)`` (rank vectors, 1 = best); see the module docstring for how."""
    if distance == "kendall":
        return kemeny_consensus(rho - 1, systems)
    if distance in ITEMWISE:
        best = central_ranking(rho, distance)
    else:
        unique, counts = np.unique(rho, axis=0, return_counts=True)
        top = np.argsort(-counts, kind="stable")[:CANDIDATES]
        mean = [
            float(np.dot(counts, rank_distance(unique, unique[c], distance))) / len(rho)
            for c in top
        ]
        best = unique[top[int(np.argmin(mean))]]
    return [systems[i] for i in np.argsort(best)]


def fit_metropolis(
    data: Rankings | AssessorPreferences,
    distance: str,
    *,
    kind: str,
    alpha_shape: float,
    alpha_rate: float,
    prior: dict[str, object],
    draws: int = DRAWS,
    tune: int = TUNE,
    thin: int = THIN,
    chains: int = 4,
    seed: int | None = 0,
    progress: bool = True,
    max_draws: int | None = None,
    n_jobs: int | None = None,
    on_extend: Callable[[int, int, list[str]], None] | None = None,
    leap: int = 1,
    rho_proposal: str = "leap_and_shift",
    alpha_sd: float = 0.1,
    backend: str = "auto",
    error_model: str | None = None,
    kappa: tuple[float, float] = (1.0, 1.0),
) -> MallowsFit:
    """Fit by Metropolis–Hastings (arguments as :meth:`rankstats.models.Mallows.fit`); the data
    are validated by the caller."""
    systems = tuple(data.systems)
    n = len(systems)
    check_thin_leap(thin, leap, n)
    observed = data if isinstance(data, AssessorPreferences) else data.ranks
    pf = partition_function(n, distance)
    max_draws = extension_cap(draws, max_draws, EXTEND_FACTOR)
    samplers = _chains(
        observed,
        distance,
        n,
        chains,
        seed,
        dict(
            kind=kind,
            leap=leap,
            rho_proposal=rho_proposal,
            alpha_sd=alpha_sd,
            alpha_shape=alpha_shape,
            alpha_rate=alpha_rate,
            partition=pf,
            backend=backend,
            error_model=error_model,
            kappa=kappa,
        ),
    )
    alphas: list[list[np.ndarray]] = [[] for _ in range(chains)]
    rhos: list[list[np.ndarray]] = [[] for _ in range(chains)]

    def store(c: int, out: tuple[np.ndarray, np.ndarray]) -> None:
        alphas[c].append(out[0])
        rhos[c].append(out[1])

    label = f"Mallows ({distance}) Metropolis–Hastings"
    runner, pilot = start_runner(
        samplers,
        _Advance(thin),
        store,
        tune=tune,
        thin=thin,
        n_jobs=n_jobs,
        label=label,
        progress=progress,
    )

    def stacked() -> tuple[list[np.ndarray], list[np.ndarray]]:
        empty = np.empty((0, 2)) if error_model else np.empty(0)
        a = [np.concatenate(x) if x else empty for x in alphas]
        r = [np.concatenate(x) if x else np.empty((0, n), dtype=np.int64) for x in rhos]
        return a, r

    try:
        alpha, rho, problems, extensions, interrupted = sample_until_converged(
            runner,
            stacked,
            tune=tune - pilot,
            draws=draws,
            max_draws=max_draws,
            chains=chains,
            on_extend=on_extend,
            label=label,
            name="alpha, error_probability" if error_model else "alpha",
        )
    finally:
        runner.close()
    error = None
    if error_model:
        alpha, error = alpha[:, :, 0], alpha[:, :, 1]
    return _result(
        data,
        systems,
        distance,
        kind,
        prior,
        alpha,
        rho,
        problems,
        samplers,
        dict(
            draws=draws,
            tune=tune,
            thin=thin,
            seed=seed,
            max_draws=max_draws,
            extensions=extensions,
            interrupted=interrupted,
            workers=runner.workers if runner.parallel else 1,
            leap=leap,
            rho_proposal=rho_proposal,
            alpha_sd=alpha_sd,
            partition=pf.method,
            error=error,
            error_model=error_model,
            kappa=kappa,
        ),
    )


def _chains(
    observed, distance: str, n: int, chains: int, seed: int | None, options: dict[str, object]
) -> list[MetropolisChain]:
    """The chains, seeded by ``SeedSequence(seed).spawn(chains)``: chain 0 starts from the
    data (mean ranks of the first completions), the others from random consensuses, so that
    R-hat can see chains that stay apart; ``options``: the other arguments of
    :class:`MetropolisChain`."""
    seeds = np.random.SeedSequence(seed).spawn(chains)
    starts = [None] + [
        np.random.default_rng(seq.spawn(1)[0]).permutation(n) + 1 for seq in seeds[1:]
    ]
    return [
        MetropolisChain(observed, distance, np.random.default_rng(seq), rho_start=start, **options)
        for seq, start in zip(seeds, starts, strict=True)
    ]


def _result(
    data: Rankings | AssessorPreferences,
    systems: tuple,
    distance: str,
    kind: str,
    prior: dict[str, object],
    alpha: np.ndarray,
    rho: np.ndarray,
    problems: list[str],
    samplers: list[MetropolisChain],
    run: dict[str, object],
) -> MallowsFit:
    """The :class:`MallowsFit` of the draws ``alpha`` ``(chains, draws)`` and ``rho``
    ``(chains, draws, n)``; the convergence warning when ``problems``."""
    n = len(systems)
    kept = alpha.shape[1]
    max_draws = run["max_draws"]
    cap_reached = bool(problems) and kept >= max_draws and not run["interrupted"]
    idata = _posterior(systems, distance, kind, prior, alpha, rho, run)
    _warn(problems, cap_reached, max_draws)
    from rankstats.models import pointwise_likelihood as pointwise

    if run.get("error_model"):  # not the Mallows marginal: the model of errors'
        _compat.set_attrs(
            idata,
            {
                pointwise.UNAVAILABLE: "fitted with the Bernoulli error model: the likelihood "
                "of an assessor's stated preferences sums over their latent rankings and the "
                "errors, not computed"
            },
        )
    else:
        pointwise.add_to_distance_fit(data, idata, distance)
    n_rankings = len(data.assessors) if isinstance(data, AssessorPreferences) else data.n_rankings
    flat = rho.reshape(-1, n)
    consensus = bayes_consensus(flat, systems, distance)
    theta_mean = float(alpha.mean()) / n
    _compat.set_attrs(
        idata,
        {
            **persisted_attributes(theta_mean, consensus, n_rankings, problems),
            "point_position": flat.mean(axis=0),
            "param_alpha": float(alpha.mean()),
            "info_distance": distance,
        },
    )
    info = _info(data, distance, kind, prior, consensus, problems, samplers, run)
    info |= {"n_rankings": n_rankings, "draws": kept, "chains": alpha.shape[0]}
    info["cap_reached"] = cap_reached
    return MallowsFit(
        model="mallows",
        method="mcmc",
        systems=systems,
        idata=idata,
        worth=pd.Series(flat.mean(axis=0), index=list(systems), name="position"),
        parameters={"alpha": float(alpha.mean()), "theta": theta_mean},
        info=info,
    )


def _posterior(
    systems: tuple,
    distance: str,
    kind: str,
    prior: dict[str, object],
    alpha: np.ndarray,
    rho: np.ndarray,
    run: dict[str, object],
):
    """The InferenceData of the draws: α, the positions, the Bernoulli model's error
    probability, Kendall's θ = α / n, and the run's settings as attributes."""
    variables = {"alpha": alpha, "position": rho.astype(np.float64)}
    if run.get("error") is not None:  # the Bernoulli error model's θ_e
        variables["error_probability"] = run["error"]
    if distance == "kendall":  # θ = α / n: what every Kendall tool of rankstats reads
        variables["theta"] = alpha / len(systems)
    return _compat.from_dict(
        variables,
        coords={"system": list(systems)},
        dims={"position": ["system"]},
        attrs={
            "rankstats_model": "mallows",
            "rankstats_method": "mcmc",
            "distance": distance,
            "kind": kind,
            "sampler": "metropolis",
            "error_model": str(run.get("error_model") or "none"),
            **{f"prior_{k}": v for k, v in prior.items()},
            "draws": alpha.shape[1],
            "tune": run["tune"],
            "thin": run["thin"],
            "chains": alpha.shape[0],
            "seed": str(run["seed"]),
            "max_draws": run["max_draws"],
            "extensions": run["extensions"],
        },
    )


def _warn(problems: list[str], cap_reached: bool, max_draws: int) -> None:
    """The convergence warning when ``problems``: what to raise, and a larger leap."""
    warn_convergence(
        problems,
        hint=(
            "the chains were extended to {cap} draws and still fail the check: raise "
            "{max_draws}, {tune} or {thin}; "
            if cap_reached
            else "run longer chains ({draws}, {tune}, {thin}, {max_draws}) or more chains; "
        )
        + "a larger {leap} moves the consensus faster on many items",
        cap=("max_draws", max_draws),
        thin=None,
        leap=None,
    )


def _info(
    data: Rankings | AssessorPreferences,
    distance: str,
    kind: str,
    prior: dict[str, object],
    consensus: list[str],
    problems: list[str],
    samplers: list[MetropolisChain],
    run: dict[str, object],
) -> dict[str, object]:
    """``fit.info`` but the counts of rankings, draws and chains (in the order of the keys the
    fit has always had: the caller sets those in place)."""
    augmented = [c.augmentation for c in samplers if c.augmentation.active]
    info = {
        "n_rankings": None,
        "distance": distance,
        "kind": kind,
        "sampler": "metropolis",
        "prior": prior["name"],
        "alpha_prior": {"shape": prior["alpha_shape"], "rate": prior["alpha_rate"]},
        "consensus": consensus,
        "convergence_problems": problems,
        "interrupted": run["interrupted"],
        "draws": None,
        "tune": run["tune"],
        "thin": run["thin"],
        "chains": None,
        "first_draws": run["draws"],
        "max_draws": run["max_draws"],
        "extensions": run["extensions"],
        "cap_reached": None,
        "workers": run["workers"],
        "leap": run["leap"],
        "rho_proposal": run["rho_proposal"],
        "alpha_sd": [round(c.alpha_sd, 4) for c in samplers],  # as adapted during tune
        "partition_function": run["partition"],
        "acceptance_rho": float(np.mean([c.accepted_rho / max(c.iterations, 1) for c in samplers])),
        "acceptance_alpha": float(
            np.mean([c.accepted_alpha / max(c.iterations, 1) for c in samplers])
        ),
        "acceptance_augmentation": (
            float(np.mean([a.accepted / max(a.proposed, 1) for a in augmented]))
            if augmented
            else None
        ),
    }
    if isinstance(data, AssessorPreferences):
        info["preferences"] = {"stated": data.n_stated, "implied": data.n_implied}
        if run.get("error_model"):
            error = run["error"]
            info["error_model"] = {
                "name": run["error_model"],
                "kappa": list(run["kappa"]),
                "error_probability": float(error.mean()),
                "cyclic_assessors": len(data.cyclic),
            }
            del info["preferences"]["implied"]  # a cyclic closure implies nothing
    return info

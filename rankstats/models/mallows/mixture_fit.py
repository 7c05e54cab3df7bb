r"""Fit of a mixture of Bayesian Mallows models (clusters of assessors) by Metropolis–Hastings:
chains, their extension until they converge, label switching, ArviZ output and
:class:`MallowsMixtureFit`.

The model and one iteration are described in :mod:`rankstats.models.mallows._mixture`; the
chains are run, extended (R-hat ≤ 1.01 and bulk ESS ≥ 400 on every α, weight and consensus
position, after relabelling) and interrupted as every rankstats Mallows fit
(:mod:`rankstats.models.mallows._chains`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import warn_convergence
from rankstats.core.permutations.partition import partition_function
from rankstats.core.preferences import AssessorPreferences
from rankstats.core.rankings import Rankings
from rankstats.models.mallows._chains import (
    check_thin_leap,
    extension_cap,
    sample_until_converged,
    start_runner,
)
from rankstats.models.mallows._mixture import MixtureChain, restart_stragglers
from rankstats.models.mallows.em_result import MallowsEMFit
from rankstats.models.mallows.metropolis_fit import (
    EXTEND_FACTOR,
    THIN,
    TUNE,
    bayes_consensus,
)
from rankstats.models.mallows.mixture_result import ASSIGNMENT_GROUP, MallowsMixtureFit
from rankstats.models.mallows.mixture_settings import MixtureRun, MixtureSampler


class _Advance:
    """One piece of a chain (in a worker process): tuning when not ``keep``."""

    def __init__(self, thin: int) -> None:
        self.thin = thin

    def __call__(self, chain: MixtureChain, iterations: int, keep: bool):
        return chain, chain.run(iterations, thin=self.thin, adapt=not keep)


def fit_mixture(
    data: Rankings | AssessorPreferences,
    distance: str,
    clusters: int,
    *,
    sampler: MixtureSampler,
    run: MixtureRun | None = None,
) -> MallowsMixtureFit:
    """Fit a ``clusters``-component mixture (``sampler``: the prior, moves and start; ``run``:
    the chains' lengths and reporting, as :meth:`rankstats.models.Mallows.fit`; the data are
    validated by the caller)."""
    run = MixtureRun() if run is None else run
    systems = tuple(data.systems)
    n, chains = len(systems), run.chains
    check_thin_leap(run.thin, sampler.leap, n)
    pf = partition_function(n, distance)
    max_draws = extension_cap(run.draws, run.max_draws, EXTEND_FACTOR)
    samplers = _chains(data, distance, clusters, sampler, pf, run.seed, chains)
    kept: list[list] = [[] for _ in range(chains)]
    restarted: list[tuple[int, float]] = []

    def store(c: int, out) -> None:
        kept[c].append(out)

    def set_pivot() -> None:
        # Chains stuck in a far poorer mode continue from the best one's state; then the
        # numbering every chain's draws are reported in: the EM start's, else the consensuses
        # of the chain that ends its tuning with the highest likelihood (the others may sit in
        # a mode of comparable height, which their R-hat then shows).
        restarted.extend(restart_stragglers(samplers))
        if sampler.start is not None:
            pivot = sampler.start.consensus
        else:
            pivot = max(samplers, key=_log_likelihood).rho
        for chain in samplers:
            chain.set_pivot(pivot)

    label = f"Mallows ({distance}) mixture of {clusters}"
    runner, pilot = start_runner(
        samplers,
        _Advance(run.thin),
        store,
        tune=run.tune,
        thin=run.thin,
        n_jobs=run.n_jobs,
        label=label,
        progress=run.progress,
        after_tune=set_pivot,
    )
    if run.tune == pilot:  # no tuning left: the pivot now
        set_pivot()
    try:
        scalar, rho, problems, extensions, interrupted = sample_until_converged(
            runner,
            lambda: _stacked(kept, clusters, n),
            tune=run.tune - pilot,
            draws=run.draws,
            max_draws=max_draws,
            chains=chains,
            on_extend=run.on_extend,
            label=label,
            name="alpha, weight",
        )
    finally:
        runner.close()
    record = {
        **{k: getattr(run, k) for k in ("draws", "tune", "thin", "seed")},
        **{"max_draws": max_draws, "extensions": extensions, "interrupted": interrupted},
        **{"leap": sampler.leap, "rho_proposal": sampler.rho_proposal, "psi": sampler.psi},
        "workers": runner.workers if runner.parallel else 1,
        **{"partition": pf.method, "restarted": restarted, "em_start": sampler.start is not None},
    }
    draws = _collected(kept, scalar, rho, clusters)
    return _result(
        data, systems, distance, sampler, draws, problems=problems, samplers=samplers, run=record
    )


def _collected(kept: list[list], scalar: np.ndarray, rho: np.ndarray, clusters: int) -> dict:
    """The draws of :func:`_result` from what :func:`sample_until_converged` returned and the
    chains' pieces (the within-cluster distances, the assignment counts)."""
    length = scalar.shape[1]
    used = [c for c in range(len(kept)) if sum(len(p.alpha) for p in kept[c]) >= length]
    within = np.stack([np.concatenate([p.within for p in kept[c]])[:length] for c in used])
    # Assignment counts: the chains' running totals (each piece returns the total so far).
    assigned = sum(kept[c][-1].assigned for c in used if kept[c])
    return {
        "alpha": scalar[:, :, :clusters],
        "weight": scalar[:, :, clusters:],
        "rho": rho,
        "within": within,
        "assigned": np.asarray(assigned, dtype=np.float64),
    }


def _chains(
    data, distance: str, clusters: int, sampler: MixtureSampler, pf, seed, chains: int
) -> list[MixtureChain]:
    """One :class:`MixtureChain` per chain, each on its own stream of ``seed``, started from
    ``sampler.start`` when given."""
    observed = data if isinstance(data, AssessorPreferences) else data.ranks
    out = []
    for seq in np.random.SeedSequence(seed).spawn(chains):
        chain = MixtureChain(
            observed,
            distance,
            np.random.default_rng(seq),
            clusters,
            kind=sampler.kind,
            leap=sampler.leap,
            rho_proposal=sampler.rho_proposal,
            alpha_sd=sampler.alpha_sd,
            alpha_shape=sampler.alpha_shape,
            alpha_rate=sampler.alpha_rate,
            psi=sampler.psi,
            partition=pf,
        )
        if sampler.start is not None:
            _start_from(chain, sampler.start, distance)
        out.append(chain)
    return out


def _start_from(chain: MixtureChain, start: MallowsEMFit, distance: str) -> None:
    """Put ``chain`` at the EM estimate (:class:`MixtureSampler`'s ``start``)."""
    if start.distance != distance or start.consensus.shape != chain.rho.shape:
        raise ValueError(
            f"the EM start is a {start.distance} mixture of {start.n_clusters} clusters on "
            f"{start.consensus.shape[1]} systems; this fit is {distance}, {chain.clusters} "
            f"clusters, {chain.n} systems"
        )
    if start.n_rankings != chain.n_rankings:
        raise ValueError(
            f"the EM start was fitted to {start.n_rankings} rankings, these data hold "
            f"{chain.n_rankings}"
        )
    init = start.init()
    chain.rho = init["rho"].astype(np.int64)
    chain.alpha = np.asarray(init["alpha"], dtype=np.float64)
    chain.log_z = np.asarray(chain.pf.log_z(chain.alpha), dtype=np.float64)
    chain.weight = np.maximum(init["weight"], 1e-12) / np.maximum(init["weight"], 1e-12).sum()
    # each chain draws the assessors' clusters from the responsibilities: the chains start
    # at the same mode, not at the same point
    p = start.responsibilities
    u = chain.rng.random(len(p))[:, None]
    chain.z = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), chain.clusters - 1)


def _stacked(kept: list[list], clusters: int, n: int) -> tuple[list, list]:
    """Every chain's kept α and weights side by side ``(draws, 2K)``, and its consensuses."""
    scalars, positions = [], []
    for pieces in kept:
        if pieces:
            alpha = np.concatenate([p.alpha for p in pieces])
            weight = np.concatenate([p.weight for p in pieces])
            rho = np.concatenate([p.rho for p in pieces])
        else:
            alpha = weight = np.empty((0, clusters))
            rho = np.empty((0, clusters, n), dtype=np.int64)
        scalars.append(np.concatenate([alpha, weight], axis=1))
        positions.append(rho)
    return scalars, positions


def fit_model_mixture(
    model, rk: Rankings | AssessorPreferences, *, tune: int | None, thin: int | None, **options
) -> MallowsMixtureFit:
    """:func:`fit_mixture` with the settings of ``model`` (a :class:`~rankstats.models.Mallows`
    with ``clusters``) and its defaults; ``rk`` validated by ``model._prepare``. ``options``:
    :func:`fit_mixture`'s run settings, and ``leap``, ``rho_proposal``, ``alpha_sd``, ``start``
    (:class:`MixtureSampler`)."""
    draws, chains = options["draws"], options["chains"]
    tune = TUNE if tune is None else tune
    thin = THIN if thin is None else thin
    if draws < 1 or tune < 0 or chains < 1:
        raise ValueError("need draws ≥ 1, tune ≥ 0, chains ≥ 1")
    shape, rate = model._alpha_prior(len(rk.systems))
    moves = {
        k: options.pop(k) for k in ("leap", "rho_proposal", "alpha_sd", "start") if k in options
    }
    sampler = MixtureSampler(
        kind=model.kind,
        alpha_shape=shape,
        alpha_rate=rate,
        psi=model.psi,
        prior={"name": model.prior, "alpha_shape": shape, "alpha_rate": rate},
        **moves,
    )
    run = MixtureRun(tune=tune, thin=thin, **options)
    return fit_mixture(rk, model.distance, model.clusters, sampler=sampler, run=run)


def _log_likelihood(chain: MixtureChain) -> float:
    """The complete-data log-likelihood of a chain's state (its latent rankings, assignments,
    consensuses and dispersions)."""
    d = chain._distances()[np.arange(chain.n_rankings), chain.z]
    alpha, log_z = chain.alpha[chain.z], chain.log_z[chain.z]
    return float(np.sum(np.log(chain.weight[chain.z]) - alpha / chain.n * d - log_z))


def _result(
    data: Rankings | AssessorPreferences,
    systems: tuple,
    distance: str,
    sampler: MixtureSampler,
    draws: dict[str, np.ndarray],
    *,
    problems: list[str],
    samplers: list[MixtureChain],
    run: dict[str, object],
) -> MallowsMixtureFit:
    """The :class:`MallowsMixtureFit` of the relabelled ``draws``: ``alpha``, ``weight``
    ``(chains, draws, K)``; ``rho`` ``(chains, draws, K, n)``; ``within`` ``(chains, draws)``;
    ``assigned`` ``(N, K)`` counts."""
    alpha, weight, rho = draws["alpha"], draws["weight"], draws["rho"]
    n, clusters = len(systems), alpha.shape[2]
    run = {**run, "kept": alpha.shape[1], "chains": alpha.shape[0]}
    run["cap_reached"] = (
        bool(problems) and run["kept"] >= run["max_draws"] and not run["interrupted"]
    )
    idata = _posterior(data, systems, distance, sampler, draws, run)
    _warn(problems, run)
    _add_pointwise(data, idata, distance, alpha, weight, rho, sampler.kind)
    flat_rho = rho.reshape(-1, clusters, n)
    flat_alpha = alpha.reshape(-1, clusters)
    flat_weight = weight.reshape(-1, clusters)
    consensus = [bayes_consensus(flat_rho[:, k], systems, distance) for k in range(clusters)]
    worth = np.einsum("sk,skn->n", flat_weight, flat_rho) / len(flat_rho)
    _compat.set_attrs(
        idata,
        {
            "info_consensus": json.dumps(consensus),
            "info_convergence_problems": json.dumps(problems),
            "info_n_rankings": len(_assessors(data)),
            "info_distance": distance,
            "info_clusters": clusters,
            "point_position": worth,
            **{f"param_alpha[{k + 1}]": float(flat_alpha[:, k].mean()) for k in range(clusters)},
            **{f"param_weight[{k + 1}]": float(flat_weight[:, k].mean()) for k in range(clusters)},
        },
    )
    info = _info(data, distance, sampler, clusters, consensus, problems, run)
    return MallowsMixtureFit(
        model="mallows_mixture",
        method="mcmc",
        systems=systems,
        idata=idata,
        worth=pd.Series(worth, index=list(systems), name="position"),
        parameters={
            **{f"alpha[{k + 1}]": float(flat_alpha[:, k].mean()) for k in range(clusters)},
            **{f"weight[{k + 1}]": float(flat_weight[:, k].mean()) for k in range(clusters)},
        },
        info={**info, **_acceptance(samplers, clusters)},
    )


def _posterior(data, systems: tuple, distance: str, sampler: MixtureSampler, draws, run):
    """The ArviZ object of the draws, with each assessor's cluster probabilities."""
    import xarray as xr

    alpha = draws["alpha"]
    clusters = alpha.shape[2]
    names = [str(k + 1) for k in range(clusters)]
    idata = _compat.from_dict(
        {
            "alpha": alpha,
            "weight": draws["weight"],
            "position": draws["rho"].astype(np.float64),
            "within": draws["within"],
        },
        coords={"cluster": names, "system": list(systems)},
        dims={"alpha": ["cluster"], "weight": ["cluster"], "position": ["cluster", "system"]},
        attrs={
            "rankstats_model": "mallows_mixture",
            "rankstats_method": "mcmc",
            "distance": distance,
            "kind": sampler.kind,
            "clusters": clusters,
            "sampler": "metropolis",
            **{f"prior_{k}": v for k, v in sampler.prior.items()},
            "psi": run["psi"],
            "draws": run["kept"],
            "tune": run["tune"],
            "thin": run["thin"],
            "chains": run["chains"],
            "seed": str(run["seed"]),
            "max_draws": run["max_draws"],
            "extensions": run["extensions"],
        },
    )
    assigned = draws["assigned"]
    probabilities = assigned / np.maximum(assigned.sum(axis=1, keepdims=True), 1)
    _compat.add_group(
        idata,
        ASSIGNMENT_GROUP,
        xr.Dataset(
            {"probability": (("assessor", "cluster"), probabilities)},
            coords={"assessor": [str(a) for a in _assessors(data)], "cluster": names},
        ),
    )
    return idata


def _warn(problems: list[str], run: dict) -> None:
    """The convergence warning, with what to change."""
    warn_convergence(
        problems,
        hint=(
            "the chains were extended to {cap} draws and still fail the check: raise "
            "{max_draws}, {tune} or {thin}; "
            if run["cap_reached"]
            else "run longer chains ({draws}, {tune}, {thin}, {max_draws}) or more chains; "
        )
        + "two clusters with nearly the same consensus are numbered arbitrarily: try fewer "
        "{clusters}",
        cap=("max_draws", run["max_draws"]),
        thin=None,
        clusters=None,
    )


def _info(data, distance, sampler: MixtureSampler, clusters, consensus, problems, run) -> dict:
    """The fit's ``info``: the model, the run and its convergence."""
    relabel = (
        "pivotal relabelling to the EM start's consensuses (footrule, Hungarian method)"
        if run["em_start"]
        else "pivotal relabelling (footrule to the pivot's consensuses)"
    )
    return {
        "n_rankings": len(_assessors(data)),
        "distance": distance,
        "kind": sampler.kind,
        "clusters": clusters,
        "sampler": "metropolis",
        "prior": sampler.prior["name"],
        "alpha_prior": {"shape": sampler.prior["alpha_shape"], "rate": sampler.prior["alpha_rate"]},
        "psi": run["psi"],
        "consensus": consensus,
        "convergence_problems": problems,
        "interrupted": run["interrupted"],
        "draws": run["kept"],
        "tune": run["tune"],
        "thin": run["thin"],
        "chains": run["chains"],
        "first_draws": run["draws"],
        "max_draws": run["max_draws"],
        "extensions": run["extensions"],
        "cap_reached": run["cap_reached"],
        "workers": run["workers"],
        "leap": run["leap"],
        "rho_proposal": run["rho_proposal"],
        "partition_function": run["partition"],
        "label_switching": relabel,
        "em_start": run["em_start"],
        # Chains moved at the end of tuning from a far poorer local mode to the best chain's
        # state, with the gap of their mixture log-likelihoods (restart_stragglers).
        "restarted_chains": [{"chain": c, "gap": round(g, 1)} for c, g in run["restarted"]],
    }


def _acceptance(samplers: list[MixtureChain], clusters: int) -> dict:
    """Acceptance rates of each cluster's ρ and α moves (and of the latent rankings)."""
    acceptance = {
        "acceptance_rho": [
            float(np.mean([c.accepted_rho[k] / max(c.iterations, 1) for c in samplers]))
            for k in range(clusters)
        ],
        "acceptance_alpha": [
            float(np.mean([c.accepted_alpha[k] / max(c.iterations, 1) for c in samplers]))
            for k in range(clusters)
        ],
    }
    augmented = [c.augmentation for c in samplers if c.augmentation.active]
    if augmented:
        acceptance["acceptance_augmentation"] = float(
            np.mean([a.accepted / max(a.proposed, 1) for a in augmented])
        )
    return acceptance


#: Elements (draws × observations × clusters) of one block of :func:`mixture_marginal`: each
#: cluster's likelihood, its standard error and ESS are (draws, observations) arrays, so all
#: draws at once cost 3 K S N numbers — 11.5 GB for sushi's 5,000 rankings, 6 clusters and
#: 16,000 draws, which ended that fit by the kernel's OOM killer.
MIXTURE_BLOCK = 1 << 23


def mixture_marginal(
    observations,
    alpha: np.ndarray,
    weight: np.ndarray,
    rho: np.ndarray,
    distance: str,
    kind: str,
    samples: int | None = None,
):
    r"""Each observation's mixture log-likelihood per draw, :math:`\log \sum_k \tau_k
    P(y_j \mid \rho_k, \alpha_k)`, from each cluster's marginal likelihood
    (:func:`rankstats.core.permutations.marginal.marginal_likelihood`: closed form, enumeration or
    importance sampling; draws ``alpha``, ``weight`` ``(S, K)``, ``rho`` ``(S, K, n)``). An
    estimated value's standard error combines the clusters' by the delta method,
    :math:`\sqrt{\sum_k (\tau_k p_k se_k)^2} / \sum_k \tau_k p_k`. Computed in blocks of draws
    of at most :data:`MIXTURE_BLOCK` elements (the memory of a block, not of all draws; with
    more than one block the importance-sampling size is that of all draws, and each block's
    seed its own). Returns a :class:`~rankstats.core.permutations.marginal.MarginalLikelihood`."""
    from rankstats.core.permutations import marginal

    draws, clusters = alpha.shape
    n_obs = len(
        observations.above if isinstance(observations, AssessorPreferences) else observations
    )
    block = max(1, MIXTURE_BLOCK // max(n_obs * clusters, 1))
    if draws <= block:
        return _mixture_block(observations, alpha, weight, rho, distance, kind, samples, 0)
    samples = marginal.default_samples(draws * n_obs) if samples is None else samples
    total, se, ess = (np.empty((draws, n_obs)) for _ in range(3))
    method = None
    for i, start in enumerate(range(0, draws, block)):
        rows = slice(start, start + block)
        found = _mixture_block(
            observations, alpha[rows], weight[rows], rho[rows], distance, kind, samples, i
        )
        total[rows], se[rows], ess[rows] = found.log_likelihood, found.standard_error, found.ess
        method = found.method
    return marginal.MarginalLikelihood(total, se, ess, method, samples)


def _mixture_block(
    observations, alpha, weight, rho, distance: str, kind: str, samples: int | None, block: int
):
    """:func:`mixture_marginal` of one block of draws (``block``: its number, in the seeds)."""
    from rankstats.core.permutations import marginal

    clusters = alpha.shape[1]
    log_total = se2 = ess = method = None
    parts_method = []
    for k in range(clusters):  # K clusters, one at a time: one (S, N) set alive at once
        part = marginal.marginal_likelihood(
            observations,
            rho[:, k],
            alpha[:, k],
            distance,
            kind=kind,
            samples=samples,
            seed=k + clusters * block,
        )
        term = np.log(weight[:, k])[:, None] + part.log_likelihood
        if log_total is None:
            log_total, se2 = term, np.zeros_like(term)
            ess, method = part.ess, part.method.copy()
            first_samples = part.samples
        else:
            log_total = np.logaddexp(log_total, term)
            ess = np.minimum(ess, part.ess)
            method = np.where(part.estimated, part.method, method)
        parts_method.append((term, part.standard_error))
    # the delta method needs each cluster's share τ_k p_k / Σ τ p, known once all are summed
    for term, error in parts_method:
        se2 += (np.exp(term - log_total) * error) ** 2
    return marginal.MarginalLikelihood(log_total, np.sqrt(se2), ess, method, first_samples)


def _add_pointwise(
    data: Rankings | AssessorPreferences,
    idata,
    distance: str,
    alpha: np.ndarray,
    weight: np.ndarray,
    rho: np.ndarray,
    kind: str,
) -> None:
    """Attach each ranking's (or assessor's) mixture log-likelihood per draw
    (:func:`mixture_marginal`: the assessor's cluster summed out, LOO predicts a new assessor),
    or record why there is none (preferences with the Bernoulli error model)."""
    from rankstats.models import pointwise_likelihood as pointwise

    if getattr(data, "cyclic", ()) or getattr(data, "error_model", None):
        _compat.set_attrs(
            idata,
            {
                pointwise.UNAVAILABLE: "fitted with the Bernoulli error model: the likelihood "
                "of an assessor's stated preferences sums over their latent rankings and the "
                "errors, not computed"
            },
        )
        return
    clusters = alpha.shape[2]
    observations = data if isinstance(data, AssessorPreferences) else data.ranks
    found = mixture_marginal(
        observations,
        alpha.reshape(-1, clusters),
        weight.reshape(-1, clusters),
        rho.reshape(-1, clusters, rho.shape[-1]),
        distance,
        kind,
    )
    extra = {"distance": distance, "clusters": clusters}
    if isinstance(data, Rankings):
        pointwise._attach_rankings(data, idata, lambda: found, extra, kind=kind)
        return
    pointwise.attach_preferences(data, idata, found, extra)


def _assessors(data: Rankings | AssessorPreferences) -> list:
    if isinstance(data, AssessorPreferences):
        return list(data.assessors)
    from rankstats.models.pointwise_likelihood import labels

    return labels(data.rankers)

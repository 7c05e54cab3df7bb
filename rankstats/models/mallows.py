r"""Bayesian Mallows model with Kendall distance for partial rankings and ties.

.. math:: P(\pi \mid \sigma, \theta) = \frac{e^{-\theta\, d(\pi, \sigma)}}{Z_n(\theta)},
          \qquad \log Z_n(\theta) = \sum_{j=1}^{n} \log\frac{1 - e^{-j\theta}}{1 - e^{-\theta}},

with :math:`d` the Kendall distance, consensus :math:`\sigma` uniform a priori and dispersion
:math:`\theta > 0`.  Sub-rankings, top-k rankings and ties are handled through latent complete
rankings: an unranked item's position and the order inside a tied group are latent.

Why not PyMC: :math:`\sigma` is a permutation (discrete, :math:`n!` values) and the latent
completions are permutations too; NUTS cannot move on them, and every exact full conditional is
cheap (``_mallows_sampler``), so rankstats runs its own Gibbs / slice sampler and returns
standard ArviZ data (R-hat, ESS from ArviZ).  The sampler's inner loops run in NumPy (the
reference) or, when numba is installed, in compiled kernels (``_mallows_numba``, about ten times
faster) that give the same chains draw for draw.  References: Mallows (1957); Fligner & Verducci
(1986); Vitelli, Sørensen, Crispino, Frigessi & Arjas (2018), *Probabilistic preference learning
with the Mallows rank model*, JMLR 18 (BayesMallows).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import optimize

from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import ESS_MIN, RHAT_MAX, warn_convergence
from rankstats._util.advice import AdviceError
from rankstats._util.progress import meter
from rankstats.core.mallows_kendall import log_z, mallows_expected_distance
from rankstats.core.rankings import Rankings, default_level, tied_entries
from rankstats.core.scores import Scores
from rankstats.errors import InvalidRankingsError
from rankstats.models._mallows_sampler import (
    BACKENDS,
    DRAWS,
    EXTEND_FACTOR,
    TUNE,
    Chain,
    LogPrior,
    advance,
    ignore_interrupt,
    pair_counts,
    resolve_backend,
    total_distance,
)
from rankstats.models.information import require_order
from rankstats.models.mallows_fit import MallowsFit, persisted_attributes
from rankstats.models.timing import chain_workers

PRIORS = ("gamma", "bayesmallows")


def _consensus_of_draws(positions: np.ndarray, systems: tuple[str, ...]) -> list[str]:
    from rankstats.aggregation.kemeny_search import kemeny
    from rankstats.core.pair_probabilities import Pairwise

    wins = np.count_nonzero(positions[:, :, None] < positions[:, None, :], axis=0).astype(float)
    n = len(systems)
    compared = np.full((n, n), float(len(positions)))
    np.fill_diagonal(compared, 0.0)
    pw = Pairwise(wins, wins, compared, len(positions), systems, np.full(n, float(len(positions))))
    return list(kemeny(pw, method="auto", time_limit=60).order)


def _convergence(theta: np.ndarray, pos: np.ndarray) -> list[str]:
    """R-hat / ESS problems of θ and of the consensus positions that vary at all (a position
    that is the same in every draw is certain, not unconverged: its R-hat is undefined)."""
    import xarray as xr

    varying = pos.reshape(-1, pos.shape[-1]).std(axis=0) > 0
    data = xr.Dataset(
        {
            "theta": (("chain", "draw"), theta),
            "position": (("chain", "draw", "item"), pos[:, :, varying]),
        }
    )
    diag = _compat.diagnostics(data, which=_compat.CONVERGENCE_DIAGNOSTICS)
    problems = []
    names = ["theta"] + (["position"] if varying.any() else [])
    rhat = max(float(np.nanmax(diag["r_hat"][v].to_numpy())) for v in names)
    ess = min(float(np.nanmin(diag["ess_bulk"][v].to_numpy())) for v in names)
    if not np.isfinite(rhat) or rhat > RHAT_MAX:
        problems.append(f"max R-hat = {rhat:.3f} > {RHAT_MAX}")
    if not np.isfinite(ess) or ess < ESS_MIN:
        problems.append(f"min bulk ESS = {ess:.0f} < {ESS_MIN}")
    return problems


def _fork_pool(workers: int):
    """A pool of ``workers`` forked processes, started now: before any progress display starts
    its refresh thread.  Python ≥ 3.12 warns about fork() in a process with threads; the only
    threads here are the idle workers of NumPy's OpenBLAS (as for PyMC's chains), and the
    workers run NumPy code of this module only."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with _compat.quiet_pytensor():  # also silences exactly the fork() DeprecationWarning
        pool = ProcessPoolExecutor(workers, multiprocessing.get_context("fork"), ignore_interrupt)
        pool.submit(int).result()  # forks every worker now
    return pool


def _parallel_block(pool, samplers, thetas, positions, n_tune, n_keep, label, progressbar) -> None:
    """Run every chain ``n_tune`` discarded and ``n_keep`` kept sweeps in the worker processes,
    in chunks (the progress display advances per chunk; the draws do not depend on them)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    chunk = max(25, (n_tune + n_keep) // 20)
    plan = {}
    for c in range(len(samplers)):
        steps = [(min(chunk, n_tune - k), False) for k in range(0, n_tune, chunk)]
        steps += [(min(chunk, n_keep - k), True) for k in range(0, n_keep, chunk)]
        plan[c] = steps
    total = len(samplers) * (n_tune + n_keep)
    with meter(label, total=total, unit="sweeps", enabled=progressbar) as bar:
        running = {}

        def submit(c: int) -> None:
            if plan[c]:
                n_sweeps, keep = plan[c].pop(0)
                running[pool.submit(advance, samplers[c], n_sweeps, keep)] = (c, n_sweeps)

        for c in range(len(samplers)):
            submit(c)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                c, n_sweeps = running.pop(future)
                samplers[c], t, p = future.result()
                if len(t):
                    thetas[c].append(t)
                    positions[c].append(p)
                bar.advance(n_sweeps)
                submit(c)


class Mallows:
    """Bayesian Mallows (Kendall) model.

    Parameters
    ----------
    prior : {"gamma", "bayesmallows"}
        ``"gamma"`` (default): θ ~ Gamma(shape, rate), default shape 1, rate 0.1 (an exponential
        with mean 10: weak, since rankings of benchmark tasks typically give θ between 0.05 and
        2). ``"bayesmallows"``: the parametrisation of the BayesMallows R package, α = n θ with
        α ~ Exponential(rate 0.001), i.e. θ ~ Exponential(rate 0.001 n).
    shape, rate : float
        Gamma prior parameters (``prior="gamma"``).

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c"]] * 5)
    >>> fit = rs.models.Mallows().fit(rk, draws=3000, tune=500, chains=2, progressbar=False)
    >>> fit.order
    ['a', 'b', 'c']
    >>> fit.info["backend"] in ("numba", "numpy")  # numba when installed: the same draws
    True
    """

    def __init__(self, prior: str = "gamma", shape: float = 1.0, rate: float = 0.1) -> None:
        if prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, not {prior!r}")
        if shape <= 0 or rate <= 0:
            raise ValueError(f"Gamma prior needs shape > 0 and rate > 0 (got {shape}, {rate})")
        self.prior, self.shape, self.rate = prior, shape, rate

    def _log_prior(self, n: int) -> LogPrior:
        if self.prior == "bayesmallows":
            return LogPrior(1.0, 0.001 * n, gamma=False)
        return LogPrior(self.shape, self.rate)

    @staticmethod
    def _prepare(data: Rankings | Scores) -> Rankings:
        if isinstance(data, Scores):
            data = Rankings.from_scores(data, by=default_level(data))
        if not isinstance(data, Rankings):
            raise TypeError(f"Mallows.fit takes Rankings or Scores, not {type(data).__name__}")
        require_order(data)
        counts = (~np.isnan(data.ranks)).sum(axis=1)
        short = np.flatnonzero(counts < 2)
        if len(short):
            raise InvalidRankingsError(
                f"ranking(s) {list(data.rankers[short][:5])} rank fewer than two systems; "
                "drop them (they carry no information)"
            )
        never = [
            s
            for s, c in zip(data.systems, (~np.isnan(data.ranks)).sum(axis=0), strict=True)
            if c == 0
        ]
        if never:
            raise InvalidRankingsError(
                f"system(s) {never[:5]} appear in no ranking: their consensus position is "
                "determined by the prior only; remove them"
            )
        return data

    def fit(
        self,
        data: Rankings | Scores,
        method: str = "mcmc",
        draws: int = DRAWS,
        tune: int = TUNE,
        chains: int = 4,
        seed: int | None = 0,
        progressbar: bool = True,
        max_draws: int | None = None,
        cores: int | None = None,
        on_extend: Callable[[int, int, list[str]], None] | None = None,
        backend: str = "auto",
    ) -> MallowsFit:
        """Fit by MCMC (Gibbs + slice sampling) or MAP (Kemeny consensus + ML dispersion).

        Parameters
        ----------
        data : Rankings or Scores
            Partial rankings (NaN = unranked; ties allowed).
        method : {"mcmc", "map"}
            ``map``: σ = the exact Kemeny consensus and θ solving the maximum-likelihood
            equation :math:`E_\\theta[d] = \\bar d` (complete rankings only: with unranked items
            the marginal likelihood is not that of a Kemeny problem — use ``mcmc``).
        draws, tune, chains : int
            Kept sweeps per chain, discarded sweeps, number of chains.
        seed : int
            Chains are seeded by ``SeedSequence(seed).spawn(chains)``.
        progressbar : bool
            Progress on stderr (:func:`rankstats._util.progress.meter`: on a terminal, not quiet).
        max_draws : int, optional
            Automatic extension (``chains ≥ 2``): while the R-hat ≤ 1.01 / bulk ESS ≥ 400 check
            fails, every chain continues where it stopped for another block of ``draws`` sweeps,
            up to ``max_draws`` kept sweeps per chain (default ``EXTEND_FACTOR × draws``;
            ``max_draws=draws`` turns the extension off).  The first ``draws`` draws are those of
            the run without extension.  ``fit.info`` records ``draws`` (per chain, final),
            ``extensions`` and ``cap_reached``.
        cores : int, optional
            Chains run in parallel worker processes (default ``min(chains, os.cpu_count())``)
            when the fit is expected to take more than
            :data:`~rankstats.models.timing.PARALLEL_FROM` seconds; the draws are the same as one
            chain after the other (each chain carries its own random generator).
        on_extend : callable, optional
            ``on_extend(draws_so_far, block, problems)`` before each extension block (the
            command line says there what it is doing).
        backend : {"auto", "numpy", "numba"}
            Where the sweeps run: ``"numpy"``, the reference; ``"numba"``, compiled kernels
            about ten times faster (``pip install "rankstats[fast]"``; compiled once, then
            cached on disk); ``"auto"`` (default): numba when it is installed.  **The draws are
            the same** for the same seed whichever runs them (tested draw for draw), so a fit
            is reproducible on machines with and without numba.  ``fit.info["backend"]`` says
            which ran.

        Returns
        -------
        MallowsFit
            ``idata`` (posterior: ``theta`` and ``position`` of each system in σ), ``worth``
            (posterior mean position), ``order``, ``pairwise()``, ``rank_distribution()``,
            ``summary()`` (R-hat, ESS, MCSE).  ``mcmc``: the ``log_likelihood`` group holds,
            per draw and per ranking, the *marginal* likelihood of the observed ranking (summed
            over the orders of its tied systems, closed-form; :func:`log_likelihood`), not the
            likelihood of the sampled latent completion: LOO predicts the data, and the other
            families' likelihoods are of the data too.  For rankings that leave systems
            unranked the marginal has no closed form: the group is absent and
            :func:`~rankstats.models.compare_fits` says why.
        """
        rk = self._prepare(data)
        if method == "map":
            return self._fit_map(rk)
        if method != "mcmc":
            raise ValueError(f"method must be 'mcmc' or 'map', not {method!r}")
        if draws < 1 or tune < 0 or chains < 1:
            raise ValueError("need draws ≥ 1, tune ≥ 0, chains ≥ 1")
        max_draws = EXTEND_FACTOR * draws if max_draws is None else max_draws
        if max_draws < draws:
            raise ValueError(f"max_draws ({max_draws}) must be ≥ draws ({draws})")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
        # Before the chains start and the workers fork: numba compiles (or loads) its kernels
        # once, here, and only when a Mallows chain is sampled.
        backend = resolve_backend(backend)
        n = rk.n_systems
        from rankstats.aggregation.aggregators import aggregate

        start = np.array([rk.systems.index(s) for s in aggregate(rk, method="borda").order])
        samplers = [
            Chain(rk.ranks, self._log_prior(n), np.random.default_rng(seq), start, backend=backend)
            for seq in np.random.SeedSequence(seed).spawn(chains)
        ]
        thetas: list[list[np.ndarray]] = [[] for _ in range(chains)]
        positions: list[list[np.ndarray]] = [[] for _ in range(chains)]
        interrupted = False
        extensions = 0

        workers = chain_workers(rk.ranks, tune + draws, chains, cores)
        parallel = workers > 1
        pool = None

        def block(n_tune: int, n_keep: int, label: str) -> None:
            nonlocal pool
            if parallel:
                if pool is None:
                    pool = _fork_pool(workers)
                return _parallel_block(
                    pool, samplers, thetas, positions, n_tune, n_keep, label, progressbar
                )
            with meter(
                label, total=chains * (n_tune + n_keep), unit="sweeps", enabled=progressbar
            ) as bar:
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

        def stacked() -> tuple[np.ndarray, np.ndarray]:
            theta_c = [np.concatenate(t) if t else np.empty(0) for t in thetas]
            pos_c = [np.concatenate(p) if p else np.empty((0, n)) for p in positions]
            return theta_c, pos_c

        try:
            block(tune, draws, "Mallows Gibbs sampler")
            theta_c, pos_c = stacked()
            theta, pos = np.stack(theta_c), np.stack(pos_c)
            problems = _convergence(theta, pos) if chains > 1 else []
            while problems and theta.shape[1] < max_draws:
                size = min(draws, max_draws - theta.shape[1])
                extensions += 1
                if on_extend is not None:
                    on_extend(theta.shape[1], size, problems)
                block(0, size, f"Mallows Gibbs sampler, extension {extensions}")
                theta_c, pos_c = stacked()
                theta, pos = np.stack(theta_c), np.stack(pos_c)
                problems = _convergence(theta, pos)
        except KeyboardInterrupt:
            interrupted = True
            theta_c, pos_c = stacked()
            lengths = [len(t) for t in theta_c]
            # The chains that finished the first block (all of them once it is done), truncated
            # to a common length; before that, the chains that kept more than one draw (the
            # interrupted one when the chains run one after the other).
            keep = [c for c in range(chains) if lengths[c] >= draws]
            if not keep:
                keep = [c for c in range(chains) if lengths[c] > 1]
            if not keep:
                raise KeyboardInterrupt("interrupted before any draw was kept") from None
            length = min(lengths[c] for c in keep)
            theta = np.stack([theta_c[c][:length] for c in keep])
            pos = np.stack([pos_c[c][:length] for c in keep])
            problems = _convergence(theta, pos) if len(keep) > 1 else []
            warnings.warn(
                "sampling interrupted: the fit holds the chains finished so far",
                RuntimeWarning,
                stacklevel=2,
            )
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        kept = theta.shape[1]
        cap_reached = bool(problems) and kept >= max_draws and not interrupted
        idata = _compat.from_dict(
            {"theta": theta, "position": pos},
            coords={"system": list(rk.systems)},
            dims={"position": ["system"]},
            attrs={
                "rankstats_model": "mallows",
                "rankstats_method": "mcmc",
                "prior": self.prior,
                "shape": self.shape,
                "rate": self.rate,
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
        consensus = _consensus_of_draws(flat_pos, rk.systems)
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
                "prior": self.prior,
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
                "workers": workers if parallel else 1,
                "backend": backend,
            },
        )

    def log_likelihood(self, data: Rankings | Scores, position: np.ndarray, theta: float) -> float:
        r"""Marginal log-likelihood of complete rankings (ties allowed) at consensus positions
        ``position`` (1 = best, one per system) and dispersion ``theta``.

        :math:`-\theta \sum_l d_\times(y_l, \sigma) - L \log Z_n(\theta) + \sum_l \sum_{g}
        \log Z_{|g|}(\theta)`: each tie group ``g`` of a ranking may be ordered in every way
        (the sampler's latent order), and summing over them gives the q-factorial
        :math:`Z_{|g|}`; :math:`d_\times` counts the discordant pairs the rankings order.
        Without ties, the Mallows log-probability of the rankings.  Computed from the pairwise
        counts (the sampler's :func:`total_distance`), not ranking by ranking.
        """
        rk = self._prepare(data)
        ranks = rk.ranks
        if np.isnan(ranks).any():
            raise ValueError(
                "the Mallows marginal likelihood of rankings with unranked systems has no "
                "closed form; give complete rankings (ties allowed)"
            )
        n = rk.n_systems
        theta = float(theta)
        above = (ranks[:, :, None] < ranks[:, None, :]).sum(axis=0).astype(np.float64)
        sigma_pos = np.asarray(position, dtype=np.float64).argsort().argsort()
        distance = total_distance(above, sigma_pos)
        size = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
        sizes, items = np.unique(size, return_counts=True)  # a group of m members: m items
        ties = sum(c / m * float(log_z(int(m), theta)) for m, c in zip(sizes, items, strict=True))
        return -theta * distance - rk.n_rankings * float(log_z(n, theta)) + ties

    def _fit_map(self, rk: Rankings) -> MallowsFit:
        from rankstats.aggregation.kemeny_search import kemeny

        observed = ~np.isnan(rk.ranks)
        if not observed.all() or tied_entries(rk.ranks).any():
            raise AdviceError(
                "{map} needs complete rankings without ties (the Kemeny consensus is the MAP of "
                "σ only then); use {mcmc} for partial or tied rankings",
                map=("method", "map"),
                mcmc=("method", "mcmc"),
            )
        n, n_rankings = rk.n_systems, rk.n_rankings
        result = kemeny(rk, method="auto", time_limit=60)
        index = {s: i for i, s in enumerate(rk.systems)}
        sigma_pos = np.empty(n, dtype=np.int64)
        sigma_pos[[index[s] for s in result.order]] = np.arange(n)
        positions = (rk.ranks - 1).astype(np.int64)
        mean_d = total_distance(pair_counts(positions), sigma_pos) / n_rankings

        max_d = n * (n - 1) / 4  # E[d] at θ → 0
        if mean_d <= 0:
            theta = np.inf
        elif mean_d >= max_d:
            theta = 0.0
        else:
            theta = optimize.brentq(lambda t: mallows_expected_distance(n, t) - mean_d, 1e-9, 50.0)
        finite = theta if np.isfinite(theta) else 50.0
        idata = _compat.from_dict(
            {"theta": np.full((1, 1), finite), "position": (sigma_pos + 1.0)[None, None, :]},
            coords={"system": list(rk.systems)},
            dims={"position": ["system"]},
            attrs={"rankstats_model": "mallows", "rankstats_method": "map"},
        )
        loglik = -finite * mean_d * n_rankings - n_rankings * float(log_z(n, finite))
        _compat.set_attrs(
            idata,
            {
                **persisted_attributes(float(theta), list(result.order), n_rankings, []),
                "log_likelihood": loglik,
                "info_kemeny_optimal": int(bool(result.optimal)),
                "info_mean_distance": mean_d,
            },
        )
        return MallowsFit(
            model="mallows",
            method="map",
            systems=rk.systems,
            idata=idata,
            worth=pd.Series(sigma_pos + 1.0, index=list(rk.systems), name="position"),
            log_likelihood=loglik,
            parameters={"theta": float(theta)},
            info={
                "n_rankings": n_rankings,
                "consensus": list(result.order),
                "kemeny_optimal": bool(result.optimal),
                "mean_distance": mean_d,
            },
        )

    def __repr__(self) -> str:
        if self.prior == "bayesmallows":
            return "Mallows(prior='bayesmallows': α = nθ ~ Exp(0.001))"
        return f"Mallows(prior=Gamma(shape={self.shape}, rate={self.rate}))"

r"""Bayesian Mallows model with Kendall distance for partial rankings and ties.

.. math:: P(\pi \mid \sigma, \theta) = \frac{e^{-\theta\, d(\pi, \sigma)}}{Z_n(\theta)},
          \qquad \log Z_n(\theta) = \sum_{j=1}^{n} \log\frac{1 - e^{-j\theta}}{1 - e^{-\theta}},

with :math:`d` the Kendall distance, consensus :math:`\sigma` uniform a priori and dispersion
:math:`\theta > 0`.  Sub-rankings, top-k rankings and ties are handled through latent complete
rankings: an unranked item's position and the order inside a tied group are latent.

Why not PyMC: :math:`\sigma` is a permutation (discrete, :math:`n!` values) and the latent
completions are permutations too; NUTS cannot move on them, and every exact full conditional is
cheap (``_gibbs``), so rankstats runs its own Gibbs / slice sampler and returns
standard ArviZ data (R-hat, ESS from ArviZ).  The sampler's inner loops run in NumPy (the
reference) or, when numba is installed, in compiled kernels (``_gibbs_numba``, about ten times
faster) that give the same chains draw for draw.  References: Mallows (1957); Fligner & Verducci
(1986); Vitelli, Sørensen, Crispino, Frigessi & Arjas (2018), *Probabilistic preference learning
with the Mallows rank model*, JMLR 18 (BayesMallows).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from rankstats._util.advice import AdviceError, escape
from rankstats._util.arguments import count, random_seed
from rankstats._util.parallel import resolve_n_jobs
from rankstats._util.renamed import renamed_parameters
from rankstats.core.permutations.distances import check_distance
from rankstats.core.permutations.kendall import log_z
from rankstats.core.preferences import AssessorPreferences
from rankstats.core.rankings import Rankings, default_level
from rankstats.core.scores import Scores
from rankstats.errors import InvalidRankingsError
from rankstats.models.information import require_order
from rankstats.models.mallows._augmentation import KINDS
from rankstats.models.mallows._bernoulli import KAPPA
from rankstats.models.mallows._gibbs import BACKENDS, DRAWS, TUNE, LogPrior, total_distance
from rankstats.models.mallows._metropolis import RHO_PROPOSALS, check_rho_proposal
from rankstats.models.mallows._mixture import PSI
from rankstats.models.mallows.fit import MallowsFit
from rankstats.models.mallows.gibbs_fit import fit_gibbs
from rankstats.models.mallows.map import fit_map
from rankstats.models.mallows.metropolis_fit import THIN as METROPOLIS_THIN
from rankstats.models.mallows.metropolis_fit import TUNE as METROPOLIS_TUNE
from rankstats.models.mallows.metropolis_fit import fit_metropolis
from rankstats.models.mallows.mixture_fit import fit_model_mixture

PRIORS = ("gamma", "bayesmallows")
SAMPLERS = ("auto", "gibbs", "metropolis")
#: The other rank models' methods that have another name here, or none, and why: their ``fit``
#: takes the same keywords (docs/user-guide/mallows.md, "Mallows and the other rank models").
OTHER_METHODS = {
    "nuts": "the posterior is sampled by 'mcmc' (the consensus is a permutation, on which NUTS "
    "cannot move: rankstats runs its own Gibbs or Metropolis–Hastings chains)",
    "mle": "the maximum-likelihood fit is 'map' (the Kemeny consensus, the maximum-likelihood "
    "estimate of σ, with the θ that solves the likelihood equation; Kendall, complete rankings)",
    "pql": "the Mallows model has no random effect",
}


class Mallows:
    r"""Bayesian Mallows model, with any of six distances.

    Parameters
    ----------
    distance : str
        One of :data:`~rankstats.models.DISTANCES`: ``"kendall"`` (default), ``"footrule"``
        (BayesMallows' default), ``"spearman"``, ``"cayley"``, ``"hamming"``, ``"ulam"``.
        Kendall's fit runs the exact Gibbs sampler below; every distance (Kendall too, with
        ``sampler="metropolis"``) runs the Metropolis–Hastings sampler of Vitelli et al. (2018)
        (:mod:`rankstats.models.mallows.metropolis_fit`), in BayesMallows' parametrisation
        :math:`P(r) \propto e^{-\alpha d(r, \rho)/n}`, α = n θ.
    kind : {"subset", "top_k"}
        What an unranked system (NaN) means: ``"subset"`` (default) — it was not compared, it
        may be anywhere in the ranking (a system not run on a task); ``"top_k"`` — it is below
        every ranked system (a top-k list). Ties are a latent order either way. ``"top_k"``
        runs the Metropolis–Hastings sampler.
    prior : {"gamma", "bayesmallows"}
        ``"gamma"`` (default): θ ~ Gamma(shape, rate), default shape 1, rate 0.1 (an exponential
        with mean 10: weak, since rankings of benchmark tasks typically give θ between 0.05 and
        2). ``"bayesmallows"``: the parametrisation of the BayesMallows R package, α = n θ with
        α ~ Exponential(rate 0.001), i.e. θ ~ Exponential(rate 0.001 n).
    shape, rate : float
        Gamma prior parameters (``prior="gamma"``).
    clusters : int
        ``1`` (default): one population. ``K > 1``: a mixture of ``K`` Mallows models, each
        cluster of assessors with its own consensus and dispersion, weights
        τ ~ Dirichlet(ψ, …, ψ) (Vitelli et al. 2018, Sec. 4.3; BayesMallows' ``n_clusters``),
        fitted by Metropolis–Hastings (:mod:`rankstats.models.mallows.mixture_fit`); the fit is
        a :class:`~rankstats.models.MallowsMixtureFit`. Choose ``K`` with
        :func:`~rankstats.models.choose_clusters`.
    psi : float
        The Dirichlet concentration ψ of a mixture's weights (BayesMallows' default 10).
    error_model : {None, "bernoulli"}
        Preferences only. ``None`` (default): every stated preference holds in the assessor's
        latent ranking (a cycle is refused). ``"bernoulli"``: each may be a mistake, with
        probability θ_e ~ Beta(κ₁, κ₂) truncated to [0, ½] (Crispino et al. 2019; BayesMallows'
        ``error_model = "bernoulli"``), so preferences with cycles can be fitted — read them
        with ``cycles="keep"`` (:func:`rankstats.read_preferences`,
        :meth:`AssessorPreferences.from_table`). The posterior of θ_e is the variable
        ``error_probability``.
    kappa : (float, float)
        The Beta prior of the error probability (BayesMallows' default (1, 1)).

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c"]] * 5)
    >>> fit = rs.models.Mallows().fit(rk, draws=3000, tune=500, chains=2, progress=False)
    >>> fit.order
    ['a', 'b', 'c']
    >>> fit.info["backend"] in ("numba", "numpy")  # numba when installed: the same draws
    True
    """

    #: The model's name, as :attr:`Fit.model <rankstats.models.Fit.model>` of its fits (a
    #: mixture's fits: ``"mallows_mixture"``), like the ``name`` of the other rank models.
    name: ClassVar[str] = "mallows"

    def __init__(
        self,
        prior: str = "gamma",
        shape: float = 1.0,
        rate: float = 0.1,
        distance: str = "kendall",
        kind: str = "subset",
        clusters: int = 1,
        psi: float = PSI,
        error_model: str | None = None,
        kappa: tuple[float, float] = KAPPA,
    ) -> None:
        # Every parameter checked before anything is stored: a NaN shape or rate made the
        # sampler's slice step loop for ever.
        check_distance(distance)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        if prior not in PRIORS:
            raise ValueError(f"prior must be one of {PRIORS}, not {prior!r}")
        if (
            isinstance(clusters, bool)
            or not isinstance(clusters, (int, np.integer))
            or clusters < 1
        ):
            raise ValueError(f"clusters must be a whole number ≥ 1, not {clusters!r}")
        for name, value in (("shape", shape), ("rate", rate), ("psi", psi)):
            if not _positive(value):
                raise ValueError(f"{name} must be a finite number > 0, not {value!r}")
        if error_model not in (None, "bernoulli"):
            raise ValueError(f"error_model must be None or 'bernoulli', not {error_model!r}")
        if not (
            isinstance(kappa, (tuple, list, np.ndarray))
            and len(kappa) == 2
            and all(_positive(k) for k in kappa)
        ):
            raise ValueError(f"kappa must be two finite numbers > 0, not {kappa!r}")
        if error_model is not None and clusters > 1:
            raise AdviceError(
                "{bernoulli} fits one population: the error model of a mixture ({clusters}) "
                "is not implemented; fit the mixture without it, or one population with it",
                bernoulli=("error_model", error_model),
                clusters=("clusters", int(clusters)),
            )
        self.clusters, self.psi = int(clusters), float(psi)
        self.error_model, self.kappa = error_model, (float(kappa[0]), float(kappa[1]))
        self.distance, self.kind = distance, kind
        self.prior, self.shape, self.rate = prior, float(shape), float(rate)

    def _log_prior(self, n: int) -> LogPrior:
        if self.prior == "bayesmallows":
            return LogPrior(1.0, 0.001 * n, gamma=False)
        return LogPrior(self.shape, self.rate)

    def _alpha_prior(self, n: int) -> tuple[float, float]:
        """(shape, rate) of α = n θ's Gamma prior: θ ~ Gamma(a, b) is α ~ Gamma(a, b / n)."""
        if self.prior == "bayesmallows":
            return 1.0, 0.001
        return self.shape, self.rate / n

    def _prepare(self, data: Rankings | Scores | AssessorPreferences):
        if isinstance(data, AssessorPreferences):
            stated = data.above.any(axis=(0, 1)) | data.above.any(axis=(0, 2))
            never = [s for s, seen in zip(data.systems, stated, strict=True) if not seen]
            if never:
                raise InvalidRankingsError(
                    f"system(s) {never[:5]} appear in no preference: their consensus position "
                    "is determined by the prior only; remove them"
                )
            if data.cyclic and self.error_model is None:
                raise AdviceError(
                    escape(
                        f"{len(data.cyclic)} assessor(s) state preferences with a cycle (the "
                        f"first: {data.cyclic[0]!r}): no ranking respects them; model mistaken "
                        "preferences with "
                    )
                    + (
                        "{bernoulli}"
                        if self.clusters == 1
                        else "{bernoulli} in one population (a mixture, {clusters}, has no "
                        "error model), or drop the cycles"
                    ),
                    bernoulli=("error_model", "bernoulli"),
                    clusters=("clusters", self.clusters),
                )
            return data
        if self.error_model is not None:
            raise ValueError(
                "error_model='bernoulli' models each assessor's stated preferences "
                "(AssessorPreferences), not rankings"
            )
        if isinstance(data, Scores):
            data = Rankings.from_scores(data, by=default_level(data))
        if not isinstance(data, Rankings):
            raise TypeError(
                "Mallows.fit takes Rankings, Scores or AssessorPreferences, not "
                f"{type(data).__name__}"
            )
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
        if never and self.kind == "subset":  # top-k: below every ranked system, informative
            raise InvalidRankingsError(
                f"system(s) {never[:5]} appear in no ranking: their consensus position is "
                "determined by the prior only; remove them"
            )
        return data

    @renamed_parameters(cores="n_jobs", progressbar="progress")
    def fit(
        self,
        data: Rankings | Scores | AssessorPreferences,
        method: str = "mcmc",
        draws: int = DRAWS,
        tune: int | None = None,
        chains: int = 4,
        seed: int | None = 0,
        progress: bool = True,
        max_draws: int | None = None,
        n_jobs: int | None = None,
        on_extend: Callable[[int, int, list[str]], None] | None = None,
        backend: str = "auto",
        sampler: str = "auto",
        thin: int | None = None,
        leap: int = 1,
        rho_proposal: str = RHO_PROPOSALS[0],
    ) -> MallowsFit:
        """Fit by MCMC (Gibbs + slice sampling for Kendall, Metropolis–Hastings for every
        distance) or MAP (Kendall: Kemeny consensus + ML dispersion).

        Parameters
        ----------
        data : Rankings, Scores or AssessorPreferences
            Partial rankings (NaN = unranked, read as the model's ``kind`` says; ties
            allowed), or each assessor's pairwise preferences
            (:class:`~rankstats.core.preferences.AssessorPreferences`, Metropolis–Hastings).
        method : {"mcmc", "map"}
            ``map``: σ = the exact Kemeny consensus and θ solving the maximum-likelihood
            equation :math:`E_\\theta[d] = \\bar d` (Kendall, complete rankings only: with
            unranked items the marginal likelihood is not that of a Kemeny problem — use
            ``mcmc``).
        draws, tune, chains : int
            Kept draws per chain, discarded iterations at the start, number of chains. Gibbs:
            a draw is a sweep, ``tune`` defaults to 1,000. Metropolis–Hastings: a draw is kept
            every ``thin`` iterations (default 10), ``tune`` defaults to 5,000 iterations.
        sampler : {"auto", "gibbs", "metropolis"}
            ``"auto"`` (default): the exact Gibbs sampler where it applies (Kendall distance,
            rankings with ``kind="subset"``), else Metropolis–Hastings (leap-and-shift for
            ρ, a log-normal walk for α, swaps for the latent ranks; BayesMallows' algorithm).
            ``fit.info["sampler"]`` says which ran.
        thin, leap : int
            Metropolis–Hastings: iterations per kept draw, and the leap size of the
            leap-and-shift proposal (1 … n − 1; BayesMallows' default 1) — with the swap
            proposal, the largest distance between the two ranks swapped.
        rho_proposal : {"leap_and_shift", "swap"}
            Metropolis–Hastings: the proposal of the consensus ρ — leap-and-shift (default;
            Vitelli et al. 2018) or BayesMallows' swap of the items at two ranks ``l ≤ leap``
            apart (``rho_proposal = "swap"`` there; symmetric). Both leave the same posterior;
            ``fit.info["acceptance_rho"]`` says how often each moved.
        seed : int
            Chains are seeded by ``SeedSequence(seed).spawn(chains)``.
        progress : bool
            Progress on stderr (:func:`rankstats._util.progress.meter`: on a terminal, not quiet).
        max_draws : int, optional
            Automatic extension (``chains ≥ 2``): while the R-hat ≤ 1.01 / bulk ESS ≥ 400 check
            fails, every chain continues where it stopped for another block of ``draws`` sweeps,
            up to ``max_draws`` kept sweeps per chain (default ``EXTEND_FACTOR × draws``;
            ``max_draws=draws`` turns the extension off).  The first ``draws`` draws are those of
            the run without extension.  ``fit.info`` records ``draws`` (per chain, final),
            ``extensions`` and ``cap_reached``.
        n_jobs : int, optional
            Chains run in parallel worker processes (default ``min(chains, os.cpu_count())``;
            -1: all cores)
            when the fit is expected to take more than
            :data:`~rankstats.models.mallows.timing.PARALLEL_FROM` seconds; the draws are the same
            as one chain after the other (each chain carries its own random generator).
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
            ``idata`` (posterior: ``theta`` — Gibbs — or ``alpha`` — Metropolis–Hastings, with
            ``theta`` = α/n for Kendall — and ``position`` of each system in σ), ``worth``
            (posterior mean position), ``order``, ``pairwise()``, ``rank_distribution()``,
            ``summary()`` (R-hat, ESS, MCSE).  ``mcmc``: the ``log_likelihood`` group holds,
            per draw and per ranking, the *marginal* likelihood of the observed ranking (summed
            over the orders of its tied systems, closed-form; :func:`log_likelihood`), not the
            likelihood of the sampled latent completion: LOO predicts the data, and the other
            families' likelihoods are of the data too.  Every data pattern and distance
            (:func:`rankstats.core.permutations.marginal.marginal_likelihood`): closed form for
            complete rankings with ties, top-k lists and pairs under Kendall, a sum over the
            compatible rankings where they are few, else an importance-sampling estimate whose
            Monte Carlo error the group's attributes record (and
            :func:`~rankstats.models.compare_fits` notes).  ``clusters > 1``: a
            :class:`~rankstats.models.MallowsMixtureFit`, whose group holds each ranking's
            likelihood with its cluster summed out.
        """
        _check_method(method)
        n_jobs = resolve_n_jobs(n_jobs)
        _check_counts(
            draws=(draws, 1),
            tune=(tune, 0),
            chains=(chains, 1),
            max_draws=(max_draws, 1),
            thin=(thin, 1),
            leap=(leap, 1),
        )
        random_seed("seed", seed)
        check_rho_proposal(rho_proposal)
        if sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {SAMPLERS}, not {sampler!r}")
        rk = self._prepare(data)
        run = dict(
            draws=draws,
            chains=chains,
            seed=seed,
            progress=progress,
            max_draws=max_draws,
            n_jobs=n_jobs,
            on_extend=on_extend,
        )
        gibbs_applies = (
            self.distance == "kendall"
            and self.kind == "subset"
            and not isinstance(rk, AssessorPreferences)
        )
        if method == "map":
            if self.clusters > 1:
                raise AdviceError(
                    "a mixture ({clusters}) is fitted by {mcmc} only",
                    clusters=("clusters", self.clusters),
                    mcmc=("method", "mcmc"),
                )
            if self.distance != "kendall" or isinstance(rk, AssessorPreferences):
                raise AdviceError(
                    "{map} is the Kendall model's Kemeny consensus on rankings; use {mcmc} "
                    f"for the {escape(self.distance)} distance or for preferences",
                    map=("method", "map"),
                    mcmc=("method", "mcmc"),
                )
            return fit_map(rk)
        if self.clusters > 1:
            if sampler == "gibbs":
                raise AdviceError(
                    "a mixture ({clusters}) runs the Metropolis–Hastings sampler; use "
                    "{metropolis} (or 'auto')",
                    clusters=("clusters", self.clusters),
                    metropolis=("sampler", "metropolis"),
                )
            return fit_model_mixture(
                self,
                rk,
                tune=tune,
                **run,
                thin=thin,
                leap=leap,
                rho_proposal=rho_proposal,
            )
        if sampler == "gibbs" and not gibbs_applies:
            raise AdviceError(
                "the Gibbs sampler applies to the Kendall distance on rankings with {kind}; use "
                "{metropolis} (or 'auto')",
                kind=("kind", "subset"),
                metropolis=("sampler", "metropolis"),
            )
        if sampler == "metropolis" or not gibbs_applies:
            if backend not in BACKENDS:
                raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
            tune = METROPOLIS_TUNE if tune is None else tune
            thin = METROPOLIS_THIN if thin is None else thin
            if draws < 1 or tune < 0 or chains < 1:
                raise ValueError("need draws ≥ 1, tune ≥ 0, chains ≥ 1")
            shape, rate = self._alpha_prior(len(rk.systems))
            return fit_metropolis(
                rk,
                self.distance,
                kind=self.kind,
                alpha_shape=shape,
                alpha_rate=rate,
                prior={"name": self.prior, "alpha_shape": shape, "alpha_rate": rate},
                tune=tune,
                thin=thin,
                **run,
                leap=leap,
                rho_proposal=rho_proposal,
                backend=backend,
                error_model=self.error_model,
                kappa=self.kappa,
            )
        if thin is not None or leap != 1 or rho_proposal != RHO_PROPOSALS[0]:
            raise ValueError(
                "thin, leap and rho_proposal apply to the Metropolis–Hastings sampler (a Gibbs "
                "sweep moves every item: keep every draw); use sampler='metropolis'"
            )
        tune = TUNE if tune is None else tune
        if draws < 1 or tune < 0 or chains < 1:
            raise ValueError("need draws ≥ 1, tune ≥ 0, chains ≥ 1")
        return fit_gibbs(
            rk,
            self._log_prior(rk.n_systems),
            {"prior": self.prior, "shape": self.shape, "rate": self.rate},
            tune=tune,
            backend=backend,
            **run,
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
        if self.distance != "kendall":
            raise ValueError(
                "log_likelihood(position, theta) is the Kendall model's; the "
                f"{self.distance} model's pointwise likelihood is in its fit's log_likelihood "
                "group"
            )
        rk = self._prepare(data)
        if isinstance(rk, AssessorPreferences):
            raise TypeError("log_likelihood takes rankings, not preferences")
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

    def __repr__(self) -> str:
        if self.prior == "bayesmallows":
            prior = "prior='bayesmallows': α = nθ ~ Exp(0.001)"
        else:
            prior = f"prior=Gamma(shape={self.shape}, rate={self.rate}) on θ = α/n"
        return f"Mallows(distance={self.distance!r}, kind={self.kind!r}, {prior})"


def _positive(value: object) -> bool:
    """A finite real number > 0 (not a bool, not NaN)."""
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and bool(np.isfinite(value))
        and value > 0
    )


def _check_method(method: object) -> None:
    """``"mcmc"`` or ``"map"``; another model's method is refused with what it is called here."""
    if method in ("mcmc", "map"):
        return
    why = OTHER_METHODS.get(method) if isinstance(method, str) else None
    message = f"method must be 'mcmc' or 'map', not {method!r}"
    raise ValueError(f"{message}: {why}" if why else message)


def _check_counts(**counts: tuple[object, int]) -> None:
    """Each ``name=(value, minimum)``: None, or a whole number ≥ minimum (named when not)."""
    for name, (value, minimum) in counts.items():
        if value is not None:
            count(name, value, minimum)

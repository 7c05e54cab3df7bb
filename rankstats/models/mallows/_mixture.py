r"""Metropolis–Hastings sampler of a mixture of Bayesian Mallows models (Vitelli et al. 2018,
Sec. 4.3; BayesMallows' ``n_clusters``), with any distance of
:mod:`rankstats.core.permutations.distances`.

Each of ``N`` assessors belongs to one of ``K`` clusters, cluster ``k`` with its own consensus
:math:`\rho_k` and dispersion :math:`\alpha_k`:

.. math::

    p(R_j \mid z_j = k) = \frac{e^{-\frac{\alpha_k}{n} d(R_j, \rho_k)}}{Z_n(\alpha_k)},
    \qquad P(z_j = k) = \tau_k, \qquad \tau \sim \text{Dirichlet}(\psi, …, \psi),

:math:`\rho_k` uniform, :math:`\alpha_k \sim \text{Gamma}(a, \lambda)` independently
(BayesMallows: ψ = 10, a = 1, λ = 0.001). One iteration updates, in turn,

1. the latent complete rankings of partial data, each given its own cluster's
   :math:`(\rho_{z_j}, \alpha_{z_j})` (:meth:`Augmentation.update` with one consensus per
   ranking);
2. every cluster's :math:`\rho_k` by one leap-and-shift proposal and :math:`\alpha_k` by one
   log-normal step — the moves of :class:`~rankstats.models.mallows._metropolis.MetropolisChain`
   applied to the rankings the cluster holds (an empty cluster draws from its prior);
3. :math:`\tau \mid z \sim \text{Dirichlet}(\psi + N_1, …, \psi + N_K)` (conjugate);
4. every :math:`z_j` from its full conditional :math:`P(z_j = k) \propto \tau_k\,
   e^{-\alpha_k d(R_j, \rho_k)/n} / Z_n(\alpha_k)` (all assessors at once).

**Label switching.** The likelihood and the symmetric priors do not change when the clusters
are renumbered, so the posterior has ``K!`` symmetric copies and a chain — or two chains — may
hold the same clusters under different numbers. Every kept draw is relabelled to a *pivot*
(Marin, Mengersen & Robert 2005, "pivotal reordering"): the numbering of the ``K`` consensuses
that minimises the summed footrule distance between each :math:`\rho_k` of the draw and the
pivot's consensus of the same number, an assignment problem
(:func:`scipy.optimize.linear_sum_assignment`). The pivot is one chain's state at the end of
tuning, shared by every chain, so that the chains' draws, their R-hat and the posterior
probability of each assessor's cluster all refer to the same numbering. The relabelled draws
are those of the posterior restricted to one of its symmetric copies when the clusters are
distinct; when two clusters have nearly the same consensus the numbering is arbitrary and the
chains' R-hat says so.

Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *JMLR* 18(158), 1–49. Marin, J.-M., Mengersen,
K. and Robert, C. P. (2005). Bayesian modelling and inference on mixtures of distributions.
*Handbook of Statistics* 25, 459–507.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from rankstats.core.permutations.distances import (
    ITEMWISE,
    central_ranking,
    check_distance,
    row_distances,
    total_distance,
)
from rankstats.core.permutations.partition import PartitionFunction, partition_function
from rankstats.core.preferences import AssessorPreferences
from rankstats.models.mallows._augmentation import Augmentation
from rankstats.models.mallows._metropolis import (
    ADAPT_WINDOW,
    ALPHA_RATE,
    ALPHA_SD,
    ALPHA_START,
    LEAP,
    MODE_EVERY,
    RHO_PROPOSALS,
    check_rho_proposal,
    propose_rho,
)

#: BayesMallows' default concentration of the Dirichlet prior on the cluster weights.
PSI = 10.0
#: k-medians clusterings tried for a chain's start (the best is kept), and the most Lloyd
#: iterations of each. With thousands of assessors the posterior of the clustering is so
#: concentrated that a chain started in a poorer local optimum stays there (sushi, K ≥ 2, one
#: k-means++ seed per chain: chains in different clusterings, R-hat 1.8e7).
RESTARTS = 10
K_MEDIANS_STEPS = 30


@dataclass(frozen=True, eq=False)
class MixtureDraws:
    """The kept draws of one chain, relabelled to its pivot: ``rho`` ``(draws, K, n)``,
    ``alpha`` and ``weight`` ``(draws, K)``, ``within`` ``(draws,)`` (the within-cluster
    distance :math:`\\sum_j d(R_j, \\rho_{z_j})`), and the number of kept draws that put each
    assessor in each cluster, ``(N, K)``, so far."""

    rho: np.ndarray = field(repr=False)
    alpha: np.ndarray = field(repr=False)
    weight: np.ndarray = field(repr=False)
    within: np.ndarray = field(repr=False)
    assigned: np.ndarray = field(repr=False)


def pivot_permutation(rho: np.ndarray, pivot: np.ndarray) -> np.ndarray:
    r"""``new[k]``: the number, in the pivot's numbering, of cluster ``k`` of ``rho``
    ``(K, n)`` — the numbering that minimises
    :math:`\sum_k \text{footrule}(\rho_k, \text{pivot}_{\text{new}[k]})`."""
    cost = np.abs(rho[:, None, :] - pivot[None, :, :]).sum(axis=2)
    rows, cols = linear_sum_assignment(cost)
    new = np.empty(len(rho), dtype=np.int64)
    new[rows] = cols
    return new


class MixtureChain:
    """One chain of the mixture sampler (:meth:`run` continues where the last call stopped).

    Parameters
    ----------
    rankings : ndarray, shape (N, n), or AssessorPreferences
        As :class:`~rankstats.models.mallows._metropolis.MetropolisChain`.
    distance : str
    rng : numpy.random.Generator
    clusters : int
        ``K ≥ 1``.
    kind, leap, alpha_sd, alpha_shape, alpha_rate, alpha_start, partition, rho_proposal
        As :class:`~rankstats.models.mallows._metropolis.MetropolisChain` (one α proposal scale
        per cluster, each adapted while tuning).
    psi : float
        Concentration of the symmetric Dirichlet prior on the weights.

    The chain starts from the best of :data:`RESTARTS` k-medians clusterings of the assessors'
    (first) completions, each seeded by k-means++ (Arthur & Vassilvitskii 2007: the first
    centre uniformly, each next one with probability proportional to its distance to the
    nearest chosen) and refined by Lloyd's iterations; α = ``alpha_start``, equal weights and
    every assessor in its most probable cluster.
    """

    def __init__(
        self,
        rankings: np.ndarray | AssessorPreferences,
        distance: str,
        rng: np.random.Generator,
        clusters: int,
        *,
        kind: str = "subset",
        leap: int = LEAP,
        alpha_sd: float = ALPHA_SD,
        alpha_shape: float = 1.0,
        alpha_rate: float = ALPHA_RATE,
        alpha_start: float = ALPHA_START,
        psi: float = PSI,
        partition: PartitionFunction | None = None,
        rho_proposal: str = RHO_PROPOSALS[0],
    ) -> None:
        check_distance(distance)
        check_rho_proposal(rho_proposal)
        if isinstance(rankings, AssessorPreferences):
            above = rankings.above
            observed = np.full(above.shape[:2], np.nan)
        else:
            above = None
            observed = np.asarray(rankings, dtype=np.float64)
        if observed.ndim != 2 or observed.shape[0] < 1 or observed.shape[1] < 2:
            raise ValueError("rankings must be an (N, n) matrix of rank vectors, n ≥ 2")
        n_rankings, n = observed.shape
        if isinstance(clusters, bool) or not isinstance(clusters, (int, np.integer)):
            raise ValueError(f"clusters must be a whole number ≥ 1, not {clusters!r}")
        if not 1 <= clusters <= n_rankings:
            raise ValueError(
                f"clusters must be between 1 and the number of rankings ({n_rankings}), "
                f"not {clusters}"
            )
        if not 1 <= leap <= n - 1:
            raise ValueError(f"leap must be between 1 and n − 1 = {n - 1}, not {leap!r}")
        if not (alpha_sd > 0 and alpha_shape > 0 and alpha_rate > 0 and alpha_start > 0):
            raise ValueError("alpha_sd, alpha_shape, alpha_rate and alpha_start must be > 0")
        if not psi > 0:
            raise ValueError(f"psi must be > 0, not {psi!r}")
        self.distance, self.rng, self.n, self.n_rankings = distance, rng, n, n_rankings
        self.clusters, self.leap, self.psi = int(clusters), leap, float(psi)
        self.rho_proposal = rho_proposal
        #: The mixture log-likelihood after every tuning iteration (restart_stragglers).
        self.trace: list[float] = []
        self.alpha_shape, self.alpha_rate = alpha_shape, alpha_rate
        self.augmentation = Augmentation(observed, kind, distance, rng, above=above)
        self.pf = partition if partition is not None else partition_function(n, distance)
        self.itemwise = distance in ITEMWISE
        if self.itemwise:
            ranks = np.arange(1, n + 1)
            gap = ranks[:, None] - ranks[None, :]
            self.term = {"footrule": np.abs(gap), "spearman": gap**2, "hamming": gap != 0}[
                distance
            ].astype(np.int64)
        k = self.clusters
        self.rho = self._seeds(self.augmentation.completions)
        self.alpha = np.full(k, float(alpha_start))
        self.alpha_sd = np.full(k, float(alpha_sd))
        self.log_z = np.asarray(self.pf.log_z(self.alpha), dtype=np.float64)
        self.weight = np.full(k, 1.0 / k)
        d = self._distances()
        self.z = np.argmax(np.log(self.weight) - self.alpha / n * d - self.log_z, axis=1)
        self.pivot: np.ndarray | None = None
        self.assigned = np.zeros((n_rankings, k), dtype=np.int64)
        self.accepted_rho = np.zeros(k, dtype=np.int64)
        self.accepted_alpha = np.zeros(k, dtype=np.int64)
        self.iterations = 0
        self.window = 0
        self.window_accepted = np.zeros(k, dtype=np.int64)

    # ------------------------------------------------------------------ pieces
    def _seeds(self, completions: np.ndarray) -> np.ndarray:
        """The best of :data:`RESTARTS` k-medians clusterings of the completions (each seeded
        by k-means++, :meth:`_k_means_pp`): the consensuses with the least summed distance of
        every completion to its nearest one."""
        best, best_cost = None, np.inf
        for _ in range(RESTARTS):
            centres, cost = self._k_medians(completions, self._k_means_pp(completions))
            if cost < best_cost:
                best, best_cost = centres, cost
        return best

    def _k_means_pp(self, completions: np.ndarray) -> np.ndarray:
        """k-means++ seeding of the consensuses among the completions (footrule distance)."""
        rng, m = self.rng, len(completions)
        chosen = [int(rng.integers(m))]
        nearest = np.abs(completions - completions[chosen[0]]).sum(axis=1).astype(np.float64)
        for _ in range(1, self.clusters):
            total = nearest.sum()
            if total > 0:
                pick = int(np.searchsorted(np.cumsum(nearest), rng.random() * total, "right"))
                pick = min(pick, m - 1)
            else:  # every completion equal: any other assessor
                pick = int(rng.integers(m))
            chosen.append(pick)
            nearest = np.minimum(nearest, np.abs(completions - completions[pick]).sum(axis=1))
        return completions[chosen].copy()

    def _k_medians(self, completions: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, float]:
        """Lloyd's iterations from ``centres``: every completion to its nearest consensus (the
        model's distance), every consensus to the central ranking of its members (the model's
        distance where it is item-wise, else the footrule's: an assignment problem), until no
        completion moves or :data:`K_MEDIANS_STEPS`. Returns the consensuses and the summed
        distance."""
        target = self.distance if self.itemwise else "footrule"
        nearest = None
        for _ in range(K_MEDIANS_STEPS):
            d = np.stack([row_distances(completions, c, self.distance) for c in centres], axis=1)
            closest = np.argmin(d, axis=1)
            if nearest is not None and np.array_equal(closest, nearest):
                break
            nearest = closest
            for k in range(self.clusters):  # K small
                members = completions[nearest == k]
                if len(members):  # an empty cluster keeps its consensus
                    centres[k] = central_ranking(members, target)
        d = np.stack([row_distances(completions, c, self.distance) for c in centres], axis=1)
        return centres, float(d.min(axis=1).sum())

    def _distances(self) -> np.ndarray:
        """``d(R_j, ρ_k)`` for every (latent) ranking and cluster, ``(N, K)``."""
        comp = self.augmentation.completions
        return np.stack([row_distances(comp, r, self.distance) for r in self.rho], axis=1)

    def _cluster_costs(self) -> np.ndarray:
        """Item-wise distances: ``cost[k, i, r − 1]`` = :math:`\\sum_{j: z_j = k} f(R_{ji} − r)`
        (the :class:`~rankstats.models.mallows._metropolis.RankCosts` of each cluster)."""
        comp = self.augmentation.completions
        n = comp.shape[1]
        key = (self.z[:, None] * n + np.arange(n)[None, :]) * n + (comp - 1)
        counts = np.bincount(key.ravel(), minlength=self.clusters * n * n)
        return counts.reshape(self.clusters, n, n) @ self.term

    def _total(self, k: int, rho: np.ndarray, costs: np.ndarray | None, members) -> int:
        r""":math:`D_k(\rho) = \sum_{j: z_j = k} d(R_j, \rho)`."""
        if costs is not None:
            return int(costs[k, np.arange(self.n), rho - 1].sum())
        if len(members) == 0:
            return 0
        return total_distance(members, rho, self.distance)

    def _toward_mode(self, k: int, members: np.ndarray, total: int, costs) -> int:
        """Tuning only: cluster ``k``'s consensus jumps to the ranking closest to its members
        when that is closer than the current one (as
        :meth:`~rankstats.models.mallows._metropolis.MetropolisChain._toward_mode`)."""
        if len(members) == 0:
            return total
        target = self.distance if self.itemwise else "footrule"
        candidate = central_ranking(members, target)
        new_total = self._total(k, candidate, costs, members)
        if new_total < total:
            self.rho[k] = candidate
            return new_total
        return total

    # ------------------------------------------------------------------ iterations
    def run(self, iterations: int, thin: int = 1, adapt: bool = False) -> MixtureDraws:
        """``iterations`` more iterations; every ``thin``-th (counted from the chain's first
        iteration) is kept, relabelled to :attr:`pivot` (which must be set: :meth:`set_pivot`)
        unless nothing is kept. ``adapt``: tuning, nothing kept (α's proposal scales adapt as in
        :meth:`MetropolisChain.run`, and every :data:`MODE_EVERY` iterations each consensus
        may jump to its cluster's conditional mode)."""
        n, k_all, rng = self.n, self.clusters, self.rng
        kept = 0 if adapt else (self.iterations + iterations) // thin - self.iterations // thin
        if kept and self.pivot is None:
            raise RuntimeError("set the pivot (set_pivot) before keeping draws")
        rho_draws = np.empty((kept, k_all, n), dtype=np.int64)
        alpha_draws = np.empty((kept, k_all))
        weight_draws = np.empty((kept, k_all))
        within_draws = np.empty(kept)
        slot = 0
        comp = self.augmentation.completions  # updated in place by the augmentation
        for t in range(iterations):  # a Markov chain: one iteration after the other
            # --- 1. the latent ranks, each ranking with its own cluster's consensus
            if self.augmentation.active:
                self.augmentation.update(self.rho[self.z], self.alpha[self.z] / n)
            costs = self._cluster_costs() if self.itemwise else None
            counts = np.bincount(self.z, minlength=k_all)
            mode_jump = adapt and (self.iterations + t) % MODE_EVERY == 0
            # --- 2. each cluster's ρ (leap and shift) and α (log-normal walk)
            u = rng.random((k_all, 5))  # item, rank offset, two acceptance uniforms, leap
            step = rng.standard_normal(k_all)
            totals = np.empty(k_all)
            for k in range(k_all):  # K clusters, K small: one proposal each
                members = comp[self.z == k] if costs is None else None
                rho = self.rho[k]
                total = self._total(k, rho, costs, members)
                if mode_jump:
                    if members is None:
                        members = comp[self.z == k]
                    total = self._toward_mode(k, members, total, costs)
                    rho = self.rho[k]
                proposal, back, forward = propose_rho(
                    rho, u[k, [0, 1, 4]], self.rho_proposal, self.leap
                )
                new_total = self._total(k, proposal, costs, members)
                log_ratio = -self.alpha[k] / n * (new_total - total) + back - forward
                if math.log(u[k, 2]) < log_ratio:
                    self.rho[k], total = proposal, new_total
                    self.accepted_rho[k] += 1
                totals[k] = total
            new_alpha = self.alpha * np.exp(self.alpha_sd * step)
            new_log_z = np.asarray(self.pf.log_z(new_alpha), dtype=np.float64)
            log_ratio = (
                -(new_alpha - self.alpha) / n * totals
                - counts * (new_log_z - self.log_z)
                - self.alpha_rate * (new_alpha - self.alpha)
                + self.alpha_shape * np.log(new_alpha / self.alpha)  # prior and Jacobian
            )
            accept = np.log(u[:, 3]) < log_ratio
            self.alpha = np.where(accept, new_alpha, self.alpha)
            self.log_z = np.where(accept, new_log_z, self.log_z)
            self.accepted_alpha += accept
            if adapt:
                self.window_accepted += accept
                self.window += 1
                if self.window == ADAPT_WINDOW:
                    rate = self.window_accepted / ADAPT_WINDOW
                    self.alpha_sd = np.clip(self.alpha_sd * np.exp(rate - 0.44), 0.01, 5.0)
                    self.window = 0
                    self.window_accepted[:] = 0
            # --- 3. the weights
            self.weight = rng.dirichlet(self.psi + counts)
            # --- 4. the assignments
            d = self._distances()
            logp = np.log(self.weight) - self.alpha / n * d - self.log_z
            top = logp.max(axis=1, keepdims=True)
            logp -= top
            cdf = np.cumsum(np.exp(logp), axis=1)
            if adapt:  # the mixture log-likelihood, clusters summed out (see restart_stragglers)
                self.trace.append(float(top.sum() + np.log(cdf[:, -1]).sum()))
            pick = rng.random(self.n_rankings) * cdf[:, -1]
            self.z = np.minimum((cdf < pick[:, None]).sum(axis=1), k_all - 1)
            if (self.iterations + t + 1) % thin == 0 and kept:
                new = pivot_permutation(self.rho, self.pivot)
                rho_draws[slot, new] = self.rho
                alpha_draws[slot, new] = self.alpha
                weight_draws[slot, new] = self.weight
                rows = np.arange(self.n_rankings)
                within_draws[slot] = d[rows, self.z].sum()
                np.add.at(self.assigned, (rows, new[self.z]), 1)
                slot += 1
        self.iterations += iterations
        return MixtureDraws(rho_draws, alpha_draws, weight_draws, within_draws, self.assigned)

    def adopt(self, other: MixtureChain) -> None:
        """Continue from ``other``'s state (consensuses, dispersions and their proposal scales,
        weights, assignments, latent rankings) with this chain's own random generator."""
        self.rho, self.alpha = other.rho.copy(), other.alpha.copy()
        self.alpha_sd, self.log_z = other.alpha_sd.copy(), other.log_z.copy()
        self.weight, self.z = other.weight.copy(), other.z.copy()
        self.augmentation.completions[...] = other.augmentation.completions

    def set_pivot(self, pivot: np.ndarray) -> None:
        """The numbering that kept draws are relabelled to: ``K`` consensuses ``(K, n)``."""
        self.pivot = np.asarray(pivot, dtype=np.int64).copy()


def restart_stragglers(chains: list[MixtureChain]) -> list[tuple[int, float]]:
    r"""At the end of tuning: every chain whose mixture log-likelihood
    :math:`\sum_j \log \sum_k \tau_k p(R_j \mid \rho_k, \alpha_k)` stayed, over the second
    half of its tuning, below every value the best chain (highest mean there) took continues
    from the best chain's state (:meth:`MixtureChain.adopt`, its own generator).

    Why: with thousands of assessors the posterior of a mixture has local modes — a cluster's
    consensus one swap away, the assessors sorted accordingly — that a chain does not leave
    (sushi, 3 clusters: one chain of four settled 43 log-likelihood units below the others,
    whose traces varied by 1.5 s.d.; such a mode holds a share of the posterior of order
    :math:`e^{-43}`). The kept draws then describe the main mode, and R-hat still compares
    chains that explore it from their own random numbers. Chains whose traces overlap the best
    one's are left alone: modes of comparable height are the convergence check's to report.

    Returns ``(chain, gap)`` for each restarted chain: the gap between the two chains' mean
    log-likelihoods.
    """
    halves = [np.asarray(c.trace[len(c.trace) // 2 :]) for c in chains]
    if any(len(h) == 0 for h in halves):
        return []
    best = int(np.argmax([h.mean() for h in halves]))
    restarted = []
    for c, half in enumerate(halves):
        if c != best and half.max() < halves[best].min():
            chains[c].adopt(chains[best])
            restarted.append((c, float(halves[best].mean() - half.mean())))
    return restarted

r"""Metropolis–Hastings sampler of the Bayesian Mallows model with any distance of
:mod:`rankstats.core.permutation_distances` (Vitelli et al., 2018, Sec. 3–4), on complete
rankings, on partial rankings (unranked and tied items) and on each assessor's pairwise
preferences; the last two through latent complete rankings (:class:`Augmentation`).

Target, in BayesMallows' parametrisation, for ``N`` complete (or latent complete) rankings
:math:`R_1, …, R_N` of ``n`` items:

.. math::

    p(\rho, \alpha \mid R) \propto
    \frac{e^{-\frac{\alpha}{n} \sum_j d(R_j, \rho)}}{Z_n(\alpha)^N}\; e^{-\lambda \alpha},

ρ uniform a priori and α ~ Gamma(a, λ) — with ``a = 1`` the Exponential(λ) of BayesMallows
(default λ = 0.001). One iteration:

1. **ρ by leap-and-shift** (Vitelli et al. 2018, Sec. 3.1): an item ``u`` uniformly, a new rank
   ``r`` uniformly among the ranks within ``L`` of :math:`\rho_u`, and the items between the
   old and the new rank shifted by one towards the old. The move is not symmetric near the ends
   and for ``|r − ρ_u| = 1`` (an adjacent swap, reached from either of the two items), so the
   acceptance ratio carries the proposal probabilities of :func:`leap_and_shift_log_q`. ``L``
   is drawn uniformly from ``1 … leap`` at every iteration, independently of the state: a
   mixture of leap-and-shift kernels, each reversible, hence reversible (``leap = 1``:
   BayesMallows' kernel);
2. **α by a log-normal random walk**: :math:`\log \alpha^* = \log \alpha + \sigma_\alpha z`, with
   the Jacobian :math:`\alpha^* / \alpha` in the ratio and :math:`\log Z_n` from
   :func:`rankstats.core.mallows_partition.partition_function`.

Given the latent rankings, the data enter only through :math:`D(\rho) = \sum_j d(R_j, \rho)`,
evaluated for all of them at once (:func:`rankstats.core.permutation_distances.total_distance`);
each iteration first updates the latent rankings (:meth:`Augmentation.update`), then ρ, then α.

Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *JMLR* 18(158), 1–49.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from rankstats.core.mallows_partition import PartitionFunction, partition_function
from rankstats.core.permutation_distances import (
    ITEMWISE,
    central_ranking,
    check_distance,
    row_distances,
    total_distance,
)
from rankstats.core.preferences import AssessorPreferences

#: BayesMallows' defaults: the rate of α's exponential prior, the leap size, the standard
#: deviation of the log-normal proposal of α, and α's starting value.
ALPHA_RATE = 0.001
LEAP = 1
ALPHA_SD = 0.1
ALPHA_START = 1.0
#: Proposals of α between two adaptations of its proposal's scale (:meth:`MetropolisChain.run`).
ADAPT_WINDOW = 50
#: Item-wise distances evaluate D(ρ) from :class:`RankCosts` (False: from the rankings, the
#: reference the tests compare it with, draw for draw).
SUFFICIENT = True
#: Tuning iterations between two jumps of ρ to the conditional mode (:meth:`MetropolisChain.run`).
MODE_EVERY = 250


@dataclass(frozen=True, eq=False)
class MetropolisDraws:
    """The draws of one chain: ``rho`` ``(draws, n)`` rank vectors of the consensus, ``alpha``
    ``(draws,)``, and the acceptance rates of the two moves."""

    rho: np.ndarray = field(repr=False)
    alpha: np.ndarray = field(repr=False)
    acceptance_rho: float
    acceptance_alpha: float


def leap_and_shift(rho: np.ndarray, item: int, rank: int) -> np.ndarray:
    """``ρ`` with ``item`` moved to ``rank`` and the items between shifted by one (a new
    array)."""
    new = rho.copy()
    old = rho[item]
    if rank > old:
        new[(rho > old) & (rho <= rank)] -= 1
    elif rank < old:
        new[(rho >= rank) & (rho < old)] += 1
    new[item] = rank
    return new


def _choices(position: int, n: int, leap: int) -> int:
    """Ranks within ``leap`` of ``position`` (1-based), other than itself."""
    return min(n, position + leap) - max(1, position - leap)


def leap_and_shift_log_q(rho: np.ndarray, new: np.ndarray, leap: int) -> float:
    """``log q(new | ρ)`` of the leap-and-shift proposal (``-inf`` when it cannot reach
    ``new``).

    An item that moves by two or more ranks is the one chosen; a move by one rank is the swap
    of two adjacent items, which either of them proposes.
    """
    n = len(rho)
    moved = np.flatnonzero(new != rho)
    if len(moved) == 0:
        return -math.inf
    step = np.abs(new[moved] - rho[moved])
    if step.max() > leap:
        return -math.inf
    if len(moved) == 2 and step.max() == 1:  # an adjacent swap: proposed by either item
        total = sum(1.0 / _choices(int(rho[i]), n, leap) for i in moved)
        return math.log(total / n)
    far = moved[step >= 2]
    if len(far) != 1 or np.sum(step == 1) != len(moved) - 1:
        return -math.inf
    return -math.log(n * _choices(int(rho[far[0]]), n, leap))


def run_chain(
    rankings: np.ndarray | AssessorPreferences,
    distance: str,
    draws: int,
    rng: np.random.Generator,
    **options,
) -> MetropolisDraws:
    """``draws`` iterations of a new :class:`MetropolisChain` (every one kept: the caller
    discards the tuning); ``options`` as :class:`MetropolisChain`."""
    return MetropolisChain(rankings, distance, rng, **options).run(draws)


class MetropolisChain:
    """One chain of the sampler; :meth:`run` continues where the last call stopped (a chain
    run in blocks draws what one run draws: each iteration takes its random numbers in turn).

    Parameters
    ----------
    rankings : ndarray, shape (N, n), or AssessorPreferences
        Rank vectors (1 = best): complete, or partial — NaN for an unranked item, equal ranks
        for tied items. A partial ranking is completed by latent ranks (:class:`Augmentation`)
        whose compatible completions depend on ``kind``. Or each assessor's pairwise
        preferences (:class:`~rankstats.core.preferences.AssessorPreferences`): a complete
        latent ranking per assessor that respects their transitive closure.
    distance : str
        One of :data:`rankstats.core.permutation_distances.DISTANCES`.
    rng : numpy.random.Generator
    kind : {"subset", "top_k"}
        ``"subset"``: only the order of the ranked items is observed (an unranked item may be
        anywhere); ``"top_k"``: the unranked items are below every ranked one.
    leap, alpha_sd, alpha_shape, alpha_rate, alpha_start
        Largest leap size (1 … n − 1), the log-scale standard deviation of α's proposal (its
        start: it adapts while tuning), the shape and rate of α's Gamma prior (shape 1:
        exponential) and α's starting value.
    rho_start : ndarray, optional
        Starting consensus (default: the ranks of the mean ranks of the completions).
    partition : PartitionFunction, optional
        Default :func:`partition_function` ``(n, distance)``.
    """

    def __init__(
        self,
        rankings: np.ndarray | AssessorPreferences,
        distance: str,
        rng: np.random.Generator,
        *,
        kind: str = "subset",
        leap: int = LEAP,
        alpha_sd: float = ALPHA_SD,
        alpha_shape: float = 1.0,
        alpha_rate: float = ALPHA_RATE,
        alpha_start: float = ALPHA_START,
        rho_start: np.ndarray | None = None,
        partition: PartitionFunction | None = None,
    ) -> None:
        check_distance(distance)
        if isinstance(rankings, AssessorPreferences):
            above = rankings.above
            observed = np.full(above.shape[:2], np.nan)
        else:
            above = None
            observed = np.asarray(rankings, dtype=np.float64)
        if observed.ndim != 2 or observed.shape[0] < 1 or observed.shape[1] < 2:
            raise ValueError("rankings must be an (N, n) matrix of rank vectors, n ≥ 2")
        n_rankings, n = observed.shape
        if not 1 <= leap <= n - 1:
            raise ValueError(f"leap must be between 1 and n − 1 = {n - 1}, not {leap!r}")
        if not (alpha_sd > 0 and alpha_shape > 0 and alpha_rate > 0 and alpha_start > 0):
            raise ValueError("alpha_sd, alpha_shape, alpha_rate and alpha_start must be > 0")
        self.distance, self.rng, self.n, self.n_rankings = distance, rng, n, n_rankings
        self.leap, self.alpha_sd = leap, alpha_sd
        self.alpha_shape, self.alpha_rate = alpha_shape, alpha_rate
        self.augmentation = Augmentation(observed, kind, distance, rng, above=above)
        self.pf = partition if partition is not None else partition_function(n, distance)
        completions = self.augmentation.completions
        if rho_start is None:
            order = np.argsort(completions.mean(axis=0), kind="stable")
            self.rho = np.argsort(order, kind="stable") + 1
        else:
            self.rho = np.asarray(rho_start, dtype=np.int64).copy()
        self.alpha = float(alpha_start)
        # Item-wise distances: the rankings enter through the cost of each item at each rank
        # (RankCosts), O(n) per evaluation of D(ρ) instead of O(N n).
        itemwise = distance in ITEMWISE and SUFFICIENT
        self.costs = RankCosts(completions, distance) if itemwise else None
        self.total = self._total(completions, self.rho)
        self.log_z = float(self.pf.log_z(self.alpha))
        self.accepted_rho = self.accepted_alpha = self.iterations = 0
        self.window = self.window_accepted = 0  # the adaptation of alpha_sd (run(adapt=True))

    def _total(self, rankings: np.ndarray, rho: np.ndarray) -> int:
        r""":math:`D(\rho) = \sum_j d(R_j, \rho)` over the current (latent) rankings."""
        if self.costs is not None:
            return self.costs.total(rho)
        return total_distance(rankings, rho, self.distance)

    def _toward_mode(self, rho: np.ndarray, total: int) -> tuple[np.ndarray, int]:
        """Tuning only: ρ replaced by the ranking closest to the current (latent) complete
        rankings — exact for the distances of
        :data:`~rankstats.core.permutation_distances.ITEMWISE`, the footrule's for the others —
        when that lowers their total distance (the conditional mode of ρ, whatever α). With
        many assessors the posterior of ρ is so peaked that leap-and-shift moves from a
        ranking a few swaps from the mode are almost never accepted: a chain started there
        would stay (BayesMallows' published sushi consensus is such a ranking)."""
        rankings = self.augmentation.completions
        target = self.distance if self.distance in ITEMWISE else "footrule"
        candidate = central_ranking(rankings, target)
        new_total = self._total(rankings, candidate)
        if new_total < total:
            return candidate, new_total
        return rho, total

    def run(self, iterations: int, thin: int = 1, adapt: bool = False) -> MetropolisDraws:
        """``iterations`` more iterations; the draws of every ``thin``-th of them (counted from
        the chain's first iteration) and the acceptance rates so far.

        ``adapt`` (tuning only: the chain is not Markov while it adapts): every
        :data:`ADAPT_WINDOW` proposals of α, its proposal's standard deviation is multiplied by
        :math:`e^{a - 0.44}`, ``a`` the window's acceptance rate (0.44: the optimal rate of a
        one-dimensional random walk, Roberts & Rosenthal 2001), within [0.01, 5]; windows are
        counted by the chain, so blocks of any size adapt alike. Every :data:`MODE_EVERY`
        tuning iterations ρ also jumps to the conditional mode when that is better
        (:meth:`_toward_mode`)."""
        n, leap, rng = self.n, self.leap, self.rng
        rankings = self.augmentation.completions  # updated in place by the augmentation
        kept = (self.iterations + iterations) // thin - self.iterations // thin
        rho_draws = np.empty((kept, n), dtype=np.int64)
        alpha_draws = np.empty(kept)
        slot = 0
        rho, alpha, total, log_z = self.rho, self.alpha, self.total, self.log_z
        for t in range(iterations):  # a Markov chain: one iteration after the other
            u = rng.random(5)  # item, rank offset, the two acceptance uniforms, the leap
            step = rng.standard_normal()
            if adapt and (self.iterations + t) % MODE_EVERY == 0:
                rho, total = self._toward_mode(rho, total)
            # --- the latent ranks of the partial rankings
            if self.augmentation.active:
                total += self.augmentation.update(rho, alpha / n)
                if self.costs is not None:
                    self.costs.move(*self.augmentation.moves)
            # --- ρ: leap and shift
            item = int(u[0] * n)
            position = int(rho[item])
            size = 1 + int(u[4] * leap)  # this iteration's leap: uniform on 1 … leap
            low, high = max(1, position - size), min(n, position + size)
            choice = low + int(u[1] * (high - low))  # uniform on the high − low other ranks
            rank = choice + 1 if choice >= position else choice
            proposal = leap_and_shift(rho, item, rank)
            new_total = self._total(rankings, proposal)
            log_ratio = (
                -alpha / n * (new_total - total)
                + leap_and_shift_log_q(proposal, rho, size)
                - leap_and_shift_log_q(rho, proposal, size)
            )
            if math.log(u[2]) < log_ratio:
                rho, total = proposal, new_total
                self.accepted_rho += 1
            # --- α: log-normal random walk
            new_alpha = alpha * math.exp(self.alpha_sd * step)
            new_log_z = float(self.pf.log_z(new_alpha))
            log_ratio = (
                -(new_alpha - alpha) / n * total
                - self.n_rankings * (new_log_z - log_z)
                - self.alpha_rate * (new_alpha - alpha)
                + self.alpha_shape * math.log(new_alpha / alpha)  # prior and Jacobian
            )
            if math.log(u[3]) < log_ratio:
                alpha, log_z = new_alpha, new_log_z
                self.accepted_alpha += 1
                self.window_accepted += adapt
            if adapt:
                self.window += 1
                if self.window == ADAPT_WINDOW:
                    rate = self.window_accepted / ADAPT_WINDOW
                    self.alpha_sd = min(5.0, max(0.01, self.alpha_sd * math.exp(rate - 0.44)))
                    self.window = self.window_accepted = 0
            if (self.iterations + t + 1) % thin == 0:
                rho_draws[slot] = rho
                alpha_draws[slot] = alpha
                slot += 1
        self.rho, self.alpha, self.total, self.log_z = rho, alpha, total, log_z
        self.iterations += iterations
        done = max(self.iterations, 1)
        return MetropolisDraws(
            rho_draws, alpha_draws, self.accepted_rho / done, self.accepted_alpha / done
        )


class RankCosts:
    r"""The sufficient statistic of a set of rankings for an item-wise distance
    (:data:`~rankstats.core.permutation_distances.ITEMWISE`): ``cost[i, r − 1]`` =
    :math:`\sum_j f(R_{ji} - r)`, so that :math:`\sum_j d(R_j, \rho) = \sum_i
    \text{cost}[i, \rho_i - 1]` — O(n) per consensus instead of O(N n). ``cost`` = counts of
    each item at each rank × the table :math:`f(k - r)`, all integers (exact)."""

    def __init__(self, rankings: np.ndarray, distance: str) -> None:
        m, n = rankings.shape
        ranks = np.arange(1, n + 1)
        gap = ranks[:, None] - ranks[None, :]
        self.term = {"footrule": np.abs(gap), "spearman": gap**2, "hamming": (gap != 0)}[
            distance
        ].astype(np.int64)
        counts = np.zeros((n, n), dtype=np.int64)
        np.add.at(counts, (np.tile(np.arange(n), m), rankings.ravel() - 1), 1)
        self.cost = counts @ self.term
        self.items = np.arange(n)

    def total(self, rho: np.ndarray) -> int:
        return int(self.cost[self.items, rho - 1].sum())

    def move(self, items: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
        """Items of some rankings moved from ranks ``old`` to ``new``."""
        if len(items):
            np.add.at(self.cost, items, self.term[new - 1] - self.term[old - 1])


#: How a partial ranking is completed (:class:`Augmentation`).
KINDS = ("subset", "top_k")


class Augmentation:
    r"""The latent complete rankings of partial rankings, and their Metropolis update.

    A completion is compatible with a partial ranking when it keeps every observed strict
    preference (``r_a < r_b`` whenever ``a`` is ranked above ``b``); tied items may take either
    order; with ``kind="top_k"`` every ranked item is also above every unranked one (the
    unranked items' observed rank is taken as ``n + 1``). One update proposes, for every
    partial ranking at once, to swap the ranks of a latent item ``u`` (unranked or tied, chosen
    uniformly) and of another item ``v`` (uniformly among the rest): the probability of
    proposing the pair ``{u, v}`` is the same from every completion, so the move is symmetric;
    an incompatible swap is rejected, a compatible one accepted with probability
    :math:`\min(1, e^{-(\alpha/n)\,[d(\tilde R^*, \rho) - d(\tilde R, \rho)]})`. Swaps of
    adjacent ranks connect every compatible completion (the linear extensions of a partial
    order), so the chain reaches them all (Vitelli et al. 2018, Sec. 4 use their own proposal
    for the same conditional).
    """

    def __init__(
        self,
        observed: np.ndarray,
        kind: str,
        distance: str,
        rng: np.random.Generator,
        above: np.ndarray | None = None,
    ):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.above = above
        if above is not None:  # preferences: every item's rank is latent
            self.distance, self.rng = distance, rng
            self.latent = np.ones(above.shape[:2], dtype=bool)
            # A compatible start: by the number of items each is preferred to (a ≻ b implies
            # a is preferred to more items than b in a transitive relation), ties at random.
            wins = above.sum(axis=2) + rng.random(above.shape[:2]) * 0.5
            self.completions = np.argsort(np.argsort(-wins, axis=1), axis=1).astype(np.int64) + 1
            self.rows = np.arange(above.shape[0])
            self.active, self.accepted, self.proposed = True, 0, 0
            return
        n = observed.shape[1]
        finite = observed[~np.isnan(observed)]
        if np.any(finite < 1) or np.any(finite > n):
            raise ValueError(f"ranks must lie in 1 … {n} (NaN: unranked)")
        self.distance, self.rng = distance, rng
        # The order that constrains a completion: the observed rank, unranked items last for
        # top-k (n + 1) and free for sub-rankings (NaN: no constraint).
        self.key = np.where(np.isnan(observed), n + 1.0, observed) if kind == "top_k" else observed
        tied = np.zeros_like(observed, dtype=bool)
        for j in range(n):  # n vectorised steps: is item j tied with another item of its row?
            same = observed == observed[:, j : j + 1]
            tied[:, j] = same.sum(axis=1) > 1
        self.latent = np.isnan(observed) | (tied & ~np.isnan(observed))
        counts = (~np.isnan(observed)).sum(axis=1)
        short = np.flatnonzero(counts < 1)
        if len(short):
            raise ValueError(f"ranking {int(short[0])} ranks no item")
        # A compatible start: by the key, ties and unranked items in a random order.
        noise = rng.random(observed.shape)
        start_key = np.where(np.isnan(self.key), n + 1.0, self.key) + noise * 1e-3
        self.completions = np.argsort(np.argsort(start_key, axis=1), axis=1).astype(np.int64) + 1
        self.rows = np.flatnonzero(self.latent.any(axis=1))
        self.active = len(self.rows) > 0
        self.accepted = 0
        self.proposed = 0

    def update(self, rho: np.ndarray, c: float | np.ndarray) -> int:
        """One swap proposal per partial ranking (in place); the change of the total distance
        to ``rho``: one consensus ``(n,)`` with ``c = α / n``, or one per ranking ``(N, n)``
        with ``c`` ``(N,)`` (a mixture: each ranking's cluster's)."""
        rows = self.rows
        if np.ndim(rho) == 2:
            rho = rho[rows]
        if np.ndim(c) == 1:
            c = c[rows]
        comp = self.completions[rows]
        latent = self.latent[rows]
        m, n = comp.shape
        rng = self.rng
        # u: a latent item of the row, uniformly; v: another item, uniformly.
        n_latent = latent.sum(axis=1)
        pick = (rng.random(m) * n_latent).astype(np.int64)
        u = np.argmax(np.cumsum(latent, axis=1) > pick[:, None], axis=1)
        v = (u + 1 + (rng.random(m) * (n - 1)).astype(np.int64)) % n
        index = np.arange(m)
        proposal = comp.copy()
        proposal[index, u], proposal[index, v] = comp[index, v], comp[index, u]
        ok = self._compatible(rows, proposal, u) & self._compatible(rows, proposal, v)
        before = row_distances(comp, rho, self.distance)
        after = row_distances(proposal, rho, self.distance)
        accept = ok & (np.log(rng.random(m)) < -c * (after - before))
        kept = index[accept]
        # The moves made: each accepted row's u and v, from their old ranks to their new ones.
        self.moves = (
            np.concatenate([u[kept], v[kept]]),
            np.concatenate([comp[kept, u[kept]], comp[kept, v[kept]]]),
            np.concatenate([comp[kept, v[kept]], comp[kept, u[kept]]]),
        )
        self.completions[rows[accept]] = proposal[accept]
        self.proposed += m
        self.accepted += int(accept.sum())
        return int((after - before)[accept].sum())

    def _compatible(self, rows: np.ndarray, proposal: np.ndarray, item: np.ndarray) -> np.ndarray:
        """Whether ``item`` of each row keeps its observed strict preferences in ``proposal``."""
        index = np.arange(len(rows))
        if self.above is not None:
            rank = proposal[index, item][:, None]
            over = self.above[rows, item]  # the items this one is preferred to
            under = self.above[rows, :, item]  # the items preferred to this one
            return ~((over & (rank > proposal)) | (under & (rank < proposal))).any(axis=1)
        key = self.key[rows]
        mine = key[index, item][:, None]
        rank = proposal[index, item][:, None]
        with np.errstate(invalid="ignore"):  # NaN keys (unranked sub-ranking items): no order
            above = (mine < key) & (rank > proposal)
            below = (mine > key) & (rank < proposal)
        return ~(above | below).any(axis=1)

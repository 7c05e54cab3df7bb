r"""Metropolis–Hastings sampler of the Bayesian Mallows model with any distance of
:mod:`rankstats.core.permutations.distances` (Vitelli et al., 2018, Sec. 3–4), on complete
rankings, on partial rankings (unranked and tied items) and on each assessor's pairwise
preferences; the last two through latent complete rankings (:class:`Augmentation`).

Target, in BayesMallows' parametrisation, for ``N`` complete (or latent complete) rankings
:math:`R_1, …, R_N` of ``n`` items:

.. math::

    p(\rho, \alpha \mid R) \propto
    \frac{e^{-\frac{\alpha}{n} \sum_j d(R_j, \rho)}}{Z_n(\alpha)^N}\; e^{-\lambda \alpha},

ρ uniform a priori and α ~ Gamma(a, λ) — with ``a = 1`` the Exponential(λ) of BayesMallows
(default λ = 0.001). One iteration:

1. **ρ by leap-and-shift** (Vitelli et al. 2018, Sec. 3.1; the default): an item ``u``
   uniformly, a new rank ``r`` uniformly among the ranks within ``L`` of :math:`\rho_u`, and the
   items between the old and the new rank shifted by one towards the old. The move is not
   symmetric near the ends and for ``|r − ρ_u| = 1`` (an adjacent swap, reached from either of
   the two items), so the acceptance ratio carries the proposal probabilities of
   :func:`leap_and_shift_log_q`. ``L`` is drawn uniformly from ``1 … leap`` at every iteration,
   independently of the state: a mixture of leap-and-shift kernels, each reversible, hence
   reversible (``leap = 1``: BayesMallows' kernel). **Or by swap** (``rho_proposal="swap"``,
   BayesMallows' other proposal: :func:`swap_ranks`): the items at ranks ``r`` and ``r + l``
   exchanged, ``l`` uniform on ``1 … leap`` and ``r`` on ``1 … n − l``; symmetric, so the
   ratio is the likelihood's (and ρ's uniform prior's) alone. :func:`propose_rho` makes either;
2. **α by a log-normal random walk**: :math:`\log \alpha^* = \log \alpha + \sigma_\alpha z`, with
   the Jacobian :math:`\alpha^* / \alpha` in the ratio and :math:`\log Z_n` from
   :func:`rankstats.core.permutations.partition.partition_function`.

Given the latent rankings, the data enter only through :math:`D(\rho) = \sum_j d(R_j, \rho)`,
evaluated for all of them at once (:func:`rankstats.core.permutations.distances.total_distance`);
each iteration first updates the latent rankings (:meth:`Augmentation.update`), then ρ, then α.

**Two backends, one chain** (:func:`resolve_backend`): the loop of :meth:`MetropolisChain.run`
here is the reference; the kernels of :mod:`rankstats.models.mallows._metropolis_numba` run
blocks of iterations from the same random numbers, drawn in the same order, and give the same
draws (tested draw for draw; that module says how), 200–9,000 times faster per iteration.

Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *JMLR* 18(158), 1–49.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from rankstats.core.permutations.distances import (
    DISTANCES,
    ITEMWISE,
    central_ranking,
    check_distance,
    total_distance,
)
from rankstats.core.permutations.partition import PartitionFunction, partition_function
from rankstats.core.preferences import AssessorPreferences
from rankstats.models.mallows._augmentation import Augmentation
from rankstats.models.mallows._gibbs import resolve_backend as resolve_sampler_backend

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
#: The proposals of ρ (:func:`propose_rho`); the first is the default.
RHO_PROPOSALS = ("leap_and_shift", "swap")
#: The numba backend draws at most this many random numbers at a time (``6 + 3 m`` per
#: iteration, ``m`` partial rankings; at least one iteration's): 8 MB, whatever the data.
BLOCK_NUMBERS = 1 << 20


@dataclass(frozen=True, eq=False)
class MetropolisDraws:
    """The draws of one chain: ``rho`` ``(draws, n)`` rank vectors of the consensus, ``alpha``
    ``(draws,)``, and the acceptance rates of the two moves."""

    rho: np.ndarray = field(repr=False)
    alpha: np.ndarray = field(repr=False)
    acceptance_rho: float
    acceptance_alpha: float
    #: The Bernoulli error model's error probability per kept draw (None without it).
    error: np.ndarray | None = field(default=None, repr=False)


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


def swap_ranks(n: int, leap: int, u_rank: float, u_leap: float) -> tuple[int, int]:
    """The ranks ``(r, r + l)`` whose items the swap proposal exchanges, from two uniforms on
    [0, 1): ``l`` uniform on ``1 … leap``, ``r`` uniform on ``1 … n − l`` (``leap ≤ n − 1``).

    BayesMallows' ``RhoSwap`` (``src/rank_proposal.cpp``, ocbe-uio/BayesMallows: ``l`` from
    ``sample(leap_size)``, ``u`` from ``sample(n_items − l)``, the items ranked ``u`` and
    ``u + l`` exchanged). The distribution of the pair does not depend on ρ and the swap is its
    own inverse, so ``q(ρ* | ρ) = q(ρ | ρ*)``: no Hastings correction.
    """
    size = 1 + int(u_leap * leap)
    low = 1 + int(u_rank * (n - size))
    return low, low + size


def propose_rho(
    rho: np.ndarray,
    uniforms: np.ndarray | tuple[float, float, float],
    proposal: str = RHO_PROPOSALS[0],
    leap: int = LEAP,
) -> tuple[np.ndarray, float, float]:
    r"""A proposal of ρ from three uniforms on [0, 1) — ``uniforms`` = (item, rank, leap); the
    swap ignores the first — as :class:`MetropolisChain` makes it (its NumPy path; the numba
    kernel repeats it).

    Returns ``(ρ*, log q(ρ | ρ*), log q(ρ* | ρ))``: the new ranking (a new array) and the two
    terms of the Hastings ratio, to be added to the log ratio in this order — ``… + back −
    forward``, as the kernels do, so that both give the same draws — both 0 for the symmetric
    swap. ``leap``: the largest leap (leap-and-shift: ``L`` uniform on ``1 … leap``) or the
    largest distance between the swapped ranks (swap), 1 … n − 1.
    """
    u_item, u_rank, u_leap = uniforms
    n = len(rho)
    if proposal == "swap":
        low, high = swap_ranks(n, leap, u_rank, u_leap)
        new = rho.copy()
        new[rho == low], new[rho == high] = high, low
        return new, 0.0, 0.0
    if proposal != "leap_and_shift":
        check_rho_proposal(proposal)
    item = int(u_item * n)
    position = int(rho[item])
    size = 1 + int(u_leap * leap)  # this proposal's leap: uniform on 1 … leap
    low, high = max(1, position - size), min(n, position + size)
    choice = low + int(u_rank * (high - low))  # uniform on the high − low other ranks
    rank = choice + 1 if choice >= position else choice
    new = leap_and_shift(rho, item, rank)
    return new, leap_and_shift_log_q(new, rho, size), leap_and_shift_log_q(rho, new, size)


def check_rho_proposal(proposal: str) -> None:
    """Raise a ValueError naming :data:`RHO_PROPOSALS` unless ``proposal`` is one of them."""
    if proposal not in RHO_PROPOSALS:
        raise ValueError(f"rho_proposal must be one of {RHO_PROPOSALS}, not {proposal!r}")


def resolve_backend(backend: str = "auto") -> str:
    """``"numpy"`` or ``"numba"``, as :func:`rankstats.models.mallows._gibbs.resolve_backend`
    for this sampler's kernels (:mod:`rankstats.models.mallows._metropolis_numba`)."""
    return resolve_sampler_backend(backend, kernels="_metropolis_numba")


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
        One of :data:`rankstats.core.permutations.distances.DISTANCES`.
    rng : numpy.random.Generator
    kind : {"subset", "top_k"}
        ``"subset"``: only the order of the ranked items is observed (an unranked item may be
        anywhere); ``"top_k"``: the unranked items are below every ranked one.
    rho_proposal : {"leap_and_shift", "swap"}
        The proposal of ρ (:func:`propose_rho`): leap-and-shift, or BayesMallows' swap of the
        items at two ranks at most ``leap`` apart.
    leap, alpha_sd, alpha_shape, alpha_rate, alpha_start
        Largest leap size (1 … n − 1; swap: largest distance of the swapped ranks), the
        log-scale standard deviation of α's proposal (its start: it adapts while tuning), the
        shape and rate of α's Gamma prior (shape 1: exponential) and α's starting value.
    rho_start : ndarray, optional
        Starting consensus (default: the ranks of the mean ranks of the completions).
    partition : PartitionFunction, optional
        Default :func:`partition_function` ``(n, distance)``.
    backend : {"auto", "numpy", "numba"}
        Where the iterations run (:func:`resolve_backend`): the NumPy reference, or the numba
        kernels of :mod:`rankstats.models.mallows._metropolis_numba` — the same draws for the
        same generator, faster. Resolved here, before a fit's worker processes fork.
    error_model : {None, "bernoulli"}
        Preferences only: ``"bernoulli"`` reads each assessor's *stated* preferences as
        possibly mistaken (:class:`~rankstats.models.mallows._bernoulli.BernoulliAugmentation`;
        cycles allowed), its error probability updated every iteration after the latent
        rankings; it runs the NumPy reference.
    kappa : (float, float)
        The Beta prior of the error probability.
    """

    def __init__(
        self,
        rankings: np.ndarray | AssessorPreferences,
        distance: str,
        rng: np.random.Generator,
        *,
        kind: str = "subset",
        rho_proposal: str = RHO_PROPOSALS[0],
        leap: int = LEAP,
        alpha_sd: float = ALPHA_SD,
        alpha_shape: float = 1.0,
        alpha_rate: float = ALPHA_RATE,
        alpha_start: float = ALPHA_START,
        rho_start: np.ndarray | None = None,
        partition: PartitionFunction | None = None,
        backend: str = "auto",
        error_model: str | None = None,
        kappa: tuple[float, float] = (1.0, 1.0),
    ) -> None:
        check_distance(distance)
        check_rho_proposal(rho_proposal)
        if error_model not in (None, "bernoulli"):
            raise ValueError(f"error_model must be None or 'bernoulli', not {error_model!r}")
        if error_model and not isinstance(rankings, AssessorPreferences):
            raise ValueError("the Bernoulli error model reads assessors' preferences")
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
        self.leap, self.alpha_sd, self.rho_proposal = leap, alpha_sd, rho_proposal
        self.alpha_shape, self.alpha_rate = alpha_shape, alpha_rate
        if error_model:
            from rankstats.models.mallows._bernoulli import BernoulliAugmentation

            self.augmentation = BernoulliAugmentation(rankings.stated, distance, rng, kappa)
        else:
            self.augmentation = Augmentation(observed, kind, distance, rng, above=above)
        self.error_model = error_model
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
        self.backend = resolve_backend(backend)
        self._fixed = self._pairs = None  # the numba backend's arrays (_kernel_arguments)

    def _total(self, rankings: np.ndarray, rho: np.ndarray) -> int:
        r""":math:`D(\rho) = \sum_j d(R_j, \rho)` over the current (latent) rankings."""
        if self.costs is not None:
            return self.costs.total(rho)
        return total_distance(rankings, rho, self.distance)

    def _toward_mode(self, rho: np.ndarray, total: int) -> tuple[np.ndarray, int]:
        """Tuning only: ρ replaced by the ranking closest to the current (latent) complete
        rankings — exact for the distances of
        :data:`~rankstats.core.permutations.distances.ITEMWISE`, the footrule's for the others —
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
        kept = (self.iterations + iterations) // thin - self.iterations // thin
        rho_draws = np.empty((kept, self.n), dtype=np.int64)
        alpha_draws = np.empty(kept)
        error_draws = np.empty(kept) if self.error_model else None
        # The kernels know this module's Augmentation only: another (an error model's) runs
        # the reference.
        if self.backend == "numba" and type(self.augmentation) is Augmentation:
            self._run_compiled(iterations, thin, adapt, rho_draws, alpha_draws)
        else:
            self._run_reference(iterations, thin, adapt, rho_draws, alpha_draws, error_draws)
        self.iterations += iterations
        done = max(self.iterations, 1)
        return MetropolisDraws(
            rho_draws,
            alpha_draws,
            self.accepted_rho / done,
            self.accepted_alpha / done,
            error_draws,
        )

    def _run_reference(
        self,
        iterations: int,
        thin: int,
        adapt: bool,
        rho_draws: np.ndarray,
        alpha_draws: np.ndarray,
        error_draws: np.ndarray | None = None,
    ) -> None:
        """The iterations of :meth:`run` in NumPy (the reference)."""
        n, leap, rng = self.n, self.leap, self.rng
        rankings = self.augmentation.completions  # updated in place by the augmentation
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
                if self.error_model:  # its error probability, given the latent rankings
                    self.augmentation.update_error()
            # --- ρ: leap and shift, or swap
            proposal, back, forward = propose_rho(rho, u[[0, 1, 4]], self.rho_proposal, leap)
            new_total = self._total(rankings, proposal)
            log_ratio = -alpha / n * (new_total - total) + back - forward
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
                if error_draws is not None:
                    error_draws[slot] = self.augmentation.theta
                slot += 1
        self.rho, self.alpha, self.total, self.log_z = rho, alpha, total, log_z

    def _run_compiled(
        self,
        iterations: int,
        thin: int,
        adapt: bool,
        rho_draws: np.ndarray,
        alpha_draws: np.ndarray,
    ) -> None:
        """The iterations of :meth:`run` in the numba kernels: the random numbers of a block
        of iterations drawn as the reference draws them (``draw_block``; at most
        :data:`BLOCK_NUMBERS` at a time), the iterations run by ``run_block`` up to the next
        jump to the conditional mode, which stays here (both in
        :mod:`rankstats.models.mallows._metropolis_numba`)."""
        from rankstats.models.mallows import _metropolis_numba as kernels

        aug, costs = self.augmentation, self.costs
        m = len(aug.rows) if aug.active else 0
        fixed = self._kernel_arguments(kernels)
        empty = np.empty((0, 0), dtype=np.int64)
        mutable = (
            aug.completions,
            *fixed[:5],
            costs.cost if costs is not None else empty,
            costs.term if costs is not None else empty,
            self._pairs if self._pairs is not None else empty,
            *fixed[5:],
        )
        rho = np.array(self.rho, dtype=np.int64)
        state = np.array([self.alpha, self.log_z, self.alpha_sd, math.nan])
        counters = np.array(
            [self.total, self.accepted_rho, self.accepted_alpha, self.window,
             self.window_accepted, self.iterations, 0, aug.accepted],
            dtype=np.int64,
        )  # fmt: skip
        block = max(1, BLOCK_NUMBERS // (6 + 3 * m))
        for first in range(0, iterations, block):
            size = min(block, iterations - first)
            u, z = np.empty((size, 5)), np.empty(size)
            pick, other, accept = np.empty((size, m)), np.empty((size, m)), np.empty((size, m))
            kernels.draw_block(self.rng, u, z, pick, other, accept)
            np.log(accept, out=accept)  # NumPy's log, as the reference takes it
            start = 0
            while start < size:
                stop, at = size, self.iterations + first + start
                if adapt:  # the jumps to the conditional mode (tuning only) happen here
                    if at % MODE_EVERY == 0:
                        mode, counters[0] = self._toward_mode(rho, int(counters[0]))
                        rho = np.array(mode, dtype=np.int64)
                    stop = min(size, start + MODE_EVERY - at % MODE_EVERY)
                done = kernels.run_block(
                    DISTANCES.index(self.distance), rho, u[start:stop], z[start:stop],
                    pick[start:stop], other[start:stop], accept[start:stop], *mutable,
                    self.leap, self.rho_proposal == "swap", thin, adapt, ADAPT_WINDOW,
                    self.n_rankings, self.alpha_shape, self.alpha_rate, state, counters,
                    rho_draws, alpha_draws,
                )  # fmt: skip
                if done < stop - start:  # α beyond the importance-sampling estimate: refused
                    self.pf.log_z(state[3])
                    raise RuntimeError(f"log Z refused alpha = {state[3]}")  # pragma: no cover
                start = stop
        self.rho = rho
        self.alpha, self.log_z, self.alpha_sd = float(state[0]), float(state[1]), float(state[2])
        self.total, self.accepted_rho, self.accepted_alpha = (int(x) for x in counters[:3])
        self.window, self.window_accepted = int(counters[3]), int(counters[4])
        aug.accepted = int(counters[7])
        aug.proposed += m * iterations

    def _kernel_arguments(self, kernels) -> tuple:
        """:func:`~rankstats.models.mallows._metropolis_numba.fixed_arguments` (built at the
        first run, with the Kendall pair counts, which the kernels keep up to date)."""
        if self._fixed is None:
            self._fixed = kernels.fixed_arguments(self.augmentation, self.pf.log_z_table())
            if self.distance == "kendall" and SUFFICIENT:
                self._pairs = kernels.pair_counts(self.augmentation.completions)
        return self._fixed


class RankCosts:
    r"""The sufficient statistic of a set of rankings for an item-wise distance
    (:data:`~rankstats.core.permutations.distances.ITEMWISE`): ``cost[i, r − 1]`` =
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

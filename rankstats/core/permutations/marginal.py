r"""The marginal likelihood of partial observations under the Mallows model with any distance of
:mod:`rankstats.core.permutations.distances`: for each observation and each posterior draw
:math:`(\rho, \alpha)`,

.. math:: P(y \mid \rho, \alpha) = \sum_{r \in C(y)} \frac{e^{-\alpha\, d(r, \rho)/n}}{Z_n(\alpha)},

the sum over the complete rankings :math:`C(y)` compatible with ``y`` (BayesMallows'
parametrisation; Kendall's θ = α/n). Compatible, as in the sampler's augmentation
(:class:`rankstats.models.mallows._metropolis.Augmentation`): every strict preference of ``y`` is
kept — tied items may take either order; with ``kind="subset"`` an unranked item (NaN) may be
anywhere, with ``kind="top_k"`` it is below every ranked item; preferences
(:class:`~rankstats.core.preferences.AssessorPreferences`) constrain by their transitive
closure. Each observation is computed the first way that applies:

``"closed form"`` (Kendall)
    complete rankings with ties and top-k lists (the unranked form one more tie group, at the
    bottom): :math:`-\theta d_\times(y, \sigma) - \log Z_n + \sum_g \log Z_{|g|}`, each tie
    group ``g`` summing the inversions of its :math:`|g|!` internal orders (a q-factorial;
    :func:`kendall_complete`); one ordered pair (two ranked items, or one stated preference):
    :math:`P(a \succ b)` (:func:`kendall_pair`); complete untied rankings for every distance:
    the Mallows probability; no constraint: 1.
``"enumeration"``
    at most ``exact_max`` compatible rankings (counted without listing them for rankings,
    while listing them for preferences): all of them, every distance, every pattern.
``"importance sampling"``
    otherwise: the ranked items (one per tie group; for preferences a longest chain) are laid
    out first, then the other items inserted in the order of ρ, each at a place drawn with
    probability :math:`\propto \varphi^{\text{new discordant pairs}}` among the places that
    keep the observation (:mod:`rankstats.core.permutations.insertion`: Lu & Boutilier's AMP, which
    has no skeleton, kept an effective sample size of 6 % of its draws on NASCAR, this 82 %).
    For Kendall the proposal runs at the draw's θ and the weight,
    :math:`\varphi^{d(\text{skeleton})} \prod_x N_x / Z_n` (:math:`N_x` the normaliser of
    each insertion), is an unbiased estimate of the marginal (exact for a top-k list). For
    another distance it runs at Kendall surrogates — an equal mixture of :math:`\theta_s =
    c_D\,\alpha/n` (``c_D`` = the distance of one adjacent transposition: the model's odds of a
    neighbour swap), :math:`\theta_s / 4` and 0 (uniform places: the far moves that Cayley,
    Hamming and Ulam make cheap) — with weight :math:`P_D(r)/q(r)`. ``samples`` rankings per
    (draw, observation), by default as many as fit in :data:`SAMPLE_BUDGET` for all of them
    (:func:`default_samples`). The estimate of :math:`\log P` is the log of the mean weight,
    its Monte Carlo standard error :math:`\mathrm{sd}(w) / (\bar w \sqrt M)` (delta method),
    and the effective sample size :math:`(\sum w)^2 / \sum w^2` is reported; the log of an
    unbiased estimate is biased down by about half its variance.

**No exact polynomial recursion for sub-rankings** (Kendall). Top-k lists have one because the
ranked items fill the top places: the cross inversions are fixed and the rest sum to a
q-factorial. For a sub-ranking the cross inversions between a ranked and an unranked item
depend on the gap of the sub-ranking the unranked item falls in, and the inversions among the
unranked items on their gaps *and* their order, so an insertion recursion must carry the number
of unranked items in every gap — a composition of ``n − k`` into ``k + 1`` parts, exponential in
``k`` (NASCAR: 44 drivers into 44 gaps). We know of no polynomial algorithm; for general
partial orders the problem is #P-hard (counting linear extensions is its θ = 0 case,
Brightwell & Winkler 1991).

References
----------
Lu, T. and Boutilier, C. (2014). Effective sampling and learning for Mallows models with
pairwise-preference data. *JMLR* 15, 3963–4009.

Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. *JRSS B* 48(3),
359–369.

Brightwell, G. and Winkler, P. (1991). Counting linear extensions. *Order* 8(3), 225–242.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.special import gammaln, logsumexp

from rankstats.core.permutations import insertion as amp
from rankstats.core.permutations.distances import ITEMWISE, check_distance, row_distances
from rankstats.core.permutations.kendall import log_z as kendall_log_z
from rankstats.core.permutations.kendall import pair_probability
from rankstats.core.permutations.partition import partition_function
from rankstats.core.preferences import AssessorPreferences

#: Importance-sampling rankings per (draw, observation) by default: as many as fit in
#: :data:`SAMPLE_BUDGET` rankings for all of them, within :data:`SAMPLES` (the user guide's
#: "Pointwise likelihood of partial data" has the time and the errors on NASCAR).
SAMPLES = (4, 64)
#: ... 15–30 s of the compiled sampler on NASCAR (4–6 µs per ranking of 87 drivers).
SAMPLE_BUDGET = 4_000_000
#: Largest number of compatible complete rankings summed exactly per observation.
EXACT_MAX = 5000
#: Cells (rows × items) of one block of work: rankings drawn, or distances computed.
_CELLS = 2_000_000
#: ``d(adjacent transposition)`` of each distance: the Kendall surrogate's θ is this × α/n.
_ADJACENT = {"kendall": 1, "footrule": 2, "spearman": 2, "cayley": 1, "hamming": 2, "ulam": 1}
#: The surrogate mixture: its dispersions relative to :data:`_ADJACENT` × α/n, equal shares.
_MIXTURE = (1.0, 0.25, 0.0)


@dataclass(frozen=True, eq=False)
class MarginalLikelihood:
    """:math:`\\log P(y \\mid \\rho, \\alpha)` of every observation at every draw.

    Attributes
    ----------
    log_likelihood : ndarray, shape (S, N)
    standard_error : ndarray, shape (S, N)
        Monte Carlo standard error of each value (0 where it is exact).
    ess : ndarray, shape (S, N)
        Effective sample size of the importance weights (NaN where exact).
    method : ndarray of str, shape (N,)
        ``"closed form"``, ``"enumeration"`` or ``"importance sampling"`` per observation.
    samples : int
        Importance-sampling rankings per (draw, observation).
    """

    log_likelihood: np.ndarray = field(repr=False)
    standard_error: np.ndarray = field(repr=False)
    ess: np.ndarray = field(repr=False)
    method: np.ndarray = field(repr=False)
    samples: int

    @property
    def estimated(self) -> np.ndarray:
        """Which observations are importance-sampling estimates."""
        return self.method == "importance sampling"

    def __repr__(self) -> str:
        kinds, counts = np.unique(self.method, return_counts=True)
        parts = ", ".join(f"{c} by {k}" for k, c in zip(kinds, counts, strict=True))
        extra = ""
        if self.estimated.any():
            se = self.standard_error[:, self.estimated]
            extra = f"; {self.samples} samples, max s.e. {se.max():.3g}, mean {se.mean():.3g}"
        shape = self.log_likelihood.shape
        return f"MarginalLikelihood({shape[0]} draws × {shape[1]} observations: {parts}{extra})"


# ---------------------------------------------------------------------------- observations
def constraints(ranks: np.ndarray, kind: str = "subset") -> np.ndarray:
    """``above[o, a, b]``: ranking ``o`` puts ``a`` strictly above ``b`` (``(N, n, n)``);
    with ``kind="top_k"`` every ranked item is above every unranked one."""
    ranks = np.asarray(ranks, dtype=np.float64)
    key = np.where(np.isnan(ranks), np.inf, ranks) if kind == "top_k" else ranks
    with np.errstate(invalid="ignore"):
        return key[:, :, None] < key[:, None, :]


def _log_counts(ranks: np.ndarray, kind: str) -> np.ndarray:
    r"""Log of the number of compatible complete rankings of each ranking: ``n!/k! ∏ g!``
    (sub-ranking of ``k`` items with tie groups ``g``), ``m! ∏ g!`` (top-k, ``m`` unranked)."""
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    size = np.where(observed, (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2), 1)
    ties = np.where(observed, gammaln(size + 1.0) / size, 0.0).sum(axis=1)
    k = observed.sum(axis=1)
    if kind == "top_k":
        return ties + gammaln(n - k + 1.0)
    return ties + gammaln(n + 1.0) - gammaln(k + 1.0)


def linear_extensions(above: np.ndarray, cap: int) -> np.ndarray | None:
    """Every complete ranking (rank vectors, ``(C, n)``) that keeps the partial order
    ``above`` ``(n, n)`` (transitive), or None when there are more than ``cap``.

    The items are inserted one at a time, each at every place allowed by the items placed
    before it: every ranking is reached once, and a place always exists, so the number of
    partial rankings never falls and the listing stops as soon as it exceeds ``cap``."""
    n = above.shape[0]
    orders = np.zeros((1, 0), dtype=np.int64)  # rows: the items placed, best first
    for x in range(n):
        i = orders.shape[1]
        lo = np.where(above[orders, x], np.arange(i), -1).max(axis=1, initial=-1) + 1
        hi = np.where(above[x, orders], np.arange(i), i).min(axis=1, initial=i)
        count = hi - lo + 1
        if count.sum() > cap:
            return None
        parent = np.repeat(np.arange(len(orders)), count)
        place = lo[parent] + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
        column = np.arange(i + 1)[None, :]
        old = orders[parent]
        shifted = np.concatenate([old, np.zeros((len(old), 1), dtype=np.int64)], axis=1)
        before = np.concatenate([np.zeros((len(old), 1), dtype=np.int64), old], axis=1)
        orders = np.where(
            column < place[:, None], shifted, np.where(column == place[:, None], x, before)
        )
    ranks = np.empty_like(orders)
    np.put_along_axis(ranks, orders, np.arange(1, n + 1)[None, :], axis=1)
    return ranks


# ---------------------------------------------------------------------------- closed forms
def _log_q_factorials(theta: np.ndarray, n: int) -> np.ndarray:
    """``F[j - 1, s] = log(1 − e^{−j θ_s}) − log(1 − e^{−θ_s})`` for ``j = 1 … n``: the terms of
    :math:`\\log Z_m(\\theta) = \\sum_{j \\le m} F_j` (the Kendall normalising constant)."""
    j = np.arange(1, n + 1, dtype=np.float64)[:, None]
    t = np.asarray(theta, dtype=np.float64)[None, :]
    return np.log(-np.expm1(-j * t)) - np.log(-np.expm1(-t))


def _blocks(n_draws: int, width: int):
    step = max(1, 2 * _CELLS // max(width, 1))
    for lo in range(0, n_draws, step):
        yield slice(lo, min(lo + step, n_draws))


def kendall_complete(ranks: np.ndarray, position: np.ndarray, theta: np.ndarray) -> np.ndarray:
    r"""Kendall marginal log-likelihood of complete rankings with ties, ``(S, L)``:
    :math:`-\theta\, d_{\times}(y, \sigma) - \log Z_n(\theta) + \sum_{g} \log Z_{|g|}(\theta)`,
    :math:`d_\times` counting the discordant pairs that ``y`` orders (tied pairs excluded): a tie
    group fills a block of consecutive positions, so its internal orders add the inversions of
    all :math:`|g|!` permutations, whose generating function is :math:`Z_{|g|}` (the
    q-factorial). Without ties this is the Mallows probability itself. A top-k list is the
    complete ranking whose unranked items form one tie group at the bottom (give them a rank
    below every other, e.g. ``n + 1``). ``position`` ``(S, n)`` are σ's positions (1 = best)."""
    n_rows, n = ranks.shape
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    above = sparse.csr_matrix((ranks[:, i] < ranks[:, j]).astype(np.float64))  # y: i above j
    # c[l, m - 1] = number of tie groups of ranking l with at least m members
    size = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)  # group size of each item
    at_least = (size[:, :, None] >= np.arange(1, n + 1)[None, None, :]) / size[:, :, None]
    groups = sparse.csr_matrix(at_least.sum(axis=1))  # (L, n)
    pos = np.asarray(position, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64).ravel()
    out = np.empty((pos.shape[0], n_rows))
    for sl in _blocks(pos.shape[0], len(i) + n):
        p = pos[sl]
        below = (p[:, i] > p[:, j]).astype(np.float64)  # σ: i below j (discordant if y: above)
        distance = (above @ below.T).T  # (s, L)
        f = _log_q_factorials(theta[sl], n)  # (n, s)
        out[sl] = -theta[sl, None] * distance - f.sum(axis=0)[:, None] + (groups @ f).T
    return out


def kendall_pair(
    first: np.ndarray, second: np.ndarray, position: np.ndarray, theta: np.ndarray
) -> np.ndarray:
    """``log P(first ≻ second)`` under the Kendall model, ``(S, P)``: the closed form of
    :func:`rankstats.core.permutations.kendall.pair_probability` at the two items' gap in σ."""
    pos = np.asarray(position, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64).reshape(-1, 1)
    gap = pos[:, second] - pos[:, first]  # > 0: σ agrees with the observation
    p = pair_probability(np.maximum(np.abs(gap), 1), theta)
    return np.log(np.where(gap > 0, p, 1.0 - p))


def complete_rankings(
    ranks: np.ndarray, rho: np.ndarray, alpha: np.ndarray, distance: str, log_z: np.ndarray
) -> np.ndarray:
    r""":math:`-\alpha\, d(y, \rho)/n - \log Z_n(\alpha)` of complete untied rankings ``(L, n)``
    at draws ``rho`` ``(S, n)``, ``(S, L)``; the distances once per distinct consensus."""
    observed = ranks.astype(np.int64)
    n_rankings, n = observed.shape
    unique, inverse = np.unique(rho, axis=0, return_inverse=True)
    d = np.empty((len(unique), n_rankings))
    step = max(1, _CELLS // (n_rankings * n))  # consensuses per block: ~16 MB of pairs
    for lo in range(0, len(unique), step):
        block = unique[lo : lo + step]
        pairs = np.repeat(block, n_rankings, axis=0)
        d[lo : lo + len(block)] = row_distances(
            np.tile(observed, (len(block), 1)), pairs, distance
        ).reshape(len(block), n_rankings)
    return -(alpha / n)[:, None] * d[inverse.ravel()] - np.asarray(log_z)[:, None]


# ---------------------------------------------------------------------------- the dispatch
def kendall_marginal(
    observations: np.ndarray | AssessorPreferences,
    position: np.ndarray,
    theta: np.ndarray,
    *,
    kind: str = "subset",
    samples: int | None = None,
    exact_max: int = EXACT_MAX,
    seed: int | None = 0,
    backend: str = "auto",
) -> MarginalLikelihood:
    """:func:`marginal_likelihood` of the Kendall model in its own parametrisation: σ's
    ``position`` ``(S, n)`` (1 = best) and θ ``(S,)`` (= α/n)."""
    return _marginal(
        observations, position, theta, "kendall", kind, samples, exact_max, seed, backend
    )


def marginal_likelihood(
    observations: np.ndarray | AssessorPreferences,
    rho: np.ndarray,
    alpha: np.ndarray,
    distance: str = "kendall",
    *,
    kind: str = "subset",
    samples: int | None = None,
    exact_max: int = EXACT_MAX,
    seed: int | None = 0,
    backend: str = "auto",
) -> MarginalLikelihood:
    """The log marginal likelihood of every observation at every draw (module docstring).

    Parameters
    ----------
    observations : ndarray, shape (N, n), or AssessorPreferences
        Rank vectors (1 = best; NaN = unranked; equal ranks = a tie), or each assessor's
        preferences closed under transitivity.
    rho : ndarray, shape (S, n)
        The consensus of each draw, as rank vectors (1 = best).
    alpha : ndarray, shape (S,)
        The dispersion of each draw, BayesMallows' α (Kendall: θ = α/n).
    distance : str
        One of :data:`~rankstats.core.permutations.distances.DISTANCES`.
    kind : {"subset", "top_k"}
        What an unranked item means (as the fit's ``kind``).
    samples : int, optional
        Importance-sampling rankings per (draw, observation), ≥ 2 (default
        :func:`default_samples` of the number of (draw, observation) pairs estimated).
    exact_max : int
        Observations with at most this many compatible rankings are summed exactly (0: never).
    seed : int or None
        The importance sampler's generator: same seed, same numbers, whichever backend.
    backend : {"auto", "numpy", "numba"}
        Where the insertions run (``"auto"``: numba when installed); the same numbers.

    Returns
    -------
    MarginalLikelihood

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.array([[1.0, 2.0, np.nan, np.nan], [np.nan, 1.0, 2.0, 3.0]])
    >>> rho, alpha = np.array([[1, 2, 3, 4]]), np.array([4.0])
    >>> ml = marginal_likelihood(ranks, rho, alpha, "footrule")
    >>> ml.method.tolist(), np.round(np.exp(ml.log_likelihood), 4).tolist()
    (['enumeration', 'enumeration'], [[0.8679, 0.7421]])
    """
    check_distance(distance)
    alpha = np.asarray(alpha, dtype=np.float64).ravel()
    rho = np.asarray(rho)
    if distance == "kendall":
        theta = alpha / rho.shape[1]
        return _marginal(
            observations, rho, theta, distance, kind, samples, exact_max, seed, backend
        )
    return _marginal(observations, rho, alpha, distance, kind, samples, exact_max, seed, backend)


def _marginal(
    observations, position, dispersion, distance, kind, samples, exact_max, seed, backend
) -> MarginalLikelihood:
    """The dispatch of :func:`marginal_likelihood`; ``dispersion`` is θ for Kendall, else α."""
    if kind not in ("subset", "top_k"):
        raise ValueError(f"kind must be 'subset' or 'top_k', not {kind!r}")
    if samples is not None and int(samples) < 2:
        raise ValueError(f"samples must be ≥ 2 (the standard error needs two), not {samples!r}")
    if isinstance(observations, AssessorPreferences):
        if getattr(observations, "cyclic", ()):
            raise ValueError(
                f"{len(observations.cyclic)} assessor(s) state preferences with a cycle: no "
                "ranking respects them, their Mallows likelihood is 0 without a model of errors"
            )
        ranks, above = None, observations.above
    else:
        ranks = np.asarray(observations, dtype=np.float64)
        above = constraints(ranks, kind)
    position = np.asarray(position, dtype=np.float64)
    dispersion = np.asarray(dispersion, dtype=np.float64).ravel()
    n_draws, n = position.shape
    n_obs = above.shape[0]
    rho = np.argsort(np.argsort(position, axis=1, kind="stable"), axis=1) + 1  # rank vectors
    value = np.full((n_draws, n_obs), np.nan)
    se = np.zeros((n_draws, n_obs))
    ess = np.full((n_draws, n_obs), np.nan)
    method = np.full(n_obs, "closed form", dtype=object)
    todo = np.ones(n_obs, dtype=bool)
    n_pairs = above.sum(axis=(1, 2))
    if ranks is not None:
        complete = ~np.isnan(ranks).any(axis=1)
        if distance == "kendall":
            closed = complete | (kind == "top_k")
            if closed.any():
                filled = np.where(np.isnan(ranks[closed]), n + 1.0, ranks[closed])
                value[:, closed] = kendall_complete(filled, position, dispersion)
        else:
            untied = n_pairs == n * (n - 1) // 2
            closed = complete & untied
            if closed.any():
                log_z = partition_function(n, distance).log_z(dispersion)
                value[:, closed] = complete_rankings(
                    ranks[closed], rho, dispersion, distance, log_z
                )
        todo &= ~closed
    if distance == "kendall":
        pair = todo & (n_pairs == 1)
        if pair.any():
            _, first, second = np.nonzero(above[pair])
            value[:, pair] = kendall_pair(first, second, position, dispersion)
            todo &= ~pair
    free = todo & (n_pairs == 0)  # no constraint: every ranking is compatible
    value[:, free] = 0.0
    todo &= ~free
    # enumeration where the compatible rankings are few
    if ranks is not None:
        few = np.zeros(n_obs, dtype=bool)
        few[todo] = _log_counts(ranks[todo], kind) <= math.log(max(exact_max, 1)) + 1e-9
    else:
        few = todo.copy()
    for o in np.flatnonzero(few & (exact_max > 0)):
        listed = linear_extensions(above[o], exact_max)
        if listed is None:
            continue
        value[:, o] = _enumerated(listed, rho, dispersion, distance)
        method[o] = "enumeration"
        todo[o] = False
    samples = default_samples(n_draws * int(todo.sum())) if samples is None else int(samples)
    if todo.any():
        skeleton = None if ranks is None else amp.ranked_chains(ranks[todo])
        found = _importance(
            above[todo], rho, dispersion, distance, int(samples), seed, backend, skeleton
        )
        value[:, todo], se[:, todo], ess[:, todo] = found
        method[todo] = "importance sampling"
    return MarginalLikelihood(value, se, ess, method.astype(str), samples)


def default_samples(pairs: int) -> int:
    """Importance-sampling rankings per (draw, observation) for ``pairs`` of them: as many as
    fit in :data:`SAMPLE_BUDGET`, at least ``SAMPLES[0]`` (whatever the time: fewer leave the
    standard errors too rough) and at most ``SAMPLES[1]``."""
    return int(min(SAMPLES[1], max(SAMPLES[0], SAMPLE_BUDGET // max(pairs, 1))))


def _log_z(n: int, dispersion: np.ndarray, distance: str) -> np.ndarray:
    r""":math:`\log Z_n` at each draw's θ (Kendall; ``log n!`` at θ = 0) or α."""
    if distance == "kendall":
        flat = dispersion < 1e-12
        return np.where(flat, math.lgamma(n + 1), kendall_log_z(n, np.where(flat, 1.0, dispersion)))
    return np.asarray(partition_function(n, distance).log_z(dispersion))


def _enumerated(listed: np.ndarray, rho: np.ndarray, dispersion: np.ndarray, distance: str):
    """``log Σ_c e^{−c_s d(c, ρ_s)} − log Z`` over the listed rankings, for every draw
    (``c_s`` = θ, or α/n): the distances as matrix products where they are sums over pairs
    (Kendall) or items (footrule, Spearman, Hamming), else per distinct consensus."""
    n_draws, n = rho.shape
    scale = dispersion if distance == "kendall" else dispersion / n
    log_z = _log_z(n, dispersion, distance)
    count = len(listed)
    out = np.empty(n_draws)
    step = max(1, _CELLS // count)
    for lo in range(0, n_draws, step):
        sl = slice(lo, min(lo + step, n_draws))
        d = _distances(listed, rho[sl], distance)  # (s, C)
        out[sl] = logsumexp(-scale[sl, None] * d, axis=1) - log_z[sl]
    return out


def _distances(listed: np.ndarray, rho: np.ndarray, distance: str) -> np.ndarray:
    """``d(listed[c], rho[s])`` for every pair, ``(S, C)``."""
    n = rho.shape[1]
    if distance == "kendall":
        i, j = np.triu_indices(n, k=1)
        a = (listed[:, i] < listed[:, j]).astype(np.float64)
        b = (rho[:, i] < rho[:, j]).astype(np.float64)
        return b.sum(axis=1)[:, None] + a.sum(axis=1)[None, :] - 2.0 * (b @ a.T)
    if distance in ITEMWISE:
        one_hot = np.zeros((len(listed), n * n))
        one_hot[np.arange(len(listed))[:, None], np.arange(n) * n + listed - 1] = 1.0
        gap = np.arange(1, n + 1)[None, None, :] - rho[:, :, None]  # (S, item, rank)
        cost = {"footrule": np.abs(gap), "spearman": gap**2, "hamming": gap != 0}[distance]
        return cost.reshape(len(rho), n * n).astype(np.float64) @ one_hot.T
    unique, inverse = np.unique(rho, axis=0, return_inverse=True)
    d = np.stack([row_distances(listed, u, distance) for u in unique]).astype(np.float64)
    return d[inverse.ravel()]


def _importance(above, rho, dispersion, distance, samples, seed, backend, skeleton):
    """:func:`rankstats.core.permutations.insertion.importance_estimate` at the draw's θ (Kendall),
    or with the surrogate mixture of this module's docstring (the other distances)."""
    n = rho.shape[1]
    log_z = _log_z(n, dispersion, distance)
    if distance == "kendall":
        return amp.importance_estimate(
            above, rho, [dispersion], samples, seed, backend, log_z=log_z, skeleton=skeleton
        )
    base = _ADJACENT[distance] * dispersion / n

    def log_target(ranks: np.ndarray, draw: np.ndarray) -> np.ndarray:
        d = row_distances(ranks, rho[draw], distance)
        return -dispersion[draw] / n * d - log_z[draw]

    thetas = [c * base for c in _MIXTURE]
    return amp.importance_estimate(
        above, rho, thetas, samples, seed, backend, log_target, skeleton=skeleton
    )

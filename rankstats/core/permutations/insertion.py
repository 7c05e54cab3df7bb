r"""Complete rankings drawn by constrained repeated insertion around a fixed chain, and the
importance-sampling estimate of the Mallows marginal likelihood of a partial observation.

**The proposal** extends AMP (Lu & Boutilier 2011, 2014). An observation is a partial order
(its strict preferences, closed under transitivity). First a longest chain of it — the
*skeleton*: the ranked items of a sub-ranking, one item per tie group — is laid out in its
order; every compatible ranking keeps that order. Then the other items are inserted one at a
time in the order of the consensus ρ (best first). Item ``x`` goes to a place ``p`` among the
items already there; its *cost* :math:`c_x(p)` is the number of pairs it forms with them that
disagree with ρ — a placed item of better ρ-rank below it, or of worse ρ-rank above it — so
that :math:`d_K(r, \rho) = d_K(\text{skeleton}) + \sum_x c_x(p_x)` (each pair is counted once:
at the insertion of its later non-skeleton member, or in the skeleton). The place is drawn with
probability :math:`\propto \varphi^{c_x(p)}`, :math:`\varphi = e^{-\theta}`, restricted to the
places that keep the observation's constraints with the items already placed (for a partial
order that range :math:`[l, h]` is never empty, and every compatible ranking is drawn by exactly
one sequence of places). Its normaliser is :math:`N_x = \sum_{p=l}^{h} \varphi^{c_x(p)}`.

**The weight.** For the Kendall target at the same θ,

.. math:: w(r) = \frac{P(r \mid \rho, \theta)}{q(r)}
    = \frac{\varphi^{d_K(\text{skeleton})} \prod_x N_x}{Z_n(\theta)},

and :math:`E_q[w] = \sum_{r \text{ compatible}} P(r \mid \rho, \theta)`: an unbiased estimate of
the marginal likelihood, which needs no interleaving to be enumerated. With an empty skeleton
this is AMP itself (:math:`c_x(p) = i - p`, the items placed below). Placing the ranked items
first matters: on NASCAR (θ ≈ 0.05, 43 of 87 drivers ranked per race) AMP's weights kept an
effective sample size of 6 % of the draws (median over races and posterior draws), the skeleton
82 %. For a top-k list every step's range is fixed and the weight is exact. For another distance
``D`` the proposal runs at Kendall surrogates :math:`\theta_c` and :func:`proposal_log_q` gives
:math:`\log q_c(r) = -\theta_c \sum_x c_x(p_x) - \sum_x \log N_x(\theta_c)`.

The places are drawn from uniforms the caller gives (inverse CDF over the weights, summed in
place order), the costs are shifted by their minimum over the range (no weight underflows) and
the normalisers are returned per step, so the NumPy reference here and the compiled kernel of
:mod:`rankstats.core.permutations._insertion_numba` give the same numbers, bit for bit (tested).

Lu, T. and Boutilier, C. (2014). Effective sampling and learning for Mallows models with
pairwise-preference data. *JMLR* 15, 3963–4009 (AMP: Sec. 4; Lu & Boutilier, ICML 2011).

Doignon, J.-P., Pekeč, A. and Regenwetter, M. (2004). The repeated insertion model for rankings.
*Psychometrika* 69(1), 33–54.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import logsumexp

#: Where the insertions run: ``"numpy"`` (the reference) or ``"numba"`` (compiled, the same
#: numbers); ``"auto"``: numba when it imports.
BACKENDS = ("auto", "numpy", "numba")


@dataclass(frozen=True, eq=False)
class Observations:
    """Partial orders prepared for the sampler.

    ``above`` ``(N, n, n)``: ``above[o, a, b]``, ``a`` must be above ``b`` (transitive).
    ``skeleton`` ``(N, n)``: a longest chain of each, best first, padded with −1;
    ``on_skeleton`` ``(N, n)``. ``up_ptr``/``up_idx`` (and ``down``): per ``o * n + x``, the
    items that must be above (below) ``x``, as compressed rows (the kernel reads them)."""

    above: np.ndarray = field(repr=False)
    skeleton: np.ndarray = field(repr=False)
    on_skeleton: np.ndarray = field(repr=False)
    up_ptr: np.ndarray = field(repr=False)
    up_idx: np.ndarray = field(repr=False)
    down_ptr: np.ndarray = field(repr=False)
    down_idx: np.ndarray = field(repr=False)


def _csr(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row pointers and column indices of a Boolean ``(rows, n)`` matrix."""
    ptr = np.zeros(len(mask) + 1, dtype=np.int64)
    np.cumsum(mask.sum(axis=1), out=ptr[1:])
    return ptr, np.nonzero(mask)[1].astype(np.int64)


def longest_chains(above: np.ndarray) -> np.ndarray:
    """A longest chain of every partial order ``above`` ``(N, n, n)`` (transitive), best
    first, padded with −1: ``level[x]`` = the longest chain ending at ``x`` (one relaxation
    per level), then from the deepest item up through predecessors one level higher."""
    m, n, _ = above.shape
    level = np.ones((m, n), dtype=np.int64)
    for _ in range(n):
        new = 1 + np.where(above, level[:, :, None], 0).max(axis=1)
        if np.array_equal(new, level):
            break
        level = new
    rows = np.arange(m)
    length = level.max(axis=1)
    chain = np.full((m, n), -1, dtype=np.int64)
    current = np.argmax(level, axis=1)  # the first item of the deepest level
    for step in range(int(length.max())):
        slot = length - 1 - step  # filled from the bottom
        live = slot >= 0
        chain[rows[live], slot[live]] = current[live]
        candidates = above[rows, :, current] & (level == (level[rows, current] - 1)[:, None])
        current = np.where(candidates.any(axis=1), np.argmax(candidates, axis=1), current)
    return chain


def ranked_chains(ranks: np.ndarray) -> np.ndarray:
    """The skeleton of rank vectors ``(N, n)``: the ranked items best first, one per tie group
    (the first of each), padded with −1 — never an unranked item, whose place among the other
    unranked ones is as free as theirs (a top-k list's tail then fills in a fixed way)."""
    order = np.argsort(ranks, axis=1, kind="stable")  # NaN last
    ordered = np.take_along_axis(ranks, order, axis=1)
    first = ~np.isnan(ordered)
    first[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    chain = np.full(ranks.shape, -1, dtype=np.int64)
    rows, cols = np.nonzero(first)
    slot = np.cumsum(first, axis=1)[rows, cols] - 1
    chain[rows, slot] = order[rows, cols]
    return chain


def prepare(above: np.ndarray, skeleton: np.ndarray | None = None) -> Observations:
    """:class:`Observations` of the partial orders ``above`` ``(N, n, n)``, laid out around
    ``skeleton`` (chains best first, padded with −1; default :func:`longest_chains`)."""
    above = np.ascontiguousarray(above, dtype=bool)
    m, n, _ = above.shape
    skeleton = longest_chains(above) if skeleton is None else np.asarray(skeleton, np.int64)
    on_skeleton = np.zeros((m, n), dtype=bool)
    rows, cols = np.nonzero(skeleton >= 0)
    on_skeleton[rows, skeleton[rows, cols]] = True
    up_ptr, up_idx = _csr(above.transpose(0, 2, 1).reshape(m * n, n))
    down_ptr, down_idx = _csr(above.reshape(m * n, n))
    return Observations(above, skeleton, on_skeleton, up_ptr, up_idx, down_ptr, down_idx)


def skeleton_inversions(obs: Observations, rank: np.ndarray) -> np.ndarray:
    """``d_K`` between each skeleton's order and each draw's, ``(S, N)`` (``rank``: 0-based
    ρ-rank of every item per draw)."""
    out = np.zeros((rank.shape[0], obs.skeleton.shape[0]), dtype=np.int64)
    for o, chain in enumerate(obs.skeleton):
        r = rank[:, chain[chain >= 0]]
        for a in range(r.shape[1] - 1):  # pairs (a, b > a): a is above b in the chain
            out[:, o] += (r[:, a + 1 :] < r[:, a : a + 1]).sum(axis=1)
    return out


def powers(theta: np.ndarray, n: int) -> np.ndarray:
    """``pw[t, k]`` = :math:`e^{-\\theta_t k}` for ``k = 0 … n − 1``: the weights of a cost."""
    theta = np.asarray(theta, dtype=np.float64).reshape(-1, 1)
    return np.exp(-theta * np.arange(n, dtype=np.float64)[None, :])


#: Products of normalisers are divided by this whenever they exceed it (exact: a power of two).
BIG = 2.0**512


@dataclass(frozen=True, eq=False)
class Insertions:
    """Rankings drawn by :func:`insert`: per ranking, ``cost`` (:math:`\\sum_x c_x(p_x)`,
    its Kendall distance to ρ beyond the skeleton's), ``floor`` (the sum of each step's
    smallest cost: the shift of the weights), and under each of the ``C`` proposals the
    product of the steps' :math:`N_x \\varphi^{-\\min c_x} \\in [1, n]` as ``norm`` ×
    ``BIG ** scale`` (``(B, C)`` each; :meth:`log_norm`); with ``full``, ``positions``
    (0-based place of every item)."""

    cost: np.ndarray
    floor: np.ndarray
    norm: np.ndarray
    scale: np.ndarray
    positions: np.ndarray | None = None

    def log_norm(self, c: int) -> np.ndarray:
        """:math:`\\sum_x \\log(N_x \\varphi^{-\\min c_x})` under the ``c``-th proposal."""
        return np.log(self.norm[:, c]) + self.scale[:, c] * (512 * np.log(2.0))


def insert(
    order: np.ndarray,
    rank: np.ndarray,
    draw: np.ndarray,
    obs_index: np.ndarray,
    component: np.ndarray,
    obs: Observations,
    pw: np.ndarray,
    u: np.ndarray,
    full: bool = False,
    backend: str = "numpy",
) -> Insertions:
    """One ranking per row of ``u`` ``(B, n)``: sample ``b`` lays out the skeleton of
    observation ``obs_index[b]``, then inserts the other items in the order
    ``order[draw[b]]`` (``rank``: each item's 0-based ρ-rank), drawing with the weights of row
    ``component[b] * S + draw[b]`` of ``pw`` (``C × S`` rows: every proposal's normaliser is
    returned)."""
    n_draws = order.shape[0]
    args = [
        np.ascontiguousarray(a, dtype=np.int64) for a in (order, rank, draw, obs_index, component)
    ]
    pw = np.ascontiguousarray(pw, dtype=np.float64)
    u = np.ascontiguousarray(u, dtype=np.float64)
    size, n = u.shape
    n_prop = pw.shape[0] // n_draws
    out = Insertions(
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.ones((size, n_prop)),
        np.zeros((size, n_prop), dtype=np.int64),
        np.full((size, n) if full else (0, n), -1, dtype=np.int64),
    )
    if backend == "numba":
        from rankstats.core.permutations import _insertion_numba as _mallows_numba

        _mallows_numba.insertions(
            *args,
            obs.skeleton,
            obs.on_skeleton,
            obs.up_ptr,
            obs.up_idx,
            obs.down_ptr,
            obs.down_idx,
            pw,
            u,
            out.cost,
            out.floor,
            out.norm,
            out.scale,
            out.positions,
        )
    else:
        _insert_numpy(*args, obs, pw, u, out)
    return out if full else Insertions(out.cost, out.floor, out.norm, out.scale)


def _insert_numpy(order, rank, draw, obs_index, component, obs, pw, u, out) -> None:
    """The reference: every sample at once, one ρ-rank at a time (in place into ``out``)."""
    size, n = u.shape
    n_draws = order.shape[0]
    n_prop = pw.shape[0] // n_draws
    seq = obs.skeleton[obs_index].copy()  # the items by place, −1 beyond the end
    length = (seq >= 0).sum(axis=1)
    pos = np.full((size, n), -1, dtype=np.int64)
    rows, cols = np.nonzero(seq >= 0)
    pos[rows, seq[rows, cols]] = cols
    rank_b = rank[draw]
    weights = pw[np.arange(n_prop)[:, None] * n_draws + draw[None, :]]  # (C, B, n)
    place = np.arange(n + 1)
    for i in range(n):
        x = order[draw, i]
        r = np.flatnonzero(~obs.on_skeleton[obs_index, x])
        if not len(r):
            continue
        xr, o = x[r], obs_index[r]
        rx = rank_b[r, xr][:, None]
        placed = seq[r]
        rz = np.take_along_axis(rank_b[r], np.maximum(placed, 0), axis=1)
        step = np.where(placed >= 0, np.where(rz > rx, 1, -1), 0)  # passing an item
        rel = np.concatenate([np.zeros((len(r), 1), dtype=np.int64), np.cumsum(step, 1)], 1)
        lo = np.where(obs.above[o, :, xr], pos[r], -1).max(axis=1) + 1
        hi = np.where(obs.above[o, xr, :] & (pos[r] >= 0), pos[r], length[r, None]).min(axis=1)
        inside = (place >= lo[:, None]) & (place <= hi[:, None])
        low = np.where(inside, rel, np.iinfo(np.int64).max).min(axis=1)
        shifted = np.where(inside, rel - low[:, None], 0)
        cost0 = (length[r] - rel[np.arange(len(r)), length[r]]) // 2  # better-ranked placed
        totals = np.stack(
            [
                np.cumsum(
                    np.where(inside, np.take_along_axis(weights[c, r], shifted, axis=1), 0.0),
                    axis=1,
                )
                for c in range(n_prop)
            ]
        )
        for c in range(n_prop):  # the kernel's products, in the same order
            product = out.norm[r, c] * totals[c, :, -1]
            big = product > BIG
            out.norm[r, c] = np.where(big, product * (1.0 / BIG), product)
            out.scale[r, c] += big
        mine = totals[component[r], np.arange(len(r))]  # the proposal each sample draws from
        target = u[r, i] * mine[:, -1]
        chosen = np.minimum((mine <= target[:, None]).sum(axis=1), hi)  # first total > target
        out.cost[r] += cost0 + rel[np.arange(len(r)), chosen]
        out.floor[r] += cost0 + low
        column = np.arange(n)[None, :]
        before = np.concatenate([np.full((len(r), 1), -1), placed[:, :-1]], axis=1)
        seq[r] = np.where(
            column < chosen[:, None],
            placed,
            np.where(column == chosen[:, None], xr[:, None], before),
        )
        p = pos[r]
        p += p >= chosen[:, None]
        p[np.arange(len(r)), xr] = chosen
        pos[r] = p
        length[r] += 1
    if out.positions.shape[0]:
        out.positions[:] = pos


def free_observations(obs: Observations) -> np.ndarray:
    """Which observations leave every item off the skeleton unconstrained (a sub-ranking
    without ties): :func:`insert_free` applies."""
    involved = obs.above.any(axis=2) | obs.above.any(axis=1)
    return ~(involved & ~obs.on_skeleton).any(axis=1)


def insert_free(
    order: np.ndarray,
    rank: np.ndarray,
    draw: np.ndarray,
    obs_index: np.ndarray,
    obs: Observations,
    pw: np.ndarray,
    cum: np.ndarray,
    u: np.ndarray,
    backend: str = "numpy",
) -> Insertions:
    r""":func:`insert` for observations whose items off the skeleton are unconstrained
    (:func:`free_observations`), Kendall weights only (one proposal, no positions).

    Only the number :math:`a_g` of inserted items in each gap ``g`` of the skeleton is kept.
    Every inserted item has a better ρ-rank than the one being inserted, so passing it lowers
    the cost by one: within a gap the cost falls from the gap's top place to its bottom one,
    :math:`c_{end}`, and the gap's places weigh :math:`\varphi^{c_{end}} \sum_{v \le a_g}
    arphi^v` (``cum[a_g + 1]``); between gaps the skeleton item adds one (worse ρ-rank) or
    takes one away. A step costs ``O(k)`` for ``k`` skeleton items instead of ``O(n)`` plus
    the shift of the places. The gap is drawn by inverse CDF over the gaps' weights, then the
    place in it by the first ``t`` whose running total exceeds the uniform — in both backends
    by the same formula (the places of a gap in one product), so again the same numbers."""
    args = [np.ascontiguousarray(a, dtype=np.int64) for a in (order, rank, draw, obs_index)]
    pw = np.ascontiguousarray(pw, dtype=np.float64)
    cum = np.ascontiguousarray(cum, dtype=np.float64)
    u = np.ascontiguousarray(u, dtype=np.float64)
    size = len(u)
    out = Insertions(
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.ones((size, 1)),
        np.zeros((size, 1), dtype=np.int64),
    )
    if backend == "numba":
        from rankstats.core.permutations import _insertion_numba as _mallows_numba

        _mallows_numba.free_insertions(
            *args,
            obs.skeleton,
            obs.on_skeleton,
            pw,
            cum,
            u,
            out.cost,
            out.floor,
            out.norm[:, 0],
            out.scale[:, 0],
        )
    else:
        _insert_free_numpy(*args, obs, pw, cum, u, out)
    return out


def _insert_free_numpy(order, rank, draw, obs_index, obs, pw, cum, u, out) -> None:
    """The reference of :func:`insert_free`: every sample at once, one ρ-rank at a time."""
    size, n = u.shape
    skeleton = obs.skeleton[obs_index]
    k = (skeleton >= 0).sum(axis=1)
    gaps = np.arange(n + 1)[None, :]
    live = gaps <= k[:, None]  # gaps 0 … k
    sk_rank = np.where(
        skeleton >= 0, np.take_along_axis(rank[draw], np.maximum(skeleton, 0), axis=1), -1
    )
    count = np.zeros((size, n + 1), dtype=np.int64)  # inserted items per gap
    cum_b, pw_b = cum[draw], pw[draw]
    for i in range(n):
        r = np.flatnonzero(~obs.on_skeleton[obs_index, order[draw, i]])
        if not len(r):
            continue
        a = count[r]
        passing = np.where(sk_rank[r] > i, 1, -1)  # the skeleton item after gap g
        passing = np.concatenate([np.zeros((len(r), 1), dtype=np.int64), passing], axis=1)
        end = np.cumsum(passing - a, axis=1)  # the cost at the bottom of each gap, minus i
        low = np.where(live[r], end, np.iinfo(np.int64).max).min(axis=1)
        shift = np.where(live[r], end - low[:, None], 0)
        weight = np.where(
            live[r],
            np.take_along_axis(pw_b[r], shift, axis=1)
            * np.take_along_axis(cum_b[r], a + 1, axis=1),
            0.0,
        )
        running = np.cumsum(weight, axis=1)
        total = running[:, -1]
        target = u[r, i] * total
        g = np.minimum((running <= target[:, None]).sum(axis=1), k[r])
        rr = np.arange(len(r))
        before = np.where(g > 0, running[rr, np.maximum(g - 1, 0)], 0.0)
        ag = a[rr, g]
        top = pw_b[r, shift[rr, g]]
        # place t = 0 … a_g from the top of gap g: running total before + top (C − cum[a_g − t])
        t = np.arange(n)[None, :]
        inside = before[:, None] + top[:, None] * (
            cum_b[r, ag + 1][:, None]
            - np.take_along_axis(cum_b[r], np.maximum(ag[:, None] - t, 0), axis=1)
        )
        first = ((inside <= target[:, None]) & (t <= ag[:, None])).sum(axis=1)
        place = np.minimum(first, ag)
        out.cost[r] += i + end[rr, g] + ag - place
        out.floor[r] += i + low
        product = out.norm[r, 0] * total
        big = product > BIG
        out.norm[r, 0] = np.where(big, product * (1.0 / BIG), product)
        out.scale[r, 0] += big
        count[r, g] += 1


def proposal_log_q(ins: Insertions, theta: np.ndarray, c: int) -> np.ndarray:
    r""":math:`\log q_c(r)` of each ranking of ``ins`` under the ``c``-th proposal at its
    dispersion ``theta`` (one per ranking): :math:`-\theta \sum_x c_x(p_x) - \sum_x \log N_x`,
    :math:`\log N_x = \log(\text{norm}) - \theta \min c_x`."""
    return -theta * (ins.cost - ins.floor) - ins.log_norm(c)


def resolve_backend(backend: str) -> str:
    """``"numpy"`` or ``"numba"`` (``"auto"``: numba when the kernel imports)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    if backend == "numpy":
        return backend
    try:
        from rankstats.core.permutations import _insertion_numba as _mallows_numba  # noqa: F401
    except ImportError as err:
        if backend == "numba":
            raise ImportError(
                'backend="numba" needs numba: pip install "rankstats[fast]" (or use '
                'backend="numpy", the same numbers, slower)'
            ) from err
        return "numpy"
    return "numba"


def importance_estimate(
    above: np.ndarray,
    rho: np.ndarray,
    thetas: list[np.ndarray],
    samples: int,
    seed: int | None,
    backend: str = "auto",
    log_target=None,
    log_z: np.ndarray | None = None,
    skeleton: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Importance-sampling estimate of the marginal likelihood of every observation of
    ``above`` ``(N, n, n)`` at every draw of ``rho`` ``(S, n)`` (rank vectors): ``log P̂``, its
    Monte Carlo standard error and the effective sample size, each ``(S, N)``.

    ``samples`` rankings per (draw, observation) are drawn by :func:`insert` around
    ``skeleton`` (default :func:`longest_chains`), split evenly over the proposals at the
    dispersions ``thetas`` (each ``(S,)``). Without ``log_target``
    the target is the Kendall model at ``thetas[0]`` (``log_z`` its :math:`\log Z_n`) and the
    weight :math:`\varphi^{d_K(\text{skeleton})} \prod_x N_x / Z_n`; else the weight is
    ``exp(log_target(ranks, draw))`` over the deterministic mixture :math:`\sum_c (M_c/M)\,
    q_c(r)` (every proposal evaluated at every ranking: unbiased, and no worse than the
    broadest proposal). The estimate is :math:`\log \bar w`, its standard error
    :math:`\mathrm{sd}(w) / (\bar w \sqrt M)` (delta method), the effective sample size
    :math:`(\sum w)^2 / \sum w^2`.
    """
    backend = resolve_backend(backend)
    n_draws, n = rho.shape
    n_obs = above.shape[0]
    full = log_target is not None
    obs = prepare(above, skeleton)
    rank = np.asarray(rho, dtype=np.int64) - 1
    order = np.argsort(rank, axis=1, kind="stable")  # the items, best first in ρ
    theta = np.concatenate([np.asarray(t, dtype=np.float64).ravel() for t in thetas])
    pw = powers(theta, n)
    cum = np.concatenate([np.zeros((len(pw), 1)), np.cumsum(pw, axis=1)], axis=1)
    share = np.arange(samples) * len(thetas) // samples  # the proposal of each sample
    with np.errstate(divide="ignore"):  # a proposal without samples (fewer than proposals)
        log_share = np.log(np.bincount(share, minlength=len(thetas)) / samples)
    chain_d = skeleton_inversions(obs, rank) if not full else None
    free = free_observations(obs) & (not full)
    rng = np.random.default_rng(seed)
    value = np.empty((n_obs, n_draws))
    se, ess = np.empty_like(value), np.empty_like(value)
    per_block = max(1, (8_000_000 if backend == "numba" else 500_000) // (samples * n))
    for group in (np.flatnonzero(free), np.flatnonzero(~free)):
        pairs = len(group) * n_draws  # observation-major: (draw p % S, observation p // S)
        for start in range(0, pairs, per_block):
            p = np.arange(start, min(start + per_block, pairs))
            draw = np.repeat(p % n_draws, samples)
            obs_index = np.repeat(group[p // n_draws], samples)
            u = rng.random((len(draw), n))
            if free[group[0]]:
                ins = insert_free(order, rank, draw, obs_index, obs, pw, cum, u, backend)
            else:
                component = np.tile(share, len(p))
                ins = insert(order, rank, draw, obs_index, component, obs, pw, u, full, backend)
            if full:
                log_q = np.stack(
                    [proposal_log_q(ins, t[draw], c) + log_share[c] for c, t in enumerate(thetas)]
                )
                log_w = log_target(ins.positions + 1, draw) - logsumexp(log_q, axis=0)
            else:
                t = thetas[0][draw]
                log_w = ins.log_norm(0) - t * (chain_d[draw, obs_index] + ins.floor) - log_z[draw]
            log_w = log_w.reshape(len(p), samples)
            top = log_w.max(axis=1, keepdims=True)
            w = np.exp(log_w - top)
            mean = w.mean(axis=1)
            where = (group[p // n_draws], p % n_draws)
            value[where] = np.log(mean) + top[:, 0]
            se[where] = w.std(axis=1, ddof=1) / (mean * np.sqrt(samples))
            ess[where] = w.sum(axis=1) ** 2 / (w**2).sum(axis=1)
    return value.T, se.T, ess.T

r"""numba kernels of the Metropolis–Hastings Mallows sampler (optional: ``rankstats[fast]``).

:func:`run_block` runs a block of iterations of
:meth:`~rankstats.models.mallows._metropolis.MetropolisChain.run` in one call from Python — the
swap proposals of the latent rankings
(:class:`~rankstats.models.mallows._augmentation.Augmentation`), the leap-and-shift move of ρ with
the proposal ratio of :func:`~rankstats.models.mallows._metropolis.leap_and_shift_log_q` or the
swap of two of its ranks (:func:`~rankstats.models.mallows._metropolis.propose_rho`), the
log-normal move of α and its adaptation — as plain loops: the NumPy reference spends most of an
iteration in the Python overhead of a dozen small array operations, and the change of
:math:`D(\rho)` a move makes needs only the items it moves:

- item-wise distances (footrule, Spearman, Hamming): the
  :class:`~rankstats.models.mallows._metropolis.RankCosts` of the reference, updated in place
  (``O(|r − ρ_u|)`` per proposal of ρ, ``O(1)`` per swap of ρ or of a latent ranking);
- Kendall: the pair counts ``pairs[a, b]`` = the latent rankings with ``a`` above ``b`` (the
  proposal flips the pairs of the moved item with the items it passes; a swap of ranks ``a < b``
  in ρ or in one ranking flips the pairs of the two items with each other and with the items
  between);
- Cayley: each ranking's relative permutation :math:`\pi_j = R_j \circ \rho^{-1}` and a label
  of the cycle through each of its positions. An adjacent swap of ρ (every proposal with leap
  1) or a swap of two latent ranks transposes two positions of :math:`\pi_j`, which splits
  their cycle (the distance falls by one) or merges their two (it rises by one). The kernel
  keeps that change for every ranking and pair of adjacent positions, and its sum over the
  rankings: a leap-1 proposal of ρ costs one look-up, a swap of latent ranks one comparison of
  labels; a longer leap counts the cycles of every :math:`\pi_j \circ s` (:math:`O(N n)`), a
  longer swap of ρ compares the labels of its two positions in every ranking; an accepted move
  relabels the cycles it touched and renews their changes;
- Ulam: the same :math:`\pi_j` and, for each position, the longest increasing runs of
  :math:`\pi_j` ending and starting there and whether every longest run passes through it
  (``profile`` of :mod:`rankstats.models.mallows._distances_numba`): an adjacent swap
  changes a ranking's distance by one or not at all, which these tell, kept and summed as
  Cayley's. A swap of latent ranks is counted by a bit-parallel longest common subsequence
  (:math:`O(n)` word operations), and its ranking is "stale" from then on: counted so at each
  proposal of ρ rather than profiled again at each swap (4 times the cost); a longer leap or
  swap of ρ counts every ranking; an accepted move of ρ renews the profiles of the others.

Every change of :math:`D` is an integer, so these sums give the reference's :math:`D(\rho)`
exactly. :math:`\log Z_n(\alpha)` comes from
:meth:`~rankstats.core.permutations.partition.PartitionFunction.log_z_table`, evaluated by
:mod:`rankstats.models.mallows._partition_numba`.

Per iteration this costs 0.1–0.3 µs on potato_visual (12 × 20) and sushi (5,000 × 10), for
every distance, against 46–1,850 µs in NumPy; a sweep of n iterations costs 0.02–0.11× a numba
Gibbs sweep of the Kendall model on the same data, 0.03–0.73× on simulated complete rankings of
10–100 items (the most: the footrule on 100 items, whose α move sums 2,500 exact counts), and
0.73–1.42× with half of each of 1,000 rankings of 20 items unranked
(``tests/benchmarks/bench_mallows_distances.py``; shared 2-core machine, load 3.2–3.5).

**The same chain as the reference.** The driver
(:meth:`~rankstats.models.mallows._metropolis.MetropolisChain.run`) draws the random numbers of
a block with :func:`draw_block` from the chain's own generator, in the reference's order (per
iteration: ``random(5)``, ``standard_normal()``, then the augmentation's three ``random(m)``;
numba's ``Generator`` methods are NumPy's algorithms on the same bit generator, and the
generator is left where the reference leaves it), takes the logarithms of the augmentation's
acceptance uniforms with ``np.log`` as the reference does (NumPy's SIMD ``log`` differs from the
C library's in the last bit for about 0.3 % of the numbers), and the kernel evaluates every other
expression with the reference's operations in its order: ``math.log`` / ``math.exp`` are the C
library's in CPython and in numba, integer changes of :math:`D`, no ``fastmath``. The one
exception is :math:`\log Z_n(\alpha)` of the closed forms and exact counts: the reference's
NumPy evaluation (SIMD ``log``/``expm1``, pairwise sums, a log-sum-exp of every count) cannot be
repeated bit for bit in a loop, and would cost :math:`O(n)`–:math:`O(n^2)` transcendental
functions per proposal of α; the kernels' agrees with it within 6e-14 relative (the spline of
the importance-sampling estimate: bit for bit; tested), so an acceptance of α could differ only
when :math:`\log u` falls within about :math:`N \times 10^{-13}` of the log ratio — never in the
tests, which compare the draws of both backends exactly.

This module is imported only when a Metropolis–Hastings chain runs with the numba backend
(:func:`~rankstats.models.mallows._metropolis.resolve_backend`); like
:mod:`rankstats.models.mallows._gibbs_numba`, the kernels are compiled eagerly for the one signature
the driver uses and cached on disk (``cache=True``: 7–10 s to compile them with an empty cache
on the 2-core machine, 0.05 s to load them from it), ``nogil``, without ``fastmath``. The kernels
of :mod:`rankstats.models.mallows._distances_numba` and
:mod:`rankstats.models.mallows._partition_numba` are compiled into :func:`run_block`, whose
cache numba renews only when this file changes: after editing one of those, delete
``rankstats/models/mallows/__pycache__/_metropolis_numba*.nb*``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types

from rankstats.models.mallows._distances_numba import (
    CAYLEY,
    FOOTRULE,
    KENDALL,
    SPEARMAN,
    ULAM,
    distance,
    longest_swapped,
    profile,
    relabel,
    source,
)
from rankstats.models.mallows._distances_numba import (  # for the driver
    pair_counts as pair_counts,
)
from rankstats.models.mallows._partition_numba import counts_table, log_z

_OPTIONS = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}

_GENERATOR = types.NumPyRandomGeneratorType("NumPyRandomGeneratorType")
_F1 = types.float64[::1]
_F2 = types.float64[:, ::1]
_I1 = types.int64[::1]
_I2 = types.int64[:, ::1]


@numba.njit(types.void(_GENERATOR, _F2, _F1, _F2, _F2, _F2), **_OPTIONS)
def draw_block(rng, u, z, pick, other, accept):  # pragma: no cover
    """The random numbers of ``len(z)`` iterations, in the reference's order: per iteration
    the five uniforms ``u[t]`` (item, rank, the two acceptances, the leap), the normal step of
    α ``z[t]``, then the augmentation's uniforms of its latent item (``pick[t]``), of the other
    item (``other[t]``) and of the acceptance (``accept[t]``), one per partial ranking."""
    m = pick.shape[1]
    for t in range(z.shape[0]):
        for k in range(5):
            u[t, k] = rng.random()
        z[t] = rng.standard_normal()
        for k in range(m):
            pick[t, k] = rng.random()
        for k in range(m):
            other[t, k] = rng.random()
        for k in range(m):
            accept[t, k] = rng.random()


def fixed_arguments(augmentation, table) -> tuple:
    """The arguments of :func:`run_block` that stay the same from run to run of a chain, from
    its :class:`~rankstats.models.mallows._augmentation.Augmentation` and the
    :class:`~rankstats.core.permutations.partition.LogZTable` of its partition function: ``rows,
    latent_items, n_latent, key, above`` and ``form … log_factorial``."""
    aug = augmentation
    rows = np.asarray(aug.rows if aug.active else [], dtype=np.int64)
    latent = aug.latent[rows]
    n_latent = latent.sum(axis=1).astype(np.int64)
    width = int(n_latent.max()) if len(rows) else 0
    order = np.argsort(~latent, axis=1, kind="stable")[:, :width]  # latent items first, in order
    latent_items = np.ascontiguousarray(order, dtype=np.int64)
    if aug.above is not None:
        key = np.empty((0, 0))
        above = np.ascontiguousarray(aug.above, dtype=np.bool_)
    else:
        key = np.ascontiguousarray(aug.key, dtype=np.float64)
        above = np.empty((0, 0, 0), dtype=np.bool_)
    if table.form == "counts":
        coefficients, starts, scales, stride = counts_table(table.log_counts)
    else:
        coefficients, starts, scales, stride = np.empty(0), np.zeros(1, np.int64), np.empty(0), 1
    spline = np.ascontiguousarray(table.coefficients, dtype=np.float64)
    return (
        rows, latent_items, n_latent, key, above,
        table.code, coefficients, starts, scales, stride, table.breaks, spline, table.log_factorial,
    )  # fmt: skip


@numba.njit(**_OPTIONS)
def _swap_change(code, ru, rv, rho_u, rho_v):  # pragma: no cover
    """``d(R*, ρ) − d(R, ρ)`` of an item-wise distance when the items ``u``, ``v`` at ranks
    ``ru``, ``rv`` (``ρ_u``, ``ρ_v`` in ρ) swap: their two terms."""
    if code == FOOTRULE:
        return abs(rv - rho_u) + abs(ru - rho_v) - abs(ru - rho_u) - abs(rv - rho_v)
    if code == SPEARMAN:
        return (rv - rho_u) ** 2 + (ru - rho_v) ** 2 - (ru - rho_u) ** 2 - (rv - rho_v) ** 2
    return int(rv != rho_u) + int(ru != rho_v) - int(ru != rho_u) - int(rv != rho_v)


@numba.njit(**_OPTIONS)
def _renew_runs(
    row, pi, ending, starting, critical, longest, adjacent, column, scratch
):  # pragma: no cover
    """Renew ranking ``row``'s profile (Ulam; ``longest[row]`` too) from ``pi[row]``, and the
    change of its distance by each adjacent swap of π (``adjacent[row]``) in their sums over
    the rankings (``column``)."""
    n = pi.shape[1]
    length = profile(pi[row], ending[row], starting[row], critical[row], scratch)
    longest[row] = length
    for k in range(n - 1):
        if pi[row, k] < pi[row, k + 1]:  # the runs through both shorten
            change = int(critical[row, k] and critical[row, k + 1])
        else:  # a longer run through both
            change = -int(ending[row, k + 1] + starting[row, k] == length + 1)
        column[k] += change - adjacent[row, k]
        adjacent[row, k] = change


@numba.njit(**_OPTIONS)
def _renew_cycles(row, starts, count, pi, label, adjacent, column, mark, stamp):  # pragma: no cover
    """Relabel the cycles of ``pi[row]`` through the positions ``starts[:count]`` (Cayley), and
    renew the change of the distance by each adjacent swap that touches them (the same cycle
    splits: −1; two merge: +1) in ``adjacent[row]`` and ``column``; the next ``stamp``."""
    n = pi.shape[1]
    stamp += 1
    for i in range(count):
        relabel(pi[row], label[row], starts[i], mark, stamp)
    stamp += 1
    for i in range(count):  # the same cycles again: their positions' neighbours
        j = starts[i]
        while mark[j] != stamp:
            mark[j] = stamp
            for k in (j - 1, j):
                if 0 <= k < n - 1:
                    change = -1 if label[row, k] == label[row, k + 1] else 1
                    column[k] += change - adjacent[row, k]
                    adjacent[row, k] = change
            j = pi[row, j]
    return stamp


@numba.njit(**_OPTIONS)
def _shift(rho, rho_inv, item, position, rank):  # pragma: no cover
    """Leap and shift in place: ``item`` from ``position`` to ``rank``, the items between one
    rank towards ``position`` (``rho_inv`` kept the inverse of ``rho``)."""
    if rank > position:
        for r in range(position, rank):  # the item ranked r + 1 is now r
            other = rho_inv[r]
            rho[other] = r
            rho_inv[r - 1] = other
    else:
        for r in range(position - 1, rank - 1, -1):  # the item ranked r is now r + 1
            other = rho_inv[r - 1]
            rho[other] = r + 1
            rho_inv[r] = other
    rho[item] = rank
    rho_inv[rank - 1] = item


@numba.njit(**_OPTIONS)
def _swap(rho, rho_inv, low, high):  # pragma: no cover
    """Swap in place: the items ranked ``low`` and ``high`` exchange (``rho_inv`` kept)."""
    a, b = rho_inv[low - 1], rho_inv[high - 1]
    rho[a], rho[b] = high, low
    rho_inv[low - 1], rho_inv[high - 1] = b, a


@numba.njit(**_OPTIONS)
def _swapped_change(low, high, rho_inv, cost, pairs):  # pragma: no cover
    """``D(ρ*) − D(ρ)`` when the items ranked ``low < high`` in ρ exchange: their two terms of
    ``cost`` (item-wise), or (Kendall, ``pairs``) the flipped pairs — theirs, and each with the
    items between; the pairs with the items outside keep their order."""
    a, b = rho_inv[low - 1], rho_inv[high - 1]
    if cost.shape[0] > 0:
        return cost[a, high - 1] - cost[a, low - 1] + cost[b, low - 1] - cost[b, high - 1]
    change = pairs[a, b] - pairs[b, a]  # b now above a: the rankings with a above b disagree
    for r in range(low + 1, high):
        w = rho_inv[r - 1]  # a passes below w, b above it
        change += pairs[a, w] - pairs[w, a] + pairs[w, b] - pairs[b, w]
    return change


@numba.njit(**_OPTIONS)
def _choices(position, n, leap):  # pragma: no cover
    """Ranks within ``leap`` of ``position``, other than itself (``_choices`` of the reference)."""
    return min(n, position + leap) - max(1, position - leap)


@numba.njit(
    types.int64(
        types.int64, _I1, _F2, _F1, _F2, _F2, _F2, _I2, _I1, _I2, _I1, _F2,
        types.boolean[:, :, ::1], _I2, _I2, _I2, types.int64, _F1, _I1, _F1, types.int64, _F1,
        _F2, types.float64, types.int64, types.boolean, types.int64, types.boolean, types.int64,
        types.int64, types.float64, types.float64, _F1, _I1, _I2, _F1,
    ),
    **_OPTIONS,
)  # fmt: skip
def run_block(
    code, rho, u, z, pick, other, log_accept, completions, rows, latent_items, n_latent, key,
    above, cost, term, pairs, form, coefficients, starts, scales, stride, breaks, spline,
    log_factorial, leap, swap, thin, adapt, adapt_window, n_rankings, alpha_shape, alpha_rate,
    state, counters, rho_draws, alpha_draws,
):  # fmt: skip  # pragma: no cover
    """``len(z)`` iterations of :meth:`~rankstats.models.mallows._metropolis.MetropolisChain.run`
    (the NumPy reference), from the random numbers of :func:`draw_block` (``log_accept``: the
    logarithms of its ``accept``). Returns the iterations done: all of them, unless a proposal
    of α falls beyond the importance-sampling grid (``state[3]``), which the caller refuses.

    ``rho``, ``completions`` (the latent rankings; ``rows``: the partial ones, ``latent_items``
    and ``n_latent`` their latent items; ``key`` the observed ranks as the reference's, or
    ``above`` the preferences), ``cost`` (:class:`RankCosts`, ``term`` its table; empty when
    D(ρ) comes from the rankings), ``pairs`` (Kendall's pair counts; else empty) are updated in
    place. ``form`` … ``log_factorial``: the arguments of ``log_z``
    (:mod:`rankstats.models.mallows._partition_numba`). ``swap``: ρ's proposal is the swap, not
    leap-and-shift (:func:`~rankstats.models.mallows._metropolis.propose_rho`). ``state`` = (α,
    log Z, α's proposal scale, the refused α) and ``counters`` = (D(ρ), accepted ρ, accepted α,
    the adaptation window's proposals and acceptances, the chain's iterations, the next draw's
    slot, the augmentation's acceptances) are read and written back."""
    n = rho.shape[0]
    m = rows.shape[0]
    itemwise = cost.shape[0] > 0
    kendall = pairs.shape[0] > 0
    rho_inv = np.empty(n, dtype=np.int64)
    for i in range(n):
        rho_inv[rho[i] - 1] = i
    proposal = np.empty(n, dtype=np.int64)
    proposal_inv = np.empty(n, dtype=np.int64)
    scratch = np.empty(n + 1, dtype=np.int64)
    n_rows = completions.shape[0]
    preferences = above.shape[0] > 0
    order = np.empty((n_rows if m else 0, n), dtype=np.int64)  # the items by rank, rows[k]'s
    for k in range(m):
        for i in range(n):
            order[rows[k], completions[rows[k], i] - 1] = i
    # Cayley: π_j = R_j ∘ ρ⁻¹ of every ranking (0-based) and the label of each position's cycle.
    # A transposition of two positions of π splits their cycle or merges their two: the change
    # of the distance is ∓1, one comparison of labels, instead of counting the cycles again.
    # Ulam: the same π_j, its longest increasing run, and for each position the longest runs
    # ending and starting there and whether every longest run passes through it (profile): an
    # adjacent swap changes the distance by one or not at all, which these tell. Both keep the
    # change of each ranking's distance by each adjacent swap, and its sum over the rankings
    # (``column``): a proposal of ρ with leap 1 costs one look-up. A ranking whose latent ranks
    # have moved is "stale" for Ulam from then on: rather than renew its profile at every move
    # (4 times the cost of a count), its changes are counted (longest_swapped).
    cycles = code == CAYLEY
    ulam = code == ULAM
    rowwise = n_rows if cycles or ulam else 0
    pi = np.empty((rowwise, n), dtype=np.int32)  # small integers: more of them in the cache
    label = np.empty((n_rows if cycles else 0, n), dtype=np.int32)
    adjacent = np.zeros((rowwise, n - 1), dtype=np.int8)
    column = np.zeros(n - 1, dtype=np.int64)
    starts_at = np.arange(n)  # relabel from: every position, or those a move changed
    mark = np.zeros(n, dtype=np.int64)
    stamp = 0
    ending = np.empty((n_rows if ulam else 0, n), dtype=np.int8)  # n ≤ 40
    starting = np.empty_like(ending)
    critical = np.empty(ending.shape, dtype=np.bool_)
    longest = np.empty(ending.shape[0], dtype=np.int64)
    stale = np.zeros(ending.shape[0], dtype=np.bool_)
    stale_rows = np.empty(ending.shape[0], dtype=np.int64)
    n_stale = 0
    shorter = np.empty(ending.shape[0], dtype=np.int64)  # a proposal's change of the distance
    for row in range(rowwise):
        for k in range(n):
            pi[row, k] = completions[row, rho_inv[k]] - 1
        if cycles:
            stamp = _renew_cycles(row, starts_at, n, pi, label, adjacent, column, mark, stamp)
        else:
            _renew_runs(row, pi, ending, starting, critical, longest, adjacent, column, scratch)
    alpha, current_log_z, alpha_sd = state[0], state[1], state[2]
    total, accepted_rho, accepted_alpha = counters[0], counters[1], counters[2]
    window, window_accepted, iteration = counters[3], counters[4], counters[5]
    slot, augmented = counters[6], counters[7]
    done = z.shape[0]
    for t in range(z.shape[0]):
        # --- the latent ranks of the partial rankings
        c = alpha / n
        for k in range(m):
            row = rows[k]
            latent_u = latent_items[k, int(pick[t, k] * n_latent[k])]
            latent_v = (latent_u + 1 + int(other[t, k] * (n - 1))) % n
            ru = completions[row, latent_u]
            rv = completions[row, latent_v]
            # The swap puts q (now at rank high) above p (now at low) and changes no other
            # pair than theirs and theirs with the items between: the completion, compatible
            # before, stays compatible unless one of these pairs is an observed preference.
            p, q = (latent_u, latent_v) if ru < rv else (latent_v, latent_u)
            low, high = min(ru, rv), max(ru, rv)
            if preferences:
                allowed = not above[row, p, q]
            else:
                allowed = not key[row, p] < key[row, q]  # NaN: no order
            change = int(rho[p] < rho[q]) - int(rho[q] < rho[p])  # Kendall: the pair (p, q)
            for r in range(low, high - 1):  # the items between, by rank
                if not allowed:
                    break
                w = order[row, r]
                if preferences:
                    allowed = not (above[row, p, w] or above[row, w, q])
                else:
                    allowed = not (key[row, p] < key[row, w] or key[row, w] < key[row, q])
                if code == KENDALL:
                    change += int(rho[q] > rho[w]) - int(rho[p] > rho[w])
                    change += int(rho[w] > rho[p]) - int(rho[w] > rho[q])
            if not allowed:
                continue
            at_u, at_v = rho[latent_u] - 1, rho[latent_v] - 1  # π_j ∘ (at_u, at_v)
            if cycles:
                change = -1 if label[row, at_u] == label[row, at_v] else 1
            elif ulam:
                change = longest[row] - longest_swapped(pi[row], at_u, at_v)
            elif code != KENDALL:
                change = _swap_change(code, ru, rv, rho[latent_u], rho[latent_v])
            if not log_accept[t, k] < -c * change:
                continue
            if cycles or ulam:
                pi[row, at_u], pi[row, at_v] = pi[row, at_v], pi[row, at_u]
            if cycles:
                starts_at[0], starts_at[1] = at_u, at_v
                stamp = _renew_cycles(row, starts_at, 2, pi, label, adjacent, column, mark, stamp)
            elif ulam:
                longest[row] -= change
                if not stale[row]:  # out of the column sums
                    for r in range(n - 1):
                        column[r] -= adjacent[row, r]
                        adjacent[row, r] = 0
                    stale[row] = True
                    stale_rows[n_stale] = row
                    n_stale += 1
            if kendall:  # the flipped pairs
                pairs[p, q] -= 1
                pairs[q, p] += 1
                for r in range(low, high - 1):
                    w = order[row, r]
                    pairs[p, w] -= 1
                    pairs[w, p] += 1
                    pairs[w, q] -= 1
                    pairs[q, w] += 1
            order[row, low - 1], order[row, high - 1] = q, p
            if itemwise:
                for r in range(n):
                    cost[latent_u, r] += term[rv - 1, r] - term[ru - 1, r]
                    cost[latent_v, r] += term[ru - 1, r] - term[rv - 1, r]
            completions[row, latent_u] = rv
            completions[row, latent_v] = ru
            total += change
            augmented += 1
        # --- ρ: leap and shift, or swap (propose_rho of the reference)
        size = 1 + int(u[t, 4] * leap)
        if swap:  # the items ranked position and rank = position + size exchange
            position = 1 + int(u[t, 1] * (n - size))
            rank = position + size
            item = rho_inv[position - 1]
        else:
            item = int(u[t, 0] * n)
            position = rho[item]
            low = max(1, position - size)
            high = min(n, position + size)
            choice = low + int(u[t, 1] * (high - low))
            rank = choice + 1 if choice >= position else choice
        if swap and (itemwise or kendall):
            new_total = total + _swapped_change(position, rank, rho_inv, cost, pairs)
        elif itemwise or kendall:
            change = 0
            if itemwise:
                change = cost[item, rank - 1] - cost[item, position - 1]
            for r in range(min(rank, position), max(rank, position) + 1):
                other_item = rho_inv[r - 1]
                if other_item == item:
                    continue
                shifted = r - 1 if rank > position else r + 1  # its new rank
                if itemwise:
                    change += cost[other_item, shifted - 1] - cost[other_item, r - 1]
                elif rank > position:  # the item passes below other_item
                    change += pairs[item, other_item] - pairs[other_item, item]
                else:
                    change += pairs[other_item, item] - pairs[item, other_item]
            new_total = total + change
        elif (cycles or ulam) and abs(rank - position) == 1:  # an adjacent swap of π_j's values
            low = min(rank, position) - 1
            new_total = total + column[low]
            for k in range(n_stale):
                row = stale_rows[k]
                shorter[row] = longest[row] - longest_swapped(pi[row], low, low + 1)
                new_total += shorter[row]
        elif swap and (cycles or ulam):  # a transposition of π_j's values at two positions
            low, high = position - 1, rank - 1
            new_total = total
            for row in range(n_rows):
                if cycles:  # splits their cycle or merges their two
                    new_total += -1 if label[row, low] == label[row, high] else 1
                else:
                    shorter[row] = longest[row] - longest_swapped(pi[row], low, high)
                    new_total += shorter[row]
        elif cycles:  # count the cycles of every π_j ∘ s
            low, high = min(rank, position) - 1, max(rank, position) - 1
            down = rank > position
            new_total = 0
            for row in range(n_rows):
                stamp += 1
                found = 0
                for k in range(n):
                    if mark[k] != stamp:
                        found += 1
                        j = k
                        while mark[j] != stamp:
                            mark[j] = stamp
                            j = pi[row, source(j, low, high, down)]
                new_total += n - found
        else:
            for i in range(n):
                proposal[i] = rho[i]
                proposal_inv[i] = rho_inv[i]
            if swap:
                _swap(proposal, proposal_inv, position, rank)
            else:
                _shift(proposal, proposal_inv, item, position, rank)
            new_total = 0
            for row in range(n_rows):
                d = distance(code, completions[row], proposal, proposal_inv, scratch)
                new_total += d
                if ulam:
                    shorter[row] = d - (n - longest[row])
        if swap:  # symmetric
            log_q = 0.0
            log_q_back = 0.0
        elif abs(rank - position) == 1:  # an adjacent swap, proposed by either item
            either = 1.0 / _choices(position, n, size) + 1.0 / _choices(rank, n, size)
            log_q = math.log(either / n)
            log_q_back = log_q
        else:
            log_q = -math.log(n * _choices(position, n, size))
            log_q_back = -math.log(n * _choices(rank, n, size))
        log_ratio = -alpha / n * (new_total - total) + log_q_back - log_q
        if math.log(u[t, 2]) < log_ratio:
            if cycles or ulam:  # π_j ∘ s for every ranking, and what it keeps of π_j
                low, high = min(rank, position) - 1, max(rank, position) - 1
                for row in range(n_rows):
                    if swap:
                        pi[row, low], pi[row, high] = pi[row, high], pi[row, low]
                    elif rank > position:
                        first = pi[row, low]
                        for k in range(low, high):
                            pi[row, k] = pi[row, k + 1]
                        pi[row, high] = first
                    else:
                        last = pi[row, high]
                        for k in range(high, low, -1):
                            pi[row, k] = pi[row, k - 1]
                        pi[row, low] = last
                    if cycles:  # the cycles through the moved positions
                        count = 2 if swap else high - low + 1
                        for k in range(count):
                            starts_at[k] = high if swap and k == 1 else low + k
                        stamp = _renew_cycles(
                            row, starts_at, count, pi, label, adjacent, column, mark, stamp
                        )
                    elif stale[row]:  # counted (its latent ranks will move again)
                        longest[row] -= shorter[row]
                    else:
                        _renew_runs(
                            row, pi, ending, starting, critical, longest, adjacent, column, scratch
                        )
            if swap:
                _swap(rho, rho_inv, position, rank)
            else:
                _shift(rho, rho_inv, item, position, rank)
            total = new_total
            accepted_rho += 1
        # --- α: log-normal random walk
        new_alpha = alpha * math.exp(alpha_sd * z[t])
        new_log_z = log_z(
            form, n, coefficients, starts, scales, stride, breaks, spline, log_factorial,
            new_alpha,
        )  # fmt: skip
        if new_log_z != new_log_z:  # beyond the importance-sampling grid: the caller refuses
            state[3] = new_alpha
            done = t
            break
        log_ratio = (
            -(new_alpha - alpha) / n * total
            - n_rankings * (new_log_z - current_log_z)
            - alpha_rate * (new_alpha - alpha)
            + alpha_shape * math.log(new_alpha / alpha)
        )
        if math.log(u[t, 3]) < log_ratio:
            alpha = new_alpha
            current_log_z = new_log_z
            accepted_alpha += 1
            if adapt:
                window_accepted += 1
        if adapt:
            window += 1
            if window == adapt_window:
                rate = window_accepted / adapt_window
                alpha_sd = min(5.0, max(0.01, alpha_sd * math.exp(rate - 0.44)))
                window = 0
                window_accepted = 0
        iteration += 1
        if iteration % thin == 0:
            for i in range(n):
                rho_draws[slot, i] = rho[i]
            alpha_draws[slot] = alpha
            slot += 1
    state[0], state[1], state[2] = alpha, current_log_z, alpha_sd
    counters[0], counters[1], counters[2] = total, accepted_rho, accepted_alpha
    counters[3], counters[4], counters[5] = window, window_accepted, iteration
    counters[6], counters[7] = slot, augmented
    return done

r"""Gibbs sampler for the Bayesian Mallows model with partial rankings and ties.

State of one chain: the consensus :math:`\sigma` (a permutation), the dispersion :math:`\theta`,
and one latent complete ranking :math:`\pi_l` per observed ranking (the unranked items' positions
and the order inside tied groups are latent).  One sweep:

1. **latent completions** — for every item that is latent in some rankings, remove it from each
   such :math:`\pi_l` and re-insert it at a gap drawn from its exact full conditional
   :math:`\propto e^{-\theta\, \Delta d}` over the gaps that keep the observed strict preferences
   (all gaps for an unranked item; the span of its tie group for a tied one).  The discordances
   with :math:`\sigma` for every gap come from one cumulative sum: :math:`O(n)` per ranking,
   vectorised over the rankings;
2. **consensus** — for every item of :math:`\sigma`, remove it and re-insert it at a position
   drawn from its exact full conditional, computed for all :math:`n` positions from the pairwise
   count matrix :math:`C[i, j] = \#\{l : i \text{ above } j \text{ in } \pi_l\}` by cumulative
   sums (:math:`O(n)` per item);
3. **dispersion** — slice sampling (Neal 2003) of
   :math:`\log p(\theta) - \theta D - L \log Z_n(\theta)`, :math:`D = \sum_l d(\pi_l, \sigma)`.

The prior on :math:`\sigma` is uniform.  Every move is an exact Gibbs or slice update, so the
chain targets the joint posterior (Vitelli et al. 2018 use Metropolis leap-and-shift moves instead;
exact conditionals are cheap here because the Kendall distance decomposes over pairs).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankstats.models._mallows_math import log_z


def _gumbel_choice(rng: np.random.Generator, logits: np.ndarray) -> np.ndarray:
    """One draw per row from ``softmax(logits)`` (``-inf`` = impossible)."""
    return np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)


def initial_completions(ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Positions ``(L, n)`` (0 = best) of random completions compatible with ``ranks``."""
    n_rows, n = ranks.shape
    observed = ~np.isnan(ranks)
    k = observed.sum(axis=1, keepdims=True)
    # Observed: rank + jitter breaks ties at random; unranked: uniform over the whole range.
    key = np.where(
        observed,
        ranks + rng.uniform(-0.49, 0.49, ranks.shape),
        rng.uniform(0.5, k + 0.5, ranks.shape),
    )
    positions = np.empty((n_rows, n), dtype=np.int64)
    np.put_along_axis(positions, np.argsort(key, axis=1), np.arange(n), axis=1)
    return positions


def pair_counts(positions: np.ndarray) -> np.ndarray:
    """``C[i, j]`` = number of rankings with ``i`` above ``j``."""
    return np.count_nonzero(positions[:, :, None] < positions[:, None, :], axis=0).astype(
        np.float64
    )


def total_distance(counts: np.ndarray, sigma_pos: np.ndarray) -> float:
    """:math:`\\sum_l d(\\pi_l, \\sigma)` from the pairwise counts."""
    above = sigma_pos[:, None] < sigma_pos[None, :]  # i above j in σ
    return float(np.sum(counts.T[above]))


def update_completions(
    positions: np.ndarray,
    ranks: np.ndarray,
    latent_items: list[tuple[int, np.ndarray]],
    sigma_pos: np.ndarray,
    theta: float,
    rng: np.random.Generator,
) -> None:
    """Gibbs re-insertion of every latent item in the rankings where it is latent (in place)."""
    n = positions.shape[1]
    for item, rows in latent_items:
        pos = positions[rows]
        order = np.argsort(pos, axis=1)  # items by position
        rest = order[order != item].reshape(len(rows), n - 1)  # the others, in order
        # a[t] = 1 when the item is above rest[t] in σ: placing it after rest[t] is discordant.
        a = (sigma_pos[item] < sigma_pos[rest]).astype(np.float64)
        before = np.concatenate([np.zeros((len(rows), 1)), np.cumsum(a, axis=1)], axis=1)
        after = np.concatenate(
            [np.cumsum((1 - a)[:, ::-1], axis=1)[:, ::-1], np.zeros((len(rows), 1))], axis=1
        )
        cost = before + after  # discordant pairs involving the item, for each of the n gaps
        r_item = ranks[rows, item]
        r_rest = np.take_along_axis(ranks[rows], rest, axis=1)
        gaps = np.arange(n)[None, :]
        # Observed strict preferences bound the gap: after every better-ranked observed item,
        # before every worse-ranked one (comparisons with NaN are False: no constraint).
        better = r_rest < r_item[:, None]
        worse = r_rest > r_item[:, None]
        lo = np.where(better.any(axis=1), n - 1 - np.argmax(better[:, ::-1], axis=1), 0)
        hi = np.where(worse.any(axis=1), np.argmax(worse, axis=1), n - 1)
        logits = np.where((gaps >= lo[:, None]) & (gaps <= hi[:, None]), -theta * cost, -np.inf)
        gap = _gumbel_choice(rng, logits)
        new = np.empty_like(pos)
        shifted = np.arange(n - 1)[None, :] + (np.arange(n - 1)[None, :] >= gap[:, None])
        np.put_along_axis(new, rest, shifted, axis=1)
        new[:, item] = gap
        positions[rows] = new


def update_consensus(
    sigma_order: np.ndarray, counts: np.ndarray, theta: float, rng: np.random.Generator
) -> np.ndarray:
    """Gibbs re-insertion of every item of σ (``sigma_order``: items best first)."""
    n = len(sigma_order)
    order = list(sigma_order)
    noise = rng.gumbel(size=(n, n))
    cost = np.empty(n)
    for k, item in enumerate(rng.permutation(n)):
        order.remove(item)
        rest = np.fromiter(order, dtype=np.int64, count=n - 1)
        # Placing the item at position p: items rest[:p] above it (discordant in ranking l when
        # the item is above them there: counts[item, y]), rest[p:] below it (counts[y, item]).
        cost[0] = 0.0
        np.cumsum(counts[item, rest], out=cost[1:])
        cost[:-1] += np.cumsum(counts[rest[::-1], item])[::-1]
        order.insert(int(np.argmax(noise[k] - theta * cost)), item)
    return np.asarray(order)


def slice_theta(
    theta: float,
    log_post: Callable[[float], float],
    rng: np.random.Generator,
    width: float = 0.5,
    max_steps: int = 50,
) -> float:
    """One slice-sampling update of θ > 0 (stepping out, then shrinkage; Neal 2003)."""
    level = log_post(theta) + np.log(rng.random())
    left = theta - width * rng.random()
    right = left + width
    for _ in range(max_steps):
        if left <= 0 or log_post(left) < level:
            break
        left -= width
    for _ in range(max_steps):
        if log_post(right) < level:
            break
        right += width
    left = max(left, 0.0)
    while True:
        proposal = rng.uniform(left, right)
        if proposal > 0 and log_post(proposal) >= level:
            return proposal
        if proposal < theta:
            left = proposal
        else:
            right = proposal


def latent_structure(ranks: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """For each item, the rankings in which its position is latent (unranked or tied)."""
    observed = ~np.isnan(ranks)
    tied = np.zeros_like(observed)
    for j in range(ranks.shape[1]):
        same = (ranks == ranks[:, [j]]) & observed
        tied[:, j] = same.sum(axis=1) > 1
    latent = ~observed | tied
    return [(j, np.flatnonzero(latent[:, j])) for j in range(ranks.shape[1]) if latent[:, j].any()]


def run_chain(
    ranks: np.ndarray,
    n_sweeps: int,
    n_tune: int,
    log_prior: Callable[[float], float],
    rng: np.random.Generator,
    start_order: np.ndarray,
    theta0: float = 1.0,
    callback: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One chain: returns ``theta`` (n_sweeps,) and consensus positions (n_sweeps, n), 1 = best.

    The first ``n_tune`` sweeps are discarded. ``KeyboardInterrupt`` propagates with the draws
    made so far attached as ``err.args[1:]``.
    """
    n_rows, n = ranks.shape
    positions = initial_completions(ranks, rng)
    latent = latent_structure(ranks)
    order = np.asarray(start_order)
    theta = theta0
    thetas = np.empty(n_sweeps)
    sigma_positions = np.empty((n_sweeps, n))
    const = n_rows

    def log_post(t: float, distance: float) -> float:
        return log_prior(t) - t * distance - const * float(log_z(n, t))

    kept = 0
    try:
        for sweep in range(n_tune + n_sweeps):
            sigma_pos = np.empty(n, dtype=np.int64)
            sigma_pos[order] = np.arange(n)
            if latent:
                update_completions(positions, ranks, latent, sigma_pos, theta, rng)
                counts = pair_counts(positions)
            elif sweep == 0:
                counts = pair_counts(positions)  # complete untied data: the counts never change
            order = update_consensus(order, counts, theta, rng)
            sigma_pos[order] = np.arange(n)
            distance = total_distance(counts, sigma_pos)
            theta = slice_theta(theta, lambda t, d=distance: log_post(t, d), rng)
            if sweep >= n_tune:
                thetas[kept] = theta
                sigma_positions[kept] = sigma_pos + 1
                kept += 1
            if callback is not None:
                callback(sweep)
    except KeyboardInterrupt as err:
        raise KeyboardInterrupt("interrupted", thetas[:kept], sigma_positions[:kept]) from err
    return thetas, sigma_positions

r"""Gibbs sampler for the Bayesian Mallows model with partial rankings and ties.

State of one chain: the consensus :math:`\sigma` (a permutation), the dispersion :math:`\theta`,
and one latent complete ranking :math:`\pi_l` per observed ranking (the unranked items' positions
and the order inside tied groups are latent).  One sweep:

1. **latent completions** — for every ranking, each of its latent items in a random order is
   removed from :math:`\pi_l` and re-inserted at a gap drawn from its exact full conditional
   :math:`\propto e^{-\theta\, \Delta d}` over the gaps that keep the observed strict preferences
   (all gaps for an unranked item; the span of its tie group for a tied one).  The discordances
   with :math:`\sigma` for every gap come from one cumulative sum: :math:`O(n)` per item.  Given
   (σ, θ) the rankings are independent, so the ``t``-th latent item of every ranking is updated in
   one vectorised step: :math:`O(n L)` work per round, as many rounds as the largest number of
   latent items in one ranking;
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


def _categorical(rng: np.random.Generator, logits: np.ndarray) -> np.ndarray:
    """One draw per row from ``softmax(logits)`` by inverting the cumulative weights (one
    exponential and one uniform per row: cheaper than Gumbel-max's two logarithms per cell)."""
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    cumulative = np.cumsum(weights, axis=1)
    # u in (0, total]: the first index with cumulative ≥ u has positive weight.
    u = (1.0 - rng.random(len(logits))) * cumulative[:, -1]
    return np.count_nonzero(cumulative < u[:, None], axis=1)


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
    latent: np.ndarray,
    sigma_pos: np.ndarray,
    theta: float,
    rng: np.random.Generator,
) -> None:
    """Gibbs re-insertion of every latent item of every ranking (in place).

    ``latent`` is the ``(L, m)`` table of :func:`latent_structure` (latent items of each ranking,
    padded with ``-1``).  The rankings are independent given (σ, θ), so round ``t`` re-inserts the
    ``t``-th latent item of *every* ranking at once: the number of vectorised rounds is the largest
    number of latent items in one ranking, not the number of items.  The scan order inside each
    ranking is random in each sweep.
    """
    n = positions.shape[1]
    m = latent.shape[1]
    if m == 0:
        return
    # Random scan order within each ranking; padding (-1) sorts last.
    keys = np.where(latent >= 0, rng.random(latent.shape), 2.0)
    scan = np.take_along_axis(latent, np.argsort(keys, axis=1), axis=1)
    n_latent = (latent >= 0).sum(axis=1)
    slots = np.arange(n - 1)[None, :]
    gaps = np.arange(n)[None, :]
    spare = (n - 1 - np.arange(n))[None, :]  # items after gap g
    identity = np.arange(n)
    for t in range(m):
        rows = np.flatnonzero(n_latent > t)
        items = scan[rows, t]
        k = len(rows)
        at = np.arange(k)[:, None]
        pos = positions[rows]
        order = np.empty_like(pos)  # items by position (inverse permutation, O(n))
        order[at, pos] = identity
        rest = order[order != items[:, None]].reshape(k, n - 1)  # the others, in order
        # a[t] = 1 when the item is above rest[t] in σ: placing it after rest[t] is discordant;
        # placing it before rest[t] is discordant when a[t] = 0.  With B(g) = Σ_{t<g} a[t] and
        # A = B(n − 1): cost(g) = B(g) + (n − 1 − g) − (A − B(g)).
        a = sigma_pos[items][:, None] < sigma_pos[rest]
        before = np.zeros((k, n))
        np.cumsum(a, axis=1, out=before[:, 1:])
        cost = 2.0 * before + spare - before[:, -1:]
        ranks_rows = ranks[rows]
        r_item = ranks_rows[at[:, 0], items]
        r_rest = ranks_rows[at, rest]
        # Observed strict preferences bound the gap: after every better-ranked observed item,
        # before every worse-ranked one (comparisons with NaN are False: no constraint).
        better = r_rest < r_item[:, None]
        worse = r_rest > r_item[:, None]
        lo = np.where(better.any(axis=1), n - 1 - np.argmax(better[:, ::-1], axis=1), 0)
        hi = np.where(worse.any(axis=1), np.argmax(worse, axis=1), n - 1)
        allowed = (gaps >= lo[:, None]) & (gaps <= hi[:, None])
        gap = _categorical(rng, np.where(allowed, -theta * cost, -np.inf))
        new = np.empty_like(pos)
        new[at, rest] = slots + (slots >= gap[:, None])
        new[at[:, 0], items] = gap
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


def latent_structure(ranks: np.ndarray) -> np.ndarray:
    """For each ranking, the items whose position is latent (unranked or tied), padded with -1."""
    observed = ~np.isnan(ranks)
    # Tied: another observed item of the same ranking has the same rank.  O(L n²) once per fit.
    same = (ranks[:, :, None] == ranks[:, None, :]) & observed[:, :, None] & observed[:, None, :]
    tied = same.sum(axis=2) > 1
    latent = ~observed | tied
    m = int(latent.sum(axis=1).max()) if latent.size else 0
    # Latent items first (stable), then padding.
    order = np.argsort(~latent, axis=1, kind="stable")[:, :m]
    return np.where(np.take_along_axis(latent, order, axis=1), order, -1)


class Chain:
    """One chain of the sampler that can be continued: :meth:`run` as often as needed.

    Running ``n_tune`` sweeps without keeping them and then ``n_sweeps`` kept ones, or the same
    sweeps in several calls, draws the same random numbers in the same order: a chain that is
    extended continues exactly where it stopped, and its first draws are those of the shorter run.
    """

    def __init__(
        self,
        ranks: np.ndarray,
        log_prior: Callable[[float], float],
        rng: np.random.Generator,
        start_order: np.ndarray,
        theta0: float = 1.0,
    ) -> None:
        self.ranks, self.log_prior, self.rng = ranks, log_prior, rng
        self.n_rows, self.n = ranks.shape
        self.positions = initial_completions(ranks, rng)
        self.latent = latent_structure(ranks)
        self.order = np.asarray(start_order)
        self.theta = theta0
        # Complete untied data: the counts never change.
        self.counts = None if self.latent.shape[1] else pair_counts(self.positions)
        self.sweeps = 0

    def _log_post(self, t: float, distance: float) -> float:
        return self.log_prior(t) - t * distance - self.n_rows * float(log_z(self.n, t))

    def _sweep(self) -> np.ndarray:
        """One sweep; returns σ's positions (0 = best)."""
        n = self.n
        sigma_pos = np.empty(n, dtype=np.int64)
        sigma_pos[self.order] = np.arange(n)
        if self.latent.shape[1]:
            update_completions(
                self.positions, self.ranks, self.latent, sigma_pos, self.theta, self.rng
            )
            self.counts = pair_counts(self.positions)
        self.order = update_consensus(self.order, self.counts, self.theta, self.rng)
        sigma_pos[self.order] = np.arange(n)
        distance = total_distance(self.counts, sigma_pos)
        self.theta = slice_theta(self.theta, lambda t, d=distance: self._log_post(t, d), self.rng)
        self.sweeps += 1
        return sigma_pos

    def run(
        self, n_sweeps: int, keep: bool = True, callback: Callable[[int], None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``n_sweeps`` more sweeps: ``theta`` (n_sweeps,) and σ positions (n_sweeps, n), 1 = best
        (empty arrays when ``keep`` is False).  ``callback(k)`` after the ``k``-th sweep of this
        call.  ``KeyboardInterrupt`` propagates with the kept draws so far as ``err.args[1:]``."""
        size = n_sweeps if keep else 0
        thetas = np.empty(size)
        sigma_positions = np.empty((size, self.n))
        kept = 0
        try:
            for sweep in range(n_sweeps):
                sigma_pos = self._sweep()
                if keep:
                    thetas[kept] = self.theta
                    sigma_positions[kept] = sigma_pos + 1
                    kept += 1
                if callback is not None:
                    callback(sweep)
        except KeyboardInterrupt as err:
            raise KeyboardInterrupt("interrupted", thetas[:kept], sigma_positions[:kept]) from err
        return thetas, sigma_positions


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
    made so far attached as ``err.args[1:]``.  (:class:`Chain` continues a chain.)
    """
    chain = Chain(ranks, log_prior, rng, start_order, theta0)
    chain.run(n_tune, keep=False, callback=callback)
    shifted = None if callback is None else (lambda k: callback(n_tune + k))
    return chain.run(n_sweeps, callback=shifted)


class LogPrior:
    """Log-density of θ up to a constant, picklable (chains run in worker processes):
    ``(shape − 1) log θ − rate θ`` (Gamma), or ``−rate θ`` when ``gamma`` is False."""

    def __init__(self, shape: float, rate: float, gamma: bool = True) -> None:
        self.shape, self.rate, self.gamma = shape, rate, gamma

    def __call__(self, t: float) -> float:
        if self.gamma:
            return (self.shape - 1) * np.log(t) - self.rate * t
        return -self.rate * t


def advance(chain: Chain, n_sweeps: int, keep: bool) -> tuple[Chain, np.ndarray, np.ndarray]:
    """Run ``chain`` for ``n_sweeps`` more sweeps in a worker process; return it with its draws."""
    thetas, positions = chain.run(n_sweeps, keep=keep)
    return chain, thetas, positions


def ignore_interrupt() -> None:
    """Worker initializer: Ctrl-C stops the parent, which keeps the draws made so far."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)

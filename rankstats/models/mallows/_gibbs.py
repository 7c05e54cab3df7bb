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

**Two backends, one chain.**  Steps 1 and 2 run either in the NumPy functions of this module
(the reference, always available) or in the numba kernels of
:mod:`rankstats.models.mallows._gibbs_numba` (about ten times faster; optional).  Both give
*the same chain, draw for draw*, for the same seed, because

* every random number of steps 1 and 2 is drawn here, by the shared driver
  (:meth:`Chain._sweep`), in one ``Generator.random`` call per sweep of a size fixed by the data,
  and both kernels consume the same uniforms in the same roles (the scan orders are the
  ``argsort`` of uniform keys, computed here; each categorical draw inverts the cumulative
  weights with its own uniform);
* no transcendental function is evaluated inside a kernel (NumPy's SIMD ``exp`` and the C
  library's, which numba calls, may differ in the last bit).  Every cost is an integer (a number
  of discordant pairs), so a weight :math:`e^{-\theta (c - c_{\min})}` is read from the table
  :math:`q^k`, :math:`q = e^{-\theta}`, that :func:`powers` builds here by repeated
  multiplication; the kernels only add and multiply, in the same order (sequential cumulative
  sums, no fused multiply-add, no reassociation);
* the pair counts and the total distance are sums of integers (exact in float64), and the
  slice sampler of θ — a handful of scalar evaluations per sweep of a user-supplied log-prior —
  is this module's Python code for both backends.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: Default kept and discarded sweeps per chain, and the default cap of the automatic extension
#: (``max_draws = EXTEND_FACTOR × draws``); see ``docs/user-guide/mallows.md`` for the timings.
DRAWS = 1000
TUNE = 1000
EXTEND_FACTOR = 20

BACKENDS = ("auto", "numpy", "numba")


def powers(theta: float, largest: int) -> np.ndarray:
    """Weights ``table[k] = e^{-θ k}`` for ``k = 0 … largest`` and a last entry 0.

    Built as :math:`q^k` by repeated multiplication (``np.multiply.accumulate`` is sequential),
    so both backends read identical numbers; the relative error after ``k`` products is about
    ``k`` ulps (``1e-12`` at ``k = 5000``), far below any Monte-Carlo error.  Entries past the
    underflow of :math:`e^{-\\theta k}` (``θ k > 746``) are not stored: an index past the end
    reads the trailing 0, exactly what the underflow gives.
    """
    q = math.exp(-theta)
    if theta > 0:
        largest = min(largest, int(746.0 / theta) + 1)
    table = np.empty(largest + 2)
    table[0] = 1.0
    table[1:-1] = q
    np.multiply.accumulate(table[:-1], out=table[:-1])
    table[-1] = 0.0
    return table


def _weights(shift: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``table[shift]``, 0 past the end of the table (and where ``shift`` is the sentinel)."""
    return table[np.minimum(shift, len(table) - 1)]


def _inverse_cdf(weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One draw per row of ``weights`` (≥ 0, largest 1) by inverting the cumulative weights with
    the uniform ``u`` of the row: the first index whose cumulative weight reaches
    ``(1 − u) × total`` (in ``(0, total]``, so the index has a positive weight)."""
    cumulative = np.cumsum(weights, axis=1)  # sequential along each row
    level = (1.0 - u) * cumulative[:, -1]
    return np.count_nonzero(cumulative < level[:, None], axis=1)


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
    scan: np.ndarray,
    n_latent: np.ndarray,
    sigma_pos: np.ndarray,
    table: np.ndarray,
    u: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Gibbs re-insertion of every latent item of every ranking (in place; NumPy reference).

    ``scan[l, :n_latent[l]]`` are the latent items of ranking ``l`` in the order they are
    updated (a random order drawn by the caller), ``u[l, t]`` the uniform of the ``t``-th draw
    of ranking ``l`` and ``table`` the weights of :func:`powers`; ``counts`` (the
    :func:`pair_counts` of ``positions``) is recounted at the end.  The rankings are independent
    given (σ, θ), so round ``t`` re-inserts the ``t``-th latent item of *every* ranking at once:
    the number of vectorised rounds is the largest number of latent items in one ranking, not
    the number of items.  (The numba kernel goes through the rankings one by one: the same
    draws.)
    """
    n = positions.shape[1]
    m = scan.shape[1]
    slots = np.arange(n - 1)[None, :]
    gaps = np.arange(n)[None, :]
    spare = (n - 1 - np.arange(n))[None, :]  # items after gap g
    identity = np.arange(n)
    sentinel = len(table) - 1
    for t in range(m):
        rows = np.flatnonzero(n_latent > t)
        if not len(rows):
            break
        items = scan[rows, t]
        k = len(rows)
        at = np.arange(k)[:, None]
        pos = positions[rows]
        order = np.empty_like(pos)  # items by position (inverse permutation, O(n))
        order[at, pos] = identity
        rest = order[order != items[:, None]].reshape(k, n - 1)  # the others, in order
        # a[t] = 1 when the item is above rest[t] in σ: placing it after rest[t] is discordant;
        # placing it before rest[t] is discordant when a[t] = 0.  With B(g) = Σ_{t<g} a[t] and
        # A = B(n − 1): cost(g) = B(g) + (n − 1 − g) − (A − B(g)), an integer.
        a = sigma_pos[items][:, None] < sigma_pos[rest]
        before = np.zeros((k, n), dtype=np.int64)
        np.cumsum(a, axis=1, out=before[:, 1:])
        cost = 2 * before + spare - before[:, -1:]
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
        lowest = np.where(allowed, cost, n).min(axis=1, keepdims=True)
        shift = np.where(allowed, cost - lowest, sentinel)
        gap = _inverse_cdf(_weights(shift, table), u[rows, t])
        new = np.empty_like(pos)
        new[at, rest] = slots + (slots >= gap[:, None])
        new[at[:, 0], items] = gap
        positions[rows] = new
    counts[...] = pair_counts(positions)


def update_consensus(
    sigma_order: np.ndarray,
    counts: np.ndarray,
    scan: np.ndarray,
    table: np.ndarray,
    u: np.ndarray,
) -> np.ndarray:
    """Gibbs re-insertion of every item of σ (``sigma_order``: items best first), the items in
    the order ``scan``, the ``k``-th drawn with the uniform ``u[k]`` (NumPy reference)."""
    n = len(sigma_order)
    order = list(sigma_order)
    cost = np.empty(n)
    for k, item in enumerate(scan):
        order.remove(item)
        rest = np.fromiter(order, dtype=np.int64, count=n - 1)
        # Placing the item at position p: items rest[:p] above it (discordant in ranking l when
        # the item is above them there: counts[item, y]), rest[p:] below it (counts[y, item]).
        # Sums of integers: exact in float64, whatever the order of the additions.
        cost[0] = 0.0
        np.cumsum(counts[item, rest], out=cost[1:])
        cost[:-1] += np.cumsum(counts[rest[::-1], item])[::-1]
        cumulative = np.cumsum(_weights((cost - cost.min()).astype(np.int64), table))
        level = (1.0 - u[k]) * cumulative[-1]  # as in _inverse_cdf
        order.insert(int(np.count_nonzero(cumulative < level)), item)
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


def resolve_backend(backend: str = "auto", kernels: str = "_gibbs_numba") -> str:
    """``"numpy"`` or ``"numba"``: ``"auto"`` is numba when the kernel module
    ``rankstats.models.mallows.<kernels>`` imports (and compiles its kernels, or loads them from
    numba's disk cache), else NumPy; ``"numba"`` without numba raises ImportError.  Called before
    any chain starts (and before worker processes fork, so the workers inherit the compiled
    kernels)."""
    import importlib

    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    if backend == "numpy":
        return "numpy"
    try:
        importlib.import_module(f"rankstats.models.mallows.{kernels}")
    except ImportError as err:
        if backend == "numba":
            raise ImportError(
                'backend="numba" needs numba: pip install "rankstats[fast]" (or use '
                'backend="numpy", the same chains, slower)'
            ) from err
        return "numpy"
    return "numba"


def sweep_steps(
    positions: np.ndarray,
    ranks: np.ndarray,
    latent: np.ndarray,
    n_latent: np.ndarray,
    sigma_pos: np.ndarray,
    table: np.ndarray,
    u: np.ndarray,
    counts: np.ndarray,
    sigma_order: np.ndarray,
) -> tuple[np.ndarray, float]:
    """Steps 1 and 2 of a sweep (NumPy reference): re-insert the latent items of every ranking,
    then every item of σ; return σ's new order (items best first) and the total distance.

    ``u`` holds every uniform of the two steps, in this order: the scan keys of the completions
    (``L × m``, ``m`` = ``latent.shape[1]``; within a ranking, its latent items are updated in
    the order of their keys), their draws (``L × m``), the scan keys of σ (``n``) and its draws
    (``n``).  ``positions`` and ``counts`` are updated in place.
    """
    n_rows, n = positions.shape
    m = latent.shape[1]
    if m:
        keys = u[: n_rows * m].reshape(n_rows, m)
        # Random scan order within each ranking; padding (-1) sorts last.
        keys = np.where(latent >= 0, keys, 2.0)
        scan = np.take_along_axis(latent, np.argsort(keys, axis=1), axis=1)
        draws = u[n_rows * m : 2 * n_rows * m].reshape(n_rows, m)
        update_completions(positions, ranks, scan, n_latent, sigma_pos, table, draws, counts)
    rest = u[2 * n_rows * m :]
    order = update_consensus(sigma_order, counts, np.argsort(rest[:n]), table, rest[n:])
    return order, _distance_of_order(counts, order)


def _steps(backend: str) -> Callable[..., tuple[np.ndarray, float]]:
    """:func:`sweep_steps` of a resolved backend."""
    if backend == "numba":
        from rankstats.models.mallows import _gibbs_numba as _mallows_numba

        return _mallows_numba.sweep_steps
    return sweep_steps


def _distance_of_order(counts: np.ndarray, sigma_order: np.ndarray) -> float:
    sigma_pos = np.empty(len(sigma_order), dtype=np.int64)
    sigma_pos[sigma_order] = np.arange(len(sigma_order))
    return total_distance(counts, sigma_pos)


class Chain:
    """One chain of the sampler that can be continued: :meth:`run` as often as needed.

    Running ``n_tune`` sweeps without keeping them and then ``n_sweeps`` kept ones, or the same
    sweeps in several calls, draws the same random numbers in the same order: a chain that is
    extended continues exactly where it stopped, and its first draws are those of the shorter run.
    ``backend`` (``"numpy"``, ``"numba"`` or ``"auto"``, see :func:`resolve_backend`) changes
    the speed, never the draws.  ``positions`` holds the current latent completions (0 = best).
    """

    def __init__(
        self,
        ranks: np.ndarray,
        log_prior: Callable[[float], float],
        rng: np.random.Generator,
        start_order: np.ndarray,
        theta0: float = 1.0,
        backend: str = "numpy",
    ) -> None:
        self.ranks = np.ascontiguousarray(ranks, dtype=np.float64)
        self.log_prior, self.rng = log_prior, rng
        self.n_rows, self.n = self.ranks.shape
        self.backend = resolve_backend(backend)
        self.positions = initial_completions(self.ranks, rng)
        latent = latent_structure(self.ranks)
        self.latent = latent
        self.n_latent = (latent >= 0).sum(axis=1).astype(np.int64)
        self.order = np.asarray(start_order, dtype=np.int64)
        self.theta = theta0
        self._j = np.arange(1.0, self.n + 1)  # for log Z_n(θ)
        # Complete untied data: the counts never change.
        self.counts = pair_counts(self.positions)
        self.sweeps = 0

    def _log_post(self, t: float, distance: float) -> float:
        # rankstats.core.permutations.kendall.log_z(n, t) for one θ, with fewer temporary arrays
        # (the slice sampler calls this about ten times per sweep).
        j = self._j
        log_z_t = float(np.log(-np.expm1(j * -t)).sum()) - self.n * math.log(-math.expm1(-t))
        return self.log_prior(t) - t * distance - self.n_rows * log_z_t

    def _sweep(self) -> np.ndarray:
        """One sweep; returns σ's positions (0 = best)."""
        n, n_rows = self.n, self.n_rows
        m = self.latent.shape[1]
        # Every uniform of steps 1 and 2, in one call (their roles: sweep_steps).
        u = self.rng.random(2 * n_rows * m + 2 * n)
        # Consensus costs range over L (n − 1) values, completion costs over n − 1.
        table = powers(self.theta, max(n_rows, 1) * (n - 1))
        sigma_pos = np.empty(n, dtype=np.int64)
        sigma_pos[self.order] = np.arange(n)
        steps = _steps(self.backend)
        self.order, distance = steps(
            self.positions,
            self.ranks,
            self.latent,
            self.n_latent,
            sigma_pos,
            table,
            u,
            self.counts,
            self.order,
        )
        sigma_pos[self.order] = np.arange(n)
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
    backend: str = "numpy",
) -> tuple[np.ndarray, np.ndarray]:
    """One chain: returns ``theta`` (n_sweeps,) and consensus positions (n_sweeps, n), 1 = best.

    The first ``n_tune`` sweeps are discarded. ``KeyboardInterrupt`` propagates with the draws
    made so far attached as ``err.args[1:]``.  (:class:`Chain` continues a chain.)
    """
    chain = Chain(ranks, log_prior, rng, start_order, theta0, backend=backend)
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

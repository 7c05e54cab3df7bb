r"""The bootstrap of a battle fit: over battles, or over clusters of battles (questions, prompts).

- **Over battles** (the default): resampling the ``n`` battles with replacement is a multinomial
  draw on the table of (ordered pair, outcome) cells; each replicate draws that table exactly
  (:func:`resample_cells`: Poisson counts plus a multinomial correction to the original total),
  O(cells) per replicate however many battles there are.
- **Over clusters** (``clusters=``, e.g. ``--cluster question_id``): when one question is judged
  several times, its battles are not independent and the battle bootstrap is too narrow.  The
  cluster bootstrap (Davison & Hinkley 1997, §3.8; Field & Welsh 2007) resamples the ``C``
  clusters with replacement: replicate weights :math:`w \sim \text{Multinomial}(C, 1/C)` and
  the replicate table is :math:`w^\top M`, with :math:`M` the (clusters × cells) counts — one
  sparse product per chunk of replicates.  With one battle per cluster it is the battle
  bootstrap.  arena-hard-auto's leaderboards bootstrap over questions the same way.

Each replicate is refitted by chord-Newton iterations warm-started at the MLE with the MLE's
information matrix (:func:`bootstrap_battles`), 50 replicates at a time; the inner loops are numba
kernels when numba is installed (:mod:`rankstats.battles.numba_kernels`), else NumPy.  Seeded chunks
make the numbers independent of the number of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import sparse, stats

from rankstats._util.parallel import cpu_count
from rankstats.battles.design import order_design
from rankstats.core.bradley_terry_mle import ConvergenceError, MLEDoesNotExistError, Pairs, fit_bt

_CHUNK = 50  # bootstrap replicates per chunk (one seed each: results do not depend on n_jobs)
_WEIGHT_CELLS = 5_000_000  # cluster draws per block: at most this many (2 × 40 MB)


def resample_cells(counts: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    r"""``size`` multinomial draws of ``counts.sum()`` items with probabilities ``counts / sum``.

    Exact, and several times faster than ``rng.multinomial`` for many cells: Poisson counts
    :math:`X_k \sim \text{Poisson}(c_k)` are multinomial given their total :math:`S`; if
    :math:`S < N` a multinomial of the missing :math:`N - S` items is added, if :math:`S > N`,
    :math:`S - N` of the drawn items are removed uniformly at random (a random subset of i.i.d.
    categorical draws is i.i.d.).  This is the bootstrap over battles: resampling rows with
    replacement draws this multinomial on the (ordered pair, outcome) cells.
    """
    counts = np.asarray(counts, dtype=np.int64)
    return _resample(PoissonTable(counts), size, rng)


def _resample(table: PoissonTable, size: int, rng: np.random.Generator) -> np.ndarray:
    counts = table.counts
    total = int(counts.sum())
    out = table.draw(size, rng)
    cumulative = np.cumsum(counts) / total
    for row in out:
        gap = total - int(row.sum())
        if gap > 0:
            cells = np.searchsorted(cumulative, rng.random(gap), side="right")
            row += np.bincount(np.minimum(cells, len(counts) - 1), minlength=len(counts))
        elif gap < 0:
            positions = rng.choice(total - gap, -gap, replace=False)
            cells = np.searchsorted(np.cumsum(row), positions, side="right")
            row -= np.bincount(cells, minlength=len(counts))
    return out


class PoissonTable:
    r"""Poisson variates with integer means ``counts`` by inversion with a guide table.

    :math:`X = \min\{x : F_c(x) \ge U\}` for a uniform :math:`U` (inversion; Chen & Asau's
    1974 guide table starts the search at most a step or two before the answer).  Cells with the
    same mean share one table of :math:`F_c`, cut where the upper tail is below 1e-300
    (:math:`c + 40\sqrt{c} + 60`).  The search runs in a numba kernel when numba is installed
    (:mod:`rankstats.battles.numba_kernels`, a few ns per variate, GIL released), else in NumPy: the
    same function of the same uniforms, so the numbers do not depend on numba.
    """

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        values, group = np.unique(self.counts, return_inverse=True)
        lengths = (values + np.ceil(40 * np.sqrt(values)) + 60).astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        cdf, guide = [], []
        for value, length in zip(values, lengths, strict=True):
            f = stats.poisson.cdf(np.arange(length), value)
            f[-1] = 1.0
            cdf.append(f)
            guide.append(np.searchsorted(f, np.arange(length) / length, side="left"))
        self.cdf = np.ascontiguousarray(np.concatenate(cdf), dtype=np.float64)
        self.guide = np.ascontiguousarray(np.concatenate(guide), dtype=np.int64)
        self.cell_length = np.ascontiguousarray(lengths[group], dtype=np.int64)
        self.cell_offset = np.ascontiguousarray(offsets[group], dtype=np.int64)

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.random((size, len(self.counts)))
        out = np.empty(u.shape, dtype=np.int64)
        try:
            from rankstats.battles.numba_kernels import invert
        except ImportError:
            return self._draw_numpy(u)
        invert(u, self.cell_offset, self.cell_length, self.cdf, self.guide, out)
        return out

    def _draw_numpy(self, u: np.ndarray) -> np.ndarray:
        x = self.guide[self.cell_offset + (u * self.cell_length).astype(np.int64)]
        rows, cols = np.nonzero(self.cdf[self.cell_offset + x] < u)
        while len(rows):
            x[rows, cols] += 1
            more = (x[rows, cols] < self.cell_length[cols] - 1) & (
                self.cdf[self.cell_offset[cols] + x[rows, cols]] < u[rows, cols]
            )
            rows, cols = rows[more], cols[more]
        return x


def bootstrap_battles(
    pairs: Pairs,
    params: np.ndarray,
    information: np.ndarray,
    n_bootstrap: int,
    ties: bool,
    order: bool,
    seed: int | None = 0,
    n_jobs: int | None = None,
    tol: float = 1e-6,
    max_iter: int = 100,
    clusters: sparse.spmatrix | None = None,
) -> tuple[np.ndarray, int]:
    """Bootstrap replicates of the MLE ``params`` over battles (see :func:`resample_cells`), or
    over clusters of battles (``clusters``: (clusters × cells) counts, see the module docstring).

    Each replicate is refitted by chord-Newton iterations
    :math:`x \\leftarrow x + I(\\hat x)^{-1} g(x)` started at the MLE, with the information
    matrix of the MLE (replicates are close to it, so the contraction factor is small: a few
    iterations), vectorised over a chunk of replicates: per iteration O(pairs × chunk) NumPy work
    and one sparse product.  Replicates that do not converge are refitted by
    :func:`rankstats.core.bradley_terry_mle.fit_bt`; those without an MLE — including those whose
    played pairs no longer identify the order effect (:func:`rankstats.battles.design.order_design`)
    — are NaN and counted.

    Parameters
    ----------
    clusters : sparse matrix, optional
        Shape ``(C, 3 * len(pairs.item1))``: the battles of each cluster on the cells of
        ``pairs`` (column ``3p + k``: pair ``p``, ``k`` = wins1, wins2, ties); its column sums
        are the counts of ``pairs``.  None: the bootstrap over battles.

    Returns
    -------
    (ndarray, int)
        Replicates, shape ``(n_bootstrap, len(params))`` (centred log-worths), and the number
        of replicates without an MLE.
    """
    n = pairs.n_systems
    size = len(params)
    free = np.ones(size, dtype=bool)
    free[n - 1] = False
    step_matrix = np.zeros((size, size))
    step_matrix[np.ix_(free, free)] = np.linalg.inv(information[np.ix_(free, free)])
    cells = np.stack([pairs.wins1, pairs.wins2, pairs.ties], axis=1).round().astype(np.int64)
    draw = battle_draw(cells.ravel()) if clusters is None else cluster_draw(clusters)
    n_chunks = -(-n_bootstrap // _CHUNK)
    seeds = np.random.SeedSequence(seed).spawn(n_chunks)
    setup = (pairs, params, step_matrix, draw, ties, order, tol, max_iter)

    def run(k: int) -> tuple[np.ndarray, int]:
        count = min(_CHUNK, n_bootstrap - k * _CHUNK)
        return _bootstrap_chunk(np.random.default_rng(seeds[k]), count, *setup)

    workers = n_jobs or min(4, cpu_count())
    if workers > 1 and n_chunks > 1:
        with ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(run, range(n_chunks)))
    else:
        results = [run(k) for k in range(n_chunks)]
    return np.concatenate([r[0] for r in results]), sum(r[1] for r in results)


def _bootstrap_chunk(
    rng: np.random.Generator,
    count: int,
    pairs: Pairs,
    params: np.ndarray,
    step_matrix: np.ndarray,
    draw: Callable[[np.random.Generator, int], np.ndarray],
    ties: bool,
    order: bool,
    tol: float,
    max_iter: int = 100,
) -> tuple[np.ndarray, int]:
    """``count`` replicates: resampled cells, then vectorised chord-Newton (layout (pairs, B))."""
    n, n_pairs = pairs.n_systems, len(pairs.item1)
    flat = draw(rng, count)
    table = flat.reshape(count, n_pairs, 3).transpose(1, 2, 0).astype(float)  # (P, 3, B)
    w1, w2, t = table[:, 0], table[:, 1], table[:, 2]
    if not ties:
        w1, w2, t = w1 + 0.5 * t, w2 + 0.5 * t, np.zeros_like(t)
    m = w1 + w2 + t
    a = w1 + 0.5 * t
    x = np.repeat(params[:, None], count, axis=1)  # (size, B), float64
    gradient = _gradient_function(pairs, a, m, t, ties, order)
    converged = np.zeros(count, dtype=bool)
    previous = None
    for _ in range(max_iter):
        step = step_matrix @ gradient(x)
        x += step
        biggest = np.max(np.abs(step), axis=0)
        # Linear convergence with ratio ρ: the remaining error is about step · ρ / (1 − ρ).
        ratio = biggest / previous if previous is not None else np.ones(count)
        fast = ratio < 0.5
        remaining = np.where(fast, biggest * ratio / np.where(fast, 1.0 - ratio, 1.0), np.inf)
        converged = (biggest < tol) | (remaining < 0.1 * tol)
        previous = np.maximum(biggest, 1e-300)
        if converged.all() or not np.all(np.isfinite(x)):
            break
    x[:n] -= x[:n].mean(axis=0)
    # A replicate that lost every battle of some pairs may no longer identify the order effect
    # (e.g. the one pair shown in both orders): its ratings are arbitrary, so it has no MLE.
    unidentified = np.zeros(count, dtype=bool)
    if order:
        for b in np.flatnonzero((m == 0).any(axis=0)):
            played = m[:, b] > 0
            design = order_design(n, pairs.item1[played], pairs.item2[played])
            unidentified[b] = not design.identified
    x[:, unidentified] = np.nan
    failed = int(unidentified.sum())
    refit = ~(converged & np.all(np.isfinite(x), axis=0)) & ~unidentified
    for b in np.flatnonzero(refit):
        one = Pairs(n, pairs.item1, pairs.item2, *(v[:, b].astype(float) for v in (w1, w2, t)))
        try:
            x[:, b] = fit_bt(one, ties=ties, order=order).params
        except (MLEDoesNotExistError, ConvergenceError):
            x[:, b] = np.nan
            failed += 1
    return x.T.copy(), failed


def _gradient_function(
    pairs: Pairs, a: np.ndarray, m: np.ndarray, t: np.ndarray, ties: bool, order: bool
):
    """``x (size, B) -> gradient (size, B)`` of the log-likelihood of every replicate: the numba
    kernel (:func:`rankstats.battles.numba_kernels.gradient`, float64, fused) when numba is
    installed, else NumPy on float32 work arrays (residuals accurate to ~1e-7 relative, far below
    the bootstrap spread; the replicates then agree with the numba ones to ~1e-7)."""
    n, n_pairs = pairs.n_systems, len(pairs.item1)
    lam_index, eta_index = n, n + int(ties)
    try:
        from rankstats.battles.numba_kernels import gradient as kernel
    except ImportError:
        kernel = None
    if kernel is not None:
        a64, m64, t64 = (np.ascontiguousarray(v, dtype=np.float64) for v in (a, m, t))
        item1 = np.ascontiguousarray(pairs.item1, dtype=np.int64)
        item2 = np.ascontiguousarray(pairs.item2, dtype=np.int64)
        zeros = np.zeros(a.shape[1])

        def numba_gradient(x: np.ndarray) -> np.ndarray:
            grad = np.empty_like(x)
            eta = np.ascontiguousarray(x[eta_index]) if order else zeros
            log_nu = np.ascontiguousarray(x[lam_index]) if ties else zeros
            kernel(
                np.ascontiguousarray(x[:n]),
                item1,
                item2,
                a64,
                m64,
                t64,
                eta,
                log_nu,
                ties,
                order,
                grad,
            )
            return grad

        return numba_gradient
    count = a.shape[1]
    a, m, t = (np.asarray(v, dtype=np.float32) for v in (a, m, t))
    tie_total = t.sum(axis=0, dtype=np.float64)
    difference = sparse.csr_matrix(
        (
            np.concatenate([np.ones(n_pairs), -np.ones(n_pairs)]),
            (np.concatenate([pairs.item1, pairs.item2]), np.tile(np.arange(n_pairs), 2)),
        ),
        shape=(n, n_pairs),
        dtype=np.float32,
    )
    z, c, d = (np.empty((n_pairs, count), dtype=np.float32) for _ in range(3))

    def numpy_gradient(x: np.ndarray) -> np.ndarray:
        theta = x[:n].astype(np.float32)
        np.take(theta, pairs.item1, axis=0, out=z)
        np.subtract(z, np.take(theta, pairs.item2, axis=0, out=d), out=z)
        if order:
            np.add(z, x[eta_index].astype(np.float32), out=z)
        np.multiply(z, 0.5, out=z)
        np.exp(z, out=z)  # s = sqrt of the odds h π_i / π_j
        grad = np.empty_like(x)
        if ties:
            np.multiply(z, np.exp(x[lam_index]).astype(np.float32), out=c)  # ν s
        np.multiply(z, z, out=z)  # r = s²
        np.add(z, 1.0, out=d)
        if ties:
            np.add(d, c, out=d)
            np.divide(c, d, out=c)  # P(tie)
        np.divide(z, d, out=z)  # P(item1 wins)
        if ties:
            np.add(z, 0.5 * c, out=z)
            np.multiply(c, m, out=c)
            grad[lam_index] = tie_total - c.sum(axis=0, dtype=np.float64)
        np.multiply(z, m, out=z)
        np.subtract(a, z, out=z)  # residual of item1 (item2's is its negative)
        grad[:n] = difference @ z
        if order:
            grad[eta_index] = z.sum(axis=0, dtype=np.float64)
        return grad

    return numpy_gradient


def battle_draw(cells: np.ndarray) -> Callable[[np.random.Generator, int], np.ndarray]:
    """``draw(rng, count)``: ``count`` resampled cell tables (rows) of the bootstrap over
    battles, a multinomial on the cells (:func:`resample_cells`)."""
    nonzero = np.flatnonzero(cells)
    poisson = PoissonTable(cells[nonzero])

    def draw(rng: np.random.Generator, count: int) -> np.ndarray:
        flat = np.zeros((count, cells.size), dtype=np.int64)
        flat[:, nonzero] = _resample(poisson, count, rng)
        return flat

    return draw


def cluster_draw(clusters: sparse.spmatrix) -> Callable[[np.random.Generator, int], np.ndarray]:
    r"""``draw(rng, count)``: ``count`` resampled cell tables of the bootstrap over clusters.

    The ``C`` clusters are drawn with replacement: weights :math:`w \sim
    \text{Multinomial}(C, (1/C, \dots, 1/C))` per replicate, and the replicate's table is
    :math:`M^\top w` for the (clusters × cells) counts :math:`M` — a sparse product, O(non-zero
    cells of the clusters) per replicate.
    """
    matrix = sparse.csc_matrix(clusters, dtype=np.int64).T.tocsr()  # (cells, C)
    n_clusters = matrix.shape[1]
    block = max(1, _WEIGHT_CELLS // max(n_clusters, 1))

    def draw(rng: np.random.Generator, count: int) -> np.ndarray:
        out = np.empty((count, matrix.shape[0]), dtype=np.int64)
        for start in range(0, count, block):
            size = min(count, start + block) - start
            # C clusters drawn uniformly with replacement per replicate: their counts are the
            # Multinomial(C, 1/C) weights (one bincount for the whole block of replicates).
            picks = rng.integers(0, n_clusters, size=(size, n_clusters))
            picks += (np.arange(size) * n_clusters)[:, None]
            weights = np.bincount(picks.ravel(), minlength=size * n_clusters)
            weights = np.ascontiguousarray(weights.reshape(size, n_clusters).T)  # (C, b)
            out[start : start + size] = (matrix @ weights).T
        return out

    return draw

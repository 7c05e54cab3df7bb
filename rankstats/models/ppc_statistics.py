"""Statistics of rankings compared by the posterior predictive checks, for the observed
rankings and thousands of replications at once: top-1 shares, pairwise wins (ties ½), tied
pairs and the Kendall distance of each ranking to a consensus (ties ½, Fagin et al. 2006),
binned in :data:`DISTANCE_BINS`.
"""

from __future__ import annotations

import numpy as np

#: Bins of the per-ranking normalised Kendall distance (figure of the ``kendall`` group).
DISTANCE_BINS = np.linspace(0.0, 1.0, 11)


def ranking_statistics(
    keys: np.ndarray, consensus_pos: np.ndarray, kind: str = "subset", strict: bool = False
) -> dict[str, np.ndarray]:
    """Statistics of rankings given as sort keys ``(S, L, N)`` (smaller = better, inf = not
    ranked; equal finite keys = a tie).

    A pair is compared in a ranking when both systems are ranked (``top_k``: at least one).
    Returns ``top1`` (S, N) — rankings with each system first (a tie for first shares the
    ranking), ``wins`` (S, N, N) — ``a`` above ``b`` plus ½ per tie, ``compared`` (S, N, N),
    ``ties`` (S,) — tied pairs, ``distance`` (S, L) — Kendall distance of each ranking to the
    ranking with positions ``consensus_pos`` (ties ½).  ``strict=True`` promises that no two
    ranked systems of a ranking share a key (replicated rankings), and skips looking for ties.
    A loop over systems, vectorised over draws and rankings.
    """
    s, n_rank, n = keys.shape
    finite = np.isfinite(keys)
    best = np.where(finite, keys, np.inf).min(axis=2, keepdims=True)
    first = finite & (keys == best)
    top1 = (first / np.maximum(first.sum(axis=2, keepdims=True), 1)).sum(axis=1)
    wins = np.empty((s, n, n))
    compared = np.empty((s, n, n))
    ties = np.zeros(s)
    distance = np.zeros((s, n_rank))
    for j in range(n):
        kj, fj = keys[:, :, j : j + 1], finite[:, :, j : j + 1]
        both = (finite & fj) if kind == "subset" else (finite | fj)
        both[:, :, j] = False
        above = (keys < kj) & both
        compared[:, :, j] = both.sum(axis=1)
        better = consensus_pos < consensus_pos[j]  # i above j in the consensus
        if strict:
            wins[:, :, j] = above.sum(axis=1)
            below = both & ~above  # i below j (no ties)
            distance += below[:, :, better].sum(axis=2)
            continue
        tie = (keys == kj) & finite & fj
        tie[:, :, j] = False
        wins[:, :, j] = above.sum(axis=1) + 0.5 * tie.sum(axis=1)
        ties += tie[:, :, :j].sum(axis=(1, 2))
        below = (keys[:, :, better] > kj) & both[:, :, better]
        distance += below.sum(axis=2) + 0.5 * tie[:, :, better].sum(axis=2)
    return {"top1": top1, "wins": wins, "compared": compared, "ties": ties, "distance": distance}


def compact_keys(keys: np.ndarray) -> np.ndarray:
    """Strict sort keys as exact float32 ranks (0 = best; ``inf`` kept): the same order, half
    the memory traffic of float64 in :func:`ranking_statistics`."""
    ranks = np.empty(keys.shape, dtype=np.float32)
    n = keys.shape[2]
    np.put_along_axis(
        ranks, np.argsort(keys, axis=2), np.arange(n, dtype=np.float32)[None, None, :], axis=2
    )
    return np.where(np.isfinite(keys), ranks, np.float32(np.inf))


def distance_histogram(values: np.ndarray) -> np.ndarray:
    """Counts of ``values`` (S, L) in :data:`DISTANCE_BINS` (the last bin includes 1)."""
    nb = len(DISTANCE_BINS) - 1
    b = np.clip(np.floor(values * nb).astype(np.int64), 0, nb - 1)
    out = np.zeros((values.shape[0], nb))
    np.add.at(out, (np.repeat(np.arange(values.shape[0]), values.shape[1]), b.ravel()), 1.0)
    return out

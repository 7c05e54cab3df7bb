r"""The latent complete rankings of partial rankings and of each assessor's preferences in the
Metropolis–Hastings Mallows sampler (:class:`Augmentation`), and what a partial ranking means
(:data:`KINDS`); the chain is :class:`rankstats.models.mallows._metropolis.MetropolisChain`.
"""

from __future__ import annotations

import numpy as np

from rankstats.core.permutations.distances import row_distances

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

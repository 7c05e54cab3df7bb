r"""The consensus step of the EM fit of a Mallows mixture (:mod:`rankstats.models.mallows.em`):
the ranking :math:`\rho` that minimises a weighted sum of distances
:math:`\sum_u w_u\, d(R_u, \rho)` over the distinct observed rankings :math:`R_u`.

How, by size and distance (:class:`ConsensusSearch`; the method is recorded in the result):

- ``"exhaustive"`` — every permutation (``n!`` of them) while the table of distances from every
  distinct ranking to every permutation fits in :data:`EXHAUSTIVE_CELLS` numbers: the table is
  built once per fit, each step is a matrix product and an argmin. Exact, any distance.
- ``"assignment"`` — footrule, Spearman, Hamming beyond: the sum is one cost per (item, rank),
  so the best ρ solves an assignment problem (Hungarian method) on the weighted counts of each
  item at each rank, as :func:`rankstats.core.permutations.distances.central_ranking` does for
  unit weights. Exact.
- ``"kemeny heuristic"`` — Kendall beyond: the weighted Kemeny problem on the weighted pairwise
  wins :math:`W_{ab} = \sum_u w_u [R_{ua} < R_{ub}]`, by the Borda, Copeland and KwikSort
  starts polished by insertion local search of
  :func:`rankstats.aggregation.kemeny_heuristics.heuristic_order`. Not proved optimal.
- ``"local search"`` — Cayley, Ulam beyond: best-improvement search over all transpositions
  and all single-item moves from the current consensus, the weighted footrule centre and a
  weighted medoid of the observed rankings; the best end is kept. Not proved optimal.

Whatever the method, the step never returns a ranking whose weighted distance exceeds the
current consensus's, so the EM log-likelihood cannot decrease through this step.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linear_sum_assignment

from rankstats.core.permutations.distances import ITEMWISE, row_distances
from rankstats.core.permutations.sampling import all_permutations

#: Largest table of distances (distinct rankings × ``n!`` permutations) of the exhaustive
#: search: 2e7 int64 numbers, 160 MB (APA: 120 × 120; 8 items and 500 distinct rankings: 2e7).
EXHAUSTIVE_CELLS = 20_000_000
#: Most items of the exhaustive search (9! = 362,880 permutations).
EXHAUSTIVE_ITEMS = 9
#: Distinct rankings of most weight among which the local search's medoid start is chosen.
MEDOID_CANDIDATES = 50
#: Most moves of the local search (Cayley, Ulam), in multiples of ``n``.
LOCAL_MOVES = 10


def _item_term(distance: str, n: int) -> np.ndarray:
    """``term[observed rank − 1, assigned rank − 1]`` of an item-wise distance."""
    ranks = np.arange(1, n + 1)
    gap = ranks[:, None] - ranks[None, :]
    return {"footrule": np.abs(gap), "spearman": gap**2, "hamming": gap != 0}[distance].astype(
        np.float64
    )


def weighted_wins(rankings: np.ndarray, weight: np.ndarray, block: int = 4096) -> np.ndarray:
    r""":math:`W_{ab} = \sum_u w_u [R_{ua} < R_{ub}]` (``a`` ranked above ``b``), in blocks of
    rankings (memory ``block × n²``)."""
    n = rankings.shape[1]
    wins = np.zeros((n, n))
    for start in range(0, len(rankings), block):
        r = rankings[start : start + block]
        above = r[:, :, None] < r[:, None, :]
        wins += np.einsum("u,uab->ab", weight[start : start + block], above)
    return wins


class ConsensusSearch:
    """The weighted consensus of fixed distinct rankings ``(U, n)`` for one distance.

    ``method`` is chosen once (module docstring); :meth:`best` is the step.
    """

    def __init__(self, rankings: np.ndarray, distance: str, seed: int = 0) -> None:
        self.rankings = np.asarray(rankings, dtype=np.int64)
        self.distance = distance
        self.seed = seed
        u, n = self.rankings.shape
        self.n = n
        self.table: np.ndarray | None = None
        if n <= EXHAUSTIVE_ITEMS and u * math.factorial(n) <= EXHAUSTIVE_CELLS:
            self.method = "exhaustive"
            self.permutations = all_permutations(n)
            self.table = self._table()
            # every permutation's column of the table (the E-step reads its distances there)
            self.column = {p.tobytes(): j for j, p in enumerate(self.permutations)}
        elif distance in ITEMWISE:
            self.method = "assignment"
        elif distance == "kendall":
            self.method = "kemeny heuristic"
        else:
            self.method = "local search"

    @property
    def exact(self) -> bool:
        return self.method in ("exhaustive", "assignment")

    def _table(self) -> np.ndarray:
        """``(U, n!)`` distances; every distance here is symmetric, so the loop runs over the
        shorter side and each call is vectorised over the longer one."""
        perms, r = self.permutations, self.rankings
        if len(perms) <= len(r):
            columns = [row_distances(r, p, self.distance) for p in perms]
            return np.stack(columns, axis=1).astype(np.float64)
        rows = [row_distances(perms, x, self.distance) for x in r]
        return np.stack(rows, axis=0).astype(np.float64)

    def distances(self, rho: np.ndarray) -> np.ndarray:
        """``d(R_u, ρ_k)`` for every distinct ranking and each row of ``rho`` ``(K, n)``:
        ``(U, K)``."""
        if self.table is not None:
            rho = np.asarray(rho, dtype=np.int64)
            return self.table[:, [self.column[r.tobytes()] for r in rho]]
        return np.stack([row_distances(self.rankings, r, self.distance) for r in rho], axis=1)

    def total(self, weight: np.ndarray, rho: np.ndarray) -> float:
        r""":math:`\sum_u w_u d(R_u, \rho)`."""
        if self.table is not None:
            return float(weight @ self.table[:, self.column[np.asarray(rho, np.int64).tobytes()]])
        return float(weight @ row_distances(self.rankings, rho, self.distance))

    def best(self, weight: np.ndarray, current: np.ndarray) -> np.ndarray:
        """The consensus of weights ``weight`` ``(U,)``: never worse than ``current``."""
        if self.method == "exhaustive":
            return self.permutations[int(np.argmin(weight @ self.table))].copy()
        if self.method == "assignment":
            return self._assignment(weight, self.distance)
        if self.method == "kemeny heuristic":
            candidate = self._kemeny(weight)
        else:
            candidate = self._local(weight, current)
        if self.total(weight, candidate) < self.total(weight, current):
            return candidate
        return current.copy()

    def _assignment(self, weight: np.ndarray, distance: str) -> np.ndarray:
        """The item-wise weighted centre: Hungarian method on ``counts @ term``."""
        n = self.n
        counts = np.zeros((n, n))  # counts[i, r]: weight of the rankings giving item i rank r + 1
        np.add.at(
            counts,
            (np.tile(np.arange(n), len(self.rankings)), self.rankings.ravel() - 1),
            np.repeat(weight, n),
        )
        items, assigned = linear_sum_assignment(counts @ _item_term(distance, n))
        rho = np.empty(n, dtype=np.int64)
        rho[items] = assigned + 1
        return rho

    def _kemeny(self, weight: np.ndarray) -> np.ndarray:
        from rankstats.aggregation.kemeny_heuristics import heuristic_order

        order = heuristic_order(weighted_wins(self.rankings, weight), seed=self.seed)
        rho = np.empty(self.n, dtype=np.int64)
        rho[order] = np.arange(1, self.n + 1)
        return rho

    def _local(self, weight: np.ndarray, current: np.ndarray) -> np.ndarray:
        """Best-improvement search over transpositions and single-item moves, from each of the
        current consensus, the weighted footrule centre and the weighted medoid of the
        :data:`MEDOID_CANDIDATES` heaviest distinct rankings; the best end is kept."""
        heavy = self.rankings[np.argsort(-weight, kind="stable")[:MEDOID_CANDIDATES]]
        medoid = heavy[int(np.argmin([self.total(weight, r) for r in heavy]))]
        ends = [
            self._descend(weight, start)
            for start in _distinct([current, self._assignment(weight, "footrule"), medoid])
        ]
        return min(ends, key=lambda r: self.total(weight, r))

    def _descend(self, weight: np.ndarray, best: np.ndarray) -> np.ndarray:
        best_total = self.total(weight, best)
        for _ in range(LOCAL_MOVES * self.n):
            neighbours = _neighbours(best)
            totals = weight @ np.stack(
                [row_distances(self.rankings, c, self.distance) for c in neighbours], axis=1
            )
            pick = int(np.argmin(totals))
            if totals[pick] >= best_total - 1e-9:
                break
            best, best_total = neighbours[pick], float(totals[pick])
        return best


def _distinct(rankings: list) -> list:
    return list(np.unique(np.asarray(rankings, dtype=np.int64), axis=0))


def _neighbours(rho: np.ndarray) -> np.ndarray:
    """Every ranking one transposition or one single-item move (in the ordering) away."""
    n = len(rho)
    order = np.argsort(rho)  # the item at each rank
    out = []
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if i < j:
                swapped = rho.copy()
                swapped[[order[i], order[j]]] = swapped[[order[j], order[i]]]
                out.append(swapped)
            moved = np.insert(np.delete(order, i), j, order[i])
            if abs(i - j) > 1 or i < j:  # an adjacent move equals its swap: once
                r = np.empty(n, dtype=np.int64)
                r[moved] = np.arange(1, n + 1)
                out.append(r)
    return np.unique(np.asarray(out), axis=0)

r"""Exact linear ordering by integer programming with lazily added 3-cycle constraints.

Given a weight matrix ``W`` (``W[i, j]`` = cost paid when ``j`` is placed above ``i``, i.e. the
number of rankings that prefer ``i`` to ``j``), find the order minimising
:math:`\sum_{a \text{ above } b} W[b, a]`.  With one binary :math:`x_{ij}` per pair ``i < j``
(1 = ``i`` above ``j``) the cost is

.. math::

    \sum_{i<j} W[i, j] + \sum_{i<j} x_{ij} (W[j, i] - W[i, j]),

and ``x`` is a linear order iff every triple ``i < j < k`` satisfies
:math:`0 \le x_{ij} + x_{jk} - x_{ik} \le 1` (no 3-cycle; Grötschel, Jünger & Reinelt, 1984).
There are ``2 C(n, 3)`` such constraints, of which few bind, so they are added lazily: solve,
add every violated one, repeat (first for the LP relaxation, then for the integer program).  The
LP value with any subset of constraints is a valid lower bound.

Solved with :func:`scipy.optimize.milp` (HiGHS) with ``mip_rel_gap = 0``, so an ``optimal``
answer is a proof.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

_TOL = 1e-6
# Cuts added per round: the most violated first.  Adding every violated triangle (hundreds of
# thousands at n = 300) makes HiGHS's set-up of the next program long and not interruptible.
_CUTS_PER_NODE = 50
# Cells of the (rows, n, n) temporaries of the violation search.
_CHUNK_CELLS = 4_000_000


@dataclass
class OrderingSolution:
    """Outcome of :func:`solve_linear_ordering` on one block."""

    order: np.ndarray | None  # best-first indices; None if no integral solution was proved
    lower_bound: float
    optimal: bool
    n_constraints: int
    iterations: int
    message: str


def pair_index(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pairs ``i < j`` in variable order."""
    return np.triu_indices(n, k=1)


def _variable_id(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """Variable number of the pair ``(min, max)``."""
    lo = np.minimum(i, j)
    hi = np.maximum(i, j)
    return lo * n - lo * (lo + 1) // 2 + (hi - lo - 1)


def _above_matrix(x: np.ndarray, n: int) -> np.ndarray:
    """``X[i, j]`` = value of "``i`` above ``j``" for all ordered pairs."""
    rows, cols = pair_index(n)
    above = np.zeros((n, n))
    above[rows, cols] = x
    above[cols, rows] = 1.0 - x
    np.fill_diagonal(above, 0.0)
    return above


def violated_cycles(
    x: np.ndarray, n: int, tol: float = _TOL, limit: int | None = None
) -> np.ndarray:
    """Directed triangles ``(a, b, c)`` with ``X[a,b] + X[b,c] + X[c,a] > 2``.

    Each cyclic triangle is reported once, with ``a`` its smallest index.  Vectorised over all
    triangles, in chunks of ``a`` to bound memory.  With ``limit``, only the ``limit`` most
    violated ones.
    """
    above = _above_matrix(x, n)
    found = []
    excess = []
    chunk = max(1, _CHUNK_CELLS // max(n * n, 1))
    idx = np.arange(n)
    for start in range(0, n, chunk):
        a = idx[start : start + chunk]
        # total[r, b, c] = X[a_r, b] + X[b, c] + X[c, a_r]
        total = above[a][:, :, None] + above[None, :, :] + above[:, a].T[:, None, :]
        mask = total > 2.0 + tol
        mask &= (idx[None, :, None] > a[:, None, None]) & (idx[None, None, :] > a[:, None, None])
        r, b, c = np.nonzero(mask)
        if r.size:
            found.append(np.column_stack([a[r], b, c]))
            excess.append(total[r, b, c])
    if not found:
        return np.empty((0, 3), dtype=np.int64)
    cycles = np.concatenate(found)
    if limit is not None and len(cycles) > limit:
        keep = np.argsort(-np.concatenate(excess), kind="stable")[:limit]
        cycles = cycles[np.sort(keep)]
    return cycles


def _cycle_rows(cycles: np.ndarray, n: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Constraint rows ``X[a,b] + X[b,c] + X[c,a] <= 2`` written on the variables ``x_{i<j}``."""
    arcs = [
        (cycles[:, 0], cycles[:, 1]),
        (cycles[:, 1], cycles[:, 2]),
        (cycles[:, 2], cycles[:, 0]),
    ]
    m = len(cycles)
    row_ids, col_ids, coef = [], [], []
    constant = np.zeros(m)
    for tail, head in arcs:
        forward = tail < head
        row_ids.append(np.arange(m))
        col_ids.append(_variable_id(tail, head, n))
        # X[t, h] = x_th when t < h, else 1 - x_ht.
        coef.append(np.where(forward, 1.0, -1.0))
        constant += ~forward
    matrix = sparse.csr_matrix(
        (np.concatenate(coef), (np.concatenate(row_ids), np.concatenate(col_ids))),
        shape=(m, n * (n - 1) // 2),
    )
    return matrix, 2.0 - constant


def _order_from_solution(x: np.ndarray, n: int) -> np.ndarray:
    """Best-first order read off a (possibly fractional or cyclic) solution.

    Sorting by the number of systems beaten recovers a transitive 0/1 solution exactly and
    gives a good rounding otherwise.
    """
    above = _above_matrix(np.clip(x, 0.0, 1.0), n)
    return np.argsort(-above.sum(axis=1), kind="stable")


def order_cost(weights: np.ndarray, order: np.ndarray) -> float:
    """``Σ_{a above b} W[b, a]`` of a best-first order."""
    return float(np.tril(weights[np.ix_(order, order)], -1).sum())


def solve_linear_ordering(
    weights: np.ndarray,
    deadline: float | None = None,
    progress: Callable[[str], None] | None = None,
    start: np.ndarray | None = None,
    polish: Callable[[np.ndarray], np.ndarray] | None = None,
    on_round: Callable[[str, int, float, float], None] | None = None,
) -> OrderingSolution:
    """Minimise ``Σ_{a above b} W[b, a]`` over the orders of the ``n`` rows of ``weights``.

    Every relaxation solved is also rounded to an order (and polished): the best order so far
    is proved optimal as soon as a relaxation's value reaches its cost, which often saves the
    last integer programs.

    Parameters
    ----------
    weights : ndarray, shape (n, n)
    deadline : float, optional
        ``time.perf_counter()`` value after which the search stops with the bounds it has.
    progress : callable, optional
        Called with a one-line status string after every solve.
    start : ndarray, optional
        A known order (e.g. from a heuristic).
    polish : callable, optional
        Improves an order (e.g. local search); applied to every rounded relaxation.
    on_round : callable, optional
        Called after every solve with ``(kind, iteration, lower_bound, best_cost)``, ``kind``
        ``"LP"`` or ``"ILP"`` (the progress bar of :func:`rankstats.kemeny`).
    """
    n = weights.shape[0]
    if n <= 1:
        return OrderingSolution(np.arange(n), 0.0, True, 0, 0, "trivial")
    search = _CuttingPlanes.of(weights, deadline)
    best = None if start is None else np.asarray(start)
    incumbent = _Incumbent(best, np.inf if best is None else order_cost(weights, best))
    tol = 1e-9 * max(1.0, float(np.abs(weights).sum()))
    for integral in (False, True):
        while True:
            res = search.solve(integral)
            if res is None or res.x is None or (not integral and res.status != 0):
                search.raise_bound(_dual_bound(res, search.constant))
                return search.solution(incumbent, False, _message(res))
            # the optimum of a relaxation (fewer cycle constraints, or no integrality) bounds
            # the cost from below; an integer program cut short only by its dual bound
            exact = not integral or res.status == 0
            search.raise_bound(
                search.constant + res.fun if exact else _dual_bound(res, search.constant)
            )
            candidate = _order_from_solution(res.x, n)
            incumbent.offer(weights, candidate if polish is None else polish(candidate), tol)
            cycles = violated_cycles(res.x, n, limit=max(20_000, _CUTS_PER_NODE * n))
            _announce(
                search, incumbent, "ILP" if integral else "LP", len(cycles), progress, on_round
            )
            if incumbent.cost <= search.lower_bound + tol:
                return search.solution(incumbent, True, "optimal")
            if len(cycles):
                search.cut(cycles)
                continue
            if integral:
                # A transitive integral solution: optimal unless the time limit cut it short.
                done = res.status == 0
                return search.solution(incumbent, done, "optimal" if done else _message(res))
            break
    raise AssertionError("unreachable")


@dataclass
class _Incumbent:
    """The best order found so far and its cost."""

    order: np.ndarray | None
    cost: float

    def offer(self, weights: np.ndarray, order: np.ndarray, tol: float) -> None:
        cost = order_cost(weights, order)
        if cost < self.cost - tol:
            self.order, self.cost = order, cost


@dataclass
class _CuttingPlanes:
    """The relaxation of the linear ordering polytope (one variable per pair ``a < b``: 1 when
    ``a`` is above ``b``), tightened by the 3-cycle constraints found violated so far
    (Grötschel, Jünger & Reinelt 1984), solved by ``scipy.optimize.milp``."""

    n: int
    c: np.ndarray
    constant: float
    deadline: float | None
    blocks: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    lower_bound: float = -np.inf
    iterations: int = 0
    last_solve: float = 0.0

    @classmethod
    def of(cls, weights: np.ndarray, deadline: float | None) -> _CuttingPlanes:
        rows, cols = pair_index(weights.shape[0])
        constant = float(weights[rows, cols].sum())
        return cls(len(weights), weights[cols, rows] - weights[rows, cols], constant, deadline)

    def solve(self, integral: bool):
        """One program (``None`` when the deadline leaves no time to finish it)."""
        # scipy.optimize takes a tenth of a second to import: only an exact search needs it.
        from scipy.optimize import Bounds, LinearConstraint, milp

        self.iterations += 1
        options: dict = {"mip_rel_gap": 0.0} if integral else {}
        if self.deadline is not None:
            left = self.deadline - time.perf_counter()
            # The set-up of a program (not interruptible) takes about as long as the last
            # solve took at least: a round that cannot finish is not started.
            if left <= 0 or left < 0.5 * self.last_solve:
                return None
            options["time_limit"] = left
        constraints = ()
        if self.blocks:
            ub = np.concatenate(self.upper)
            a = sparse.vstack(self.blocks, format="csr")
            constraints = (LinearConstraint(a, np.full(len(ub), -np.inf), ub),)
        began = time.perf_counter()
        n_var = len(self.c)
        res = milp(
            self.c,
            integrality=np.full(n_var, 1 if integral else 0),
            bounds=Bounds(np.zeros(n_var), np.ones(n_var)),
            constraints=constraints,
            options=options,
        )
        self.last_solve = time.perf_counter() - began
        return res

    def raise_bound(self, bound: float) -> None:
        self.lower_bound = max(self.lower_bound, bound)

    def cut(self, cycles: np.ndarray) -> None:
        a, ub = _cycle_rows(cycles, self.n)
        self.blocks.append(a)
        self.upper.append(ub)

    @property
    def n_cuts(self) -> int:
        return _count(self.upper)

    def solution(self, incumbent: _Incumbent, optimal: bool, message: str) -> OrderingSolution:
        return OrderingSolution(
            incumbent.order, self.lower_bound, optimal, self.n_cuts, self.iterations, message
        )


def _announce(
    search: _CuttingPlanes,
    incumbent: _Incumbent,
    kind: str,
    violated: int,
    progress: Callable[[str], None] | None,
    on_round: Callable[[str, int, float, float], None] | None,
) -> None:
    """The caller's progress hooks after one solve."""
    if on_round is not None:
        on_round(kind, search.iterations, search.lower_bound, incumbent.cost)
    if progress is not None:
        progress(
            f"{kind} {search.iterations}: n={search.n}, {search.n_cuts} cycle "
            f"constraints, bound {search.lower_bound:.6g}, best order {incumbent.cost:.6g}, "
            f"{violated} violated"
        )


def _count(upper: list[np.ndarray]) -> int:
    return int(sum(len(u) for u in upper))


def _dual_bound(res, constant: float) -> float:
    bound = getattr(res, "mip_dual_bound", None) if res is not None else None
    if bound is None or not np.isfinite(bound):
        return -np.inf
    return constant + float(bound)


def _message(res) -> str:
    return "time limit reached" if res is None else str(res.message)

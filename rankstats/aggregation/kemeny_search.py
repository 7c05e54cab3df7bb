r"""Kemeny consensus: exact search by integer programming, heuristics, and bounds.

The Kemeny consensus of ``L`` rankings is the order :math:`\sigma` of the ``N`` systems that
minimises the total Kendall distance to them (Kemeny, 1959; Young & Levenglick, 1978).  With the
pairwise statistics of :mod:`rankstats.core.pair_probabilities` (``W = Pairwise.wins``, ``W[i, j]``
= expected number of rankings that put ``i`` above ``j`` under uniform imputation of missing systems
and of ties), the expected total distance of an order is linear in ``W``:

.. math::

    \operatorname{cost}(\sigma) = \sum_{a \text{ above } b \text{ in } \sigma} W[b, a]
    = \sum_{l=1}^{L} \mathbb E\, d_K(\sigma, \Sigma_l),

the sum over rankings of the expected Kendall distance (ties count ½).  For
complete rankings without ties it is the classical Kemeny score.

Exact search (``method="exact"``)
    1. *Extended Condorcet split* (Truchon, 1998): the strongly connected components of the
       strict majority graph (arc ``i → j`` when ``W[i, j] > W[j, i]``; found with
       ``scipy.sparse.csgraph``), placed in a topological order, put every pair that straddles
       two components on its majority side (either side for an exact tie), which is the least
       that pair can cost; so the components are solved separately and concatenated, and the
       result is exact, ties included (see :func:`condorcet_blocks`).
    2. Each component is a linear-ordering integer program with lazily added 3-cycle
       constraints, solved with :func:`scipy.optimize.milp` (HiGHS, ``mip_rel_gap = 0``), see
       :mod:`rankstats.aggregation.linear_ordering`.

Heuristics (``method="heuristic"``)
    Borda and Copeland orders, KwikSort repeated with seeded pivots (Ailon, Charikar & Newman,
    2008), each polished by an insertion local search (move one system to the best position,
    repeat until no move lowers the cost; all ``N²`` move costs per step from cumulative sums
    of the margin matrix).  The best polished order is returned
    (:mod:`rankstats.aggregation.kemeny_heuristics`).

``method="auto"`` runs the exact search within half of the time left, and the heuristics only on a
block it could not prove, keeping the better of the two orders: where the exact search proves
the optimum it returns exactly what ``method="exact"`` returns, as fast (a heuristic start first
made it up to 3.5 times slower at n = 40–60, issue 24, and saved no solve).

Time limit
    Every call is bounded: ``time_limit`` defaults to 60 s (as the CLI), covers the whole call
    and is passed down to HiGHS, which stops inside a solve; the time left is checked again
    before every round of lazy cuts, and the exact phase of ``auto`` (half of the time left, the
    rest kept for the heuristics), the heuristics and the polishing of rounded relaxations stop
    at their deadlines too.  When time runs out before a
    proof, ``auto`` and ``exact`` return the best order found with ``optimal=False``, a proved
    ``lower_bound`` (LP relaxation, or ``Σ min(W_ij, W_ji)``) and the relative ``gap``, and
    warn (:class:`NotProvedOptimalWarning`).  ``time_limit=None`` asks explicitly for no limit:
    the exact search may then run for hours on a hard profile (200 random rankings of 100
    systems).
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from rankstats._util.arguments import random_seed
from rankstats._util.progress import meter
from rankstats._util.renamed import renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.aggregation.aggregators import Aggregate, input_level, register
from rankstats.aggregation.kemeny_heuristics import (
    borda_order,
    heuristic_order,
    kemeny_cost,
    local_search,
    majority_tolerance,
    trivial_bound,
)
from rankstats.aggregation.linear_ordering import solve_linear_ordering
from rankstats.core.pair_probabilities import Pairwise, pairwise
from rankstats.core.rankings import Rankings, check_level, default_level
from rankstats.core.scores import Scores

METHODS = ("auto", "exact", "heuristic")
#: Seconds allowed to :func:`kemeny` (and ``aggregate(..., method="kemeny")``) by default.
DEFAULT_TIME_LIMIT = 60.0
# Share of the time left that ``auto`` keeps for the heuristics of a block the exact search did
# not prove.
_HEURISTIC_SHARE = 0.5


class NotProvedOptimalWarning(UserWarning):
    """The Kemeny search hit its time limit: the order returned is the best found, with a gap."""


@dataclass(frozen=True, eq=False, repr=False)
class KemenyResult:
    """The result of :func:`kemeny`.

    Attributes
    ----------
    order : list of str
        Systems best first.
    cost : float
        :math:`\\sum_{a \\text{ above } b} W[b, a]`: total (expected) Kendall distance from
        ``order`` to the rankings.
    lower_bound : float
        A proved lower bound on the optimal cost (equal to ``cost`` when ``optimal``).
    optimal : bool
        True when ``order`` is proved to be a Kemeny consensus.
    gap : float
        ``(cost - lower_bound) / cost`` (0 when optimal).
    seconds : float
        Wall-clock time.
    method : str
        The method requested: ``"auto"``, ``"exact"`` or ``"heuristic"``.
    n_rankings : int
        Number of rankings aggregated.
    components : tuple of int
        Sizes of the blocks of the extended Condorcet split, best block first.
    message : str
        How the result was obtained.
    time_limit : float or None
        The time limit of the call in seconds (``None``: no limit).
    """

    order: list[str]
    cost: float
    lower_bound: float
    optimal: bool
    gap: float
    seconds: float
    method: str
    n_rankings: int
    components: tuple[int, ...]
    message: str
    time_limit: float | None = None

    @property
    def mean_distance(self) -> float:
        """``cost / n_rankings``: mean (expected) Kendall distance of the order to a ranking."""
        return self.cost / self.n_rankings if self.n_rankings else float("nan")

    @property
    def table(self) -> pd.DataFrame:
        """``system, rank`` (1 = best), in consensus order."""
        return pd.DataFrame({"system": self.order, "rank": np.arange(1, len(self.order) + 1)})

    def __repr__(self) -> str:
        status = "optimal" if self.optimal else f"not proved optimal, gap {self.gap:.3%}"
        head = ", ".join(self.order[:5]) + (", ..." if len(self.order) > 5 else "")
        largest = max(self.components, default=0)
        return (
            f"KemenyResult(method={self.method!r}, {len(self.order)} systems, "
            f"{self.n_rankings} rankings: cost {self.cost:.6g}, lower bound "
            f"{self.lower_bound:.6g}, {status}; {len(self.components)} blocks, largest "
            f"{largest}; {self.seconds:.3g} s)\n  order: {head}"
        )


# ---------------------------------------------------------------------------- decomposition
def condorcet_blocks(wins: np.ndarray) -> list[np.ndarray]:
    """Strongly connected components of the strict majority graph, in a topological order.

    Arc ``i → j`` when ``W[i, j] > W[j, i]`` (beyond rounding).  Between two components every
    strict majority points the same way (otherwise they would be one component), so placing the
    components in a topological order of the condensation puts every pair that straddles two
    components on its majority side, or on either side of an exact tie: each such pair pays
    its minimum ``min(W[i, j], W[j, i])``.  Any order pays at least that on those pairs and at
    least each component's optimum inside it, so concatenating the components' optimal orders
    is optimal: the split is exact, exact ties included (this is the extended Condorcet
    criterion of Truchon, 1998, without needing tied systems to share a block).

    The components come from :func:`scipy.sparse.csgraph.connected_components`
    (``connection="strong"``) and are ordered by Kahn's algorithm, generation by generation.
    Components that no majority orders (exact ties between them) are placed as networkx's
    ``topological_sort(condensation(...))`` placed them in earlier versions: the first
    generation by smallest member, each later one in the order in which its components lose
    their last incoming arc (arcs taken in row-major order of ``(i, j)``).
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    n = wins.shape[0]
    if n == 0:
        return []
    adjacency = (wins - wins.T) > majority_tolerance(wins)
    k, label = connected_components(csr_array(adjacency), directed=True, connection="strong")
    label = label.astype(np.int64)
    # Arcs between components: each pair once, keyed by its first arc (i, j) in row-major order.
    tail, head = np.nonzero(adjacency)
    cross = label[tail] != label[head]
    unset = np.iinfo(np.int64).max
    first = np.full(k * k, unset)
    np.minimum.at(first, label[tail[cross]] * k + label[head[cross]], tail[cross] * n + head[cross])
    first = first.reshape(k, k)
    arc = first < unset
    smallest = np.full(k, n, dtype=np.int64)
    np.minimum.at(smallest, label, np.arange(n))
    indegree = arc.sum(axis=0)
    generation = np.flatnonzero(indegree == 0)
    generation = generation[np.argsort(smallest[generation], kind="stable")]
    order = []
    while generation.size:
        order.append(generation)
        out = arc[generation]
        indegree = indegree - out.sum(axis=0)
        ready = np.flatnonzero((indegree == 0) & out.any(axis=0))
        if ready.size:
            # Each ready component follows the position of its last parent in this generation,
            # then the first arc from that parent.
            last = len(generation) - 1 - np.argmax(out[::-1, ready], axis=0)
            ready = ready[np.lexsort((first[generation[last], ready], last))]
        generation = ready
    members = np.split(np.argsort(label, kind="stable"), np.cumsum(np.bincount(label))[:-1])
    return [members[c] for c in np.concatenate(order)]


# ---------------------------------------------------------------------------- public API
def _as_pairwise(data: Rankings | Scores | Pairwise, by: str | None) -> Pairwise:
    if isinstance(data, Pairwise):
        return data
    if isinstance(data, Scores):
        by = default_level(data, by)
        return pairwise(Rankings.from_scores(data, by=by))
    if isinstance(data, Rankings):
        return pairwise(data)
    raise TypeError(f"kemeny() takes Rankings, Scores or Pairwise, not {type(data).__name__}")


@renamed_parameters(level="by")
def kemeny(
    data: Rankings | Scores | Pairwise,
    method: str = "auto",
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    seed: int = 0,
    by: str | None = None,
    progress: bool | Callable[[str], None] = False,
    split: bool = True,
) -> KemenyResult:
    r"""Kemeny consensus of rankings, with a proof of optimality or a lower bound.

    Minimises :math:`\sum_{a \text{ above } b} W[b, a]`, the total expected Kendall distance to
    the rankings (``W = pairwise(data).wins``; missing systems and ties are handled by the
    uniform imputation of :mod:`rankstats.core.pair_probabilities`, exactly as for Borda).

    Parameters
    ----------
    data : Rankings, Scores or Pairwise
        Scores are ranked per instance when the table has instances, else per task (as
        :func:`rankstats.aggregate`); ``by`` overrides.
    method : {"auto", "exact", "heuristic"}
        ``exact``: extended Condorcet split + integer program.  ``heuristic``: Borda / Copeland
        / KwikSort starts polished by insertion local search; the lower bound is then the
        trivial :math:`\sum_{i<j}\min(W_{ij}, W_{ji})`.  ``auto``: exact within half of the time
        left, then, on a block not proved, the heuristics (the better order is kept).  For
        ``exact`` and ``auto``, when time runs out before a proof, the best order found is
        returned with ``optimal=False``, the proved lower bound and the gap, and a
        :class:`NotProvedOptimalWarning` is emitted (no exception).
    time_limit : float or None
        Seconds for the whole call (default 60, as the CLI).  HiGHS is stopped inside a solve,
        so the limit is kept to a few percent.  ``None`` (or ``math.inf``) explicitly asks for
        no limit: on a hard profile the exact search can then run for hours.
    seed : int
        Seed of the KwikSort pivots.
    by : {"task", "instance"}, optional
        Ranking level for Scores input.
    progress : bool or callable
        ``True``: a progress bar of the elapsed time against ``time_limit``, with the gap of
        the last round of the exact search, on stderr when it is a terminal (nothing off a
        terminal or with ``RANKSTATS_QUIET=1``).  A callable is passed one text line per
        solver round of the exact search instead (bounds, best cost, violated cycles).
    split : bool
        Solve the blocks of the extended Condorcet split separately (default).  ``False``
        solves one program over all systems: slower, same optimal cost (used to verify the
        split).

    Returns
    -------
    KemenyResult
        ``order``, ``cost``, ``lower_bound``, ``optimal``, ``gap`` (``(cost − lower_bound) /
        cost``), ``seconds``, ``method``, ``time_limit``.

    Warns
    -----
    NotProvedOptimalWarning
        ``auto`` / ``exact`` ran out of time: the order is not proved optimal (the message gives
        the gap).

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"],
    ...                                  ["a", "b", "c"]])
    >>> res = rs.kemeny(rk)
    >>> res.order, res.cost, res.optimal
    (['a', 'b', 'c'], 4.0, True)
    """
    check_level(by)
    random_seed("seed", seed)
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
            raise ValueError(f"time_limit must be a positive number or None, not {time_limit!r}")
        if math.isnan(time_limit) or time_limit <= 0:
            raise ValueError(f"time_limit must be positive (or None: no limit), not {time_limit!r}")
        time_limit = None if math.isinf(time_limit) else float(time_limit)
    start = time.perf_counter()
    deadline = None if time_limit is None else start + float(time_limit)
    pw = _as_pairwise(data, by)
    wins = np.asarray(pw.wins, dtype=np.float64)
    n = wins.shape[0]
    blocks = condorcet_blocks(wins) if split else ([np.arange(n)] if n else [])
    sizes = tuple(len(b) for b in blocks)
    block_wins = [wins[np.ix_(b, b)] for b in blocks]
    # Pairs between blocks pay their minimum, whatever the order inside the blocks.
    between = _trivial_between(wins, blocks)

    with _display(progress, time_limit) as (report, on_round):
        orders, bounds, proved = _solve_blocks(
            blocks, block_wins, method, deadline, np.random.default_rng(seed), report, on_round
        )
    order = np.concatenate(orders) if orders else np.arange(0)
    cost = kemeny_cost(wins, order)
    optimal = all(proved)
    lower = cost if optimal else between + float(sum(bounds))
    gap = 0.0 if optimal or cost <= 0 else max(0.0, (cost - lower) / cost)
    if optimal:
        message = "proved optimal"
    elif method == "heuristic":
        message = "heuristic; lower bound: Σ min(W_ij, W_ji) per pair"
    else:
        message = "time limit reached; lower bound from the LP relaxation"
    result = KemenyResult(
        order=[pw.systems[i] for i in order],
        cost=cost,
        lower_bound=min(lower, cost),
        optimal=optimal,
        gap=gap,
        seconds=time.perf_counter() - start,
        method=method,
        n_rankings=pw.n_rankings,
        components=sizes if n else (),
        message=message,
        time_limit=time_limit,
    )
    if not optimal and method != "heuristic":
        largest = max((len(b) for b, p in zip(blocks, proved, strict=True) if not p), default=0)
        limit = "before a proof" if time_limit is None else f"by the time limit ({time_limit:g} s)"
        warnings.warn(
            f"Kemeny search stopped {limit} on a block of "
            f"{largest} systems: the order is NOT proved optimal (cost {result.cost:.6g}, "
            f"lower bound {result.lower_bound:.6g}, gap {gap:.3%}); raise time_limit "
            "(None: no limit) to search longer",
            NotProvedOptimalWarning,
            stacklevel=user_stacklevel(),
        )
    return result


def _exact_deadline(deadline: float | None, method: str) -> float | None:
    """Deadline of the exact search of a block: ``auto`` keeps time for the heuristics."""
    if deadline is None or method == "exact":
        return deadline
    now = time.perf_counter()
    return now + (1.0 - _HEURISTIC_SHARE) * max(0.0, deadline - now)


def _trivial_between(wins: np.ndarray, blocks: list[np.ndarray]) -> float:
    """Cost of the pairs that straddle two blocks, for the block order given."""
    label = np.empty(wins.shape[0], dtype=np.int64)
    for k, b in enumerate(blocks):
        label[b] = k
    # Pair (i, j) with label[i] < label[j]: i is above j and the cost is W[j, i].
    above = label[:, None] < label[None, :]
    return float(wins.T[above].sum())


def _solve_blocks(
    blocks: list[np.ndarray],
    block_wins: list[np.ndarray],
    method: str,
    deadline: float | None,
    rng: np.random.Generator,
    report: Callable[[str], None] | None,
    on_round: Callable[..., None] | None,
) -> tuple[list[np.ndarray], list[float], list[bool]]:
    """Best order, proved lower bound and proof status of each block of the Condorcet split."""
    orders: list[np.ndarray] = []
    bounds: list[float] = []
    proved: list[bool] = []
    for k, (b, w) in enumerate(zip(blocks, block_wins, strict=True), 1):
        if len(b) <= 2:
            local = borda_order(w)
            orders.append(b[local])
            bounds.append(kemeny_cost(w, local))
            proved.append(True)
            continue
        if method == "heuristic":
            orders.append(b[heuristic_order(w, rng, deadline=deadline)])
            bounds.append(trivial_bound(w))
            proved.append(False)
            continue
        until = _exact_deadline(deadline, method)
        sol = solve_linear_ordering(
            w,
            deadline=until,
            progress=report,
            on_round=None if on_round is None else partial(on_round, k, len(blocks), len(b)),
            polish=lambda order, w=w, until=until: local_search(w, order, deadline=until),
        )
        if sol.optimal:
            orders.append(b[sol.order])
            bounds.append(kemeny_cost(w, sol.order))
            proved.append(True)
            continue
        # Out of time: the best order known (``auto``: the heuristics' too, in the time kept for
        # them; the exact search may not have rounded any relaxation yet, Borda then stands in),
        # with the best proved bound.
        local = heuristic_order(w, rng, deadline=deadline) if method == "auto" else None
        candidates = [o for o in (local, sol.order) if o is not None] or [borda_order(w)]
        chosen = min(candidates, key=lambda o: kemeny_cost(w, o))
        orders.append(b[chosen])
        bounds.append(max(sol.lower_bound, trivial_bound(w)))
        proved.append(False)
    return orders, bounds, proved


@contextmanager
def _display(
    progress: bool | Callable[[str], None], time_limit: float | None
) -> Iterator[tuple[Callable[[str], None] | None, Callable[..., None] | None]]:
    """``progress=callable``: one text line per solver round to the callable.  ``True``: a bar
    of the elapsed time against ``time_limit`` (:mod:`rankstats._util.progress`: on a terminal, not
    quiet) with the block and the gap of its last round."""
    if callable(progress):
        yield progress, None
        return
    with meter("kemeny", total=time_limit, unit="s", enabled=bool(progress), clock=True) as shown:

        def on_round(block: int, blocks: int, size: int, kind: str, it: int, bound, best) -> None:
            gap = (best - bound) / best if 0 < best < np.inf and np.isfinite(bound) else None
            where = f", block {block}/{blocks} ({size} systems)" if blocks > 1 else ""
            shown.note(
                f"{kind} {it}"
                + ("" if gap is None else f", gap {max(gap, 0.0):.2%}")
                + f"{where}, best {best:.6g}, bound {bound:.6g}"
            )

        yield None, on_round if shown.mode is not None else None


def _kemeny_aggregate(data, by: str | None) -> Aggregate:
    """``aggregate(..., method="kemeny")``: score = number of systems below in the consensus.

    Searched within :data:`DEFAULT_TIME_LIMIT` seconds, with the elapsed time against that limit
    drawn as a bar on a terminal (:mod:`rankstats._util.progress`; none off a terminal or when
    quiet), as ``rankstats kemeny`` does.  ``details`` holds the
    :class:`KemenyResult` (``"kemeny"``) and, for printing without it, ``"optimal"`` (bool),
    ``"gap"`` (relative, ``(cost − lower_bound) / cost``), ``"lower_bound"``, ``"cost"`` and
    ``"time_limit"`` (seconds).
    """
    res = kemeny(data, method="auto", time_limit=DEFAULT_TIME_LIMIT, by=by, progress=True)
    n = len(res.order)
    score = pd.Series(n - np.arange(1, n + 1, dtype=np.float64), index=res.order, name="kemeny")
    systems = list(data.systems)
    lvl = input_level(data, by)
    details = {
        "kemeny": res,
        "optimal": res.optimal,
        "gap": res.gap,
        "lower_bound": res.lower_bound,
        "cost": res.cost,
        "time_limit": res.time_limit,
    }
    return Aggregate("kemeny", score.reindex(systems), lvl, details)


register("kemeny", _kemeny_aggregate)

r"""Is the order effect of a battle log identified?  Decided from the design, exactly.

The linear predictor of a battle of ``a`` (shown first) against ``b`` is
:math:`\theta_a - \theta_b + \eta` (:mod:`rankstats.battles.fitting`).  Over the ordered pairs that
hold battles, the design matrix is :math:`X = [\,B \mid \mathbf 1\,]` with :math:`B` the signed
incidence matrix (row ``(a, b)``: :math:`+1` at ``a``, :math:`-1` at ``b``).  The log-worths are
defined up to a constant per connected component, and :math:`\eta` is identified iff
:math:`\operatorname{rank} X = \operatorname{rank} B + 1`, i.e. iff :math:`\mathbf 1` is not in
the column space of :math:`B`: iff there is **no potential** :math:`\varphi` on the models with
:math:`\varphi_a - \varphi_b = 1` for every ordered pair ``(a, b)`` that was played.  If there
is one, :math:`(\theta + c\varphi, \eta - c)` fits every battle equally well for every ``c``:
the ratings absorb the order effect, whatever the counts.

Examples: every battle against one baseline (a *star*, as arena-hard-auto's logs: baseline
:math:`\varphi = 1`, others 0); two groups where one group is always shown first; two models
always in the same order.  A pair shown in both orders, or a cycle of pairs whose orders do not
add up (``a→b``, ``b→c``, ``a→c``), identifies :math:`\eta`.

:func:`order_design` decides this in integers: a breadth-first spanning forest
(:func:`scipy.sparse.csgraph.breadth_first_order`) fixes :math:`\varphi` along the tree, pointer
jumping accumulates it to each root (O(N log N), vectorised), and every played pair is checked
against it — no tolerance, no dependence on the counts (the tests compare with the rank of
:math:`X` computed by :func:`numpy.linalg.matrix_rank`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from rankstats._util.advice import AdviceWarning, Spelled, escape
from rankstats.battles.log_files import AdviceBattlesError
from rankstats.core.bradley_terry_mle import Pairs
from rankstats.errors import preview


@dataclass(frozen=True)
class OrderDesign:
    """Identifiability of the order effect (:func:`order_design`).

    Attributes
    ----------
    identified : bool
        The design identifies :math:`\\eta` (rank of ``[B | 1]`` = rank of ``B`` + 1).
    potential : ndarray of int, shape (N,)
        A potential :math:`\\varphi` with :math:`\\varphi_a - \\varphi_b = 1` on the tree of
        played pairs (0 at each component's first model); when ``identified`` is False it holds
        on every played pair.
    baseline : int or None
        The model in every played pair (a star design), if there is one.
    """

    identified: bool
    potential: np.ndarray
    baseline: int | None


def order_design(n_models: int, item1: np.ndarray, item2: np.ndarray) -> OrderDesign:
    """Whether the order effect is identified by the ordered pairs ``(item1[k], item2[k])``
    (``item1`` shown first) that hold battles; see the module docstring."""
    item1 = np.asarray(item1, dtype=np.int64)
    item2 = np.asarray(item2, dtype=np.int64)
    n = int(n_models)
    if len(item1) == 0:
        return OrderDesign(False, np.zeros(n, dtype=np.int64), None)
    ones = np.ones(len(item1), dtype=np.int8)
    undirected = sparse.coo_matrix((ones, (item1, item2)), shape=(n, n)).tocsr()
    n_parts, labels = csgraph.connected_components(undirected, directed=False)
    roots = np.unique(labels, return_index=True)[1]
    # One virtual root (index n) joined to the first model of every component: one BFS.
    rows = np.concatenate([item1, item2, np.full(n_parts, n)])
    cols = np.concatenate([item2, item1, roots])
    graph = sparse.coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), (n + 1, n + 1))
    _, parent = csgraph.breadth_first_order(
        graph.tocsr(), n, directed=True, return_predecessors=True
    )
    parent = parent.astype(np.int64)
    parent[n] = n
    # φ_v − φ_parent(v): −1 when (parent, v) was played (parent first), +1 when (v, parent) was.
    child = np.arange(n, dtype=np.int64)
    played = np.isin(parent[:n] * n + child, item1 * n + item2)
    step = np.zeros(n + 1, dtype=np.int64)
    step[:n] = np.where(parent[:n] == n, 0, np.where(played, -1, 1))
    # Pointer jumping: step[v] becomes φ_v − φ_ancestor(v), the ancestor doubling each round.
    ancestor = parent
    while True:
        further = ancestor[ancestor]
        if np.array_equal(further, ancestor):
            break
        step = step + step[ancestor]
        ancestor = further
    potential = step[:n]
    identified = not bool(np.all(potential[item1] - potential[item2] == 1))
    counts = np.bincount(np.concatenate([item1, item2]), minlength=n)
    hub = np.flatnonzero(counts == len(item1))
    baseline = int(hub[0]) if len(hub) == 1 and len(item1) > 1 else None
    return OrderDesign(identified, potential, baseline)


def unidentified_reason(design: OrderDesign, models: Sequence[str]) -> str:
    """Why the order effect is not identified, in words (for warnings and errors)."""
    if design.baseline is not None:
        return (
            f"every battle is against {models[design.baseline]!r} (a star design), so the "
            "advantage of the model shown first cannot be told apart from that model's rating"
        )
    levels = np.unique(design.potential)
    if len(levels) == 2:
        first = [models[k] for k in np.flatnonzero(design.potential == levels[1])]
        return (
            f"the models {{{preview(map(repr, first), 5)}}} are always shown first and their "
            "opponents always second, so the advantage of the model shown first cannot be "
            "told apart from the ratings"
        )
    return (
        "each pair is always shown in the same order and no cycle of pairs breaks the pattern "
        "(e.g. a→b, b→c and a→c would), so the advantage of the model shown first cannot be "
        "told apart from the ratings"
    )


def decide_order_effect(
    pairs: Pairs, models: Sequence[str], order_effect: bool | None
) -> tuple[bool, AdviceWarning | None]:
    """Estimate the order effect?  Decided from the design (:mod:`rankstats.battles.design`):
    ``(estimate, warning)``; ``order_effect=True`` on a design that cannot identify it is an
    error."""
    if order_effect is False:
        return False, None
    if both_orders(len(models), pairs.item1, pairs.item2):
        return True, None  # φ_a − φ_b = 1 = φ_b − φ_a has no solution: identified
    design = order_design(len(models), pairs.item1, pairs.item2)
    if design.identified:
        return True, None
    reason = unidentified_reason(design, models)
    if order_effect is True:
        raise AdviceBattlesError(
            escape(f"the order effect cannot be estimated from these battles: {reason}")
            + "; fit with {off} (or {auto}: it is then left out with a warning)",
            off=_NO_ORDER_EFFECT,
            auto=Spelled("leave order_effect=None", "leave out --order-effect"),
        )
    return False, AdviceWarning(
        escape(f"the order effect is left out: {reason}")
        + "; the ratings are fitted without it ({off} says so and silences this warning)",
        off=_NO_ORDER_EFFECT,
    )


_NO_ORDER_EFFECT = ("order_effect", False)


def both_orders(n: int, item1: np.ndarray, item2: np.ndarray) -> bool:
    """Some pair is played in both orders (which identifies the order effect at once)."""
    key = np.asarray(item1, dtype=np.int64) * n + item2
    reverse = np.asarray(item2, dtype=np.int64) * n + item1
    if n * n <= max(4 * len(key), 1 << 20):
        seen = np.zeros(n * n, dtype=bool)
        seen[key] = True
        return bool(seen[reverse].any())
    return bool(np.isin(reverse, key).any())


def identified_stack(
    n: int, played: np.ndarray, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """``(R,)``: the ordered pairs each log played identify the order effect
    (:func:`rankstats.battles.design.order_design`); a pair played in both orders settles it at
    once, the other logs are decided one by one (few: a design with both orders rarely misses
    them all)."""
    lookup = np.full(n * n, -1, dtype=np.int64)
    lookup[first * n + second] = np.arange(len(first))
    reverse = lookup[second * n + first]
    has = reverse >= 0
    settled = np.zeros(played.shape[0], dtype=bool)
    if has.any():
        settled = (played[:, has] & played[:, reverse[has]]).any(axis=1)
    out = settled.copy()
    for row in np.flatnonzero(~settled):
        kept = played[row]
        if both_orders(n, first[kept], second[kept]):
            out[row] = True
        else:
            out[row] = order_design(n, first[kept], second[kept]).identified
    return out

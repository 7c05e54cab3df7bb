r"""Pairwise preferences stated by assessors, closed under transitivity: the input of a Mallows
model fitted to preferences (Vitelli et al., 2018, Sec. 4.2; BayesMallows'
``generate_transitive_closure``).

Each assessor states preferences "``a`` is preferred to ``b``". Mallows models read them as a
partial order per assessor: its transitive closure — ``a ≻ b`` and ``b ≻ c`` imply ``a ≻ c`` —
is what a complete ranking of that assessor must respect. A set of preferences with a cycle
(``a ≻ b ≻ c ≻ a``) has no compatible ranking and is refused, the cycle named.

The closure of every assessor is computed at once by repeated squaring of the ``(N, n, n)``
Boolean relation: :math:`\lceil \log_2 n \rceil` batched matrix products.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceRankingsError, Spelled, escape
from rankstats.core.keys import refuse_whitespace_variants
from rankstats.errors import InvalidRankingsError, InvalidScoresError


@dataclass(frozen=True, eq=False)
class AssessorPreferences:
    """The transitive closure of every assessor's stated preferences.

    Attributes
    ----------
    systems : tuple
        The items, in order of first appearance.
    assessors : tuple
        The assessors, in order of first appearance.
    above : ndarray of bool, shape (N, n, n)
        ``above[j, a, b]``: assessor ``j`` prefers ``systems[a]`` to ``systems[b]``, stated or
        implied.
    n_stated : int
        Rows of the input (distinct stated preferences).
    stated : ndarray of bool, shape (N, n, n)
        ``stated[j, a, b]``: assessor ``j`` stated ``a ≻ b`` (not closed; what the Bernoulli
        error model of a Mallows fit reads).
    cyclic : tuple
        The assessors whose preferences form a cycle — empty unless read with
        ``cycles="keep"`` (their ``above`` is meaningless: only a model of errors can use them).
    """

    systems: tuple
    assessors: tuple
    above: np.ndarray = field(repr=False)
    n_stated: int
    stated: np.ndarray | None = field(default=None, repr=False)
    cyclic: tuple = ()

    @property
    def n_implied(self) -> int:
        """Preferences implied by transitivity and not stated."""
        return int(self.above.sum()) - self.n_stated

    def __repr__(self) -> str:
        head = (
            f"AssessorPreferences({len(self.assessors)} assessors, {len(self.systems)} systems, "
            f"{self.n_stated:,} stated preferences, "
        )
        if self.cyclic:  # their closure is not a partial order: no implied count
            return head + f"{len(self.cyclic)} assessor(s) with a cycle)"
        return head + f"{self.n_implied:,} implied)"

    @classmethod
    def from_table(
        cls,
        table: pd.DataFrame,
        assessor: str = "assessor",
        preferred: str = "preferred",
        other: str = "other",
        cycles: str = "refuse",
    ) -> AssessorPreferences:
        """One row per stated preference: ``preferred`` was preferred to ``other`` by
        ``assessor``.

        ``cycles="refuse"`` (default): an assessor whose preferences form a cycle is refused
        with the cycle named — no ranking respects them. ``cycles="keep"``: they are kept and
        listed in :attr:`cyclic`, for a model that reads stated preferences as possibly
        mistaken (the Bernoulli error model of a Mallows fit). Items are named as text
        (integer ids ``1`` become ``"1"``), as :class:`~rankstats.core.rankings.Rankings` names
        systems.

        Raises
        ------
        InvalidRankingsError
            A missing column, no rows, a missing name, an item preferred to itself, item or
            assessor names that differ only by surrounding whitespace (each naming the rows),
            or an assessor whose preferences form a cycle (named, with the rows' items).

        Examples
        --------
        >>> import pandas as pd
        >>> table = pd.DataFrame({"assessor": [1, 1, 2], "preferred": ["a", "b", "c"],
        ...                       "other": ["b", "c", "a"]})
        >>> prefs = AssessorPreferences.from_table(table)
        >>> prefs
        AssessorPreferences(2 assessors, 3 systems, 3 stated preferences, 1 implied)
        >>> bool(prefs.above[0, 0, 2])  # assessor 1: a ≻ b ≻ c, so a ≻ c
        True
        """
        if not isinstance(table, pd.DataFrame):
            raise TypeError(
                "table must be a pandas DataFrame of stated preferences, not "
                f"{type(table).__name__}"
            )
        absent = [c for c in (assessor, preferred, other) if c not in table.columns]
        if absent:
            raise InvalidRankingsError(
                f"no column {absent[0]!r} in the preferences; the columns are "
                f"{list(map(str, table.columns))}: name them with assessor=, preferred=, other="
            )
        return build_preferences(
            table[assessor],
            table[preferred],
            table[other],
            cycles,
            _rows,
            (assessor, preferred, other),
        )


def _rows(positions: np.ndarray) -> list[str]:
    """``"row k"`` of a table's rows, by position (from 0)."""
    return [f"row {int(k)}" for k in positions]


def build_preferences(
    who: pd.Series,
    preferred: pd.Series,
    other: pd.Series,
    cycles: str = "refuse",
    where: Callable[[np.ndarray], Sequence[str]] = _rows,
    columns: tuple[str, str, str] = ("assessor", "preferred", "other"),
) -> AssessorPreferences:
    """The one validation and construction of stated preferences (a table's columns or a file's,
    ``where(positions)`` naming their rows or lines; ``columns``: their names in messages).

    Refused, naming the rows: no rows, a missing value, an item preferred to itself, item or
    assessor names that differ only by surrounding whitespace, and (``cycles="refuse"``) an
    assessor whose preferences form a cycle.  Items are named as text (``str``), as
    :class:`~rankstats.core.rankings.Rankings` names systems: BayesMallows' integer item ids
    become ``"1"``, ``"2"``, ...
    """
    if cycles not in ("refuse", "keep"):
        raise ValueError(f"cycles must be 'refuse' or 'keep', not {cycles!r}")
    if len(who) == 0:
        raise InvalidRankingsError("the preferences have no rows: there is nothing to fit")
    frame = pd.DataFrame({"who": who, "a": preferred, "b": other}).reset_index(drop=True)
    missing = np.flatnonzero(frame.isna().any(axis=1).to_numpy())
    if len(missing):
        names = ", ".join(map(repr, columns))
        raise InvalidRankingsError(
            f"{where(missing[:1])[0]} of the preferences has no value in one of {names} "
            f"({len(missing)} such row(s))"
        )
    a, b = frame["a"].astype(str), frame["b"].astype(str)
    same = np.flatnonzero(a.to_numpy() == b.to_numpy())
    if len(same):
        raise InvalidRankingsError(
            f"{where(same[:1])[0]} of the preferences prefers {a[same[0]]!r} to itself "
            f"({len(same)} such row(s)): a preference needs two different items"
        )
    who, assessors = pd.factorize(frame["who"], sort=False)
    codes, systems = pd.factorize(pd.concat([a, b], ignore_index=True), sort=False)
    rows = np.arange(len(frame))
    _refuse_variants("assessor", list(assessors), rows, where, who)
    _refuse_variants("system", list(systems), np.tile(rows, 2), where, codes)
    first, second = codes[: len(frame)], codes[len(frame) :]
    n, m = len(systems), len(assessors)
    relation = np.zeros((m, n, n), dtype=bool)
    relation[who, first, second] = True
    stated = int(relation.sum())
    closure = _closure(relation)
    cyclic = np.flatnonzero(np.diagonal(closure, axis1=1, axis2=2).any(axis=1))
    systems, assessors = tuple(systems), tuple(assessors)
    if len(cyclic) and cycles == "keep":
        kept = tuple(assessors[j] for j in cyclic)
        return AssessorPreferences(systems, assessors, closure, stated, relation, kept)
    if len(cyclic):
        j = int(cyclic[0])
        names = [systems[i] for i in _cycle(relation[j])]
        chain = " ≻ ".join(map(str, [*names, names[0]]))
        raise AdviceRankingsError(
            escape(
                f"assessor {assessors[j]!r} states preferences with a cycle: {chain} "
                f"({len(cyclic)} assessor(s) with a cycle); no ranking respects them: "
            )
            + "{bernoulli} fits preferences that may be mistaken",
            bernoulli=Spelled(
                "cycles='keep' with Mallows(error_model='bernoulli')", "--error-model bernoulli"
            ),
        )
    return AssessorPreferences(systems, assessors, closure, stated, relation)


def _refuse_variants(
    kind: str,
    names: list,
    rows: np.ndarray,
    where: Callable[[np.ndarray], Sequence[str]],
    codes: np.ndarray,
) -> None:
    """``kind`` names that differ only by surrounding whitespace, refused naming the row where
    each spelling is first seen (``codes``: the name code of each cell, ``rows`` its row)."""
    text = [name for name in names if isinstance(name, str)]
    if len(text) < 2:
        return

    def first_seen(spellings: Sequence[str]) -> list[str]:
        position = {name: k for k, name in enumerate(names)}
        cells = [int(np.argmax(codes == position[s])) for s in spellings]
        return where(rows[cells])

    try:
        refuse_whitespace_variants(kind, text, first_seen)
    except InvalidScoresError as err:
        raise InvalidRankingsError(str(err)) from None


def _closure(relation: np.ndarray) -> np.ndarray:
    """Transitive closure of every ``(n, n)`` Boolean relation of the stack, by squaring."""
    closure = relation.copy()
    reach = 1
    n = relation.shape[-1]
    while reach < n:  # after the step, paths of up to 2 · reach steps are closed
        step = np.matmul(closure.astype(np.uint16), closure.astype(np.uint16)) > 0
        closure |= step
        reach *= 2
    return closure


def _cycle(relation: np.ndarray) -> list[int]:
    """One cycle of a directed graph (adjacency matrix), as its nodes in order (depth-first)."""
    n = len(relation)
    state = np.zeros(n, dtype=np.int8)  # 0 new, 1 on the path, 2 done
    for start in range(n):
        if state[start]:
            continue
        path, stack = [], [(start, iter(np.flatnonzero(relation[start])))]
        state[start] = 1
        path.append(start)
        while stack:
            node, successors = stack[-1]
            for nxt in successors:
                if state[nxt] == 1:  # back to the path: the cycle
                    return path[path.index(int(nxt)) :]
                if state[nxt] == 0:
                    state[nxt] = 1
                    path.append(int(nxt))
                    stack.append((int(nxt), iter(np.flatnonzero(relation[nxt]))))
                    break
            else:
                state[node] = 2
                path.pop()
                stack.pop()
    return []

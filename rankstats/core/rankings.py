"""Rankings: an ``(L, N)`` matrix of ranks, one row per ranker (task or instance).

Conventions: rank 1 = best; tied systems share the average of the ranks they span
(``scipy.stats.rankdata(method="average")``); ``NaN`` = the system was not evaluated by that ranker.
Ranks are always stored *canonically*: among the ``k`` observed systems of a row they are the
mid-ranks ``1 .. k``, whatever numbers the user supplied, because the pairwise imputation reads
them as positions.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankstats._util.arguments import choice
from rankstats.core.codes import dense_codes, sorted_codes
from rankstats.core.derived import DerivedOnce
from rankstats.core.keys import refuse_whitespace_variants
from rankstats.core.scores import Scores
from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError, preview

_RANK_BLOCK_CELLS = 2_000_000

#: A ranking of fewer systems carries no information: every route sets it aside (Scores,
#: the streamed scan, the simulation cube, the second level of σ^2l).
MIN_SYSTEMS = 2


def informative(values: np.ndarray) -> np.ndarray:
    """Rows of a score or rank matrix that evaluate at least :data:`MIN_SYSTEMS` systems.

    Parameters
    ----------
    values : ndarray, shape (L, N)
        Scores or ranks; NaN = not evaluated.

    Returns
    -------
    ndarray of bool, shape (L,)
    """
    return np.count_nonzero(~np.isnan(values), axis=-1) >= MIN_SYSTEMS


def require_systems(systems: Sequence[object]) -> None:
    """Refuse a table of fewer than :data:`MIN_SYSTEMS` systems before a test or a ranking of
    it is computed, naming them (one line, the one message of every such test).

    Raises
    ------
    ValueError
    """
    if len(systems) < MIN_SYSTEMS:
        named = f": {preview(map(str, systems))}" if len(systems) else ""
        raise ValueError(
            f"comparing systems needs at least {MIN_SYSTEMS}; the table has {len(systems)}{named}"
        )


def group_sum(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Row sums of ``values`` per group code (e.g. the task of each ranking): one sparse
    ``(n_groups, L)`` indicator matrix product, shape ``(n_groups, N)``."""
    from scipy import sparse  # here, not at import: ``rankstats rank`` starts without SciPy

    indicator = sparse.csr_matrix(
        (np.ones(len(groups)), (groups, np.arange(len(groups)))), shape=(n_groups, len(groups))
    )
    return np.asarray(indicator @ values)


def tied_entries(ranks: np.ndarray) -> np.ndarray:
    """Boolean mask of the entries that share their rank with another entry of the same ranking
    (row).  Equal ranks are looked for, not fractional ones: three systems tied for places 2–4
    all get the integer mid-rank 3, which a ``ranks % 1`` test misses.  Missing entries (NaN) are
    never tied."""
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim != 2 or ranks.shape[1] < 2:
        return np.zeros(ranks.shape, dtype=bool)
    order = np.argsort(ranks, axis=1, kind="stable")  # NaN last; NaN == NaN is False below
    ordered = np.take_along_axis(ranks, order, axis=1)
    equal = ordered[:, 1:] == ordered[:, :-1]
    mask = np.zeros(ranks.shape, dtype=bool)
    mask[:, 1:] |= equal
    mask[:, :-1] |= equal
    out = np.empty_like(mask)
    np.put_along_axis(out, order, mask, axis=1)
    return out


def average_ranks(scores: np.ndarray) -> np.ndarray:
    """Row-wise average ranks of a score matrix, 1 = highest score, NaN kept as NaN.

    Equivalent to ``scipy.stats.rankdata(-scores, axis=1, nan_policy="omit")`` and several times
    as fast on tall matrices: one argsort per row; a row without ties among its evaluated entries
    (the usual case for continuous scores) is ranked by position, and only rows with ties look
    for the runs of equal sorted values (500,000 × 20 scores: 0.29 s, a bare ``argsort`` 0.24 s).

    Parameters
    ----------
    scores : ndarray, shape (L, N)
        Higher = better; NaN = not evaluated.

    Returns
    -------
    ndarray, shape (L, N)
        Mid-ranks among the observed entries of each row.
    """
    scores = np.asarray(scores, dtype=np.float64)
    n_rows, n = scores.shape
    if n_rows == 0 or n == 0:
        return scores.copy()
    block = max(1, _RANK_BLOCK_CELLS // n)
    if n_rows <= block:
        return _average_ranks_block(scores)
    # Blocks of rows keep the half-dozen (L, N) temporaries small on tall inputs.
    ranks = np.empty_like(scores)
    for start in range(0, n_rows, block):
        ranks[start : start + block] = _average_ranks_block(scores[start : start + block])
    return ranks


def _average_ranks_block(scores: np.ndarray) -> np.ndarray:
    n = scores.shape[1]
    missing = np.isnan(scores)
    keyed = np.where(missing, np.inf, -scores)
    # Any sort will do: tied values get the mid-rank of their run whatever their order in it.
    order = np.argsort(keyed, axis=1)
    ordered = np.take_along_axis(keyed, order, axis=1)
    # Missing entries sort last as +inf, with any score of -inf: a row holding one takes the
    # route of the rows with ties.
    tied = ((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != np.inf)).any(axis=1)
    negative_infinity = np.isneginf(scores)
    if negative_infinity.any():
        tied |= negative_infinity.any(axis=1)
    rows = np.flatnonzero(tied)
    ranks = np.empty_like(scores)
    if 2 * len(rows) > len(scores):  # mostly ties (coarse scores): mid-ranks everywhere
        np.put_along_axis(ranks, order, _run_mid_ranks(ordered), axis=1)
    else:
        # Without ties the rank is the position; rows with ties get the mid-ranks of their runs.
        position = np.broadcast_to(np.arange(1.0, n + 1.0), order.shape)
        np.put_along_axis(ranks, order, position, axis=1)
        if len(rows):
            mid = np.empty((len(rows), n))
            np.put_along_axis(mid, order[rows], _run_mid_ranks(ordered[rows]), axis=1)
            ranks[rows] = mid
    ranks[missing] = np.nan
    return ranks


def _run_mid_ranks(ordered: np.ndarray) -> np.ndarray:
    """1-based mid-rank of every position of rows sorted ascending: the values of a run of equal
    values share the mean of its positions."""
    n = ordered.shape[1]
    # Work on the transposed (N, L) layout: accumulations along axis 0 are then vectorised over L.
    ordered = ordered.T
    position = np.arange(n, dtype=np.float64)[:, None]
    run_start = np.empty(ordered.shape, dtype=bool)
    run_start[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=run_start[1:])
    first = np.maximum.accumulate(np.where(run_start, position, 0.0), axis=0)
    run_end = np.empty(ordered.shape, dtype=bool)
    run_end[-1] = True
    run_end[:-1] = run_start[1:]
    last = np.minimum.accumulate(np.where(run_end, position, n - 1.0)[::-1], axis=0)[::-1]
    return ((first + last) * 0.5 + 1.0).T


def instance_score_matrix(scores: Scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (oriented) scores of an instance-level table as a (task, instance) × system matrix,
    NaN = not evaluated; one row per (task, instance) pair that has a score, sorted by task, then
    instance, as ``pd.factorize(..., sort=True)`` numbers them.

    Returns ``(matrix, keys, instance_labels)``: row ``r`` is task ``keys[r] // n`` and instance
    ``instance_labels[keys[r] % n]``, with ``n = max(len(instance_labels), 1)``.  Built once per
    table (:meth:`Scores.cached`: the rankings and the score-based blocks both read it) and
    read-only.
    """
    return scores.cached("instance_score_matrix", lambda: _instance_score_matrix(scores))


def _instance_score_matrix(scores: Scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = scores.data
    task_code = data["task"].cat.codes.to_numpy(np.int64)
    # Sorted codes of the instances (a compact integer column is its own code), then of the
    # (task, instance) pairs from a table of flags (no hash table).
    inst_code, inst_labels = sorted_codes(data["instance"])
    n_inst = max(len(inst_labels), 1)
    row, keys = dense_codes(task_code * n_inst + inst_code, len(scores.tasks) * n_inst)
    matrix = np.full((len(keys), len(scores.systems)), np.nan)
    matrix[row, data["system"].cat.codes.to_numpy(np.int64)] = data["score"].to_numpy()
    for array in (matrix, keys, inst_labels):
        if isinstance(array, np.ndarray):
            array.setflags(write=False)
    return matrix, keys, inst_labels


@dataclass(frozen=True, eq=False, repr=False)
class Rankings(DerivedOnce):
    """Partial rankings of ``N`` systems by ``L`` rankers.

    The constructor takes canonical ranks (build rankings of any rank numbers with
    :meth:`from_rank_matrix`, :meth:`from_orderings` or :meth:`from_scores`); lists are
    accepted for every field and stored as the types below, anything else is refused here
    rather than inside a later fit.

    Attributes
    ----------
    ranks : ndarray, shape (L, N)
        Canonical mid-ranks (1 = best) among the observed systems of each row; NaN = not evaluated.
    systems : tuple of str
        Column labels.
    rankers : pandas.Index
        Row labels: task names, or a ``(task, instance)`` MultiIndex at instance level.
    groups : ndarray of int, shape (L,), or None
        Task code of each row (instance-level rankings), used by two-level Borda.
    group_names : tuple of str or None
        Task name of each group code.
    """

    ranks: np.ndarray
    systems: tuple[str, ...]
    rankers: pd.Index
    groups: np.ndarray | None = None
    group_names: tuple[str, ...] | None = None
    # Statistics derived from these rankings, built once (rs.pairwise). Rankings are treated as
    # immutable: editing ``ranks`` in place is not supported.
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._coerce()
        if self.ranks.ndim != 2 or self.ranks.shape[1] != len(self.systems):
            raise InvalidRankingsError(
                f"ranks must be (L, {len(self.systems)}), got shape {self.ranks.shape}"
            )
        if len(self.rankers) != self.ranks.shape[0]:
            raise InvalidRankingsError("one ranker label per row of ranks is required")
        if len(set(self.systems)) != len(self.systems):
            raise InvalidRankingsError(f"duplicated system names: {preview(self.systems)}")
        if self.groups is not None:
            bad = (self.groups < 0) | (self.groups >= len(self.group_names or ()))
            if self.groups.shape != (len(self.rankers),) or bad.any():
                raise InvalidRankingsError(
                    "groups must hold one code per ranking, each in [0, len(group_names))"
                )

    def _coerce(self) -> None:
        """The fields as the class holds them, whatever sequences were passed: ranks a float
        array, systems a tuple of text, rankers a pandas Index, groups integer codes with
        their names (a list for ``rankers`` once failed later, inside a fit)."""

        def put(name: str, value: object) -> None:
            object.__setattr__(self, name, value)

        for name in ("systems", "rankers", "group_names"):
            if isinstance(getattr(self, name), str | bytes):
                raise InvalidRankingsError(f"{name} must be a sequence of names, not a string")
        try:
            ranks = np.asarray(self.ranks, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidRankingsError(
                "ranks must be an (L, N) array of numbers (NaN = not ranked); build rankings "
                "of other data with Rankings.from_rank_matrix or Rankings.from_orderings"
            ) from None
        if np.isinf(ranks).any():
            r, c = np.argwhere(np.isinf(ranks))[0]
            raise InvalidRankingsError(f"infinite rank in row {r}, column {c}")
        put("ranks", ranks)
        if not isinstance(self.systems, tuple) or not all(type(s) is str for s in self.systems):
            put("systems", tuple(str(s) for s in self.systems))
        if not isinstance(self.rankers, pd.Index):
            put("rankers", pd.Index(list(self.rankers)))
        if (self.groups is None) != (self.group_names is None):
            raise InvalidRankingsError("give groups and group_names together, or neither")
        if self.groups is not None:
            groups = np.asarray(self.groups)
            if groups.dtype.kind not in "iu":
                raise InvalidRankingsError("groups must be integer codes of group_names")
            put("groups", groups.astype(np.int64, copy=False))
            put("group_names", tuple(str(g) for g in self.group_names))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_scores(cls, scores: Scores, by: str = "task") -> Rankings:
        """Rank the systems of every task (``by="task"``) or every (task, instance).

        At ``by="task"``, instance-level scores are first averaged over instances
        (:meth:`Scores.to_task_level`).  At ``by="instance"`` each (task, instance) is one ranking
        and :attr:`groups` records its task, for two-level Borda.

        Examples
        --------
        >>> import rankstats as rs
        >>> rk = rs.Rankings.from_scores(rs.load_dataset("xtreme_table5"))
        >>> rk.ranks.shape
        (4, 10)
        """
        if by not in ("task", "instance"):
            raise ValueError(f"by must be 'task' or 'instance', not {by!r}")
        # Built once per table and level: σ^l, σ^2l and the intervals share it.
        return scores.cached((cls, by), lambda: cls._from_scores(scores, by))

    @classmethod
    def _from_scores(cls, scores: Scores, by: str) -> Rankings:
        if by == "instance" and not scores.has_instances:
            raise ValueError(
                "by='instance' needs instance-level scores; this table is task level "
                "(give an instance column to Scores.from_long / read_scores)"
            )
        n = len(scores.systems)
        if by == "task":
            data = scores.to_task_level().data
            row = data["task"].cat.codes.to_numpy(np.int64)
            matrix = np.full((len(scores.tasks), n), np.nan)
            matrix[row, data["system"].cat.codes.to_numpy(np.int64)] = data["score"].to_numpy()
            return cls(
                average_ranks(matrix),
                tuple(scores.systems),
                pd.Index(list(scores.tasks), name="task"),
            )
        matrix, keys, inst_labels = instance_score_matrix(scores)
        group, inst = np.divmod(keys, max(len(inst_labels), 1))
        rankers = pd.MultiIndex.from_arrays(
            [
                pd.Categorical.from_codes(group, categories=list(scores.tasks)),
                inst_labels[inst],
            ],
            names=["task", "instance"],
        )
        return cls(
            average_ranks(matrix),
            tuple(scores.systems),
            rankers,
            groups=group,
            group_names=tuple(scores.tasks),
        )

    @classmethod
    def from_orderings(
        cls,
        orderings: Sequence[Sequence[Hashable | Sequence[Hashable]]],
        systems: Sequence[str] | None = None,
        names: Sequence[Hashable] | None = None,
    ) -> Rankings:
        """Rankings from orderings listed best first; each may rank only a subset of systems.

        Parameters
        ----------
        orderings : list of lists
            ``[["a", "c"], ["b", ("a", "c")]]``: each inner list is best first; a tuple/set/list
            inside it is a group of tied systems.
        systems : sequence of str, optional
            All systems (default: in order of first appearance). Systems that no ordering names
            are kept as never evaluated.
        names : sequence, optional
            Labels of the rankings (default ``0 .. L-1``).

        Examples
        --------
        >>> import rankstats as rs
        >>> rs.Rankings.from_orderings([["a", "c"], ["b", ("a", "c")]]).ranks.tolist()
        [[1.0, 2.0, nan], [2.5, 2.5, 1.0]]
        """
        orderings = list(orderings)
        if not orderings:
            raise InvalidRankingsError("no orderings given: an empty list of rankings")
        groups_per_row: list[list[list[str]]] = []
        seen: dict[str, None] = {}
        for r, ordering in enumerate(orderings):
            if isinstance(ordering, str):
                raise InvalidRankingsError(f"ordering {r} is a string; give a list of systems")
            row_groups = []
            for entry in ordering:
                group = (
                    [str(x) for x in entry]
                    if isinstance(entry, list | tuple | set | frozenset)
                    else [str(entry)]
                )
                row_groups.append(group)
                for s in group:
                    seen.setdefault(s, None)
            flat = [s for g in row_groups for s in g]
            if len(flat) != len(set(flat)):
                dup = sorted({s for s in flat if flat.count(s) > 1})
                raise InvalidRankingsError(f"ordering {r} names system(s) twice: {preview(dup)}")
            groups_per_row.append(row_groups)
        all_systems = tuple(str(s) for s in systems) if systems is not None else tuple(seen)
        first = {}
        for r, row_groups in enumerate(groups_per_row):
            for group in row_groups:
                for s in group:
                    first.setdefault(s, r)
        _refuse_variants(
            all_systems,
            lambda spellings: [
                f"ordering {first[s]}" if s in first else "the systems list" for s in spellings
            ],
        )
        index = {s: i for i, s in enumerate(all_systems)}
        unknown = [s for s in seen if s not in index]
        if unknown:
            raise InvalidRankingsError(
                f"orderings name systems not in `systems`: {preview(unknown)}"
            )
        ranks = np.full((len(groups_per_row), len(all_systems)), np.nan)
        for r, row_groups in enumerate(groups_per_row):
            position = 0
            for group in row_groups:
                mid = position + (len(group) + 1) / 2
                ranks[r, [index[s] for s in group]] = mid
                position += len(group)
        labels = pd.Index(list(names) if names is not None else range(len(groups_per_row)))
        return cls._checked(ranks, all_systems, labels)

    @classmethod
    def from_rank_matrix(cls, df: pd.DataFrame) -> Rankings:
        """Rankings from a DataFrame: rows = rankers, columns = systems, cell = rank (1 = best).

        Ranks need not be compact (``1, 3, 7`` is read as ``1, 2, 3``); equal ranks are ties;
        NaN = not ranked.

        Examples
        --------
        >>> import pandas as pd, rankstats as rs
        >>> df = pd.DataFrame({"a": [1, 2], "b": [3, None], "c": [2, 1]})
        >>> rs.Rankings.from_rank_matrix(df).ranks.tolist()
        [[1.0, 3.0, 2.0], [2.0, nan, 1.0]]
        """
        df = pd.DataFrame(df)
        values = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values) & df.notna().to_numpy()
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise InvalidRankingsError(
                f"non-numeric rank {df.iat[r, c]!r} at ranker {df.index[r]!r}, system "
                f"{df.columns[c]!r}"
            )
        columns = [str(c) for c in df.columns]
        _refuse_variants(
            columns, lambda spellings: [f"column {columns.index(c) + 1}" for c in spellings]
        )
        return cls._checked(values, tuple(columns), df.index)

    @classmethod
    def _checked(cls, ranks: np.ndarray, systems: tuple[str, ...], rankers: pd.Index) -> Rankings:
        finite = np.isfinite(ranks) | np.isnan(ranks)
        if not finite.all():
            r, c = np.argwhere(~finite)[0]
            raise InvalidRankingsError(
                f"infinite rank at ranker {rankers[r]!r}, system {systems[c]!r}"
            )
        few = np.flatnonzero(~informative(ranks))
        if len(few):
            warnings.warn(
                f"{len(few)} ranking(s) rank fewer than two systems and carry no information: "
                f"{preview(rankers[few].tolist())}",
                DataWarning,
                stacklevel=3,
            )
        # Ranks are "lower is better": negate so that average_ranks sees higher = better.
        return cls(average_ranks(-ranks), systems, pd.Index(rankers))

    # ------------------------------------------------------------------ views
    @property
    def n_rankings(self) -> int:
        return self.ranks.shape[0]

    @property
    def n_systems(self) -> int:
        return self.ranks.shape[1]

    @property
    def observed(self) -> np.ndarray:
        """Boolean ``(L, N)`` mask of evaluated entries."""
        return ~np.isnan(self.ranks)

    def to_frame(self) -> pd.DataFrame:
        """The rank matrix as a labelled DataFrame (rows = rankers, columns = systems)."""
        return pd.DataFrame(self.ranks, index=self.rankers, columns=list(self.systems))

    def orderings(self) -> list[list[str]]:
        """Each ranking as a best-first list of the observed systems (ties in input order)."""
        out = []
        for row in self.ranks:
            seen = np.flatnonzero(~np.isnan(row))
            out.append([self.systems[i] for i in seen[np.argsort(row[seen], kind="stable")]])
        return out

    def __len__(self) -> int:
        return self.n_rankings

    def __repr__(self) -> str:
        observed = self.observed
        frac = 1 - observed.mean() if observed.size else 0.0
        ties = int(tied_entries(self.ranks).sum())
        groups = f", {len(self.group_names)} tasks" if self.group_names is not None else ""
        return (
            f"Rankings({self.n_rankings} rankings of {self.n_systems} systems{groups}, "
            f"{frac:.1%} not evaluated, {ties} tied entries)"
        )


def _refuse_variants(
    systems: Sequence[str], first_seen: Callable[[Sequence[str]], Sequence[str | None]]
) -> None:
    """System names that differ only by surrounding whitespace, refused as rankings errors."""
    try:
        refuse_whitespace_variants("system", systems, first_seen)
    except InvalidScoresError as err:
        raise InvalidRankingsError(str(err)) from None


#: The words of every ``by=`` argument (None: :func:`default_level`).
LEVELS = ("task", "instance")


def check_level(by: object) -> str | None:
    """``by`` checked: None or one of :data:`LEVELS` (the one check of every ``by=``)."""
    return choice("by", by, (None, *LEVELS))  # type: ignore[return-value]


def default_level(scores: Scores, by: str | None = None) -> str:
    """The level at which a score table is ranked: ``by`` when given, else ``"instance"`` for
    an instance-level table and ``"task"`` otherwise (the rule of every ``by=`` argument)."""
    return check_level(by) or ("instance" if scores.has_instances else "task")


def as_rankings(data: Scores | Rankings, by: str | None = None) -> Rankings:
    """Rankings as they are, or a score table ranked at :func:`default_level` (the one
    Scores → Rankings adaptor of the estimators).

    Raises
    ------
    TypeError
        ``data`` is neither Scores nor Rankings.
    """
    check_level(by)
    if isinstance(data, Rankings):
        return data
    if isinstance(data, Scores):
        return Rankings.from_scores(data, by=default_level(data, by))
    raise TypeError(f"expected Scores or Rankings, not {type(data).__name__}")

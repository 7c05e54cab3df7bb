r"""Aggregation of scores or rankings into one ranking of the systems.

Methods (``aggregate(data, method=...)``):

``mean`` (σ^μ)
    Mean of the available task-level scores of each system (instance scores are first averaged
    per task).  The baseline of Colombo et al. (2022) and Himmi et al. (2023).
``median``
    Median of the available task-level scores.
``borda`` (σ^l)
    Borda count with imputation of missing systems:
    :math:`s_i = \sum_{\text{rankings}} \sum_j P[i, j]`, the expected number of systems that
    ``i`` beats, summed over all rankings (tasks, or (task, instance) at instance level).
``borda2`` (σ^2l)
    Two-level Borda: a Borda ranking per task (over its instances), then Borda over the task
    rankings.  A system with no score in a task is *not evaluated* in that task's ranking.
``copeland``
    Number of pairwise majority wins on the imputed pairwise probabilities (½ per exact tie).

Further methods (``kemeny``, ``bt``, ``pl``) are registered by the modules that implement them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankstats._util.renamed import renamed_parameters
from rankstats.aggregation.choices import LAZY_METHODS
from rankstats.core.pair_probabilities import Pairwise, pair_sums
from rankstats.core.pair_probabilities import (
    ranking_borda as ranking_borda,  # documented here (docs/api.md)
)
from rankstats.core.rankings import Rankings, average_ranks, check_level, informative
from rankstats.core.reduction import TableStatistics
from rankstats.core.scores import Scores
from rankstats.core.sufficient import StatisticsSource, SufficientStatistics

AggregateInput = Scores | Rankings | Pairwise

#: Methods computed from the sufficient statistics alone (:func:`estimate`), hence streamed:
#: ``rs.aggregate(rs.scan_scores(...), method)`` (also ``rankstats.scan.STREAMED_METHODS``).
STREAMED_METHODS = ("mean", "borda", "borda2", "bt")


@renamed_parameters(level="by")
@dataclass(frozen=True, eq=False, repr=False)
class Aggregate:
    """The result of :func:`aggregate`.

    Attributes
    ----------
    method : str
        Aggregation method.
    scores : pandas.Series
        Aggregate score of every system (higher = better; NaN = no information).
    by : str
        ``"task"``, ``"instance"`` or ``"rankings"`` (what was aggregated).
    details : dict
        Method-specific extras (e.g. the per-task Borda table of ``borda2``).
    """

    method: str
    scores: pd.Series
    by: str
    details: dict = field(default_factory=dict)

    @property
    def table(self) -> pd.DataFrame:
        """``system, rank, score``, best first (rank 1 = best; ties share the average rank)."""
        values = self.scores.to_numpy(dtype=np.float64)
        ranks = average_ranks(values[None, :])[0]
        table = pd.DataFrame({"system": self.scores.index, "rank": ranks, "score": values})
        # NaN scores (no information) go last; ties keep the input order.
        key = np.where(np.isnan(ranks), np.inf, ranks)
        return table.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)

    @property
    def order(self) -> list[str]:
        """Systems best first."""
        return self.table["system"].tolist()

    def __repr__(self) -> str:
        head = self.table.head(10)
        width = max((len(str(s)) for s in head["system"]), default=6)
        width = min(width, 40)
        lines = [f"Aggregate(method={self.method!r}, by={self.by!r}, {len(self.scores)} systems)"]
        for _, row in head.iterrows():
            name = str(row["system"])
            name = name if len(name) <= width else name[: width - 1] + "…"
            lines.append(f"  {row['rank']:>5g}  {name:<{width}}  {row['score']:.6g}")
        if len(self.scores) > 10:
            lines.append(f"  ... {len(self.scores) - 10} more")
        return "\n".join(lines)


def input_level(data: AggregateInput, by: str | None = None) -> str:
    """What an aggregate of ``data`` ranks (``Aggregate.by``): ``"pairwise"`` for Pairwise,
    ``"rankings"`` for Rankings, the :func:`~rankstats.core.rankings.default_level` of Scores."""
    return TableStatistics(data, by).by


# ---------------------------------------------------------------------------- the estimators
def mean_scores(instance_sum: np.ndarray, instance_count: np.ndarray) -> np.ndarray:
    """σ^μ: mean over tasks of each system's mean score in the task (NaN where never scored).

    Parameters
    ----------
    instance_sum, instance_count : ndarray, shape (..., T, N)
        Per (task, system): Σ and number of the scores (leading axes: benchmarks, as in the
        power simulations).

    Returns
    -------
    ndarray, shape (..., N)
    """
    evaluated = instance_count > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        task_mean = np.where(evaluated, instance_sum / instance_count, 0.0)
    # Tasks contiguous per system, so that NumPy sums them pairwise (as pandas' skipna mean).
    total = np.ascontiguousarray(np.swapaxes(task_mean, -1, -2)).sum(axis=-1)
    count = evaluated.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def borda2_ranks(task_borda: np.ndarray, task_seen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The second level of σ^2l: each task ranks the systems by their Borda sums in the task.

    Parameters
    ----------
    task_borda, task_seen : ndarray, shape (T, N)
        Per task: Σ of the per-ranking Borda counts; rankings in which the system was evaluated
        (a system evaluated in none of the task's rankings is not evaluated by the task).

    Returns
    -------
    ranks : ndarray, shape (T', N)
        Canonical ranks of the tasks that evaluate at least two systems, the sums snapped
        (:func:`snap_ties`) so that chunked sums keep their exact ties.
    kept : ndarray of bool, shape (T,)
        Which tasks those are.
    """
    task_scores = np.where(task_seen > 0, task_borda, np.nan)
    kept = informative(task_scores)
    return average_ranks(snap_ties(task_scores[kept])), kept


def estimate(stats: SufficientStatistics, method: str) -> Aggregate:
    """An aggregate from sufficient statistics: the one route to σ^μ, σ^l and σ^2l.

    Every path computes its estimates here: a table in memory
    (:class:`~rankstats.core.reduction.TableStatistics`), a streamed scan, a Dask cluster and a
    simulated score cube (:class:`~rankstats.core.reduction.BenchmarkStatistics`).

    Parameters
    ----------
    stats : SufficientStatistics
        See :mod:`rankstats.core.sufficient`.
    method : str
        ``mean`` (σ^μ, from the score sums), ``borda`` (σ^l, from ``pairwise``), ``borda2``
        (σ^2l, from the per-task Borda sums); any other method is one of the pairwise counts
        (``copeland``, ``bt``, ``kemeny``): ``aggregate(stats.pairwise, method)``.

    Returns
    -------
    Aggregate

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.aggregation.aggregators import estimate
    >>> from rankstats.core.reduction import TableStatistics
    >>> x = rs.load_dataset("xtreme_missing")
    >>> estimate(TableStatistics(x), "borda").order == rs.aggregate(x, "borda").order
    True
    """
    systems = list(stats.systems)
    if method == "mean":
        means = mean_scores(stats.instance_sum, stats.instance_count)
        return Aggregate("mean", pd.Series(means, index=systems, name="mean"), "task")
    if method == "borda":
        pw = stats.pairwise
        return Aggregate("borda", pw.borda(), stats.by, {"n_rankings": pw.n_rankings})
    if method == "borda2":
        task_borda = stats.task_borda
        ranks, kept = borda2_ranks(task_borda, stats.task_seen)
        tasks = list(stats.tasks) or list(range(len(task_borda)))
        first = pd.DataFrame(
            np.where(stats.task_seen > 0, task_borda, np.nan), index=tasks, columns=systems
        )
        kept_tasks = pd.Index([t for t, k in zip(tasks, kept, strict=True) if k], name="task")
        second = Rankings(ranks, tuple(systems), kept_tasks)
        score = pd.Series(pair_sums(ranks).wins.sum(axis=1), index=systems, name="borda2")
        return Aggregate("borda2", score, stats.by, {"task_borda": first, "task_rankings": second})
    return aggregate(stats.pairwise, method)


def aggregate_source(
    source: StatisticsSource, method: str, statistics: SufficientStatistics | None = None
) -> Aggregate:
    """:func:`estimate` for data that computes its own statistics (``rs.scan_scores``).

    The method is checked before the (possibly long) pass over the data; ``statistics`` reuses
    a pass already made.
    """
    if method not in STREAMED_METHODS:
        raise ValueError(
            f"streamed aggregation supports {', '.join(STREAMED_METHODS)} (the methods computed "
            f"from sufficient statistics); not {method!r}"
        )
    return estimate(statistics if statistics is not None else source.statistics(), method)


def _in_memory(method: str) -> Callable[[AggregateInput, str | None], Aggregate]:
    """The aggregator of a table in memory: its statistics, then :func:`estimate`."""

    def aggregator(data: AggregateInput, by: str | None) -> Aggregate:
        return estimate(TableStatistics(data, by), method)

    aggregator.__name__ = aggregator.__qualname__ = f"_{method}"
    return aggregator


def _median(data: AggregateInput, by: str | None) -> Aggregate:
    if not isinstance(data, Scores):
        raise TypeError("method 'median' needs Scores (the raw score table), not rankings")
    wide = data.to_wide()
    return Aggregate("median", wide.median(axis=1, skipna=True).rename("median"), "task")


def snap_ties(values: np.ndarray, bits: int = 40) -> np.ndarray:
    """Round each row to a power-of-two grid ``2**-bits`` relative to its largest ``|value|``.

    Sums of the same per-ranking Borda counts added in another order (in chunks, on a cluster)
    differ in the last bits; snapping before ranking keeps their exact ties tied, so σ^2l does not
    depend on how the rankings were chunked. Values closer than ``2**-bits`` (relative) tie.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values.copy()
    top = np.fmax.reduce(np.abs(values), axis=-1, keepdims=True)  # NaN only for all-NaN rows
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = np.exp2(np.ceil(np.log2(np.where(top > 0, top, 1.0))) - bits)
    return np.round(values / unit) * unit


def _copeland(data: AggregateInput, by: str | None) -> Aggregate:
    stats = TableStatistics(data, by)
    pw = stats.pairwise
    margin = pw.wins - pw.wins.T
    tol = 1e-9 * max(pw.n_rankings, 1)
    score = (margin > tol).sum(axis=1) + 0.5 * ((np.abs(margin) <= tol).sum(axis=1) - 1)
    series = pd.Series(score, index=list(pw.systems), name="copeland")
    return Aggregate("copeland", series, stats.by)


AGGREGATORS: dict[str, Callable[[AggregateInput, str | None], Aggregate]] = {
    "mean": _in_memory("mean"),
    "median": _median,
    "borda": _in_memory("borda"),
    "borda2": _in_memory("borda2"),
    "copeland": _copeland,
}


def register(name: str, function: Callable[[AggregateInput, str | None], Aggregate]) -> None:
    """Make ``aggregate(..., method=name)`` call ``function(data, level)``."""
    AGGREGATORS[name] = function


@renamed_parameters(level="by")
def aggregate(data: AggregateInput, method: str = "borda", by: str | None = None) -> Aggregate:
    """Aggregate scores or rankings into one ranking of the systems.

    Parameters
    ----------
    data : Scores, Rankings, Pairwise or a StatisticsSource
        ``mean`` and ``median`` need Scores; ``borda`` and ``copeland`` accept all three;
        ``borda2`` needs instance-level Scores or Rankings with task groups. A
        :class:`~rankstats.core.sufficient.StatisticsSource` (``rs.scan_scores``) computes its
        sufficient statistics in one pass; it supports :data:`STREAMED_METHODS`.
    method : str
        One of ``mean``, ``median``, ``borda``, ``borda2``, ``copeland`` (and the methods
        registered by other modules: ``from rankstats.aggregation.aggregators import AGGREGATORS``
        lists them).
    by : {"task", "instance"}, optional
        For Scores: which rankings Borda / Copeland use (default: ``"instance"`` when the table
        has instances, else ``"task"``).

    Returns
    -------
    Aggregate
        ``.order`` (best first), ``.table`` (system, rank, score), ``.scores``, ``.method``.

    Examples
    --------
    >>> import rankstats as rs
    >>> res = rs.aggregate(rs.load_dataset("xtreme_missing"), method="borda")
    >>> res.order[0]
    'Turing ULR v5 Alexander v-team Microsoft'
    """
    if isinstance(data, StatisticsSource):  # e.g. rs.scan_scores: one pass over the files
        return aggregate_source(data, method)
    if method not in AGGREGATORS and method in LAZY_METHODS:
        importlib.import_module(LAZY_METHODS[method])
    if method not in AGGREGATORS:
        raise ValueError(f"unknown method {method!r}; available: {', '.join(AGGREGATORS)}")
    check_level(by)
    return AGGREGATORS[method](data, by)


#: The representation each method is computed from when a caller holds all three (Scores, the
#: Rankings built from them once, and their Pairwise statistics): see :func:`aggregate_many`.
METHOD_INPUT = {
    "mean": "scores",
    "median": "scores",
    "borda": "pairwise",
    "copeland": "pairwise",
    "kemeny": "pairwise",
    "borda2": "rankings",
    "bt": "rankings",
    "pl": "rankings",
}


def aggregate_many(
    methods: Sequence[str], scores: Scores, rankings: Rankings, pw: Pairwise, by: str
) -> dict[str, Aggregate]:
    """``{method: Aggregate}`` from representations built once (the CLI and the report).

    Each method reads the representation it needs (:data:`METHOD_INPUT`): ``rankings`` and
    ``pw`` must be the rankings of ``scores`` at ``by`` and their statistics, so that nothing
    is rebuilt; a registered method without an entry gets the scores at ``by``.
    """
    given = {"scores": scores, "rankings": rankings, "pairwise": pw}
    out = {}
    for method in dict.fromkeys(methods):
        source = METHOD_INPUT.get(method)
        if source is None:
            out[method] = aggregate(scores, method=method, by=by)
        else:
            out[method] = aggregate(given[source], method=method)
    return out

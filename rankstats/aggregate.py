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
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from rankstats.pairwise import Pairwise, pairwise
from rankstats.rankings import Rankings, average_ranks
from rankstats.scores import Scores

AggregateInput = Scores | Rankings | Pairwise


@dataclass(frozen=True, eq=False, repr=False)
class Aggregate:
    """The result of :func:`aggregate`.

    Attributes
    ----------
    method : str
        Aggregation method.
    scores : pandas.Series
        Aggregate score of every system (higher = better; NaN = no information).
    level : str
        ``"task"``, ``"instance"`` or ``"rankings"`` (what was aggregated).
    details : dict
        Method-specific extras (e.g. the per-task Borda table of ``borda2``).
    """

    method: str
    scores: pd.Series
    level: str
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
        lines = [
            f"Aggregate(method={self.method!r}, level={self.level!r}, {len(self.scores)} systems)"
        ]
        for _, row in head.iterrows():
            name = str(row["system"])
            name = name if len(name) <= width else name[: width - 1] + "…"
            lines.append(f"  {row['rank']:>5g}  {name:<{width}}  {row['score']:.6g}")
        if len(self.scores) > 10:
            lines.append(f"  ... {len(self.scores) - 10} more")
        return "\n".join(lines)


def _require_scores(data: AggregateInput, method: str) -> Scores:
    if not isinstance(data, Scores):
        raise TypeError(f"method {method!r} needs Scores (the raw score table), not rankings")
    return data


def _as_rankings(data: AggregateInput, level: str | None) -> Rankings:
    if isinstance(data, Rankings):
        return data
    if isinstance(data, Scores):
        return Rankings.from_scores(
            data, by=level or ("instance" if data.has_instances else "task")
        )
    raise TypeError(f"expected Scores or Rankings, not {type(data).__name__}")


def _level(data: AggregateInput, level: str | None) -> str:
    if isinstance(data, Scores):
        return level or ("instance" if data.has_instances else "task")
    return "rankings"


def _mean(data: AggregateInput, level: str | None) -> Aggregate:
    wide = _require_scores(data, "mean").to_wide()
    return Aggregate("mean", wide.mean(axis=1, skipna=True).rename("mean"), "task")


def _median(data: AggregateInput, level: str | None) -> Aggregate:
    wide = _require_scores(data, "median").to_wide()
    return Aggregate("median", wide.median(axis=1, skipna=True).rename("median"), "task")


def _borda(data: AggregateInput, level: str | None) -> Aggregate:
    pw = data if isinstance(data, Pairwise) else pairwise(_as_rankings(data, level))
    lvl = "pairwise" if isinstance(data, Pairwise) else _level(data, level)
    return Aggregate("borda", pw.borda(), lvl, {"n_rankings": pw.n_rankings})


def ranking_borda(ranks: np.ndarray) -> np.ndarray:
    r"""Per-ranking Borda counts :math:`b_{li} = \sum_j P^{(l)}[i, j]` in closed form.

    For an observed system with mid-rank ``m`` among ``k`` observed of ``N``:
    ``b = (k − m) + (N − k)(1 − m / (k + 1))``; for an unobserved system ``b = (N − 1) / 2``
    (it is equally likely to land anywhere).  Each row sums to ``N (N − 1) / 2``.
    """
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    k = observed.sum(axis=1, keepdims=True).astype(np.float64)
    b = (k - ranks) + (n - k) * (1.0 - ranks / (k + 1.0))
    return np.where(observed, b, (n - 1) / 2.0)


def _borda2(data: AggregateInput, level: str | None) -> Aggregate:
    if isinstance(data, Scores) and not data.has_instances:
        rk = Rankings.from_scores(data, by="task")
    else:
        rk = _as_rankings(data, level or "instance")
    if rk.groups is None:
        # Every ranking is its own group: the first level changes nothing.
        first = pd.DataFrame(rk.ranks, index=rk.rankers, columns=list(rk.systems))
        second = rk
    else:
        n_groups = len(rk.group_names)
        b = ranking_borda(rk.ranks)
        sums = group_sum(rk.groups, b, n_groups)
        seen = group_sum(rk.groups, (~np.isnan(rk.ranks)).astype(np.float64), n_groups)
        task_scores = np.where(seen > 0, sums, np.nan)
        first = pd.DataFrame(task_scores, index=list(rk.group_names), columns=list(rk.systems))
        second = Rankings(
            average_ranks(snap_ties(task_scores)),
            rk.systems,
            pd.Index(list(rk.group_names), name="task"),
        )
    pw = pairwise(second)
    return Aggregate(
        "borda2",
        pw.borda().rename("borda2"),
        _level(data, level or "instance"),
        {"task_borda": first, "task_rankings": second},
    )


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


def group_sum(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Row sums of ``values`` per group code: one sparse (groups × rows) matrix product."""
    indicator = sparse.csr_matrix(
        (np.ones(len(groups)), (groups, np.arange(len(groups)))), shape=(n_groups, len(groups))
    )
    return np.asarray(indicator @ values)


def _copeland(data: AggregateInput, level: str | None) -> Aggregate:
    pw = data if isinstance(data, Pairwise) else pairwise(_as_rankings(data, level))
    margin = pw.wins - pw.wins.T
    tol = 1e-9 * max(pw.n_rankings, 1)
    score = (margin > tol).sum(axis=1) + 0.5 * ((np.abs(margin) <= tol).sum(axis=1) - 1)
    lvl = "pairwise" if isinstance(data, Pairwise) else _level(data, level)
    return Aggregate("copeland", pd.Series(score, index=list(pw.systems), name="copeland"), lvl)


AGGREGATORS: dict[str, Callable[[AggregateInput, str | None], Aggregate]] = {
    "mean": _mean,
    "median": _median,
    "borda": _borda,
    "borda2": _borda2,
    "copeland": _copeland,
}


# Methods registered by modules that are imported on first use (their dependencies are heavy).
LAZY_METHODS = {"pl": "rankstats.models", "bt": "rankstats.models"}


def register(name: str, function: Callable[[AggregateInput, str | None], Aggregate]) -> None:
    """Make ``aggregate(..., method=name)`` call ``function(data, level)``."""
    AGGREGATORS[name] = function


def aggregate(data: AggregateInput, method: str = "borda", level: str | None = None) -> Aggregate:
    """Aggregate scores or rankings into one ranking of the systems.

    Parameters
    ----------
    data : Scores, Rankings or Pairwise
        ``mean`` and ``median`` need Scores; ``borda`` and ``copeland`` accept all three;
        ``borda2`` needs instance-level Scores or Rankings with task groups.
    method : str
        One of ``mean``, ``median``, ``borda``, ``borda2``, ``copeland`` (and the methods
        registered by other modules: see ``rankstats.aggregate.AGGREGATORS``).
    level : {"task", "instance"}, optional
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
    if getattr(data, "_streamed", False):  # rs.scan_scores: one pass over the files
        return data.aggregate(method)
    if method not in AGGREGATORS and method in LAZY_METHODS:
        importlib.import_module(LAZY_METHODS[method])
    if method not in AGGREGATORS:
        raise ValueError(f"unknown method {method!r}; available: {', '.join(AGGREGATORS)}")
    if level not in (None, "task", "instance"):
        raise ValueError(f"level must be 'task' or 'instance', not {level!r}")
    return AGGREGATORS[method](data, level)

r"""Model-based recursive partitioning of rankings by covariates of the rankers or the tasks.

Which systems win on which kind of task?  :func:`rank_tree` grows a tree whose leaves are
groups of rankers (or tasks) with Plackett–Luce worths of their own (MOB: Zeileis, Hothorn &
Hornik 2008; for Bradley–Terry and Plackett–Luce trees: Strobl, Wickelmaier & Zeileis 2011,
Turner et al. 2020).  In each node:

1. fit Plackett–Luce by maximum likelihood (:mod:`rankstats.models._mle`, the same Newton
   driver and existence check as :class:`~rankstats.models.PlackettLuce`);
2. test the stability of the worths along every covariate from the rankings' score
   contributions (:mod:`rankstats.models.instability`: supLM for a numeric covariate,
   the χ² LM test for a categorical one), Bonferroni-adjusted over the covariates;
3. if the smallest adjusted p-value is below ``alpha``, split on that covariate where the two
   segments' maximised log-likelihoods add up to the most: for a numeric covariate every cut
   between distinct values; for a categorical one every binary partition of its levels (at most
   ``max_levels`` levels), else the levels ordered along the first principal axis of their
   standardised mean scores and cut like a numeric covariate (Coppersmith, Hong & Hosking 1999
   order categories this way for multi-class trees).  A cut is admissible when both segments
   have at least ``min_size`` units and a maximum likelihood estimate;
4. recurse into both segments until no test is significant, the node is smaller than
   ``2 · min_size``, ``max_depth`` is reached or no cut is admissible (the reason is kept in
   each leaf's ``note``).

**Units.**  A unit is what the covariates describe: a ranking (a ranker's covariates) or, when
a score table with instances is ranked per (task, instance) and the covariates describe the
tasks, a task.  The rankings of one task are not independent given the task, so their score
contributions are summed per task before testing, and a task is never split across segments.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceError, escape
from rankstats._util.arguments import probability, random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.core.bradley_terry_mle import (
    ConvergenceError,
    MLEDoesNotExistError,
    check_strongly_connected,
    newton,
)
from rankstats.core.rankings import Rankings, average_ranks
from rankstats.core.scores import Scores
from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError, preview
from rankstats.models import _mle
from rankstats.models._data import KINDS, PLData, as_rankings, pl_data
from rankstats.models.instability import identified, instability_tests
from rankstats.models.rank_tree_result import (
    TEST_COLUMNS,
    RankTree,
    RankTreeNode,
    Split,
    p_relation,
)

#: Categorical covariates with at most this many levels in a node are split exhaustively
#: (``2^(C−1) − 1`` binary partitions).
MAX_LEVELS = 8


@dataclass(frozen=True)
class _Units:
    """The units of the data: each PL row's unit, and each covariate's values per unit."""

    unit_of_row: np.ndarray  # (L,) unit of each ranking
    labels: pd.Index  # (n,) unit labels
    values: dict[str, tuple[np.ndarray, bool]]  # name -> (values or level codes, numeric)
    levels: dict[str, tuple[str, ...]]  # categorical: the level of each code
    unit: str


@dataclass(frozen=True)
class _NodeFit:
    systems: np.ndarray  # indices of the node's systems
    theta: np.ndarray
    se: np.ndarray
    loglik: float
    scores: np.ndarray  # (units of the node, systems of the node)


@renamed_parameters(n_draws="draws")
def rank_tree(
    data: Rankings | Scores,
    covariates: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    alpha: float = 0.05,
    min_size: int = 10,
    max_depth: int | None = None,
    trim: float = 0.1,
    kind: str = "subset",
    max_levels: int = MAX_LEVELS,
    draws: int = 10_000,
    seed: int = 0,
) -> RankTree:
    r"""Partition rankings by covariates into groups with their own Plackett–Luce worths.

    Parameters
    ----------
    data : Rankings or Scores
        Rankings (one per ranker) or a score table (ranked per task, or per (task, instance)
        when it has instances, as every model does).
    covariates : pandas.DataFrame
        One row per unit, indexed by the rankers' labels (``rk.rankers``: task names for
        rankings of a score table), or by task names when the rankings are per (task,
        instance): those are then clustered by task.  Numeric columns are numeric covariates;
        object, category, string and bool columns are categorical.  A missing value is an error.
    alpha : float
        Level of the Bonferroni-adjusted instability tests that decides a split.
    min_size : int
        Fewest units in a segment.
    max_depth : int, optional
        Deepest level of the tree (root = 0); default: unlimited.
    trim : float
        :math:`\pi` of the supLM test: change points in :math:`[\pi, 1 - \pi]` of the units.
    kind : {"subset", "top_k"}
        As :class:`~rankstats.models.PlackettLuce`.
    max_levels : int
        Categorical covariates with more levels in a node are ordered, not searched
        exhaustively (module docstring).
    draws, seed : int
        Simulated draws of the supLM null distribution (cached per dimension and trimming) and
        their seed.

    Returns
    -------
    RankTree
        ``.leaves()`` / ``.worths()`` (the leaves' log-worths), ``.tests()``,
        ``.predict(covariates)``, ``.plot()``.

    References
    ----------
    Zeileis, Hothorn & Hornik (2008) *J. Comput. Graph. Statist.* 17, 492–514.  Zeileis & Hornik
    (2007) *Statistica Neerlandica* 61, 488–508.  Strobl, Wickelmaier & Zeileis (2011)
    *J. Educ. Behav. Statist.* 36, 135–153.  Turner, van Etten, Firth & Kosmidis (2020)
    *Comput. Statist.* 35, 1027–1057.

    Examples
    --------
    >>> import pandas as pd, rankstats as rs
    >>> x = [["a", "b", "c"]] * 10 + [["b", "c", "a"]] * 2 + [["c", "a", "b"]] * 2
    >>> rk = rs.Rankings.from_orderings(x + [order[::-1] for order in x])
    >>> group = pd.DataFrame({"group": ["x"] * 14 + ["y"] * 14}, index=rk.rankers)
    >>> tree = rs.models.rank_tree(rk, group, min_size=5)
    >>> tree.predict(pd.DataFrame({"group": ["y", "x"]})).tolist()
    [3, 2]
    """
    random_seed("seed", seed)
    probability("alpha", alpha)
    if not 0 < trim < 0.5:
        raise ValueError(f"trim must be in (0, 0.5), got {trim}")
    if int(min_size) < 1:
        raise ValueError(f"min_size must be a positive integer, got {min_size}")
    if max_depth is not None and int(max_depth) < 0:
        raise ValueError(f"max_depth must be 0 or more, got {max_depth}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if int(draws) < 100 or int(max_levels) < 2:
        raise ValueError(
            f"draws must be 100 or more and max_levels 2 or more, got {draws}, {max_levels}"
        )
    rk = as_rankings(data)
    if systems is not None:
        rk = _restricted(rk, systems)
    prepared = pl_data(rk, kind=kind)
    units = _units(rk, prepared, covariates)
    _check_floor(units, alpha, int(draws))
    grower = _Grower(
        prepared, units, alpha, int(min_size), max_depth, trim, max_levels, draws, seed
    )
    grower.grow(np.arange(len(units.labels)), 0, None, "")
    kinds = {name: "numeric" if num else "categorical" for name, (_, num) in units.values.items()}
    return RankTree(
        tuple(grower.nodes),
        prepared.systems,
        units.unit,
        kinds,
        float(alpha),
        float(trim),
        int(min_size),
        max_depth,
    )


# ---------------------------------------------------------------------------- input
def _check_floor(units: _Units, alpha: float, draws: int) -> None:
    """Refuse an ``alpha`` that no numeric covariate could reach: the smallest simulated supLM
    p-value is ``1 / (draws + 1)``, Bonferroni-adjusted ``m / (draws + 1)``."""
    m = len(units.values)
    floor = m / (draws + 1)
    if any(numeric for _, numeric in units.values.values()) and floor >= alpha:
        raise AdviceError(
            "{given}"
            + escape(
                f" is not above {m} / (draws + 1) = {floor:.3g}, the smallest "
                "Bonferroni-adjusted p-value of the simulated supLM test: a numeric covariate "
                "could never split; raise "
            )
            + "{alpha}"
            + escape(" or ")
            + "{draws}",
            given=("alpha", alpha),
            alpha=None,
            draws=None,
        )


def _restricted(rk: Rankings, systems: Sequence[str]) -> Rankings:
    """The rankings of ``systems`` only (ranks recomputed among them; labels kept)."""
    names = [str(s) for s in systems]
    unknown = [s for s in names if s not in rk.systems]
    if unknown:
        raise InvalidRankingsError(
            f"system(s) {preview(map(repr, unknown))} not in the data; its systems: "
            f"{preview(map(repr, rk.systems))}"
        )
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError(f"systems must name at least two distinct systems, got {names}")
    columns = [rk.systems.index(s) for s in names]
    ranks = average_ranks(-rk.ranks[:, columns])  # mid-ranks among the kept systems
    return Rankings(ranks, tuple(names), rk.rankers, rk.groups, rk.group_names)


def _units(rk: Rankings, prepared: PLData, covariates: pd.DataFrame) -> _Units:
    """Match the rankings to the covariates' rows (errors name the row or column)."""
    if not isinstance(covariates, pd.DataFrame):
        raise TypeError(f"covariates must be a DataFrame, not {type(covariates).__name__}")
    if covariates.shape[1] == 0:
        raise InvalidScoresError("covariates have no column")
    keys = pd.Index([str(k) for k in covariates.index])
    twice = keys[keys.duplicated()].unique().tolist()
    if twice:
        raise InvalidScoresError(f"covariates have several rows for {preview(map(repr, twice))}")
    all_rankers = pd.Index([str(r) for r in rk.rankers])
    kept = [str(r) for r in prepared.rankers]
    unit = "task" if rk.rankers.name == "task" else "ranker"  # rankings of a score table
    if not set(all_rankers) <= set(keys) and rk.groups is not None:
        tasks = pd.Index([str(t) for t in rk.group_names])
        if set(tasks) & set(keys):  # task covariates of instance rankings: cluster by task
            unit, all_rankers = "task", tasks
            # pl_data keeps the labels of the rankings it keeps (as a flat index of tuples)
            position = rk.rankers.get_indexer(prepared.rankers)
            kept = [tasks[g] for g in np.asarray(rk.groups)[position]]
    key_set = set(keys)
    missing = [r for r in all_rankers if r not in key_set]
    if missing:
        by_task = " or, for rankings per (task, instance), by task" if rk.groups is not None else ""
        raise InvalidScoresError(
            f"covariates have no row for {unit}(s) {preview(map(repr, missing))}; index them by "
            f"the rankers' labels (rk.rankers){by_task}"
        )
    ranker_set = set(all_rankers)
    extra = [k for k in keys if k not in ranker_set]
    if extra:
        raise InvalidScoresError(
            f"covariates name {unit}(s) {preview(map(repr, extra))} that the data do not have"
        )
    labels = pd.Index(pd.unique(pd.Index(kept)))
    label_set = set(labels)
    unused = [k for k in all_rankers if k not in label_set]
    if unused:  # their rankings were dropped by pl_data (a DataWarning named them)
        warnings.warn(
            f"{len(unused)} {unit}(s) without a ranking that makes a choice are left out of the "
            f"tree: {preview(unused)}",
            DataWarning,
            stacklevel=user_stacklevel(),
        )
    frame = covariates.set_axis(keys).loc[labels]
    values, levels = {}, {}
    for column in covariates.columns:
        name = str(column)
        series = frame[column]
        if series.isna().any():
            row = series.index[np.flatnonzero(series.isna().to_numpy())[0]]
            raise InvalidScoresError(f"covariate {name!r} is missing for {unit} {row!r}")
        if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            if not (
                pd.api.types.is_bool_dtype(series)
                or pd.api.types.is_object_dtype(series)
                or pd.api.types.is_string_dtype(series)
                or isinstance(series.dtype, pd.CategoricalDtype)
            ):
                raise InvalidScoresError(
                    f"covariate {name!r} has dtype {series.dtype}; give numbers or categories"
                )
            text = series.astype(str)
            _refuse_mixed(series, text, name, unit)
            names = tuple(sorted(text.unique()))
            values[name] = (np.searchsorted(np.array(names), text.to_numpy()), False)
            levels[name] = names
        else:
            numbers = series.to_numpy(np.float64)
            if not np.isfinite(numbers).all():
                row = series.index[np.flatnonzero(~np.isfinite(numbers))[0]]
                raise InvalidScoresError(f"covariate {name!r} is infinite for {unit} {row!r}")
            values[name] = (numbers, True)
    unit_of_row = labels.get_indexer(pd.Index(kept))
    return _Units(unit_of_row, labels, values, levels, unit)


def _refuse_mixed(series: pd.Series, text: pd.Series, name: str, unit: str) -> None:
    """A text column in which some values are numbers and others are not: most often a numeric
    covariate with a typo or a missing-value word (``pandas.read_csv`` then reads the whole
    column as text), which as categories would have as many levels as values and another test.
    Refused, naming the cells; a pandas ``category`` column says the categories are meant."""
    if isinstance(series.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(series):
        return
    numbers = pd.to_numeric(text.str.strip(), errors="coerce").to_numpy(np.float64)
    finite = np.isfinite(numbers)
    if not finite.any() or finite.all():
        return
    bad = np.flatnonzero(~finite)
    shown = ", ".join(f"{unit} {series.index[k]!r}: {text.iloc[k]!r}" for k in bad[:3])
    more = f", and {len(bad) - 3} more" if len(bad) > 3 else ""
    raise InvalidScoresError(
        f"covariate {name!r} holds numbers, but {len(bad)} value(s) are not finite numbers "
        f"({shown}{more}): correct them, or if it is categorical make it a pandas category "
        f"(covariates.astype({{{name!r}: 'category'}}))"
    )


# ---------------------------------------------------------------------------- fitting
def _subset(data: PLData, rows: np.ndarray) -> tuple[PLData, np.ndarray]:
    """The rankings ``rows`` of ``data`` over the systems they rank (re-indexed), and those
    systems' indices in ``data``."""
    n = data.n_systems
    index = data.index[rows]
    present = np.unique(index[index < n])
    mapping = np.full(n + 1, len(present), dtype=np.int64)
    mapping[present] = np.arange(len(present))
    sub = PLData(
        tuple(data.systems[i] for i in present),
        mapping[index],
        data.group_start[rows],
        data.group_end[rows],
        data.fraction[rows],
        data.term[rows],
        data.rankers[rows],
        data.kind,
    )
    return sub, present


def _mle_of(data: PLData, rows: np.ndarray) -> tuple[PLData, np.ndarray, Any] | str:
    """The MLE on ``rows`` (their data, their systems, the :class:`Optimum`), or why none."""
    sub, present = _subset(data, rows)
    if len(present) < 2:
        return "fewer than two systems ranked"
    try:
        check_strongly_connected(sub.systems, _mle.pl_beats(sub))
        return sub, present, newton(_mle.pl_objective(sub, None), len(present))
    except MLEDoesNotExistError:
        return "the MLE does not exist (comparison graph not strongly connected)"
    except ConvergenceError as err:
        return f"the MLE did not converge ({err})"


def _fit(data: PLData, rows: np.ndarray, unit_local: np.ndarray, n_units: int) -> _NodeFit | str:
    """The MLE on ``rows`` and the score contributions summed per unit, or why it fails."""
    found = _mle_of(data, rows)
    if isinstance(found, str):
        return found
    sub, present, optimum = found
    per_ranking = _mle.pl_ranking_scores(sub, optimum.params)
    scores = np.zeros((n_units, len(present)))
    np.add.at(scores, unit_local, per_ranking)  # a unit's rankings add up (clusters)
    se = np.sqrt(np.clip(np.diag(optimum.covariance), 0.0, None))
    return _NodeFit(present, optimum.params, se, optimum.objective, scores)


def _loglik(data: PLData, rows: np.ndarray) -> float | None:
    """The maximised log-likelihood of ``rows`` (None when the MLE does not exist)."""
    found = _mle_of(data, rows)
    return None if isinstance(found, str) else found[2].objective


class _Grower:
    """Grows the tree depth first, numbering nodes as it creates them (root = 1)."""

    def __init__(self, data, units, alpha, min_size, max_depth, trim, max_levels, draws, seed):
        self.data, self.units, self.alpha, self.min_size = data, units, alpha, min_size
        self.max_depth, self.trim, self.max_levels = max_depth, trim, max_levels
        self.draws, self.seed = draws, seed
        self.nodes: list[RankTreeNode] = []

    def rows(self, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The PL rows of the units ``members`` and each row's position in ``members``."""
        position = np.full(len(self.units.labels), -1)
        position[members] = np.arange(len(members))
        local = position[self.units.unit_of_row]
        rows = np.flatnonzero(local >= 0)
        return rows, local[rows]

    def grow(self, members: np.ndarray, depth: int, parent: int | None, rule: str) -> int:
        node_id = len(self.nodes) + 1
        self.nodes.append(None)  # its place in depth-first order
        rows, local = self.rows(members)
        n_sys = self.data.n_systems
        worth, se = np.full(n_sys, np.nan), np.full(n_sys, np.nan)
        tests = _empty_tests()
        split, children, loglik = None, (), float("nan")
        fit = _fit(self.data, rows, local, len(members))
        if isinstance(fit, str):
            note = fit
        else:
            worth[fit.systems], se[fit.systems], loglik = fit.theta, fit.se, fit.loglik
            split, note, tests = self.choose(members, fit, depth)
        if split is not None:
            goes_left = self.left(split, members)
            left_id = self.grow(members[goes_left], depth + 1, node_id, split.rule(True))
            right_id = self.grow(members[~goes_left], depth + 1, node_id, split.rule(False))
            children = (left_id, right_id)
        self.nodes[node_id - 1] = RankTreeNode(
            node_id,
            depth,
            parent,
            rule,
            len(members),
            len(rows),
            pd.Series(worth, index=list(self.data.systems), name="log_worth"),
            pd.Series(se, index=list(self.data.systems), name="se"),
            loglik,
            tests,
            split,
            children,
            note,
        )
        return node_id

    def choose(self, members: np.ndarray, fit: _NodeFit, depth: int):
        """``(split or None, note, tests)`` of a fitted node."""
        covariates = {
            name: (values[members], numeric)
            for name, (values, numeric) in self.units.values.items()
        }
        scores = identified(fit.scores)
        found = instability_tests(scores, covariates, self.trim, self.draws, self.seed)
        if found is None:
            note = (
                f"tests undefined: the outer product of the scores is singular ({len(members)} "
                f"units for {scores.shape[1]} parameters)"
            )
            return None, note, _empty_tests()
        m = len(found)
        tests = pd.DataFrame(
            {
                "covariate": [t.covariate for t in found],
                "test": [t.test for t in found],
                "statistic": [t.statistic for t in found],
                "df": [t.df for t in found],
                "p_value": [t.p_value for t in found],
                "p_adjusted": [min(1.0, m * t.p_value) for t in found],
                "p_at_floor": [t.at_floor for t in found],
            }
        )
        # The smallest p-value; ties (simulated p-values bottom out at 1 / (draws + 1)) go to
        # the larger statistic of its null distribution's scale (df).
        best = min(found, key=lambda t: (t.p_value, -np.nan_to_num(t.statistic) / max(t.df, 1)))
        p_best = min(1.0, m * best.p_value)
        if p_best >= self.alpha:
            shown = p_relation(p_best, best.at_floor and p_best < 1)
            return None, f"no significant instability (smallest adjusted p {shown})", tests
        if self.max_depth is not None and depth >= self.max_depth:
            return None, f"maximum depth {self.max_depth} reached", tests
        if len(members) < 2 * self.min_size:
            return None, f"fewer than 2 × min_size = {2 * self.min_size} units", tests
        split = self.best_split(best.covariate, members, scores)
        if split is None:
            note = f"no admissible split on {best.covariate} (min_size and an MLE on both sides)"
            return None, note, tests
        return split, "", tests

    def left(self, split: Split, members: np.ndarray) -> np.ndarray:
        values, numeric = self.units.values[split.covariate]
        if numeric:
            return values[members] <= split.threshold
        names = np.array(self.units.levels[split.covariate])
        return np.isin(names[values[members]], split.left_levels)

    def best_split(self, name: str, members: np.ndarray, scores: np.ndarray) -> Split | None:
        values, numeric = self.units.values[name]
        x = values[members]
        if numeric:
            cuts = [(x <= v, float(v)) for v in np.unique(x)[:-1]]
        else:
            present = np.unique(x)
            if len(present) <= self.max_levels:
                rest = present[1:]
                cuts = [
                    (np.isin(x, (present[0], *chosen)), None)
                    for size in range(0, len(rest))
                    for chosen in itertools.combinations(rest, size)
                ]
            else:
                ordered = _ordered_levels(scores, x, present)
                cuts = [(np.isin(x, ordered[: i + 1]), None) for i in range(len(ordered) - 1)]
        best, best_value = None, -np.inf
        for goes_left, threshold in cuts:
            if min(goes_left.sum(), (~goes_left).sum()) < self.min_size:
                continue
            value = 0.0
            for side in (goes_left, ~goes_left):
                part = _loglik(self.data, self.rows(members[side])[0])
                if part is None:
                    value = -np.inf
                    break
                value += part
            if value > best_value:
                best, best_value = (goes_left, threshold), value
        if best is None:
            return None
        if numeric:
            return Split(name, True, threshold=best[1])
        names = np.array(self.units.levels[name])
        left = tuple(sorted(set(names[x[best[0]]])))
        right = tuple(sorted(set(names[x[~best[0]]])))
        return Split(name, False, left_levels=left, right_levels=right)


def _ordered_levels(scores: np.ndarray, codes: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Levels ordered along the first principal axis of their mean scores, whitened by the
    outer product of the scores (so the order does not depend on the identification)."""
    n = scores.shape[0]
    opg = scores.T @ scores / n
    vals, vecs = np.linalg.eigh(opg)
    whiten = vecs / np.sqrt(np.clip(vals, 1e-12, None))
    position = np.searchsorted(present, codes)
    sums = np.zeros((len(present), scores.shape[1]))
    np.add.at(sums, position, scores)
    counts = np.bincount(position, minlength=len(present))
    means = (sums / counts[:, None]) @ whiten
    weighted = means * np.sqrt(counts)[:, None]
    axis = np.linalg.svd(weighted, full_matrices=False)[2][0]
    return present[np.argsort(means @ axis, kind="stable")]


def _empty_tests() -> pd.DataFrame:
    return pd.DataFrame(columns=[*TEST_COLUMNS[2:-1]])

"""Everything a report shows, computed once, before any file is written.

:func:`compute` builds the rankings and their pairwise statistics **once**, runs every aggregator
on the representation it needs (Borda, Copeland and Kemeny on the pairwise statistics, two-level
Borda and the rank models on the rankings, mean and median on the scores), puts one Hoeffding
interval on every pair (:func:`rankstats.hoeffding_test`), fits the rank models, judges their
convergence, compares them with the intervals and with each other (PSIS-LOO, posterior predictive
checks) and runs the paired analyses. The renderers
(:mod:`~rankstats.reporting.methods`, :mod:`~rankstats.reporting.latex`,
:mod:`~rankstats.reporting.html`) only read the frozen :class:`ReportData` it returns.

:func:`check` refuses, before anything is computed, every request that would fail later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.method_names import MODEL_NAMES, fit_key
from rankstats._util.renamed import renamed_parameters, warn_renamed
from rankstats.aggregation.aggregators import Aggregate, aggregate_many
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult, hoeffding_test
from rankstats.core.pair_probabilities import Pairwise, pairwise
from rankstats.core.rankings import Rankings, default_level, tied_entries
from rankstats.core.scores import Scores
from rankstats.reporting import rankings_input
from rankstats.reporting._format import names
from rankstats.reporting.diagnostics import Convergence, convergence
from rankstats.reporting.model_comparison import run_model_comparison
from rankstats.reporting.paired import paired_slugs, run_paired

#: What each aggregator is given: all of them are computed from the report's one set of
#: rankings and its one Pairwise (methods not listed get the scores, as ``rs.aggregate`` would).


@renamed_parameters(level="by")
@dataclass(frozen=True, eq=False, repr=False)
class ReportData:
    """What a report shows: the statistics, each computed once by :func:`compute`.

    Attributes
    ----------
    scores : Scores or None
        The benchmark; None when the report was given Rankings (no scores: see
        :mod:`rankstats.reporting.rankings_input`).
    name : str
        Title of the report (the data set name by default).
    by : {"task", "instance", "ranking"}
        What one ranking is (``"ranking"``: rankings given as such, without tasks).
    methods : tuple of str
        Aggregators; the first orders every table.
    rankings : Rankings
        The rankings at ``by`` (shared by the aggregators, the models and the intervals).
    pairwise : Pairwise
        Their pairwise statistics.
    aggregates : mapping
        ``{method: Aggregate}``.
    intervals : HoeffdingResult
        The Hoeffding intervals of every pair, in the primary order.
    ranking : pandas.DataFrame
        One row per system in the primary order: ``rank_<method>``, ``score_<method>``,
        ``rank_low``, ``rank_high``, ``above_next``, ``below_next`` and ``rank_<model>``.
    transformations : tuple of str
        What the data went through, one sentence each.
    fits : tuple
        Fitted rank models.
    convergence : tuple of Convergence
        The verdict of each fit.
    comparison : Comparison or None
        The models against the intervals.
    model_comparison : ModelComparisonSection or None
        With two or more fits: PSIS-LOO of the comparable ones, the others with the reason,
        and the posterior predictive check of every sampled fit
        (:func:`rankstats.reporting.model_comparison.run_model_comparison`).
    paired : dict
        ``{task: Paired}``.
    """

    scores: Scores | None
    name: str
    by: str
    methods: tuple[str, ...]
    rankings: Rankings
    pairwise: Pairwise
    aggregates: Mapping[str, Aggregate]
    intervals: HoeffdingResult
    ranking: pd.DataFrame
    transformations: tuple[str, ...]
    fits: tuple[Any, ...] = ()
    convergence: tuple[Convergence, ...] = ()
    comparison: Any = None
    paired: dict = field(default_factory=dict)
    model_comparison: Any = None

    @property
    def from_rankings(self) -> bool:
        """The report was given Rankings, not Scores."""
        return self.scores is None

    @property
    def primary(self) -> str:
        """The method that orders the tables."""
        return self.methods[0]

    @property
    def order(self) -> list[str]:
        """The systems in the primary order, best first."""
        return list(self.intervals.order)

    @property
    def unconverged(self) -> set[str]:
        """Models whose fit did not converge."""
        return {v.model for v in self.convergence if not v.converged}

    @property
    def model_columns(self) -> list[str]:
        """``rank_<model>`` columns of :attr:`ranking`, in the order of :attr:`fits` (a model
        named like an aggregator shares its column)."""
        columns = (f"rank_{fit_key(fit)}" for fit in self.fits if fit.model not in self.methods)
        return list(dict.fromkeys(columns))

    def __repr__(self) -> str:
        return (
            f"ReportData({self.name!r}, {len(self.order)} systems, {self.by} level, "
            f"methods {', '.join(self.methods)}, {len(self.fits)} fits)"
        )


def check(
    scores: Scores | Rankings,
    methods: Sequence[str],
    models: Sequence[Any],
    paired: Sequence[str],
) -> None:
    """Refuse, before anything is computed, what :func:`compute` would fail on.

    Raises
    ------
    ValueError
        No method, an unknown model name, ``paired`` without instance-level scores or naming an
        unknown task.
    OutputError
        Two ``paired`` tasks map to the same file name.
    """
    if not methods:
        raise ValueError("give at least one aggregation method")
    for model in models:
        if isinstance(model, str) and model.lower() not in MODEL_NAMES:
            raise ValueError(f"unknown model {model!r}; use 'pl', 'bt', 'mallows' or a fit")
    if isinstance(scores, Rankings):
        rankings_input.refuse(scores, methods, paired, None, None)
    elif paired:
        if not scores.has_instances:
            raise ValueError("paired= needs instance-level scores (an instance column)")
        unknown = [t for t in paired if t not in scores.tasks]
        if unknown:
            raise ValueError(f"paired= names unknown task(s) {unknown}; tasks: {scores.tasks}")
        paired_slugs(list(paired))


@dataclass(frozen=True)
class ReportRequest:
    """What :func:`rankstats.report` was asked for, as :func:`compute` reads it: the parameters
    of :func:`rankstats.report` that concern the statistics (not ``out``, the sections it adds
    or the layout), in its order."""

    methods: Sequence[str]
    delta: float = 0.05
    correction: str = "holm"
    estimand: str = "imputed"
    by: str | None = None
    title: str | None = None
    models: Sequence[Any] = ()
    model_method: str = "map"
    seed: int = 0
    paired: Sequence[str] = ()
    confidence_level: float = 0.95
    zero_method: str | None = None


def compute(
    scores: Scores | Rankings, request: ReportRequest, *old: Any, **old_keywords: Any
) -> ReportData:
    """Compute everything :func:`rankstats.report` shows, once (the parameters of
    :func:`rankstats.report` but ``out``, in its order).

    The rankings at ``by`` and their :class:`~rankstats.Pairwise` statistics are built once
    and shared: σ^l, Copeland and Kemeny read the pairwise statistics, σ^2l, Plackett–Luce and
    Bradley–Terry the rankings, mean and median the scores; the Hoeffding intervals (Hoeffding,
    1963; Himmi et al., 2023) are computed once and reused by the marks, the rank ranges, the
    heatmap and the comparison with the rank models.

    Given :class:`~rankstats.Rankings` instead of Scores, the rankings are used as they are
    (:mod:`rankstats.reporting.rankings_input`): what needs scores is refused by :func:`check`.
    The parameters given one by one (``compute(scores, methods, delta, ...)``, the signature
    until 0.1) are still read, with a FutureWarning, for one release.

    Returns
    -------
    ReportData
    """
    if not isinstance(request, ReportRequest):
        warn_renamed(
            "compute(scores, methods, delta, ...)", "compute(scores, ReportRequest(...))", "compute"
        )
        request = ReportRequest(request, *old, **old_keywords)
    r = request
    methods, by, models, paired, seed = r.methods, r.by, r.models, r.paired, r.seed
    check(scores, methods, models, paired)
    if isinstance(scores, Rankings):
        given_scores, rankings, by = None, scores, rankings_input.level(scores)
        transformations = rankings_input.transformations(rankings)
    else:
        given_scores, by = scores, default_level(scores, by)
        rankings = Rankings.from_scores(scores, by=by)
        transformations = _transformations(scores, by)
    pw = pairwise(rankings)
    if given_scores is None:
        # No method that reads scores was let through (check): a registered method without a
        # representation of its own gets the rankings, as rs.aggregate would.
        aggregates = aggregate_many(methods, rankings, rankings, pw, None)
    else:
        aggregates = aggregate_many(methods, scores, rankings, pw, by)
    order = aggregates[methods[0]].order
    intervals = hoeffding_test(
        pw, delta=r.delta, correction=r.correction, estimand=r.estimand, order=order
    )
    ranking = _ranking_table(methods, aggregates, intervals)
    fits = _fit_models(models, rankings, r.model_method, seed)
    comparison = None
    if fits:
        from rankstats.aggregation.comparison import compare

        for fit in fits:
            rank = {s: i + 1.0 for i, s in enumerate(fit.order)}
            ranking[f"rank_{fit_key(fit)}"] = ranking["system"].map(rank).to_numpy()
        comparison = compare(intervals, fits)
    model_comparison = run_model_comparison(fits, rankings, seed=seed)
    return ReportData(
        scores=given_scores,
        name=r.title or _default_name(given_scores),
        by=by,
        methods=tuple(methods),
        rankings=rankings,
        pairwise=pw,
        aggregates=aggregates,
        intervals=intervals,
        ranking=ranking,
        transformations=tuple(transformations),
        fits=tuple(fits),
        convergence=tuple(convergence(fit) for fit in fits),
        comparison=comparison,
        paired=run_paired(given_scores, list(paired), r.confidence_level, seed, r.zero_method)
        if paired
        else {},
        model_comparison=model_comparison,
    )


def _default_name(scores: Scores | None) -> str:
    """The title of a report without ``title=``: the data set name, else a word for it."""
    if scores is None:
        return "rankings"
    return scores.name or "benchmark"


def _ranking_table(
    methods: Sequence[str], aggregates: Mapping[str, Aggregate], intervals: HoeffdingResult
) -> pd.DataFrame:
    """Ranks and scores of every method and the marks of the test, in the primary order."""
    order = list(intervals.order)
    table = pd.DataFrame({"system": order})
    for method in methods:
        indexed = aggregates[method].table.set_index("system")
        table[f"rank_{method}"] = indexed.loc[order, "rank"].to_numpy()
        table[f"score_{method}"] = indexed.loc[order, "score"].to_numpy()
    marks = intervals.marks()
    for column in ("rank_low", "rank_high", "above_next", "below_next"):
        table[column] = marks[column].to_numpy()
    return table


def _fit_models(models: Sequence[Any], rankings: Rankings, method: str, seed: int) -> list[Any]:
    """Fit the models given by name on ``rankings``; fitted models pass through."""
    from rankstats import models as zoo

    fits = []
    for model in models:
        if not isinstance(model, str):
            fits.append(model)
            continue
        key = model.lower()
        if key == "pl":
            fits.append(zoo.PlackettLuce().fit(rankings, method=method, seed=seed))
        elif key == "bt":
            fits.append(zoo.BradleyTerry().fit(rankings, method=method, seed=seed))
        elif key == "mallows":
            complete = complete_untied(rankings.ranks)
            # The Mallows MAP is exact only for complete untied rankings; otherwise sample.
            mallows_method = "map" if method == "map" and complete else "mcmc"
            fits.append(
                zoo.Mallows().fit(rankings, method=mallows_method, seed=seed, progress=True)
            )
        else:
            raise ValueError(f"unknown model {model!r}; use 'pl', 'bt', 'mallows' or a fit")
    return fits


def complete_untied(ranks: np.ndarray) -> bool:
    """Every ranking ranks every system, without ties (see
    :func:`rankstats.core.rankings.tied_entries`)."""
    return not np.isnan(ranks).any() and not tied_entries(ranks).any()


def _transformations(scores: Scores, by: str) -> list[str]:
    """Every transformation the data went through, one sentence each, from ``scores`` alone.

    Directions (negated tasks), averaging of instances, missing cells (task level: the
    ``systems × tasks`` cells without a score; instance level: per (task, instance) ranking),
    set-aside tasks and instance rankings, and systems evaluated nowhere.
    """
    out: list[str] = []
    n_systems = len(scores.systems)
    lower = [t for t in scores.tasks if not scores.higher_is_better.get(t, True)]
    if lower:
        out.append(
            f"{len(lower)} lower-is-better task(s) were negated so that higher is better: "
            f"{names(lower)}."
        )
    else:
        out.append("Every task is higher-is-better; no score was negated.")
    data = scores.data
    if by == "task":
        cells = n_systems * len(scores.tasks)
        if scores.has_instances:
            per_cell = data.groupby(["system", "task"], observed=True).size()
            present = len(per_cell)
            per_task = data.groupby("task", observed=True)["instance"].nunique()
            tasks_of_cells = per_cell.index.get_level_values("task")
            partial = int((per_cell.to_numpy() < per_task.reindex(tasks_of_cells).to_numpy()).sum())
            out.append(
                "Instance scores were averaged per (system, task) over the instances the system "
                f"was evaluated on; {partial} of these means use fewer instances than their task "
                "has."
            )
        else:
            present = len(data)
        missing = cells - present
        if missing:
            out.append(
                f"{missing} of the {cells} (system, task) cells ({missing / cells:.1%}) have no "
                "score (never filled with a number: imputed in the rankings, see Methods)."
            )
        else:
            out.append(f"No score is missing: all {cells} (system, task) cells are present.")
    else:
        per_ranking = data.groupby(["task", "instance"], observed=True).size()
        n_rankings = len(per_ranking)
        absent = n_systems - per_ranking.to_numpy()
        missing = int(absent.sum())
        incomplete = int((absent > 0).sum())
        if missing:
            out.append(
                f"{incomplete} of the {n_rankings} (task, instance) rankings lack at least one of "
                f"the {n_systems} systems ({missing} missing (system, ranking) cells in all, up "
                f"to {int(absent.max())} systems missing in one ranking; never filled with a "
                "number: imputed in the rankings, see Methods)."
            )
        else:
            out.append(
                f"No score is missing: every one of the {n_rankings} (task, instance) rankings "
                f"ranks all {n_systems} systems."
            )
    if scores.skipped_tasks:
        out.append(
            f"{len(scores.skipped_tasks)} task(s) with fewer than two evaluated systems were set "
            f"aside: {names(scores.skipped_tasks)}."
        )
    n_skipped = len(scores.skipped_instances)
    if n_skipped:
        out.append(
            f"{n_skipped} (task, instance) ranking(s) with fewer than two evaluated systems were "
            "set aside."
        )
    never = scores.unevaluated_systems
    if never:
        out.append(
            f"{len(never)} system(s) evaluated nowhere were kept and ranked on imputation alone "
            f"(every pairwise probability ½): {names(never)}."
        )
    return out

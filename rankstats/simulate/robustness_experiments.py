r"""Robustness experiments: how well does each aggregator recover the truth under corruption?

``robustness(aggregators, grid, n_replications, seed)`` runs the Gumbel simulator
(:func:`rankstats.simulate.gumbel`) over a grid of parameters (e.g. φ × number of adversarial
tasks, or φ × missing rate), aggregates every replicate with every aggregator, and measures the
distance of each ranking to the truth with :func:`rankstats.core.metrics.ranking_metrics`:

- normalised Kendall distance :math:`d_K / \binom{N}{2}` (ties count ½), and Kendall's
  :math:`\tau_b`;
- top-1 agreement (same best system) and top-k overlap :math:`|T_k \cap \hat T_k| / k`.

``mean``, ``borda`` and ``borda2`` run on the simulated score cube directly (:func:`cube_scores`,
the array functions of :mod:`rankstats.aggregation.aggregators`); other aggregators get a
:class:`~rankstats.Scores`.  Cells run in this process or in parallel
(:mod:`rankstats._util.parallel`).

``perturbation(scores, ...)`` does the same on real data: it perturbs a benchmark (removes a share
of the scores, keeps only some tasks, drops systems) and compares each aggregator's ranking on the
perturbed data with its ranking on the full data (Himmi et al. 2023, Fig. 2 and Tables 1–2;
Colombo et al. 2022, Fig. 3).

Every grid cell and replicate gets its own seed from ``numpy.random.SeedSequence(seed).spawn``,
so results do not depend on ``n_jobs`` or on the order in which cells run.
"""

from __future__ import annotations

import itertools
import numbers
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rankstats._util.renamed import renamed_parameters, translate
from rankstats._util.user_frame import user_stacklevel

if TYPE_CHECKING:  # matplotlib loads on first plot only
    from matplotlib.figure import Figure

from rankstats._util.arguments import random_seed
from rankstats._util.parallel import check_parallel, run_cells
from rankstats._util.progress import meter
from rankstats.aggregation.aggregators import aggregate
from rankstats.core.metrics import agreement as agreement  # rs.agreement, rs.simulate.agreement
from rankstats.core.metrics import ranking_metrics
from rankstats.core.rankings import average_ranks
from rankstats.core.scores import Scores
from rankstats.simulate.argument_checks import check_count, check_generator
from rankstats.simulate.corruptions import Corruptions
from rankstats.simulate.cube_aggregates import FAST, cube_scores
from rankstats.simulate.gumbel_benchmark import cube_to_scores, gumbel_cube
from rankstats.simulate.labels import system_names, task_names


def _grid_cells(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())]


_SIM_KEYS = (
    "n_systems",
    "n_tasks",
    "n_instances",
    "phi",
    "scale",
    "adversarial_tasks",
    "missing_rate",
    "missing_pattern",
    "outliers",
    "instance_types",
    "round_to",
    "rescale",
    "scaled_tasks",
    "scale_factor",
)

# Named experiments of the papers (rankstats robustness --experiment NAME).
PRESETS: dict[str, dict[str, Any]] = {
    "colombo2022-manipulation": {
        "description": "Colombo et al. 2022, Fig. 2: k of T = 20 tasks adversarial (location -n)",
        "grid": {"phi": [0.05, 0.1, 0.5], "adversarial_tasks": list(range(0, 21))},
        "base": {"n_systems": 20, "n_tasks": 20, "n_instances": 20},
        "x": "adversarial_tasks",
        "panel": "phi",
        "n_replications": 100,
    },
    "colombo2022-scaling": {
        "description": "Colombo et al. 2022: k tasks multiplied by a factor (the mean is not "
        "scale invariant, Borda is)",
        "grid": {"scale_factor": [10.0, 100.0], "scaled_tasks": [0, 1, 2, 5, 10]},
        "base": {"n_systems": 20, "n_tasks": 20, "n_instances": 20, "phi": 0.1},
        "x": "scaled_tasks",
        "panel": "scale_factor",
        "n_replications": 100,
    },
    "himmi2023-missing": {
        "description": "Himmi et al. 2023: a share of (system, task) blocks removed",
        "grid": {"phi": [0.1, 0.5], "missing_rate": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]},
        "base": {"n_systems": 20, "n_tasks": 20, "n_instances": 20, "missing_pattern": "block"},
        "x": "missing_rate",
        "panel": "phi",
        "n_replications": 50,
    },
    "himmi2023-missing-heterogeneous": {
        "description": "missing (system, task) blocks when 3 of the 20 tasks are on a 10x "
        "larger scale (heterogeneous benchmark)",
        "grid": {"phi": [0.1, 0.5], "missing_rate": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]},
        "base": {
            "n_systems": 20,
            "n_tasks": 20,
            "n_instances": 20,
            "missing_pattern": "block",
            "scaled_tasks": 3,
            "scale_factor": 10.0,
        },
        "x": "missing_rate",
        "panel": "phi",
        "n_replications": 50,
    },
}


def _name(aggregator: str | Callable) -> str:
    if isinstance(aggregator, str):
        return aggregator
    return getattr(aggregator, "__name__", "custom")


def _metric_rows(
    cell: Mapping[str, Any],
    names: Sequence[str],
    values: np.ndarray,
    truth_rank: np.ndarray,
    k: int,
    first_rep: int = 0,
) -> list[dict[str, Any]]:
    """Table rows of one grid cell: ``values[r, a]`` is aggregator ``a``'s scores in replicate
    ``first_rep + r``.

    Every (replicate, aggregator) ranking is measured against ``truth_rank`` (shape ``(N,)``, or
    ``values.shape`` for one reference per ranking) in one vectorised call.
    """
    n_replications, n_agg, n_sys = values.shape
    truth = np.broadcast_to(truth_rank, values.shape).reshape(-1, n_sys)
    metrics = ranking_metrics(values.reshape(-1, n_sys), truth, k)
    return [
        {
            **cell,
            "rep": first_rep + rep,
            "aggregator": name,
            **{key: float(column[rep * n_agg + a]) for key, column in metrics.items()},
        }
        for rep in range(n_replications)
        for a, name in enumerate(names)
    ]


def _run_cell(
    cell: dict[str, Any],
    base: dict[str, Any],
    aggregators: Sequence[str | Callable],
    seeds: Sequence[np.random.SeedSequence],
    k: int,
) -> list[dict[str, Any]]:
    """Rows of one grid cell of :func:`robustness` (module level: runs in worker processes)."""
    params = {**base, **cell}
    args = _cube_arguments(params)
    n_sys = args["n_systems"]
    truth_rank = np.arange(n_sys, 0, -1, dtype=np.float64)  # system n has rank N - n + 1
    fast = [agg for agg in aggregators if isinstance(agg, str) and agg in FAST]
    values = np.empty((len(seeds), len(aggregators), n_sys))
    sizes = {key: args.pop(key) for key in ("n_systems", "n_tasks", "n_instances", "phi", "scale")}
    corruptions = Corruptions(**args)
    for rep, seq in enumerate(seeds):
        rng = np.random.default_rng(seq)
        cube = gumbel_cube(seed=rng, corruptions=corruptions, **sizes)
        quick = cube_scores(cube, fast) if fast else {}
        scores = None
        for a, agg in enumerate(aggregators):
            if isinstance(agg, str) and agg in quick:
                values[rep, a] = quick[agg]
                continue
            if scores is None:
                scores = _scores_from_cube(cube, params.get("n_instances") is not None)
            result = aggregate(scores, method=agg) if isinstance(agg, str) else agg(scores)
            values[rep, a] = result.scores.reindex(list(scores.systems)).to_numpy(np.float64)
    return _metric_rows(cell, [_name(agg) for agg in aggregators], values, truth_rank, k)


def _cube_arguments(params: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of :func:`~rankstats.simulate.gumbel_cube` for one grid cell, checked.

    Raises
    ------
    ValueError
        An unknown parameter, or a value out of its range (named in the message).
    """
    unknown = [key for key in params if key not in _SIM_KEYS]
    if unknown:
        raise ValueError(f"unknown simulation parameter(s) {unknown}; known: {_SIM_KEYS}")
    n_tasks = params.get("n_tasks", 20)
    rescale = params.get("rescale")
    if rescale:  # task names (task01, ...) or 0-based task indices
        rescale = {int(t[4:]) - 1 if isinstance(t, str) else t: f for t, f in rescale.items()}
    if params.get("scaled_tasks"):
        # The first honest tasks (after the adversarial ones) are multiplied by the factor.
        first = params.get("adversarial_tasks", 0)
        check_count("scaled_tasks", params["scaled_tasks"], 0, n_tasks - first)
        rescale = dict(rescale or {})
        for task in range(first, first + params["scaled_tasks"]):
            rescale[task] = params.get("scale_factor", 10.0)
    args = {
        "n_systems": params.get("n_systems", 20),
        "n_tasks": n_tasks,
        "n_instances": params.get("n_instances") or 1,
        "phi": params.get("phi", 0.5),
        "scale": params.get("scale", 1.0),
        "adversarial_tasks": params.get("adversarial_tasks", 0),
        "rescale": rescale,
        "missing_rate": params.get("missing_rate", 0.0),
        "missing_pattern": params.get("missing_pattern", "cell"),
        "outliers": params.get("outliers"),
        "instance_types": params.get("instance_types"),
        "round_to": params.get("round_to"),
    }
    check_generator(**args)
    if params.get("n_instances") is not None:
        check_count("n_instances", params["n_instances"], 1)
    return args


def _check_run(
    grid: Mapping[str, Sequence[Any]], aggregators: Sequence[Any], n_replications: int, top_k: int
) -> None:
    """The counts of an experiment, before any work: ValueError naming the argument."""
    check_count("n_replications", n_replications, 1)
    check_count("top_k", top_k, 1)
    if isinstance(aggregators, str) or not len(aggregators):
        raise ValueError(f"aggregators must be a non-empty list of methods, got {aggregators!r}")
    for key, values in grid.items():
        if isinstance(values, str) or not isinstance(values, Sequence) or not len(values):
            raise ValueError(f"grid[{key!r}] must be a non-empty list of values, got {values!r}")


def _scores_from_cube(cube: np.ndarray, instances: bool) -> Scores:
    n_sys, n_tasks, _ = cube.shape
    frame = cube_to_scores(cube, system_names(n_sys), task_names(n_tasks), instances)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # heavy corruption may leave tasks with < 2 systems
        return Scores.from_long(frame, instance="instance" if instances else None)


@dataclass(frozen=True, eq=False, repr=False)
class Robustness:
    """Result of :func:`robustness` / :func:`perturbation`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: grid parameters, ``rep``, ``aggregator``, ``kendall_distance``, ``kendall_tau``,
        ``top1``, ``top<k>``.
    grid : dict
        The grid that was run.
    complete : bool
        False when the run was interrupted (the table holds the finished cells).
    """

    table: pd.DataFrame
    grid: dict
    complete: bool = True

    def summary(self, metric: str = "kendall_tau") -> pd.DataFrame:
        """Mean, standard deviation and a normal 95 % interval of ``metric`` per cell and
        aggregator."""
        keys = [*self.grid, "aggregator"]
        g = self.table.groupby(keys, sort=False)[metric]
        out = g.agg(["mean", "std", "count"]).reset_index()
        half = 1.96 * out["std"].fillna(0) / np.sqrt(out["count"])
        return out.assign(low=out["mean"] - half, high=out["mean"] + half)

    def plot(self, x: str, metric: str = "kendall_tau", panel: str | None = None) -> Figure:
        """Robustness curves: ``metric`` against ``x``, one line per aggregator with its 95 %
        band, one panel per value of ``panel``."""
        summary = self.summary(metric)
        panels = list(pd.unique(summary[panel])) if panel else [None]
        from matplotlib.figure import Figure

        fig = Figure(figsize=(4.2 * len(panels), 3.4))
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        for ax, value in zip(axes, panels, strict=True):
            sub = summary if panel is None else summary[summary[panel] == value]
            for agg, part in sub.groupby("aggregator", sort=False):
                part = part.sort_values(x)
                ax.plot(part[x], part["mean"], marker="o", ms=3, label=agg)
                ax.fill_between(part[x], part["low"], part["high"], alpha=0.2)
            ax.set_xlabel(x)
            ax.set_title(f"{panel} = {value}" if panel else "", fontsize=9)
        axes[0].set_ylabel(metric.replace("_", " "))
        axes[-1].legend(fontsize=8)
        fig.tight_layout()
        return fig

    def __repr__(self) -> str:
        cells = len(_grid_cells(self.grid))
        aggs = ", ".join(pd.unique(self.table["aggregator"])) if len(self.table) else "-"
        state = "" if self.complete else ", INTERRUPTED"
        return (
            f"Robustness({cells} grid cells, "
            f"{self.table['rep'].nunique() if len(self.table) else 0} replicates, "
            f"aggregators: {aggs}{state})"
        )


def _collect(
    jobs: list[tuple],
    run: Callable[..., list[dict[str, Any]]],
    grid: dict,
    n_jobs: int,
    backend: str,
    progress: bool,
    label: str,
) -> Robustness:
    """Run the cells (:func:`rankstats._util.parallel.run_cells`) into a :class:`Robustness`; on an
    interrupt, the finished cells with ``complete=False`` and a ``RuntimeWarning``."""
    rows: list[dict[str, Any]] = []
    complete = True
    # The bar is closed (the terminal clean) before the warning of an interrupt is printed.
    with meter(label, total=len(jobs), unit="grid cells", enabled=progress) as shown:
        try:
            for cell_rows in run_cells(jobs, n_jobs, backend, run):
                rows += cell_rows
                shown.advance()
        except KeyboardInterrupt:
            complete = False
    if not complete:
        warnings.warn(
            f"{label} run interrupted: {len(rows)} rows of finished cells returned",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    return Robustness(pd.DataFrame(rows), grid, complete)


@renamed_parameters(n_rep="n_replications")
def robustness(
    aggregators: Sequence[str | Callable] = ("mean", "borda", "borda2"),
    grid: Mapping[str, Sequence[Any]] | None = None,
    n_replications: int = 100,
    seed: int = 0,
    n_jobs: int = 1,
    base: Mapping[str, Any] | None = None,
    top_k: int = 3,
    progress: bool = False,
    backend: str = "processes",
) -> Robustness:
    """Recovery of the true ranking by each aggregator over a grid of simulated benchmarks.

    Parameters
    ----------
    aggregators : sequence
        Names of :func:`rankstats.aggregate` methods (``mean``, ``borda``, ``borda2`` run on a
        fast array path) or callables ``Scores -> Aggregate``.
    grid : dict
        Parameter → values of :func:`rankstats.simulate.gumbel` (``phi``, ``adversarial_tasks``,
        ``missing_rate``, ...); the cartesian product is run.
    n_replications : int
        Replicates per grid cell.
    seed : int
        Root seed (SeedSequence spawning: results independent of ``n_jobs``).
    n_jobs : int
        Parallel workers (``-1``: all cores); 1 runs in this process.
    base : dict
        Fixed simulation parameters (default N = T = K = 20, as in Colombo et al. 2022).
    top_k : int
        k of the top-k overlap.
    progress : bool
        A progress bar of the grid cells, with an ETA, on stderr when it is a terminal
        (nothing off a terminal or with ``RANKSTATS_QUIET=1``).
    backend : {"processes", "joblib"}
        How ``n_jobs > 1`` runs the cells: ``"processes"`` uses
        :class:`concurrent.futures.ProcessPoolExecutor` (standard library); ``"joblib"`` uses
        ``joblib.Parallel`` under the active ``joblib.parallel_config`` — e.g.
        ``backend="dask"`` with a ``dask.distributed.Client`` to spread the cells over a
        cluster (``pip install "rankstats[dask]"``). The table is identical for every
        ``n_jobs`` and backend. Callable aggregators must then be picklable (module-level
        functions, not lambdas).

    Returns
    -------
    Robustness
        ``.table`` (tidy), ``.summary()``, ``.plot(x=...)``. Interrupting (Ctrl-C) stops the
        workers, cancels the cells not started yet and returns the finished cells with
        ``complete=False`` (and a ``RuntimeWarning``).

    Raises
    ------
    ValueError
        Before any work, naming the argument: ``n_replications`` or ``top_k`` not an integer ≥ 1
        (``top_k`` at most the number of systems), ``n_jobs`` not ≥ 1 or -1, an unknown
        ``backend``, an empty grid list, an unknown simulation parameter or one out of its
        range in some grid cell (as :func:`rankstats.simulate.gumbel`).

    Examples
    --------
    >>> import rankstats as rs
    >>> res = rs.simulate.robustness(grid={"adversarial_tasks": [0, 5]}, n_replications=2,
    ...                              base={"n_systems": 5, "n_tasks": 6, "n_instances": 4})
    >>> sorted(res.table.aggregator.unique())
    ['borda', 'borda2', 'mean']
    """
    random_seed("seed", seed)
    check_parallel(n_jobs, backend)
    old = {"missing": "missing_rate"}  # the share of removed scores, as in gumbel
    grid = translate(dict(grid or {"phi": [0.5]}), old, "robustness(grid=...)")
    base = translate(
        dict(base or {"n_systems": 20, "n_tasks": 20, "n_instances": 20}),
        old,
        "robustness(base=...)",
    )
    _check_run(grid, aggregators, n_replications, top_k)
    cells = _grid_cells(grid)
    for cell in cells:  # every cell checked before the first one runs
        args = _cube_arguments({**base, **cell})
        check_count(f"top_k (≤ n_systems = {args['n_systems']})", top_k, 1, args["n_systems"])
    root = np.random.SeedSequence(seed)
    cell_seeds = [s.spawn(n_replications) for s in root.spawn(len(cells))]
    jobs = [(c, base, aggregators, s, top_k) for c, s in zip(cells, cell_seeds, strict=True)]
    return _collect(jobs, _run_cell, grid, n_jobs, backend, progress, "robustness")


@renamed_parameters(rng="seed", missing="missing_rate")
def perturb(
    scores: Scores,
    seed: int | np.random.Generator | None,
    missing_rate: float = 0.0,
    pattern: str = "block",
    keep_tasks: int | None = None,
    drop_systems: int = 0,
) -> Scores:
    """A perturbed copy of a real benchmark: remove a share of the scores (``cell`` or whole
    (system, task) ``block``), keep ``keep_tasks`` random tasks, drop ``drop_systems`` systems;
    drawn with ``numpy.random.default_rng(seed)`` (a Generator is used as it is)."""
    random_seed("seed", seed)
    rng = np.random.default_rng(seed)
    data = scores.data
    if keep_tasks is not None:
        kept = rng.choice(len(scores.tasks), size=keep_tasks, replace=False)
        data = data[data["task"].isin([scores.tasks[i] for i in kept])]
    if drop_systems:
        gone = rng.choice(len(scores.systems), size=drop_systems, replace=False)
        data = data[~data["system"].isin([scores.systems[i] for i in gone])]
    if missing_rate > 0:
        if pattern == "cell":
            data = data[rng.random(len(data)) >= missing_rate]
        elif pattern == "block":
            n_sys = len(scores.systems)
            block = rng.random((len(scores.tasks), n_sys)) < missing_rate
            code = data["task"].cat.codes.to_numpy() * n_sys + data["system"].cat.codes.to_numpy()
            data = data[~block.ravel()[code]]
        else:
            raise ValueError("pattern must be 'cell' or 'block'")
    frame = data.astype({"system": str, "task": str})
    instance = "instance" if scores.has_instances else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # perturbation may leave tasks with < 2 systems
        return Scores.from_long(frame, instance=instance, name=scores.name)


def _perturbation_cell(
    scores: Scores,
    cell: dict[str, Any],
    full: dict[str, pd.Series],
    aggregators: Sequence[str],
    seeds: Sequence[np.random.SeedSequence],
    top_k: int,
) -> list[dict[str, Any]]:
    """Rows of one grid cell of :func:`perturbation` (module level: runs in worker processes)."""
    rows = []
    for rep, seq in enumerate(seeds):
        perturbed = perturb(scores, np.random.default_rng(seq), **cell)
        present = [s for s in perturbed.systems if s not in perturbed.unevaluated_systems]
        values = np.stack(
            [
                aggregate(perturbed, method=agg).scores.reindex(present).to_numpy()
                for agg in aggregators
            ]
        )
        reference = np.stack(
            [full[agg].reindex(present).to_numpy(np.float64) for agg in aggregators]
        )
        # Each aggregator against its own ranking of the full data.
        truth_rank = average_ranks(reference)
        rows += _metric_rows(cell, aggregators, values[None], truth_rank[None], top_k, rep)
    return rows


def _check_perturbation(scores: Scores, cell: Mapping[str, Any]) -> None:
    """Arguments of :func:`perturb` for one grid cell, before any work."""
    known = ("missing_rate", "pattern", "keep_tasks", "drop_systems")
    unknown = [key for key in cell if key not in known]
    if unknown:
        raise ValueError(f"unknown perturbation parameter(s) {unknown}; known: {known}")
    missing_rate = cell.get("missing_rate", 0.0)
    ok = isinstance(missing_rate, numbers.Real) and not isinstance(missing_rate, bool)
    if not (ok and 0 <= missing_rate < 1):
        raise ValueError(f"missing_rate must be a share in [0, 1), got {missing_rate!r}")
    if cell.get("pattern", "block") not in ("cell", "block"):
        raise ValueError(f"pattern must be 'cell' or 'block', not {cell['pattern']!r}")
    if cell.get("keep_tasks") is not None:
        check_count("keep_tasks", cell["keep_tasks"], 1, len(scores.tasks))
    check_count("drop_systems", cell.get("drop_systems", 0), 0, len(scores.systems) - 2)


@renamed_parameters(n_rep="n_replications")
def perturbation(
    scores: Scores,
    aggregators: Sequence[str] = ("mean", "borda", "borda2"),
    grid: Mapping[str, Sequence[Any]] | None = None,
    n_replications: int = 20,
    seed: int = 0,
    top_k: int = 3,
    progress: bool = False,
    n_jobs: int = 1,
    backend: str = "processes",
) -> Robustness:
    """Stability of each aggregator on a perturbed real benchmark.

    For every grid cell (parameters of :func:`perturb`: ``missing_rate``, ``pattern``,
    ``keep_tasks``, ``drop_systems``) and replicate, each aggregator's ranking of the perturbed
    data is compared with its own ranking of the full data (on the systems that remain).
    ``n_jobs`` and ``backend`` run the cells in parallel as in :func:`robustness`; every replicate
    has its own ``SeedSequence`` child, so the table does not depend on them.

    Raises
    ------
    ValueError
        Before any work, naming the argument: ``n_replications`` / ``top_k`` not an integer ≥ 1,
        ``n_jobs`` not ≥ 1 or -1, an empty grid list, a perturbation parameter out of its range
        (``missing_rate`` in [0, 1), ``pattern`` "cell" or "block", ``keep_tasks`` in
        [1, n_tasks], ``drop_systems`` in [0, n_systems − 2]).

    Examples
    --------
    >>> import rankstats as rs
    >>> res = rs.simulate.perturbation(rs.load_dataset("xtreme"), grid={"missing_rate": [0.2]},
    ...                                n_replications=3)
    >>> len(res.table)
    9
    """
    random_seed("seed", seed)
    check_parallel(n_jobs, backend)
    grid = translate(
        dict(grid or {"missing_rate": [0.1, 0.2, 0.3]}),
        {"missing": "missing_rate"},
        "perturbation(grid=...)",
    )
    _check_run(grid, aggregators, n_replications, top_k)
    for cell in _grid_cells(grid):
        _check_perturbation(scores, cell)
    full = {agg: aggregate(scores, method=agg).scores for agg in aggregators}
    cells = _grid_cells(grid)
    root = np.random.SeedSequence(seed)
    jobs = [
        (scores, cell, full, tuple(aggregators), cell_seed.spawn(n_replications), top_k)
        for cell, cell_seed in zip(cells, root.spawn(len(cells)), strict=True)
    ]
    return _collect(jobs, _perturbation_cell, grid, n_jobs, backend, progress, "perturbation")

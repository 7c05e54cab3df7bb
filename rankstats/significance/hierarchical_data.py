r"""The data of the Bayesian hierarchical comparison: two systems' differences per task, rescaled.

:func:`pair_differences` takes the differences ``a − b`` on the instances where both systems were
scored, task by task; :func:`prepare` divides them (and the ROPE) by
:math:`s = \frac1q \sum_i \mathrm{sd}(\mathbf{x}_i)`, the mean within-task standard deviation, as
the paper's code and baycomp's ``HierarchicalTest`` do, reduces each task to its sufficient
statistics (instances, mean, sum of squares about the mean) and sets the bounds of the uniform
priors: :math:`m = \max_{ij} |x_{ij}|/s`, :math:`\bar\sigma = 1000` within-task and
:math:`\bar\sigma_0 = 1000\, \mathrm{sd}_i(\bar x_i/s)` among tasks (see
:mod:`rankstats.significance.bayesian_hierarchical`).

Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
comparison of classifiers through Bayesian hierarchical modelling. *Machine Learning* 106,
1817–1837.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats.core.scores import Scores
from rankstats.errors import preview

#: The factor of the upper bounds of the uniform priors on σ_i and σ_0 (baycomp's, the paper's).
UPPER_SIGMA = 1000.0
#: Half-width of the symmetric values given to a constant task when ``rope = 0`` (rescaled).
CONSTANT_JITTER = 0.1


def pair_differences(
    scores: Scores, a: str, b: str, task: str | Sequence[str] | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(task, instance, difference)`` on the instances where both were scored, and
    ``(task, n_shared)`` for every task considered (in the table's task order)."""
    if not isinstance(scores, Scores):
        raise TypeError(
            f"bayes_hierarchical needs a rankstats Scores table, not {type(scores).__name__}"
        )
    for name in (a, b):
        if not isinstance(name, str) or name not in scores.systems:
            raise ValueError(f"unknown system {name!r}; systems are: {preview(scores.systems)}")
    if a == b:
        raise ValueError(f"compare two different systems, not {a!r} with itself")
    if not scores.has_instances:
        raise ValueError(
            "the hierarchical test needs instance-level scores (several instances per task); "
            "this table has one score per system and task"
        )
    tasks = [task] if isinstance(task, str) else list(task) if task is not None else None
    for t in tasks or ():
        if t not in scores.tasks:
            raise ValueError(f"unknown task {t!r}; tasks are: {preview(scores.tasks)}")
    data = scores.data[scores.data["system"].isin([a, b])]
    if tasks is not None:
        data = data[data["task"].isin(tasks)]
    wide = data.pivot_table(
        index=["task", "instance"], columns="system", values="score", observed=True
    ).reindex(columns=[a, b])
    wide = wide.dropna()
    diff = (wide[a] - wide[b]).rename("difference").reset_index()
    diff["task"] = diff["task"].astype(object)
    order = tasks if tasks is not None else [*scores.tasks, *scores.skipped_tasks]
    counts = diff.groupby("task", sort=False)["difference"].size()
    shared = pd.DataFrame({"task": order, "n_shared": counts.reindex(order).fillna(0)})
    shared["n_shared"] = shared["n_shared"].astype(int)
    position = {t: k for k, t in enumerate(order)}
    diff = diff.sort_values("task", key=lambda s: s.map(position), kind="stable")
    return diff.reset_index(drop=True), shared


@dataclass(frozen=True)
class Prepared:
    """The rescaled sufficient statistics of one pair and the prior bounds."""

    tasks: list[str]
    n: np.ndarray
    mean: np.ndarray  # rescaled task means
    ss: np.ndarray  # rescaled within-task sums of squares about the mean
    scale: float
    rope: float  # rescaled
    delta_bound: float
    sigma_upper: float
    sigma0_upper: float
    constant: list[str]


def prepare(diff: pd.DataFrame, rope: float, seed: int | None) -> Prepared:
    """The rescaled sufficient statistics of the differences of :func:`pair_differences` and the
    bounds of the uniform priors (the rescaling of
    :mod:`rankstats.significance.bayesian_hierarchical`); a constant task gets symmetric values
    ``±u`` around its constant, seeded by ``seed``."""
    groups = [
        (t, g.to_numpy(np.float64)) for t, g in diff.groupby("task", sort=False)["difference"]
    ]
    sds = np.array([x.std() for _, x in groups])
    scale = float(sds.mean())
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(
            "the differences are constant within every task (zero within-task spread): the "
            "hierarchical model has nothing to estimate the within-task variance from"
        )
    r = rope / scale
    rng = np.random.default_rng(seed)
    xs, constant = [], []
    for (t, x), sd in zip(groups, sds, strict=True):
        x = x / scale
        if sd == 0:  # baycomp: symmetric values in ±rope (here around the constant)
            half = len(x) // 2
            u = rng.uniform(-(r or CONSTANT_JITTER), r or CONSTANT_JITTER, half)
            x = x.copy()
            x[:half] += u
            x[half : 2 * half] -= u
            constant.append(t)
        xs.append(x)
    means = np.array([x.mean() for x in xs])
    within = float(np.mean([x.std() for x in xs]))
    among = float(means.std())
    return Prepared(
        tasks=[t for t, _ in groups],
        n=np.array([len(x) for x in xs], dtype=np.float64),
        mean=means,
        ss=np.array([((x - x.mean()) ** 2).sum() for x in xs]),
        scale=scale,
        rope=r,
        delta_bound=float(max(np.abs(x).max() for x in xs)),
        sigma_upper=UPPER_SIGMA * within,
        sigma0_upper=UPPER_SIGMA * (among if among > 0 else within),
        constant=constant,
    )

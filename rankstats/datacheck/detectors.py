"""The detectors of the data check: each takes validated :class:`~rankstats.Scores` and returns
zero or more :class:`~rankstats.datacheck.Finding`.

Every detector works on whole columns (``numpy.bincount`` over the system / task codes, pandas
group-bys), never a Python loop over rows. Scores are compared in the file's own orientation
(a lower-is-better task is negated back), so a placeholder ``0`` of an error rate is still the
lowest number of its task.
"""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceText, Spelled, cli_spelling, keywords
from rankstats._util.text import terminal
from rankstats.core.codes import dense_codes, instance_codes
from rankstats.datacheck.finding import Finding

if TYPE_CHECKING:
    from rankstats.core.scores import Scores

#: Exact values that mark an evaluation that was not run, when they sit below a task's scores.
PLACEHOLDERS = (0.0, -1.0)
#: Two tasks are on different scales when their largest absolute scores differ this much.
SCALE_RATIO = 20.0
#: A system with scores on fewer than this share of the tasks (a task with fewer than this
#: share of the systems) has few scores.
FEW_SHARE = 0.5
#: Names of instance columns that hold folds / repeats of one data set.
FOLD_NAMES = re.compile(
    r"^(cv[ _-]?)?(fold|folds|split|repeat|repetition|rep|seed|run|resample)s?$"
)
#: At most this many instance ids that repeat in every task look like folds (then a note; a
#: warning when the instance column is named like folds).
MAX_FOLDS = 10

_SHOWN = 5


def _names(items: object, limit: int = _SHOWN) -> tuple[str, ...]:
    return tuple(terminal(str(i)) for i in list(items)[:limit])


def _list(items: tuple[str, ...], total: int) -> str:
    text = ", ".join(items)
    return text + (f", ... ({total - len(items)} more)" if total > len(items) else "")


def raw_scores(scores: Scores) -> np.ndarray:
    """The scores in the file's orientation (lower-is-better tasks negated back)."""
    data = scores.data
    sign = np.array([1.0 if scores.higher_is_better[t] else -1.0 for t in scores.tasks])
    return data["score"].to_numpy(np.float64) * sign[data["task"].cat.codes.to_numpy()]


def _codes(scores: Scores) -> tuple[np.ndarray, np.ndarray]:
    data = scores.data
    return (
        data["system"].cat.codes.to_numpy(np.int64),
        data["task"].cat.codes.to_numpy(np.int64),
    )


# ---------------------------------------------------------------------------- placeholders
def _blocks(task: np.ndarray, values: np.ndarray, hit: np.ndarray, value: float, n_tasks: int):
    """``(found per task, count per task, lowest other value per task)`` of one value."""
    count = np.bincount(task, weights=hit, minlength=n_tasks)
    other = pd.DataFrame({"task": task[~hit], "score": values[~hit]})
    grouped = other.groupby("task")["score"]
    lowest = grouped.min().reindex(range(n_tasks)).to_numpy()
    n_other = grouped.size().reindex(range(n_tasks), fill_value=0).to_numpy()
    ties = other.groupby(["task", "score"]).size().groupby(level=0).max()
    ties = ties.reindex(range(n_tasks), fill_value=0).to_numpy()
    distinct = other.drop_duplicates().sort_values(["task", "score"])
    step = distinct["score"].diff().where(distinct["task"].diff() == 0)
    spacing = step.groupby(distinct["task"]).median().reindex(range(n_tasks)).to_numpy()
    with np.errstate(invalid="ignore"):
        found = (
            (count >= 2)
            & (n_other >= 3)
            & (value < lowest)
            & (count > ties)
            & ((lowest - value) >= np.nan_to_num(spacing, nan=0.0))
        )
    return found, count, lowest


def placeholder_mask(scores: Scores) -> tuple[np.ndarray, list[tuple[str, float, int, float]]]:
    """Rows of ``scores.data`` that hold a placeholder, and ``(task, value, count, lowest
    other score)`` of each block found.

    A value ``v`` in :data:`PLACEHOLDERS` is a placeholder block of a task when it occurs at
    least twice, lies strictly below every other score of the task by at least the median gap
    between the task's other distinct scores, and occurs more often than any other single score
    of the task (real scores tie less often than a filler repeats); at least three other scores
    are required. With instances the units are the (system, task) cells: a cell is a
    placeholder when every one of its instances holds ``v`` (a single 0 of one instance is a
    score), and the other cells are compared by their means.
    """
    raw = raw_scores(scores)
    system, task = _codes(scores)
    n_tasks, n_sys = len(scores.tasks), len(scores.systems)
    if scores.has_instances:
        cell = task * n_sys + system
        frame = pd.DataFrame({"cell": cell, "score": raw}).groupby("cell")["score"]
        low, high, mean = frame.min(), frame.max(), frame.mean()
        units = low.index.to_numpy()
        unit_task, values = units // n_sys, mean.to_numpy()
        constant = (low == high).to_numpy()
    else:
        unit_task, values, constant = task, raw, np.ones(len(raw), dtype=bool)
    mask = np.zeros(len(raw), dtype=bool)
    blocks = []
    for value in PLACEHOLDERS:  # two values, each vectorised over every row
        hit = constant & (values == value)
        if not hit.any():
            continue
        found, count, lowest = _blocks(unit_task, values, hit, value, n_tasks)
        for t in np.flatnonzero(found):
            blocks.append((scores.tasks[t], value, int(count[t]), float(lowest[t])))
        chosen = hit & found[unit_task]
        if scores.has_instances:
            mask |= np.isin(cell, units[chosen])
        else:
            mask |= chosen
    return mask, blocks


def placeholders(scores: Scores) -> list[Finding]:
    """Blocks of exact 0 or −1 far below a task's other scores (evaluations not run)."""
    mask, blocks = placeholder_mask(scores)
    if not blocks:
        return []
    data = scores.data
    found = []
    for name, value, count, lowest in blocks:
        rows = mask & (data["task"] == name).to_numpy()
        systems = data["system"].to_numpy()[rows]
        shown = _names(pd.unique(systems))
        n_systems = len(pd.unique(systems))
        what = f"exact {value:g}"
        if scores.has_instances:
            what = f"(system, task) cells with {value:g} in every instance:"
        found.append(
            Finding(
                kind="placeholder",
                severity="warning",
                subject=(name,),
                count=count,
                examples=shown,
                message=(
                    f"task {terminal(name)!r} holds {count} {what} "
                    f"({n_systems} system(s): {_list(shown, n_systems)}) below all its other "
                    f"scores (lowest {lowest:.4g}): they look like evaluations that were not "
                    "run (or a degenerate result, such as a constant classifier's 0; check the "
                    "source), and are ranked as the worst scores"
                ),
                remedy=AdviceText(
                    "{placeholders} reads them as not evaluated; {drop_columns} leaves the "
                    "task out (a wide table)",
                    placeholders=Spelled(
                        "rs.datacheck.drop_placeholders(scores)",
                        cli_spelling("placeholders", "missing"),
                    ),
                    drop_columns=[name],
                ),
            )
        )
    return found


# ---------------------------------------------------------------------------- scales
def scales(scores: Scores) -> list[Finding]:
    """Tasks whose largest absolute scores differ by :data:`SCALE_RATIO` or more."""
    raw = raw_scores(scores)
    _, task = _codes(scores)
    size = pd.Series(np.abs(raw)).groupby(task).max()
    size = size[size > 0]
    if len(size) < 2 or size.max() < SCALE_RATIO * size.min():
        return []
    small = size.index[size <= size.max() / SCALE_RATIO]
    large = size.index[size > size.max() / SCALE_RATIO]
    tasks = np.array(scores.tasks, dtype=object)
    unit = (size.loc[small] <= 1).all() and ((size.loc[large] > 1) & (size.loc[large] <= 100)).all()
    shape = " (0–1 next to 0–100: proportions next to percentages?)" if unit else ""
    low, high = _names(tasks[small]), _names(tasks[large])
    return [
        Finding(
            kind="scales",
            severity="warning",
            subject=tuple(str(t) for t in tasks[size.index]),
            count=len(size),
            examples=low + high,
            message=(
                f"tasks on different scales{shape}: {len(small)} task(s) reach at most "
                f"{size.loc[small].max():.4g} in absolute value ({_list(low, len(small))}), "
                f"{len(large)} reach up to {size.max():.4g} ({_list(high, len(large))}); the "
                "mean (σ^μ) weights tasks by their scale, rankings do not"
            ),
            remedy=AdviceText(
                "rank-based methods ({borda}, the default) are unaffected; with {mean} "
                "rescale the tasks first",
                borda=("method", "borda"),
                mean=("method", "mean"),
            ),
        )
    ]


# ---------------------------------------------------------------------------- coverage
#: The grid of each Scores checked (three detectors read it; a Scores is immutable).
_GRIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_INSTANCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _instance_codes(scores: Scores) -> tuple[np.ndarray, int]:
    """:func:`~rankstats.core.codes.instance_codes` of the instance column, once per ``scores``
    (hashing a million instance names took 0.17 s at load 15; three detectors need them)."""
    if scores not in _INSTANCES:
        _INSTANCES[scores] = instance_codes(scores.data["instance"])
    return _INSTANCES[scores]


def grid(scores: Scores) -> tuple[np.ndarray, np.ndarray]:
    """``(observed, expected)`` (systems × tasks) cell counts: instances scored per cell, and
    the instances the task has (1 per cell at task level).  Computed once per ``scores``: on 1M
    rows the distinct (task, instance) pairs took 0.3 s a call at load 15, and three detectors
    call it."""
    if scores in _GRIDS:
        return _GRIDS[scores]
    system, task = _codes(scores)
    n_sys, n_tasks = len(scores.systems), len(scores.tasks)
    observed = np.bincount(task * n_sys + system, minlength=n_sys * n_tasks)
    observed = observed.reshape(n_tasks, n_sys).T
    if scores.has_instances:
        # Distinct (task, instance) pairs from integer codes (no hashing of the text twice).
        instance, span = _instance_codes(scores)
        pairs, _ = dense_codes(task * max(span, 1) + instance, n_tasks * max(span, 1))
        first = np.zeros(int(pairs.max(initial=-1)) + 1, dtype=np.int64)
        first[pairs] = task
        per_task = np.bincount(first, minlength=n_tasks)
    else:
        per_task = np.ones(n_tasks, dtype=np.int64)
    _GRIDS[scores] = observed, np.broadcast_to(per_task, (n_sys, n_tasks))
    return _GRIDS[scores]


def missing(scores: Scores) -> list[Finding]:
    """Scores that are not there: empty cells, failed runs, instances a system lacks."""
    observed, expected = grid(scores)
    lacking = expected - observed
    total = int(lacking.sum())
    if total == 0:
        return []
    systems = np.array(scores.systems, dtype=object)
    per_system = lacking.sum(axis=1)
    order = np.argsort(-per_system, kind="stable")
    order = order[per_system[order] > 0]
    examples = tuple(f"{terminal(systems[s])}: {per_system[s]}" for s in order[:_SHOWN])
    cells = "scores" if scores.has_instances else "cells"
    return [
        Finding(
            kind="missing",
            severity="note",
            subject=tuple(str(s) for s in systems[order]),
            count=total,
            examples=examples,
            message=(
                f"{total} of {int(expected.sum())} {cells} are missing (not evaluated), "
                f"in {len(order)} system(s): {_list(examples, len(order))}; missing scores "
                "are never filled in: rankings compare the systems that have them"
            ),
            remedy=AdviceText(
                "nothing to do for rank-based methods; {mean} averages unequal sets",
                mean=("method", "mean"),
            ),
        )
    ]


def few_scores(scores: Scores) -> list[Finding]:
    """Systems scored on fewer than half the tasks, tasks with fewer than half the systems."""
    observed, _ = grid(scores)
    has = observed > 0
    found = []
    for axis, kind, names, other in (
        (1, "system", scores.systems, "tasks"),
        (0, "task", scores.tasks, "systems"),
    ):
        count = has.sum(axis=axis)
        total = has.shape[axis]
        few = np.flatnonzero(count < FEW_SHARE * total)
        if total < 2 or not len(few):
            continue
        few = few[np.argsort(count[few], kind="stable")]
        examples = tuple(f"{terminal(names[k])}: {count[k]}" for k in few[:_SHOWN])
        remedy = (
            AdviceText("remove its rows from the file to rank without it")
            if kind == "system"
            else AdviceText(
                "{remedy}",
                remedy=Spelled(
                    "Scores.select(tasks) keeps chosen tasks",
                    cli_spelling("drop_columns", "TASK")
                    + " (a wide table) or remove its rows to rank without it",
                ),
            )
        )
        found.append(
            Finding(
                kind="few-scores",
                severity="warning",
                subject=tuple(str(names[k]) for k in few),
                count=len(few),
                examples=examples,
                message=(
                    f"{len(few)} {kind}(s) have scores for fewer than half of the {total} "
                    f"{other}: {_list(examples, len(few))}; "
                    + (
                        "their positions rest on few comparisons"
                        if kind == "system"
                        else "their rankings compare few systems"
                    )
                ),
                remedy=remedy,
            )
        )
    return found


# ---------------------------------------------------------------------------- names
def collisions(scores: Scores) -> list[Finding]:
    """Names that become equal after folding case and collapsing whitespace."""
    found = []
    for kind, names in (("system", scores.systems), ("task", scores.tasks)):
        # One pass over the names (not the rows): a dict, no pandas group-by to set up.
        by_key: dict[str, list[str]] = {}
        for name in map(str, names):
            by_key.setdefault(" ".join(name.casefold().split()), []).append(name)
        groups = [by_key[key] for key in sorted(by_key) if len(by_key[key]) > 1]
        if not groups:
            continue
        examples = tuple(" = ".join(repr(terminal(n)) for n in g) for g in groups[:_SHOWN])
        found.append(
            Finding(
                kind="name-collision",
                severity="warning",
                subject=tuple(n for g in groups for n in g),
                count=len(groups),
                examples=examples,
                message=(
                    f"{len(groups)} group(s) of {kind} names differ only in case or spaces "
                    f"({_list(examples, len(groups))}): they are ranked as different {kind}s"
                ),
                remedy=AdviceText(
                    "spell each name one way{where}", where=Spelled("", " in the file")
                ),
            )
        )
    return found


# ---------------------------------------------------------------------------- order
def tied_rankings(scores: Scores) -> list[Finding]:
    """Rankings in which every scored system has the same score: tasks, or (task, instance)
    blocks for instance scores (the rankings a fit reads by default). They carry no order
    information; when every ranking is such a tie there is nothing to rank, and ``fit``
    refuses the data (:func:`rankstats.models.information.require_order`)."""
    data = scores.data
    values = data["score"].to_numpy(np.float64)
    kept = np.isfinite(values)
    parts = [data["task"]] + ([data["instance"]] if scores.has_instances else [])
    block, first = _block_codes(scores)
    frame = pd.DataFrame({"block": block[kept], "value": values[kept]})
    spread = frame.groupby("block", sort=True)["value"].agg(["size", "min", "max"])
    ranked = spread[spread["size"] >= 2]
    tied = ranked.index[(ranked["max"] == ranked["min"]).to_numpy()].to_numpy()
    if not len(tied):
        return []
    subject = tuple(" / ".join(str(part.iloc[row]) for part in parts) for row in first[tied])
    labels = _names(subject)
    every = len(tied) == len(ranked)
    unit = "(task, instance) rankings" if scores.has_instances else "tasks"
    head = (
        f"every one of the {len(ranked)} {unit} ties all its systems"
        if every
        else f"{len(tied)} of the {len(ranked)} {unit} tie all their systems"
    )
    return [
        Finding(
            kind="no-order",
            severity="warning" if every else "note",
            subject=subject,
            count=len(tied),
            examples=labels,
            message=(
                f"{head}: {_list(labels, len(tied))}; they carry no order information"
                + (
                    ": there is nothing to rank, and fit refuses the data (were the scores "
                    "all equal, or read from the wrong column?)"
                    if every
                    else " (every system gets the mean rank in them)"
                )
            ),
            remedy=(
                AdviceText(
                    "{score} names the score column; check that the scores vary",
                    **keywords("score"),
                )
                if every
                else AdviceText(
                    "nothing to do: rank-based methods give every system the mean rank in them"
                )
            ),
        )
    ]


def _block_codes(scores: Scores) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ranking (block) code, and the first row of each block: a task, or a (task,
    instance) pair, from integer codes."""
    key = scores.data["task"].cat.codes.to_numpy(np.int64)
    if scores.has_instances:
        instance, span = _instance_codes(scores)
        key = key * max(span, 1) + instance
    _, first, block = np.unique(key, return_index=True, return_inverse=True)
    return block.ravel(), first


# ---------------------------------------------------------------------------- instances
def uneven_instances(scores: Scores) -> list[Finding]:
    """Task-level means of one task built from different numbers of instances."""
    if not scores.has_instances:
        return []
    observed, _ = grid(scores)
    counted = np.where(observed > 0, observed, np.nan)
    with np.errstate(invalid="ignore"):
        low = np.nanmin(np.where(np.isnan(counted), np.inf, counted), axis=0)
        high = np.nanmax(np.where(np.isnan(counted), -np.inf, counted), axis=0)
    uneven = np.flatnonzero(np.isfinite(low) & (low < high))
    if not len(uneven):
        return []
    tasks = np.array(scores.tasks, dtype=object)
    systems = np.array(scores.systems, dtype=object)
    fewest = np.argmin(np.where(observed > 0, observed, np.iinfo(np.int64).max), axis=0)
    examples = tuple(
        f"{terminal(tasks[t])}: {int(low[t])}–{int(high[t])} instances "
        f"({terminal(systems[fewest[t]])} {int(low[t])})"
        for t in uneven[:_SHOWN]
    )
    return [
        Finding(
            kind="uneven-instances",
            severity="warning",
            subject=tuple(str(t) for t in tasks[uneven]),
            count=len(uneven),
            examples=examples,
            message=(
                f"{len(uneven)} task(s) have task-level means over different numbers of "
                f"instances: {_list(examples, len(uneven))}; a mean over fewer (or easier) "
                "instances is not comparable"
            ),
            remedy=AdviceText(
                "{instance} compares systems instance by instance (the default with "
                "instances); {task} averages unequal sets",
                instance=("by", "instance"),
                task=("by", "task"),
            ),
        )
    ]


def folds(scores: Scores, instance_name: str | None = None) -> list[Finding]:
    """Instances that are folds or repeats of one data set per task: a warning when the
    instance column is named ``fold``, ``split``, ``seed``, ``repeat``, ...; a note when every
    task has the same ≤ 10 consecutive integer ids (0–9 or 1–10), which may be folds."""
    if not scores.has_instances:
        return []
    _, expected = grid(scores)
    per_task = expected[0][expected[0] > 0]  # distinct instances of each task
    n_pairs = int(per_task.sum())
    _, first = np.unique(_instance_codes(scores)[0], return_index=True)
    ids = pd.Index(scores.data["instance"].iloc[np.sort(first)].astype(str))
    same = bool((per_task == len(ids)).all()) and len(per_task) > 1
    numbers = pd.to_numeric(pd.Series(ids[: MAX_FOLDS + 1]), errors="coerce")
    by_value = (
        same
        and len(ids) <= MAX_FOLDS
        and bool(numbers.notna().all() and (numbers == numbers.round()).all())
        and numbers.min() in (0, 1)
        and numbers.nunique() == len(ids)
        and numbers.max() - numbers.min() == len(ids) - 1
    )
    by_name = bool(instance_name and FOLD_NAMES.match(str(instance_name).strip().casefold()))
    if not (by_value or by_name):
        return []
    why = []
    if by_name:
        why.append(f"the instance column is named {instance_name!r}")
    if by_value:
        why.append(
            f"every task has the same {len(ids)} instances "
            f"{int(numbers.min())}–{int(numbers.max())}"
        )
    n_tasks = len(per_task)
    return [
        Finding(
            kind="folds",
            severity="warning" if by_name else "note",
            subject=(str(instance_name) if instance_name else "instance",),
            count=n_pairs,
            examples=_names(sorted(ids, key=lambda i: (len(i), i))),
            message=(
                f"the instances {'look' if by_name else 'may be'} like folds of one data set "
                f"per task ({'; '.join(why)}): "
                f"the {n_pairs} (task, instance) rankings of {n_tasks} task(s) are not "
                "independent blocks, so intervals and tests at instance level overstate the "
                "evidence"
            ),
            remedy=AdviceText(
                "{task}{also} averages the folds: one ranking per task",
                task=("by", "task"),
                also=Spelled(" (or scores.to_task_level())", ""),
            ),
        )
    ]


DETECTORS = (
    placeholders,
    scales,
    missing,
    few_scores,
    collisions,
    uneven_instances,
    tied_rankings,
)

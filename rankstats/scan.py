r"""Streaming aggregation of score files larger than memory: ``rs.scan_scores``.

Every statistic that σ^μ, σ^l, σ^2l and the Hoeffding intervals need is a sum over rankings, so a
benchmark can be read in chunks, each chunk reduced to small arrays, and the arrays added:

- ``Pairwise`` (``wins``, ``wins_observed``, ``compared``) over all (task, instance) rankings;
- per task: the sum of the per-ranking Borda counts and the number of rankings in which each
  system was evaluated (the first level of σ^2l);
- per (task, system): the sum and the number of the scores of each instance... averaged per task
  for σ^μ (mean of the task means, as :func:`rankstats.aggregate`).

Files are read with ``pyarrow.dataset`` in record batches. The rows of one (task, instance) must be
contiguous in the input (as written by ``rankstats simulate`` or any table sorted by task and
instance): the last, possibly incomplete instance of a batch is carried over to the next one, so an
instance cut by a batch boundary still counts as one ranking. An instance that reappears after
other instances raises an error instead of being counted twice. Memory is bounded by the batch
size, not by the data.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats.aggregate import Aggregate, group_sum, ranking_borda
from rankstats.errors import InvalidScoresError
from rankstats.pairwise import Pairwise, _block_statistics
from rankstats.rankings import Rankings, average_ranks


@dataclass(frozen=True, eq=False, repr=False)
class StreamStatistics:
    """Additive sufficient statistics of a benchmark (``a + b`` merges two parts)."""

    pairwise: Pairwise
    task_borda: np.ndarray  # (T, N) Σ over the task's rankings of the per-ranking Borda count
    task_seen: np.ndarray  # (T, N) rankings of the task in which the system was evaluated
    instance_sum: np.ndarray  # (T, N) Σ of the scores
    instance_count: np.ndarray  # (T, N) number of scores

    def __add__(self, other: StreamStatistics) -> StreamStatistics:
        return StreamStatistics(
            self.pairwise + other.pairwise,
            self.task_borda + other.task_borda,
            self.task_seen + other.task_seen,
            self.instance_sum + other.instance_sum,
            self.instance_count + other.instance_count,
        )


def _reduce(
    task: np.ndarray,
    key: np.ndarray,
    system: np.ndarray,
    score: np.ndarray,
    n_tasks: int,
    systems: tuple[str, ...],
) -> StreamStatistics:
    """Statistics of complete instances: rows sorted so that each (task, instance) is contiguous."""
    n = len(systems)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    row = np.cumsum(np.r_[True, key[1:] != key[:-1]]) - 1
    matrix = np.full((len(starts), n), np.nan)
    flat = row * n + system
    if len(np.unique(flat)) != len(flat):
        dup = pd.Series(flat).duplicated(keep=False).to_numpy()
        raise InvalidScoresError(
            f"duplicated (system, task, instance) keys in the input, e.g. system "
            f"{systems[system[dup][0]]!r}"
        )
    matrix[row, system] = score
    instance_task = task[starts]
    counts = (~np.isnan(matrix)).sum(axis=1)
    keep = counts >= 2  # as Scores: rankings of fewer than two systems are set aside
    matrix, instance_task = matrix[keep], instance_task[keep]
    ranks = average_ranks(matrix)
    stats = _block_statistics(ranks)
    pw = Pairwise(*stats[:3], len(ranks), systems, stats[3])
    borda = ranking_borda(ranks) if len(ranks) else np.zeros((0, n))
    seen = (~np.isnan(ranks)).astype(np.float64)
    values = np.where(np.isnan(matrix), 0.0, matrix)
    return StreamStatistics(
        pw,
        group_sum(instance_task, borda, n_tasks),
        group_sum(instance_task, seen, n_tasks),
        group_sum(instance_task, values, n_tasks),
        group_sum(instance_task, seen, n_tasks),
    )


@dataclass(frozen=True, eq=False, repr=False)
class ScannedScores:
    """A score table on disk, read in batches (see :func:`scan_scores`)."""

    _streamed = True  # recognised by rs.aggregate and rs.pairwise

    paths: tuple[str, ...]
    columns: dict
    systems: tuple[str, ...]
    tasks: tuple[str, ...]
    higher_is_better: dict
    batch_rows: int
    format: str

    def statistics(self, progress: bool = False) -> StreamStatistics:
        """One pass over the files: the additive statistics of every (task, instance) ranking."""
        import pyarrow.dataset as ds

        c = self.columns
        dataset = ds.dataset(list(self.paths), format=self.format)
        sys_index = {s: i for i, s in enumerate(self.systems)}
        task_index = {t: i for i, t in enumerate(self.tasks)}
        sign = np.array([1.0 if self.higher_is_better[t] else -1.0 for t in self.tasks])
        n_tasks = len(self.tasks)
        total = StreamStatistics(
            Pairwise.empty(self.systems), *(np.zeros((n_tasks, len(self.systems))),) * 4
        )
        carry = None
        closed: set = set()
        done_rows = 0
        for batch in dataset.to_batches(
            columns=[c["system"], c["task"], c["instance"], c["score"]],
            batch_size=self.batch_rows,
        ):
            frame = batch.to_pandas()
            if carry is not None:
                frame = pd.concat([carry, frame], ignore_index=True)
            score = pd.to_numeric(frame[c["score"]], errors="coerce").to_numpy(np.float64)
            bad = np.isnan(score) & frame[c["score"]].notna().to_numpy()
            if bad.any() or np.isinf(score).any():
                where = np.flatnonzero(bad | np.isinf(score))[0]
                raise InvalidScoresError(
                    f"non-numeric or infinite score {frame[c['score']].iloc[where]!r} for system "
                    f"{frame[c['system']].iloc[where]!r}, task {frame[c['task']].iloc[where]!r}"
                )
            task = frame[c["task"]].astype(str).map(task_index).to_numpy()
            system = frame[c["system"]].astype(str).map(sys_index).to_numpy()
            inst_codes, inst_uniques = pd.factorize(frame[c["instance"]])
            key = task.astype(np.int64) * (len(inst_uniques) + 1) + inst_codes
            change = np.r_[True, key[1:] != key[:-1]]
            last_start = np.flatnonzero(change)[-1]
            # The last instance may continue in the next batch: carry it over.
            carry = frame.iloc[last_start:].reset_index(drop=True)
            head = slice(0, last_start)
            ids = list(
                zip(
                    task[change][:-1],
                    np.asarray(inst_uniques)[inst_codes[change][:-1]],
                    strict=True,
                )
            )
            seen_before = closed.intersection(ids)
            if seen_before or len(set(ids)) != len(ids):
                example = next(iter(seen_before)) if seen_before else ids[0]
                raise InvalidScoresError(
                    "the rows of (task, instance) "
                    f"({self.tasks[example[0]]!r}, {example[1]!r}) are not contiguous: sort the "
                    "input by task and instance (rankstats simulate writes it so)"
                )
            closed.update(ids)
            valid = ~np.isnan(score[head])
            if last_start:
                total = total + _reduce(
                    task[head][valid],
                    key[head][valid],
                    system[head][valid],
                    score[head][valid] * sign[task[head][valid]],
                    n_tasks,
                    self.systems,
                )
            done_rows += batch.num_rows
            if progress:
                sys.stderr.write(f"\rscan: {done_rows:,} rows")
        if carry is not None and len(carry):
            last = (task_index[str(carry[c["task"]].iloc[0])], carry[c["instance"]].iloc[0])
            if last in closed:
                raise InvalidScoresError(
                    f"the rows of (task, instance) ({last[0]!r}, {last[1]!r}) are not contiguous: "
                    "sort the input by task and instance"
                )
            score = pd.to_numeric(carry[c["score"]], errors="coerce").to_numpy(np.float64)
            task = carry[c["task"]].astype(str).map(task_index).to_numpy()
            system = carry[c["system"]].astype(str).map(sys_index).to_numpy()
            valid = ~np.isnan(score)
            key = np.zeros(len(carry), dtype=np.int64)
            total = total + _reduce(
                task[valid],
                key[valid],
                system[valid],
                score[valid] * sign[task[valid]],
                n_tasks,
                self.systems,
            )
        if progress:
            sys.stderr.write("\n")
        return total

    def aggregate(
        self, method: str = "borda", statistics: StreamStatistics | None = None
    ) -> Aggregate:
        """σ^μ (``mean``), σ^l (``borda``) or σ^2l (``borda2``) from one streaming pass."""
        st = statistics or self.statistics()
        if method == "borda":
            return Aggregate(
                "borda", st.pairwise.borda(), "instance", {"n_rankings": st.pairwise.n_rankings}
            )
        if method == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                task_mean = st.instance_sum / st.instance_count
            means = pd.DataFrame(task_mean.T, index=list(self.systems)).mean(axis=1, skipna=True)
            return Aggregate("mean", means.rename("mean"), "task")
        if method == "borda2":
            task_scores = np.where(st.task_seen > 0, st.task_borda, np.nan)
            task_scores = task_scores[(st.task_seen > 0).sum(axis=1) >= 2]
            second = Rankings(
                average_ranks(task_scores), self.systems, pd.RangeIndex(len(task_scores))
            )
            from rankstats.pairwise import pairwise

            return Aggregate("borda2", pairwise(second).borda().rename("borda2"), "instance")
        raise ValueError(f"streamed aggregation supports mean, borda, borda2; not {method!r}")

    def __repr__(self) -> str:
        return (
            f"ScannedScores({len(self.paths)} file(s), {len(self.systems)} systems × "
            f"{len(self.tasks)} tasks, read in batches of {self.batch_rows:,} rows)"
        )


def scan_scores(
    paths: str | Path | Sequence[str | Path],
    system: str = "system",
    task: str = "task",
    instance: str = "instance",
    score: str = "score",
    higher_is_better: bool | dict = True,
    batch_rows: int = 2_000_000,
) -> ScannedScores:
    """Lazy view of instance-level score files (Parquet or CSV; a file, a directory or a list).

    A first pass reads only the system and task columns (the vocabularies); the statistics are
    computed by :meth:`ScannedScores.statistics` / :meth:`ScannedScores.aggregate`, or by
    ``rs.aggregate(scanned, method)`` and ``rs.pairwise(scanned)``.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> sim = rs.simulate.gumbel(6, 3, 20, seed=0, missing=0.2)
    >>> path = sim.to_parquet(tempfile.mkdtemp() + "/bench.parquet")[0]
    >>> scanned = rs.scan_scores(path, batch_rows=37)
    >>> rs.aggregate(scanned, "borda").order == rs.aggregate(sim, "borda").order
    True
    """
    import pyarrow.dataset as ds

    if isinstance(paths, str | Path):
        paths = [paths]
    files: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(str(f) for f in p.rglob("*") if f.suffix in (".parquet", ".csv"))
        elif p.exists():
            files.append(str(p))
        else:
            raise FileNotFoundError(f"no such score file or directory: {p}")
    if not files:
        raise FileNotFoundError("no .parquet or .csv file found")
    fmt = "csv" if all(f.endswith(".csv") for f in files) else "parquet"
    dataset = ds.dataset(files, format=fmt)
    missing = [col for col in (system, task, instance, score) if col not in dataset.schema.names]
    if missing:
        raise InvalidScoresError(
            f"column(s) {missing} not found; the files have {dataset.schema.names}"
        )
    systems: dict[str, None] = {}
    tasks: dict[str, None] = {}
    for batch in dataset.to_batches(columns=[system, task], batch_size=batch_rows):
        frame = batch.to_pandas()
        systems.update(dict.fromkeys(pd.unique(frame[system].astype(str))))
        tasks.update(dict.fromkeys(pd.unique(frame[task].astype(str))))
    if isinstance(higher_is_better, dict):
        unknown = [t for t in higher_is_better if t not in tasks]
        if unknown:
            raise InvalidScoresError(f"higher_is_better names unknown tasks {unknown}")
        directions = {t: bool(higher_is_better.get(t, True)) for t in tasks}
    else:
        directions = dict.fromkeys(tasks, bool(higher_is_better))
    return ScannedScores(
        tuple(files),
        {"system": system, "task": task, "instance": instance, "score": score},
        tuple(systems),
        tuple(tasks),
        directions,
        batch_rows,
        fmt,
    )

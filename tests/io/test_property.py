"""Property tests: one ranking whatever the route a table takes.

Random small tables (missing cells, ties, names such as ``NA``, ``None``, ``007``, ``01`` and
unicode, random directions) must give the same aggregate from the wide and the long form, after
a CSV or Parquet round trip through ``rs.read_scores``, and from the in-memory and the streamed
(``rs.scan_scores``) paths. The routes are compared with one another: no expected value comes
from the code under test alone.
"""

from __future__ import annotations

import itertools
import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

pytestmark = pytest.mark.long

# Hypothesis caches data in .hypothesis/ of the working directory: keep it with pytest's cache
# (ignored by git) instead.
set_hypothesis_home_dir(str(Path(__file__).resolve().parents[2] / ".pytest_cache" / "hypothesis"))

# Names that a reader could mistake for a missing value, a number or a boolean.
TRICKY = [
    "NA",
    "None",
    "null",
    "nan",
    "true",
    "007",
    "7",
    "01",
    "1",
    "-",
    "é",
    "日本",
    "a b",
    "x,y",
]
RESERVED = {"system", "task", "score", "instance", "average", "avg", "mean", "overall", "total"}
RESERVED |= {"sum", "all", "macro avg", "micro avg"}

name = st.one_of(
    st.sampled_from(TRICKY),
    st.text(alphabet=st.characters(categories=("L", "N")), min_size=1, max_size=4),
)
task_name = name.filter(lambda n: n.strip().casefold() not in RESERVED)
# Few distinct values: ties are common; None = not evaluated.
cell = st.one_of(
    st.none(),
    st.integers(0, 3).map(float),
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
)
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    database=None,  # no .hypothesis/ directory in the working tree
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@st.composite
def task_tables(draw):
    """(systems, tasks, {(system, task): score or None}, directions, missing spelling)."""
    systems = draw(st.lists(name, min_size=2, max_size=5, unique=True))
    tasks = draw(st.lists(task_name, min_size=1, max_size=3, unique=True))
    cells = {(s, t): draw(cell) for s in systems for t in tasks}
    for t in tasks:  # every task ranks at least two systems (else it is set aside everywhere)
        assume(sum(cells[s, t] is not None for s in systems) >= 2)
    directions = {t: draw(st.booleans()) for t in tasks}
    missing = draw(st.sampled_from(["", "NA", "n/a"]))
    return systems, tasks, cells, directions, missing


def _canonical(result: rs.aggregate) -> list[tuple[str, float | None]]:
    """Systems by score (rounded: sums in another order differ in the last bits), ties by name;
    and the result's own order must sort its scores."""
    scores = result.scores.astype(float)
    own = [scores[s] for s in result.order]
    finite = [v for v in own if not math.isnan(v)]
    assert all(a >= b - 1e-9 for a, b in itertools.pairwise(finite)), result.order
    rounded = {s: None if math.isnan(v) else round(float(v), 9) for s, v in scores.items()}
    return sorted(rounded.items(), key=lambda kv: (kv[1] is None, -(kv[1] or 0.0), kv[0]))


def _same(a: rs.aggregate, b: rs.aggregate) -> None:
    assert _canonical(a) == _canonical(b)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        return function(*args, **kwargs)


def _frames(systems, tasks, cells):
    long = pd.DataFrame(
        [(s, t, np.nan if cells[s, t] is None else cells[s, t]) for s in systems for t in tasks],
        columns=["system", "task", "score"],
    )
    wide = pd.DataFrame({"system": systems})
    for t in tasks:
        wide[t] = [np.nan if cells[s, t] is None else cells[s, t] for s in systems]
    return long, wide


def _with_words(frame: pd.DataFrame, columns: list[str], word: str) -> pd.DataFrame:
    """Missing scores spelled as ``word`` (as a spreadsheet export writes them)."""
    out = frame.astype({c: object for c in columns})
    for c in columns:
        out[c] = [word if pd.isna(v) else repr(float(v)) for v in frame[c]]
    return out


@SETTINGS
@given(task_tables())
def test_wide_long_csv_and_parquet_give_one_ranking(table):
    systems, tasks, cells, directions, word = table
    long, wide = _frames(systems, tasks, cells)
    reference = _quiet(rs.Scores.from_long, long, higher_is_better=directions)
    assert reference.systems == tuple(systems)
    from_wide = _quiet(rs.Scores.from_wide, wide, higher_is_better=directions)
    na = [word] if word else None
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        _with_words(long, ["score"], word).to_csv(d / "long.csv", index=False)
        _with_words(wide, tasks, word).to_csv(d / "wide.tsv", index=False, sep="\t")
        long.to_parquet(d / "long.parquet", index=False)
        wide.to_parquet(d / "wide.parquet", index=False)
        read = {
            f: _quiet(
                rs.read_scores,
                d / f,
                higher_is_better=directions,
                layout=f.split(".")[0],
                na_values=na if f.endswith(("csv", "tsv")) else None,
            )
            for f in ("long.csv", "wide.tsv", "long.parquet", "wide.parquet")
        }
    for scores in (from_wide, *read.values()):
        assert scores.systems == reference.systems
        assert scores.tasks == reference.tasks
    for method in ("mean", "borda", "copeland"):
        expected = rs.aggregate(reference, method)
        _same(rs.aggregate(from_wide, method), expected)
        for scores in read.values():
            _same(rs.aggregate(scores, method), expected)


@st.composite
def instance_tables(draw):
    systems = draw(st.lists(name, min_size=2, max_size=4, unique=True))
    tasks = draw(st.lists(task_name, min_size=1, max_size=2, unique=True))
    instances = draw(st.lists(name, min_size=1, max_size=3, unique=True))
    rows = []
    for t in tasks:  # grouped by (task, instance), as the streamed path needs
        for i in instances:
            for s in systems:
                rows.append((s, t, i, draw(cell)))
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    evaluated = frame.dropna(subset=["score"]).groupby(["task", "instance"]).size()
    assume((evaluated >= 2).any())  # at least one ranking
    directions = {t: draw(st.booleans()) for t in tasks}
    word = draw(st.sampled_from(["", "NA", "None"]))
    return frame, directions, word


@SETTINGS
@given(instance_tables(), st.integers(1, 7))
def test_streamed_equals_in_memory(table, batch_rows):
    frame, directions, word = table
    na = [word] if word else None
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        csv = d / "scores.csv"
        _with_words(frame, ["score"], word).to_csv(csv, index=False)
        parquet = d / "scores.parquet"
        frame.to_parquet(parquet, index=False)
        memory = _quiet(rs.read_scores, csv, higher_is_better=directions, na_values=na)
        assert memory.has_instances  # the column named "instance" is recognised
        assert memory.systems == tuple(pd.unique(frame.system))
        options = {"higher_is_better": directions, "batch_rows": batch_rows}
        routes = [
            _quiet(
                rs.scan_scores,
                csv,
                higher_is_better=directions,
                na_values=na,
                batch_rows=batch_rows,
            ),
            _quiet(rs.scan_scores, parquet, **options),
        ]
        from_parquet = _quiet(rs.read_scores, parquet, higher_is_better=directions)
        for method in ("mean", "borda", "borda2"):
            expected = rs.aggregate(memory, method)
            _same(rs.aggregate(from_parquet, method), expected)
            for scanned in routes:
                _same(rs.aggregate(scanned, method), expected)

"""Simulated outputs that cannot be mistaken for complete data: all-or-nothing part directories
with a manifest written last, atomic single files, arguments refused before any work."""

import json

import pandas as pd
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import rankstats as rs
from rankstats._util import atomic as _atomic
from rankstats.errors import OutputError
from rankstats.io.directories import MANIFEST

SMALL = dict(n_systems=5, n_tasks=3, n_instances=40, partitions=3, missing_rate=0.2, seed=1)


@pytest.fixture
def fail_at(monkeypatch):
    """Set RANKSTATS_FAIL_AT with fresh call counters (they are per process)."""

    def arm(spec):
        monkeypatch.setattr(_atomic, "_FAIL_COUNTS", {})
        monkeypatch.setenv("RANKSTATS_FAIL_AT", spec)

    yield arm
    monkeypatch.delenv("RANKSTATS_FAIL_AT", raising=False)


def _snapshot(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _leftovers(parent, name):
    return [p.name for p in parent.iterdir() if p.name.startswith(f".{name}.")]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_complete_run_has_the_manifest_last_and_right(tmp_path, fmt):
    target = tmp_path / "bench"
    files, truth = rs.simulate.gumbel_files(target, **SMALL, fmt=fmt)
    assert [f.parent for f in files] == [target] * 3 and truth == target / "truth.json"
    manifest = json.loads((target / MANIFEST).read_text())
    assert manifest["complete"] is True
    assert manifest["files"] == [f"part-{p:05d}.{fmt}" for p in range(3)]
    assert manifest["files"] == sorted(p.name for p in target.glob("part-*"))
    # Rows counted independently, by pyarrow, from the files themselves.
    if fmt == "parquet":
        rows = sum(pq.read_metadata(target / f).num_rows for f in manifest["files"])
    else:
        rows = sum(pacsv.read_csv(target / f).num_rows for f in manifest["files"])
    assert manifest["rows"] == rows
    assert rows < 5 * 3 * 40 and rows % 40 == 0  # whole (system, task) blocks removed
    generator = manifest["generator"]
    assert generator["n_systems"] == 5 and generator["partitions"] == 3
    assert generator["seed"] == 1 and generator["format"] == fmt
    assert json.loads(truth.read_text())["parameters"] == generator
    assert sorted(p.name for p in target.iterdir()) == sorted(
        [*manifest["files"], "truth.json", MANIFEST, _atomic.MARKER]
    )
    assert not _leftovers(tmp_path, "bench")
    assert rs.aggregate(rs.scan_scores(target), "borda").order[0] == "sys05"


@pytest.mark.parametrize("spec", ["simulate-part:2", "simulate-part:2:oserror"])
def test_interrupted_first_run_leaves_nothing(tmp_path, fail_at, spec):
    target = tmp_path / "bench"
    fail_at(spec)
    with pytest.raises(OSError if spec.endswith("oserror") else KeyboardInterrupt):
        rs.simulate.gumbel_files(target, **SMALL)
    assert not target.exists()
    assert not _leftovers(tmp_path, "bench")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spec", ["simulate-part:2", "simulate-part:1:oserror"])
def test_interrupted_rerun_keeps_the_earlier_complete_run(tmp_path, fail_at, spec):
    target = tmp_path / "bench"
    rs.simulate.gumbel_files(target, **SMALL)
    before = _snapshot(target)
    fail_at(spec)
    with pytest.raises(OSError if spec.endswith("oserror") else KeyboardInterrupt):
        rs.simulate.gumbel_files(target, **{**SMALL, "seed": 2, "partitions": 2})
    assert _snapshot(target) == before
    assert not _leftovers(tmp_path, "bench")


def test_complete_rerun_replaces_the_whole_set(tmp_path):
    target = tmp_path / "bench"
    rs.simulate.gumbel_files(target, **SMALL)
    files, _ = rs.simulate.gumbel_files(target, **{**SMALL, "partitions": 2})
    # No stale part-00002 from the first run beside the new ones.
    assert sorted(p.name for p in target.glob("part-*")) == [f.name for f in files]
    assert json.loads((target / MANIFEST).read_text())["files"] == [f.name for f in files]


def test_a_directory_that_is_not_ours_is_refused_before_generating(tmp_path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="non-empty directory"):
        rs.simulate.gumbel_files(foreign, **SMALL)
    assert [p.name for p in foreign.iterdir()] == ["thesis.tex"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="existing file"):
        rs.simulate.gumbel_files(tmp_path / "file", **SMALL)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "mine"]


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("n_systems", 1),
        ("n_tasks", 0),
        ("n_instances", 0),
        ("partitions", 0),
        ("partitions", 10**6),
        ("missing_rate", 1.0),
        ("scale", 0.0),
        ("phi", float("nan")),
        ("round_to", -1),
        ("missing_pattern", "row"),
        ("fmt", "xlsx"),
    ],
)
def test_gumbel_files_arguments_are_checked_before_anything_is_written(tmp_path, argument, value):
    with pytest.raises(ValueError, match=argument):
        rs.simulate.gumbel_files(tmp_path / "bench", **{**SMALL, argument: value})
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- single files
@pytest.mark.parametrize("name", ["bench.xlsx", "bench", "bench.json"])
def test_unknown_extension_is_refused_naming_the_allowed_ones(tmp_path, name):
    sim = rs.simulate.gumbel(4, 2, 3, seed=0)
    for write in (sim.to_csv, sim.to_parquet):
        with pytest.raises(OutputError, match=r"\.csv, \.csv\.gz, \.tsv, \.parquet, \.pq"):
            write(tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_csv_name_to_parquet_and_back_are_refused(tmp_path):
    sim = rs.simulate.gumbel(4, 2, 3, seed=0)
    with pytest.raises(OutputError, match="use to_csv"):
        sim.to_parquet(tmp_path / "bench.csv")
    with pytest.raises(OutputError, match="use to_parquet"):
        sim.to_csv(tmp_path / "bench.pq")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["bench.csv", "bench.csv.gz", "bench.tsv", "b.parquet", "b.pq"])
def test_every_allowed_extension_round_trips(tmp_path, name):
    sim = rs.simulate.gumbel(4, 2, 3, seed=0, missing_rate=0.2)
    write = sim.to_parquet if name.endswith(("parquet", "pq")) else sim.to_csv
    path, meta = write(tmp_path / name)
    assert path == tmp_path / name and meta == tmp_path / f"{name.split('.')[0]}.truth.json"
    if name.endswith(("parquet", "pq")):
        back = pd.read_parquet(path)
    else:
        back = pd.read_csv(path, sep="\t" if name.endswith(".tsv") else ",")
    assert len(back) == len(sim.data) and set(back.columns) == {
        "system",
        "task",
        "instance",
        "score",
    }
    assert json.loads(meta.read_text())["truth"][0] == "sys04"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, meta.name])


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError])
def test_interrupted_write_keeps_the_earlier_pair(tmp_path, monkeypatch, error):
    old = rs.simulate.gumbel(4, 2, 3, seed=0)
    old.to_parquet(tmp_path / "bench.parquet")
    before = _snapshot(tmp_path)
    new = rs.simulate.gumbel(4, 2, 3, seed=1)
    original = pd.DataFrame.to_parquet

    def half_written(self, target, *args, **kwargs):
        original(self.head(2), target, *args, **kwargs)
        raise error("interrupted while writing")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", half_written)
    with pytest.raises(error):
        new.to_parquet(tmp_path / "bench.parquet")
    # Neither the table nor its truth changed, and no temporary file is left.
    assert _snapshot(tmp_path) == before

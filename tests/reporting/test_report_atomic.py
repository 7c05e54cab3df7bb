"""``rs.report`` writes all its files or none: interrupted runs leave the previous report intact.

The ``RANKSTATS_FAIL_AT="report-file:N[:oserror]"`` hook interrupts the run after the N-th file
(``KeyboardInterrupt``, or ``OSError`` as from a full disk).
"""

import importlib

import pytest

import rankstats as rs
import rankstats._util.atomic as atomic
from rankstats.errors import OutputError

pytestmark = pytest.mark.long

STANDARD = {
    "report.html",
    "ranking.csv",
    "pairs.csv",
    "ranking.tex",
    "references.bib",
    "methods.txt",
    "data_check.csv",
    "significance_heatmap.png",
    "significance_heatmap.pdf",
}
PAIRED = {
    "paired_task01_pairs.csv",
    "paired_task01_strengths.csv",
    "paired_task01_matrix.png",
    "paired_task01_matrix.pdf",
}


@pytest.fixture(autouse=True)
def fresh_counts(monkeypatch):
    """Each run counts its checkpoints from zero; no failure unless a test asks for one."""
    monkeypatch.delenv("RANKSTATS_FAIL_AT", raising=False)
    atomic._FAIL_COUNTS.clear()
    yield
    atomic._FAIL_COUNTS.clear()


@pytest.fixture(scope="module")
def first():
    return rs.simulate.gumbel(5, 2, 20, phi=0.5, seed=1, round_to=1)


@pytest.fixture(scope="module")
def second():
    return rs.simulate.gumbel(6, 3, 20, phi=0.5, seed=2, round_to=1)


def _snapshot(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _fail_at(monkeypatch, n, kind=""):
    atomic._FAIL_COUNTS.clear()
    monkeypatch.setenv("RANKSTATS_FAIL_AT", f"report-file:{n}{kind}")


def test_files_are_final_paths_and_one_checkpoint_per_file(first, tmp_path, monkeypatch):
    out = tmp_path / "rep"
    # A failure point beyond the last file: the run completes and counts its checkpoints.
    _fail_at(monkeypatch, 1000)
    rep = rs.report(first, out=out, paired=["task01"], methods=["borda"])
    assert rep.out == out
    assert {p.name for p in rep.files} == STANDARD | PAIRED
    assert rep.files[0] == out / "report.html"
    assert all(p.parent == out and p.is_file() for p in rep.files)
    assert atomic._FAIL_COUNTS["report-file"] == len(STANDARD | PAIRED)
    assert {p.name for p in out.iterdir()} == STANDARD | PAIRED | {atomic.MARKER}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no temp dir left


@pytest.mark.parametrize("kind", ["", ":oserror"])
@pytest.mark.parametrize("n", [2, 12])  # the second file; the last one (report.html)
def test_interrupted_first_run_leaves_nothing(first, tmp_path, monkeypatch, n, kind):
    _fail_at(monkeypatch, n, kind)
    with pytest.raises(OSError if kind else KeyboardInterrupt):
        rs.report(first, out=tmp_path / "rep", paired=["task01"], methods=["borda"])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["", ":oserror"])
@pytest.mark.parametrize("n", [2, 9])  # the second file; one inside the paired section
def test_interrupted_rerun_keeps_previous_report(first, second, tmp_path, monkeypatch, n, kind):
    out = tmp_path / "rep"
    rs.report(first, out=out, paired=["task01"], methods=["borda"])
    before = _snapshot(out)
    _fail_at(monkeypatch, n, kind)
    with pytest.raises(OSError if kind else KeyboardInterrupt):
        rs.report(second, out=out, methods=["borda", "mean"], paired=["task01"])
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_rerun_replaces_the_whole_set(first, second, tmp_path):
    out = tmp_path / "rep"
    rs.report(first, out=out, paired=["task01"], methods=["borda"])
    rep = rs.report(second, out=out, methods=["borda"])
    # The paired files of the first run are gone: no stale file next to new ones.
    assert {p.name for p in out.iterdir()} == STANDARD | {atomic.MARKER}
    assert "We ranked 6 systems on 3 tasks" in (out / "methods.txt").read_text(encoding="utf-8")
    assert {p.name for p in rep.files} == STANDARD


def _no_computing(monkeypatch):
    module = importlib.import_module("rankstats.reporting.report_data")

    def refuse(*args, **kwargs):
        raise AssertionError("computing started before the output directory was checked")

    # After compute's own checks (compute.check), the first computing step builds rankings.
    monkeypatch.setattr(module, "pairwise", refuse)
    monkeypatch.setattr(module, "aggregate_many", refuse)


def test_bad_output_refused_before_computing(first, tmp_path, monkeypatch):
    _no_computing(monkeypatch)
    existing_file = tmp_path / "file.txt"
    existing_file.write_text("keep me")
    with pytest.raises(OutputError, match="existing file"):
        rs.report(first, out=existing_file, models=["pl"])
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.md").write_text("not a report")
    with pytest.raises(OutputError, match="did not write"):
        rs.report(first, out=foreign, models=["pl"])
    assert existing_file.read_text() == "keep me"
    assert [p.name for p in foreign.iterdir()] == ["notes.md"]
    with pytest.raises(ValueError, match="unknown model"):
        rs.report(first, out=tmp_path / "new", models=["nope"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "mine"]

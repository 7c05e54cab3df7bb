"""`rankstats check`, and the data check that `rank` and `report` run first (issue 23): the
open_clip leaderboard's aggregate / metadata columns and FMoW zeros, the AutoML benchmark's
failed runs and folds; expectations from pandas on the raw files."""

import json
from pathlib import Path

import pandas as pd
import pytest

from rankstats.cli import main
from rankstats.datasets import data_path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "outside"
OPENCLIP = str(data_path("openclip_results.csv"))  # bundled: a byte-for-byte copy of DATA's
AMLB = str(DATA / "amlb2019_4h_all_results.csv")
NOT_TASKS = ["params (M)", "FLOPs (B)", "Average perf. on 38 datasets"]
KEY = ["--system", "name", "pretrained"]


def test_check_openclip_prints_and_writes_the_findings(tmp_path, capsys):
    out = tmp_path / "chk"
    assert main(["check", OPENCLIP, *KEY, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "equals the row mean of the 38 other task columns to 5e-05" in printed
    assert "--drop-columns 'params (M)' 'FLOPs (B)'" in printed
    assert "task 'FMoW' holds 31 exact 0" in printed and "--placeholders missing" in printed
    report = json.loads((out / "check.json").read_text())
    kinds = [f["kind"] for f in report["findings"]]
    assert kinds == ["aggregate-column", "metadata-column", "placeholder"]
    refused = {c for f in report["findings"] if f["severity"] == "error" for c in f["subject"]}
    assert refused == set(NOT_TASKS)
    assert report["data"]["tasks"] == 38
    table = pd.read_csv(out / "check.csv")
    assert list(table["kind"]) == kinds


def test_rank_refuses_the_columns_in_the_cli_words(tmp_path, capsys):
    assert main(["rank", OPENCLIP, *KEY, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rankstats rank: error: ") and len(err.splitlines()) == 1
    for column in NOT_TASKS:
        assert repr(column) in err
    assert "--drop-columns 'params (M)'" in err and "drop_columns=" not in err
    assert not (tmp_path / "r").exists()


def test_rank_runs_the_check_first(tmp_path, capsys):
    out = tmp_path / "r"
    args = ["rank", OPENCLIP, *KEY, "--drop-columns", *NOT_TASKS, "--no-figures"]
    assert main([*args, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "rankstats rank: warning: data check: task 'FMoW' holds 31 exact 0" in err
    summary = json.loads((out / "summary.json").read_text())["data"]
    assert [f["kind"] for f in summary["data_check"]] == ["placeholder"]
    assert summary["scores"] == 121 * 38

    raw = pd.read_csv(OPENCLIP)
    assert main([*args, "--placeholders", "missing", "--out", str(out)]) == 0
    assert "read the placeholder scores (31 in FMoW) as not evaluated" in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())["data"]
    assert summary["scores"] == 121 * 38 - int((raw["FMoW"] == 0).sum())
    assert summary["placeholders"] == "missing"


@pytest.mark.skipif(
    not Path(AMLB).exists(), reason="the AutoML benchmark's file (../shared/data/outside) is absent"
)
def test_check_automl_failed_runs_and_folds(tmp_path, capsys):
    raw = pd.read_csv(AMLB)
    out = tmp_path / "chk"
    assert (
        main(["check", AMLB, "--system", "framework", "--instance", "fold", "--out", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert f"{raw['score'].isna().sum()} of {len(raw)} scores are missing" in printed  # 47, 2730
    assert "the instance column is named 'fold'" in printed and "--by task" in printed
    findings = json.loads((out / "check.json").read_text())["findings"]
    (folds,) = [f for f in findings if f["kind"] == "folds"]
    assert folds["severity"] == "warning"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--drop-columns", "nope"], "no column named as --system system, --drop-columns nope"),
        (["--dataset", "glue", "--drop-columns", "x"], "--drop-columns applies to FILE input"),
    ],
)
def test_bad_drop_columns(tmp_path, capsys, argv, words):
    args = ["check", *argv, "--out", str(tmp_path / "c")]
    if "--dataset" not in argv:
        args.insert(1, OPENCLIP)
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rankstats check: error: ") and words in err
    assert not (tmp_path / "c").exists()


def test_report_has_a_data_check_section(tmp_path, capsys):
    path = tmp_path / "board.csv"
    rows = ["system,t1,t2,t3"] + [
        f"s{i},{0.3 + i / 50:.3f},{0.2 + i / 40:.3f},0.0" for i in range(3)
    ]
    rows += [f"s{i},{0.3 + i / 50:.3f},{0.2 + i / 40:.3f},{0.5 + i / 30:.3f}" for i in range(3, 9)]
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "rep"
    assert main(["report", str(path), "--methods", "borda", "--out", str(out)]) == 0
    assert "data check: task 't3' holds 3 exact 0" in capsys.readouterr().err
    page = (out / "report.html").read_text()
    assert "<h2 id='data-check'>Data check</h2>" in page and "--placeholders missing" in page
    assert pd.read_csv(out / "data_check.csv")["kind"].tolist() == ["placeholder"]


def test_check_reports_a_table_whose_every_task_is_one_tie(tmp_path, capsys):
    """What ``fit`` refuses (no order information), ``check`` names: the tied tasks."""
    path = tmp_path / "tied.csv"
    path.write_text("system,task,score\na,t1,1\nb,t1,1\nc,t1,1\na,t2,2\nb,t2,2\nc,t2,2\n")
    out = tmp_path / "chk"
    assert main(["check", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "warning: no-order: every one of the 2 tasks ties all its systems: t1, t2" in printed
    assert "--score names the score column" in printed
    (finding,) = json.loads((out / "check.json").read_text())["findings"]
    assert (finding["kind"], finding["subject"]) == ("no-order", ["t1", "t2"])
    assert main(["fit", str(path), "--method", "mle", "--out", str(tmp_path / "f")]) == 2
    assert "no order information" in capsys.readouterr().err

"""The `rankstats power` command: the library's numbers, written atomically; bad input refused in
one line before anything is simulated."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs
from rankstats.cli.options import power as options
from rankstats.planning import battle_replications, power_analysis, power_result, replications


def test_the_option_lists_are_the_library_s() -> None:
    assert options.TESTS == replications.TESTS + battle_replications.BATTLE_TESTS
    assert options.BATTLE_TESTS == battle_replications.BATTLE_TESTS
    assert set(options.TARGETS) == {*power_result.TARGETS, *power_result.RECOVERY_TARGETS}
    assert options.VARIES == power_analysis.VARIES + power_analysis.BATTLE_VARIES


def test_power_writes_the_library_s_tables(tmp_path, capsys) -> None:
    out = tmp_path / "pw"
    argv = [
        "power",
        "--systems",
        "4",
        "--instances",
        "120",
        "--phi",
        "0.3",
        "--tests",
        "sign",
        "hoeffding",
        "--pair",
        "sys04",
        "sys03",
        "--n-replications",
        "300",
        "--out",
        str(out),
    ]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    lib = rs.power(
        n_systems=4,
        n_instances=120,
        phi=0.3,
        tests=["sign", "hoeffding"],
        pair=("sys04", "sys03"),
        n_replications=300,
        progress=False,
    )
    written = pd.read_csv(out / "pairs.csv")
    pd.testing.assert_series_equal(written["power"], lib.pairs["power"], check_names=False)
    summary = pd.read_csv(out / "summary.csv").set_index("test")
    assert summary.loc["sign", "pair"] == pytest.approx(lib.summary.loc["sign", "pair"])
    assert f"{lib.summary.loc['sign', 'pair']:.3f} ± " in stdout
    assert lib.sentence("sign", "pair") in stdout


def test_sample_size_writes_the_curve_and_figure(tmp_path, capsys) -> None:
    out = tmp_path / "ss"
    argv = [
        "power",
        "--systems",
        "2",
        "--phi",
        "0.4",
        "--tests",
        "sign",
        "--target-power",
        "0.8",
        "--target",
        "pair",
        "--pair",
        "sys02",
        "sys01",
        "--sizes",
        "20",
        "50",
        "100",
        "200",
        "400",
        "--n-replications",
        "200",
        "--out",
        str(out),
    ]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    curve = pd.read_csv(out / "curve.csv")
    assert list(curve.columns[:4]) == ["n_instances", "power", "power_se", "fitted"]
    assert (out / "power_curve.png").exists()
    assert "reaches power 0.8" in stdout


def test_accuracies_give_card_s_design(tmp_path, capsys) -> None:
    argv = [
        "power",
        "--accuracies",
        "0.80",
        "0.82",
        "--agreement",
        "0.975",
        "--instances",
        "500",
        "--tests",
        "mcnemar",
        "--n-replications",
        "400",
        "--out",
        str(tmp_path / "acc"),
    ]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    design = rs.BenchmarkDesign.from_accuracies([0.8, 0.82], agreement=0.975, n_instances=500)
    lib = rs.power(design, tests="mcnemar", n_replications=400, progress=False)
    summary = pd.read_csv(tmp_path / "acc" / "summary.csv").set_index("test")
    assert summary.loc["mcnemar", "adjacent"] == pytest.approx(
        lib.summary.loc["mcnemar", "adjacent"]
    )
    assert "binary outcomes, accuracies 0.8, 0.82" in stdout


def test_a_pilot_calibrates_the_design(tmp_path, capsys) -> None:
    argv = [
        "power",
        "--dataset",
        "summeval",
        "--metric",
        "BERTScore",
        "--tests",
        "t",
        "--n-replications",
        "200",
        "--out",
        str(tmp_path / "pilot"),
    ]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    cal = rs.calibrate(rs.load_dataset("summeval").select(tasks=["BERTScore"]))
    lib = rs.power(cal.design, tests="t", n_replications=200, progress=False)
    summary = pd.read_csv(tmp_path / "pilot" / "summary.csv").set_index("test")
    assert summary.loc["t", "adjacent"] == pytest.approx(lib.summary.loc["t", "adjacent"])
    pairs = pd.read_csv(tmp_path / "pilot" / "calibration_pairs.csv")
    assert pairs["model_win_rate"].to_numpy() == pytest.approx(cal.pairs["model_win_rate"])
    assert "calibrated on the pilot" in stdout
    argv = [
        "power",
        "--dataset",
        "summeval",
        "--metric",
        "BERTScore",
        "--tests",
        "t",
        "--target-power",
        "0.8",
        "--vary",
        "phi",
        "--sizes",
        "0.05",
        "0.2",
        "0.8",
        "--refine",
        "0",
        "--n-replications",
        "100",
        "--out",
        str(tmp_path / "mde"),
    ]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    found = cal.detectable(n_replications=100, sizes=[0.05, 0.2, 0.8], refine=0)
    assert found.sentence() in stdout


@pytest.mark.long
def test_report_power_section(tmp_path, capsys) -> None:
    rng = np.random.default_rng(0)
    rows = [(f"s{i}", "m", k, 0.2 * i + rng.normal()) for i in range(4) for k in range(40)]
    path = tmp_path / "pilot.csv"
    pd.DataFrame(rows, columns=["system", "task", "instance", "score"]).to_csv(path, index=False)
    argv = [
        "report",
        str(path),
        "--power",
        "--n-replications",
        "50",
        "--out",
        str(tmp_path / "rep"),
    ]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert (tmp_path / "rep" / "power_curve.csv").exists()
    assert "[card2020]" in (tmp_path / "rep" / "methods.txt").read_text()
    code, _, err = run(
        ["report", str(path), "--power-test", "t", "--out", str(tmp_path / "never")], capsys
    )
    assert code == 2
    one_error_line(err, "report", "--power-test: only with --power")


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--pair", "sys01", "nope"], ["unknown system 'nope'"]),
        (["--tests", "sign", "t", "--target-power", "0.8"], ["one test"]),
        (["--target", "pair"], ["--target needs --target-power"]),
        (["--target-power", "0.8", "--tests", "sign", "--target", "pair"], ["--pair"]),
        (["--sizes", "10", "5", "--target-power", "0.8"], ["increase"]),
        (["--by", "task"], ["n_tasks"]),
        (["--n-jobs", "0"], ["--n-jobs"]),
        (["--alpha", "2"], ["--alpha"]),
        (["--tests", "mcnemar"], ["--accuracies"]),
        (["--accuracies", "0.7", "0.8", "--phi", "0.3"], ["--phi cannot be given"]),
        (["--agreement", "0.9"], ["--agreement needs --accuracies"]),
        (["--accuracies", "0.7", "0.8", "--agreement", "0.99"], ["impossible"]),
        (["--correlation", "0.5"], ["normal noise"]),
        (["--dataset", "summeval", "--phi", "0.3"], ["--phi cannot be given"]),
        (["--metric", "BERTScore"], ["give a pilot"]),
        (["--dataset", "summeval", "--metric", "nope"], ["unknown task"]),
        (["--systems", "400", "--n-replications", "200000"], ["--ignore-memory-check"]),
        (["--models", "5", "--instances", "100"], ["battle design", "--instances"]),
        (["--tests", "battles", "hoeffding"], ["battle logs"]),
        (["--models", "5", "--tests", "sign"], ["--tests sign"]),
        (["--systems", "5", "--vary", "n_battles", "--target-power", "0.8"], ["battle design"]),
        (["--models", "5", "--vary", "phi", "--target-power", "0.8"], ["--vary phi"]),
        (["--models", "5", "--target-power", "0.8", "--target", "borda_top1"], ["bt_top1"]),
        (["--battle-log", "nope.csv"], ["nope.csv"]),
        (["--model-a", "first"], ["--model-a", "--battle-log"]),
        (["--models", "4", "--winner", "w"], ["--winner", "--battle-log"]),
    ],
)
def test_bad_input_is_one_line(tmp_path, capsys, argv, needles) -> None:
    out = tmp_path / "never"
    code, _stdout, err = run(["power", *argv, "--out", str(out)], capsys)
    assert code == 2
    one_error_line(err, "power", *needles)
    assert not out.exists()


def test_a_battle_design_writes_the_library_s_tables(tmp_path, capsys) -> None:
    out = tmp_path / "battles"
    argv = ["power", "--models", "4", "--battles", "800", "--elo-step", "60", "--tie", "0"]
    argv += ["--n-replications", "300", "--out", str(out)]
    code, stdout, _err = run(argv, capsys)
    assert code == 0
    res = rs.power(
        rs.BattleDesign(n_models=4, n_battles=800, elo_step=60, tie=0.0),
        n_replications=300,
        progress=False,
    )
    summary = pd.read_csv(out / "summary.csv").set_index("test")
    assert np.allclose(summary["adjacent"], res.summary["adjacent"])
    assert "simulated battle logs" in stdout and res.sentence() in stdout


def test_a_pilot_battle_log_sets_the_battle_design(tmp_path, capsys) -> None:
    from rankstats.datasets import battles_path

    path = battles_path("arena_hard")
    out = tmp_path / "pilot"
    argv = ["power", "--battle-log", str(path), "--battles", "4000", "--n-replications", "200"]
    code, stdout, err = run([*argv, "--out", str(out)], capsys)
    assert code == 0
    assert "fitted on a pilot of 2,136 battles" in stdout
    assert "extrapolated" in stdout + err  # 4,000 battles: beyond the pilot, said
    assert (out / "pairs.csv").exists()
    # A log with its own column names.
    renamed = tmp_path / "renamed.csv"
    frame = pd.read_json(path, lines=True).rename(columns={"model_a": "first", "winner": "w"})
    frame["w"] = frame["w"].replace({"model_a": "a", "model_b": "b"})
    frame.to_csv(renamed, index=False)
    argv = ["power", "--battle-log", str(renamed), "--model-a", "first", "--winner", "w"]
    code, stdout, _ = run([*argv, "--n-replications", "100", "--out", str(tmp_path / "r")], capsys)
    assert code == 0 and "fitted on a pilot of 2,136 battles" in stdout

"""The `rankstats rank` command: printed table, written files, and every number in the JSON."""

import json

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.cli import main


def test_rank_bundled_dataset(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rank", "--dataset", "xtreme_missing", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "one-level Borda with imputation (σ^l)" in printed
    assert "Turing ULR v5 Alexander v-team Microsoft" in printed
    for name in (
        "ranking.csv",
        "pairs.csv",
        "summary.json",
        "significance_heatmap.png",
        "significance_heatmap.pdf",
    ):
        assert (out / name).stat().st_size > 0, name
    assert (out / "significance_heatmap.png").read_bytes()[:4] == b"\x89PNG"

    summary = json.loads((out / "summary.json").read_text())
    scores = rs.load_dataset("xtreme_missing")
    borda = rs.aggregate(scores, method="borda")
    mean = rs.aggregate(scores, method="mean")
    ranking = pd.DataFrame(summary["ranking"])
    assert ranking["system"].tolist() == borda.order
    np.testing.assert_allclose(ranking["borda"], borda.table["score"])
    np.testing.assert_allclose(ranking["mean"], mean.scores[borda.order].to_numpy())
    ci = rs.hoeffding(rs.pairwise(rs.Rankings.from_scores(scores)), order=borda.order)
    pairs = pd.DataFrame(summary["pairs"])
    np.testing.assert_allclose(pairs["low"], ci["low"])
    assert summary["significant_pairs"] == int(ci["significant"].sum() // 2)
    assert summary["parameters"]["correction"] == "holm"
    # Every printed score appears in the JSON (4 decimals as printed).
    for value in ranking["borda"]:
        assert f"{value:.4f}" in printed


def test_rank_own_file_instance_level(tmp_path, capsys):
    rng = np.random.default_rng(0)
    rows = []
    for task in ("acc", "loss"):
        for inst in range(40):
            for k, system in enumerate(["x", "y", "z"]):
                value = k + rng.normal()
                rows.append((system, task, inst, -value if task == "loss" else value))
    df = pd.DataFrame(rows, columns=["model", "metric", "example", "value"])
    df.loc[5, "value"] = np.nan
    path = tmp_path / "scores.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = [
        "rank",
        str(path),
        "--by",
        "instance",
        "--method",
        "borda2",
        "--delta",
        "0.01",
        "--correction",
        "holm",
        "--system",
        "model",
        "--task",
        "metric",
        "--instance",
        "example",
        "--score",
        "value",
        "--lower-is-better",
        "loss",
        "--out",
        str(out),
        "--no-figures",
    ]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert [r["system"] for r in summary["ranking"]] == ["z", "y", "x"]
    expected = rs.aggregate(
        rs.Scores.from_long(
            df, "model", "metric", "example", "value", higher_is_better={"loss": False}
        ),
        method="borda2",
    )
    np.testing.assert_allclose([r["borda2"] for r in summary["ranking"]], expected.table["score"])
    assert summary["parameters"]["delta"] == 0.01
    assert summary["data"]["rankings"] == 80
    assert summary["significant_pairs"] >= 1


def test_rank_errors(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"system": ["a", "b"], "t": [1.0, "oops"]}).to_csv(bad, index=False)
    assert main(["rank", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "non-numeric" in capsys.readouterr().err
    assert main(["rank", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip() == (
        "rankstats rank: error: give a score FILE or --dataset NAME (exactly one)"
    )


def test_datasets_command(capsys):
    assert main(["datasets"]) == 0
    assert "xtreme_missing" in capsys.readouterr().out


def _stream_files(tmp_path):
    """A long instance-level table under other column names, whole and cut into three parts."""
    sim = rs.simulate.gumbel(6, 3, 25, phi=0.4, seed=2, missing_rate=0.2)
    df = sim.data.astype({"system": str, "task": str})
    df = df.sort_values(["task", "instance"], kind="stable").reset_index(drop=True)
    df = df.rename(columns={"system": "model", "task": "metric", "instance": "example"})
    df["value"] = np.where(df["metric"] == "task02", -df["score"], df["score"])
    df = df.drop(columns="score")
    whole = tmp_path / "whole.parquet"
    df.to_parquet(whole, index=False)
    (tmp_path / "parts").mkdir()
    for k, cut in enumerate(np.array_split(np.arange(len(df)), 3)):  # cuts inside instances
        df.iloc[cut].to_parquet(tmp_path / "parts" / f"part{k}.parquet", index=False)
    return whole, df


def _table_lines(printed):
    """The printed table, notes and matrix (not the title, input description or file list)."""
    lines = printed.splitlines()
    return [line for line in lines[2:] if not line.startswith("wrote")]


@pytest.mark.parametrize("method", ["borda", "borda2", "mean"])
def test_rank_stream_equals_in_memory(tmp_path, capsys, method):
    whole, _ = _stream_files(tmp_path)
    columns = ["--system", "model", "--task", "metric", "--instance", "example"]
    common = [*columns, "--score", "value", "--lower-is-better", "task02", "--method", method]
    common += ["--by", "instance", "--no-figures"]
    assert main(["rank", str(whole), *common, "--out", str(tmp_path / "memory")]) == 0
    memory_printed = capsys.readouterr().out
    runs = {
        "file": [str(whole), "--batch-rows", "37"],
        "glob": [str(tmp_path / "parts" / "part*.parquet"), "--batch-rows", "16", "--progress"],
    }
    if method == "borda2":  # two local worker processes (their start costs ~1 s)
        runs["workers"] = [str(tmp_path / "parts"), "--n-jobs", "2"]
    for label, source in runs.items():
        out = tmp_path / label
        assert main(["rank", *source, "--stream", *common, "--out", str(out)]) == 0
        captured = capsys.readouterr()
        assert _table_lines(captured.out) == _table_lines(memory_printed), label
        assert ("rows read" in captured.err) == (label == "glob")
        for name in ("ranking.csv", "pairs.csv"):
            a = pd.read_csv(out / name)
            b = pd.read_csv(tmp_path / "memory" / name)
            pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=1e-12)
        summary = json.loads((out / "summary.json").read_text())
        expected = json.loads((tmp_path / "memory" / "summary.json").read_text())
        for key in ("systems", "tasks", "scores", "level", "rankings", "never_evaluated"):
            assert summary["data"][key] == expected["data"][key], key
        assert summary["significant_pairs"] == expected["significant_pairs"]


def test_rank_stream_errors(tmp_path, capsys):
    whole, _ = _stream_files(tmp_path)
    cols = ["--system", "model", "--task", "metric", "--instance", "example", "--score", "value"]
    assert main(["rank", str(whole), "--stream", "--method", "copeland", *cols]) == 2
    assert "supports --method mean, borda, borda2" in capsys.readouterr().err
    assert main(["rank", str(whole), "--stream", "--by", "task", *cols]) == 2
    assert "--by instance" in capsys.readouterr().err
    assert main(["rank", "--dataset", "glue", "--stream"]) == 2
    assert "not --dataset" in capsys.readouterr().err
    assert main(["rank", str(whole), "--n-jobs", "2", *cols]) == 2
    assert "apply to --stream" in capsys.readouterr().err
    assert main(["rank", str(tmp_path / "nothing*.parquet"), "--stream", *cols]) == 2
    assert "no file matches" in capsys.readouterr().err


def test_rank_kemeny_reports_an_unproved_consensus(tmp_path, capsys, monkeypatch):
    """``rank --method kemeny`` prints and records the gap when the search ran out of time."""
    import importlib

    # rs.kemeny (the function) shadows the module's name: take the module itself.
    monkeypatch.setattr(
        importlib.import_module("rankstats.aggregation.kemeny_search"), "DEFAULT_TIME_LIMIT", 0.5
    )
    rng = np.random.default_rng(0)
    n, tasks = 100, 200
    wide = pd.DataFrame(
        np.column_stack([rng.permutation(n) for _ in range(tasks)]).astype(float),
        columns=[f"t{k}" for k in range(tasks)],
    )
    wide.insert(0, "system", [f"s{i:03d}" for i in range(n)])
    path = tmp_path / "hard.csv"
    wide.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["rank", str(path), "--method", "kemeny", "--no-figures", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())["parameters"]["kemeny"]
    assert summary["optimal"] is False
    assert 0 <= summary["lower_bound"] <= summary["cost"]
    assert summary["gap"] == pytest.approx(
        (summary["cost"] - summary["lower_bound"]) / summary["cost"]
    )
    assert "NOT proved optimal" in captured.out
    assert f"gap {summary['gap']:.3%}" in captured.out
    assert "warning" not in captured.err  # stated once, in the output


@pytest.mark.parametrize("method", ["borda", "borda2", "copeland", "mean"])
def test_rank_builds_rankings_and_pairwise_once(tmp_path, capsys, monkeypatch, method):
    import sys

    from rankstats.core.rankings import Rankings

    calls = {"from_scores": 0, "pairwise": 0}
    original_from_scores = Rankings.from_scores.__func__
    pairwise_module = sys.modules["rankstats.core.pair_probabilities"]
    original_pairwise = pairwise_module.pairwise

    def counted_from_scores(cls, *args, **kwargs):
        calls["from_scores"] += 1
        return original_from_scores(cls, *args, **kwargs)

    def counted_pairwise(*args, **kwargs):
        calls["pairwise"] += 1
        return original_pairwise(*args, **kwargs)

    monkeypatch.setattr(Rankings, "from_scores", classmethod(counted_from_scores))
    monkeypatch.setattr(sys.modules["rankstats.cli.rank"], "pairwise", counted_pairwise)
    argv = ["rank", "--dataset", "summeval", "--method", method, "--no-figures"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
    assert calls == {"from_scores": 1, "pairwise": 1}

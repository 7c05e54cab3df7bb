"""The `rankstats simulate` command."""

import pandas as pd

import rankstats as rs


def test_cli_simulate(tmp_path):
    from rankstats.cli import main

    out = tmp_path / "bench.parquet"
    args = ["simulate", "--systems", "5", "--tasks", "3", "--instances", "4", "--adversarial", "1"]
    assert main([*args, "--out", str(out)]) == 0
    back = rs.read_scores(out, instance="instance")
    assert back.n_systems == 5 and (tmp_path / "bench.truth.json").exists()


def test_cli_simulate_partitions(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "bench"
    args = ["simulate", "--systems", "4", "--tasks", "3", "--instances", "50", "--out", str(out)]
    assert main([*args, "--partitions", "2", "--missing-rate", "0.3", "--format", "csv"]) == 0
    assert "wrote 2 csv files" in capsys.readouterr().out
    frame = pd.concat([pd.read_csv(f) for f in sorted(out.glob("part-*.csv"))])
    assert len(frame) % 50 == 0 and frame["instance"].max() == 49
    assert main(["simulate", "--out", str(out), "--partitions", "2"]) == 2
    assert "needs --instances" in capsys.readouterr().err

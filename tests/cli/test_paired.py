"""The `rankstats paired` command."""

import numpy as np
import pandas as pd

import rankstats as rs


def test_cli(tmp_path, capsys):
    from rankstats.cli import main

    assert (
        main(
            [
                "paired",
                "--dataset",
                "dialogue_tc",
                "--task",
                "BLEU",
                "--n-resamples",
                "200",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "BLEU" in out and "aggregator agreement" in out
    for name in ("pairs.csv", "strengths.csv", "agreement.csv", "summary.json", "matrix.png"):
        assert (tmp_path / name).exists(), name
    assert list(tmp_path.glob("pair_*_vs_*.png"))
    import json

    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["parameters"]["task"] == "BLEU" and len(summary["pairs"]) == 10
    # The pairformance format: one row per instance, one column per system.
    from rankstats.datasets import data_path

    wide = data_path("pairformance_dialogue_tc_moverscore.csv.gz")
    out_dir = tmp_path / "pf"
    args = ["paired", str(wide), "--systems-as-columns", "--n-resamples", "100"]
    args += ["--pair", "M1", "M0", "--out", str(out_dir)]
    assert main(args) == 0
    pairs = pd.read_csv(out_dir / "pairs.csv")
    expected = rs.paired(pd.read_csv(wide), n_resamples=100).pairs
    np.testing.assert_allclose(pairs["sign_p"], expected["sign_p"])
    assert (out_dir / "pair_M1_vs_M0.png").exists()
    # A long file: --task names the metric, --task-column the column.
    long = rs.load_dataset("dialogue_tc", tasks=["BLEU", "ROUGE_L"]).data
    long = long.rename(columns={"task": "metric"})
    long.to_csv(tmp_path / "long.csv", index=False)
    args = ["paired", str(tmp_path / "long.csv"), "--task-column", "metric", "--instance"]
    args += ["instance", "--task", "ROUGE_L", "--no-figures", "--out", str(tmp_path / "l")]
    assert main([*args, "--n-resamples", "50"]) == 0
    assert "ROUGE_L" in capsys.readouterr().out
    assert (
        main(["paired", "--dataset", "dialogue_tc", "--task", "nope", "--out", str(tmp_path)]) == 2
    )

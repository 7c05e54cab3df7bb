"""The `rankstats fit` command."""

from __future__ import annotations

import pandas as pd
import pytest

import rankstats as rs


def test_fit_command(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "out"
    code = main(
        [
            "fit",
            "--rankings",
            "salad",
            "--method",
            "mle",
            "--out",
            str(out),
            "--save",
            str(tmp_path / "zoo"),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "log-likelihood: -76.4153" in text and "P(row ranked above column)" in text
    worth = pd.read_csv(out / "pl_worth.csv")
    assert worth["system"].tolist() == ["B", "C", "D", "A"]
    assert (out / "pl_forest.png").exists() and (out / "pl_pairwise.csv").exists()
    assert rs.models.load("salad", "pl", tmp_path / "zoo").order == ["B", "C", "D", "A"]
    # no MLE: the error names the systems, exit code 2
    assert (
        main(["fit", "--dataset", "xtreme", "--method", "mle", "--no-figures", "--out", str(out)])
        == 2
    )
    assert "never beat" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::rankstats.models._fit.ConvergenceWarning")  # short chains
def test_cli_fit_mallows(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "out"
    args = ["fit", "--rankings", "potato_visual", "--model", "mallows", "--out", str(out)]
    assert main([*args, "--method", "map", "--save", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    exact = rs.models.Mallows().fit(rs.load_rankings("potato_visual"), method="map")
    assert f"theta = {exact.theta:.6g}" in text
    table = pd.read_csv(out / "mallows_consensus.csv")
    assert table["system"].tolist() == exact.order
    assert (tmp_path / "potato_visual_mallows.nc").exists()
    assert main([*args, "--draws", "200", "--tune", "50", "--chains", "2", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "Gibbs sampler: 2 chains × 200 sweeps" in text
    table = pd.read_csv(out / "mallows_consensus.csv")
    assert {"position", "sd", "r_hat", "ess_bulk"} <= set(table.columns)
    assert main([*args, "--method", "nuts"]) == 2
    assert "mcmc or map" in capsys.readouterr().err

"""``rankstats irt``: a fit from a long or wide file, its tables, and its errors."""

import json

import pandas as pd
from cli_run import one_error_line, run

from rankstats.irt.simulation import simulate_responses


def _long(tmp_path, values=None):
    sim = simulate_responses(20, 40, "2pl", missing_rate=0.1, seed=2)
    frame = sim.responses.to_frame()
    if values is not None:
        frame.iloc[0, 0] = values
    long = frame.stack().rename("score").rename_axis(["system", "instance"]).reset_index()
    path = tmp_path / "answers.csv"
    long.assign(task="qa").to_csv(path, index=False)
    return path


def test_irt_writes_its_tables(tmp_path, capsys):
    out = tmp_path / "out"
    code, stdout, _ = run(
        ["irt", str(_long(tmp_path)), "--slope-sd", "0.5", "--out", str(out)], capsys
    )
    assert code == 0
    assert "rank set" in stdout and "measures best between" in stdout
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert names == {
        "abilities.csv",
        "items.csv",
        "ranking.csv",
        "comparison.csv",
        "flags.csv",
        "item_fit.csv",
        "summary.json",
    }
    ranking = pd.read_csv(out / "ranking.csv")
    assert len(ranking) == 20 and (ranking["rank_low"] <= ranking["rank_high"]).all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["model"] == "2pl" and summary["converged"]


def test_irt_refuses_a_score_that_is_not_an_answer(tmp_path, capsys):
    code, _, err = run(["irt", str(_long(tmp_path, values=0.5))], capsys)
    assert code == 2
    one_error_line(err, "irt", "0.5", "s0", "i0")

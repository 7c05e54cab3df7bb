"""The `rankstats kemeny` command."""

import pandas as pd
import pytest

import rankstats as rs


def test_cli_kemeny(tmp_path, capsys):
    import json

    from rankstats.cli import main

    assert main(["kemeny", "--dataset", "xtreme_missing", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "proved optimal" in printed and "dispersion" in printed
    summary = json.loads((tmp_path / "kemeny.json").read_text())
    expected = rs.kemeny(rs.load_dataset("xtreme_missing"))
    assert summary["kemeny"]["order"] == expected.order
    assert summary["kemeny"]["cost"] == pytest.approx(expected.cost)
    table = pd.read_csv(tmp_path / "kemeny.csv")
    assert table["system"].tolist() == expected.order

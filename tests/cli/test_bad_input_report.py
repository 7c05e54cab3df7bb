"""``rankstats report`` and ``rs.report`` on a table of one system (issue 45, item 8): refused as
the other significance entry points refuse it (``core.rankings.require_systems``), before
anything is computed or written, instead of an empty report."""

from __future__ import annotations

import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs
from rankstats.errors import DataWarning

MESSAGE = "comparing systems needs at least 2; the table has 1: A"


@pytest.mark.parametrize(
    ("text", "extra"),
    [
        ("system,task,score\nA,t1,1\nA,t2,2\nA,t3,3\n", []),
        ("system,task,instance,score\nA,t1,1,1\nA,t1,2,0\nA,t2,1,3\n", ["--instance", "instance"]),
        ("ranker,A\nr1,1\nr2,1\n", ["--format", "rank-matrix"]),
    ],
    ids=["scores", "instances", "rankings"],
)
def test_cli_report_of_one_system_is_refused(text, extra, tmp_path, capsys):
    path = tmp_path / "one.csv"
    path.write_text(text)
    out = tmp_path / "report"
    code, printed, err = run(["report", str(path), *extra, "--out", str(out)], capsys)
    assert code == 2, err
    one_error_line(err, "report", MESSAGE)
    assert not out.exists() and not list(tmp_path.glob(".*partial*"))
    assert "wrote" not in printed


def test_api_report_of_one_system_is_refused(tmp_path):
    with pytest.warns(DataWarning, match="one system"):
        scores = rs.Scores.from_long(
            pd.DataFrame({"system": ["A"] * 3, "task": ["t1", "t2", "t3"], "score": [1.0, 2, 3]})
        )
    with pytest.warns(DataWarning, match="fewer than two systems"):
        rankings = rs.Rankings.from_orderings([["A"], ["A"]])
    for data in (scores, rankings):
        out = tmp_path / "report"
        with pytest.raises(ValueError, match=f"^{MESSAGE}$"):
            rs.report(data, out=out)
        assert not out.exists()

"""``rankstats fit`` and ``fit --compare`` on bad and unusual input (issue 23).

The classification of ``tests/cli/test_bad_input.py``: a user error exits 2 with one line
``rankstats fit: error: …`` naming the problem in the command's flags (never a Python argument
such as ``method='map'``), and leaves no output; valid but degenerate data exit 0 with a
warning on stderr that is also recorded in the outputs, checked against what the design implies
or an independent computation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from cli_run import one_error_line, run

import rankstats as rs

#: A Python spelling of an option: ``method='map'``, ``draws=``, ``prior_scale``.
PYTHON_SPELLING = re.compile(r"\b\w+\s*=\s*['\"]|\b(draws|tune|max_draws|target_accept)=|_scale\b")

FILES = {
    # every score missing: no ranking at all
    "no_scores": "system,task,score\na,t1,\nb,t1,\nc,t1,\na,t2,\nb,t2,\nc,t2,\n",
    # every task ties every system: no order information
    "all_tied": "system,task,score\na,t1,1\nb,t1,1\nc,t1,1\na,t2,2\nb,t2,2\nc,t2,2\n",
    # {a, b} and {c, d} never meet
    "two_groups": "system,task,score\na,t1,1\nb,t1,2\nc,t2,1\nd,t2,2\na,t3,2\nb,t3,1\n"
    "c,t4,3\nd,t4,1\n",
    # d has no score anywhere
    "unscored_system": "system,task,score\na,t1,3\nb,t1,2\nc,t1,1\nd,t1,\na,t2,1\nb,t2,2\n"
    "c,t2,3\nd,t2,\n",
}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    d = tmp_path / "in"
    d.mkdir()
    out = {}
    for name, text in FILES.items():
        out[name] = d / f"{name}.csv"
        out[name].write_text(text)
    return out


_run = run


def _assert_one_error_line(err: str, *needles: str) -> str:
    return one_error_line(err, "fit", *needles, forbidden=PYTHON_SPELLING)


CASES = [
    (["{no_scores}", "--method", "map"], "no rankings"),
    (["{no_scores}", "--method", "mle"], "no rankings"),
    (["{all_tied}", "--method", "map"], "no order information"),
    (["{all_tied}", "--method", "mle"], "no order information"),
    (["{all_tied}", "--model", "bt", "--method", "map"], "no order information"),
    (["{all_tied}", "--model", "bt", "--method", "mle"], "no order information"),
    (["{two_groups}", "--method", "mle"], "--method map"),
    (["{two_groups}", "--model", "bt", "--method", "mle"], "{c, d}"),
    (["{unscored_system}", "--method", "map"], "d"),
    (["--rankings", "nascar", "--model", "mallows", "--method", "map"], "--method mcmc"),
    (["{all_tied}", "--model", "mallows", "--method", "mcmc"], "no order information"),
    (["--rankings", "salad", "--kfold", "4"], "--compare"),
    (["--rankings", "salad", "--model", "pl", "bt", "--compare", "--method", "map"], "--kfold"),
    (
        ["--rankings", "salad", "--model", "pl", "bt", "--compare", "--kfold", "40"],
        "--kfold 32",
    ),
    (["--rankings", "salad", "--model", "pl", "bt", "--compare", "--kfold", "1"], "--kfold"),
    (
        ["--rankings", "salad", "--model", "pl", "bt", "--compare", "--kfold", "3", "--ic", "waic"],
        "--kfold",
    ),
    (
        [
            "--rankings",
            "salad",
            "--model",
            "pl",
            "mallows",
            "--compare",
            "--kfold",
            "3",
            "--method",
            "mle",
        ],
        "--method mcmc or map",
    ),
    (
        [
            "--rankings",
            "nascar",
            "--model",
            "pl",
            "mallows",
            "--compare",
            "--kfold",
            "3",
            "--method",
            "map",
        ],
        "--method map needs complete rankings without ties",
    ),
    (
        [
            "--rankings",
            "salad",
            "--model",
            "pl",
            "bt",
            "--compare",
            "--kfold",
            "3",
            "--method",
            "mcmc",
        ],
        "--method mcmc",
    ),
]


@pytest.mark.parametrize(("argv", "needle"), CASES, ids=lambda x: str(x))
def test_user_errors_exit_2_in_the_commands_words(argv, needle, files, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["fit", *(a.format(**{k: str(v) for k, v in files.items()}) for a in argv)]
    code, _, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 2, err
    _assert_one_error_line(err, needle)
    assert not out.exists()
    assert not list(tmp_path.glob(".*partial*"))


@pytest.mark.parametrize("model", ["pl", "bt"])
def test_map_on_two_groups_warns_names_the_groups_and_records_it(model, files, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["fit", str(files["two_groups"]), "--model", model, "--method", "map", "--out"]
    code, stdout, err = _run([*argv, str(out), "--no-figures"], capsys)
    assert code == 0, err
    warning = [line for line in err.splitlines() if "fit: warning:" in line]
    assert len(warning) == 1 and "{a, b}; {c, d}" in warning[0] and "prior" in warning[0]
    assert not PYTHON_SPELLING.search(err), err
    assert "prior's" in stdout  # repeated after the tables
    record = json.loads((out / f"{model}_fit.json").read_text())
    assert any("{a, b}; {c, d}" in w for w in record["warnings"])
    assert record["info"]["n_groups"] == 2
    # The groups the design implies; the printed order across them is not the data's: a and c
    # (the winner of each group, 2 wins to 1) get the same log-worth.
    worth = {r["system"]: r for r in _rows(out / f"{model}_worth.csv")}
    assert float(worth["a"]["log_worth"]) == pytest.approx(float(worth["c"]["log_worth"]))


def _rows(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_header_names_flags_not_python_arguments(tmp_path, capsys):
    code, stdout, err = _run(
        [
            "fit",
            "--rankings",
            "salad",
            "--method",
            "map",
            "--out",
            str(tmp_path / "o"),
            "--no-figures",
        ],
        capsys,
    )
    assert code == 0, err
    head = stdout.splitlines()[0]
    assert "--method map" in head and "--prior-scale 1" in head
    assert not PYTHON_SPELLING.search(head), head


def test_compare_by_kfold_with_point_fits(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["fit", "--rankings", "salad", "--model", "pl", "bt", "--compare", "--kfold", "4"]
    code, stdout, err = _run([*argv, "--method", "map", "--seed", "1", "--out", str(out)], capsys)
    assert code == 0, err
    assert "plug-in" in stdout and "elpd_kfold" in stdout
    table = {r["model"]: r for r in _rows(out / "model_comparison.csv")}
    rk = rs.load_rankings("salad")
    for name, cls in (("pl", rs.models.PlackettLuce), ("bt", rs.models.BradleyTerry)):
        cv = rs.models.kfold(cls(), rk, k=4, seed=1, method="map")
        assert float(table[name]["elpd"]) == pytest.approx(cv.elpd)
        assert table[name]["estimate"] == "plug-in" and table[name]["ic"] == "kfold"
    pointwise = _rows(out / "kfold_pointwise.csv")
    assert len(pointwise) == 32
    assert sorted(np.bincount([int(r["fold"]) for r in pointwise])[1:]) == [8, 8, 8, 8]


def test_report_with_map_models_on_two_groups_says_so(files, tmp_path, capsys):
    out = tmp_path / "report"
    argv = ["report", str(files["two_groups"]), "--models", "pl", "bt", "--model-method", "map"]
    code, _, err = _run([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "report: warning:" in line]
    assert sum("{a, b}; {c, d}" in line for line in warnings) == 2, err  # one per model
    methods = (out / "methods.txt").read_text()
    assert methods.count("2 groups never compared with one another ({a, b}; {c, d})") == 2
    assert "{a, b}; {c, d}" in (out / "report.html").read_text()

"""The newest surfaces on bad input (issue 45, item 8): the cluster bootstrap, style control and
system covariates, Mallows preferences / mixtures / the error model, the data check, power and
PrefLib files whose name does not say so.

The classification of ``tests/cli/test_bad_input.py``: a user error exits 2 with one line
``rankstats <command>: error: …`` naming the problem in the command's flags (never a Python
argument), and leaves no output; what the library refuses, the command line refuses with the
library's words (``err.cli()``), and valid but unusual input (covariates of 1e18) exits 0.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs

#: A Python spelling of an option: ``error_model='bernoulli'``, ``cluster=``, ``clusters=2``.
PYTHON = re.compile(r"\b[a-z_]+=\S|\b[a-z]+_[a-z_]+=")


def _battles(tmp_path: Path, questions, seed: int = 0) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = len(questions)
    names = np.array(["m0", "m1", "m2", "m3"])
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    z = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "model_a": names[a],
            "model_b": names[b],
            "winner": rng.choice(["model_a", "model_b", "tie"], n),
            "question": questions,
            "z0": z,
            "z1": 2.0 * z + 1.0,  # collinear with z0 (and the order effect's constant)
            "z2": rng.normal(size=n) * 1e18,  # a raw scale, independent
        }
    )
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _refused(capsys, command: str, argv: list[str], out: Path, *needles: str) -> str:
    code, _, err = run([command, *argv, "--out", str(out)], capsys)
    assert code == 2, err
    assert not out.exists()
    return one_error_line(err, command, *needles, forbidden=PYTHON)


# ---------------------------------------------------------------------------- cluster bootstrap
@pytest.mark.parametrize("style", [[], ["--battle-covariate", "z0", "--no-order-effect"]])
def test_a_cluster_bootstrap_over_one_cluster_is_refused(tmp_path, capsys, style):
    path, _ = _battles(tmp_path, ["q1"] * 300)
    argv = [str(path), "--cluster", "question", "--n-resamples", "50", "--no-figures", *style]
    line = _refused(capsys, "battles", argv, tmp_path / "o", "at least 2 clusters", "--cluster")
    assert "form 1" in line


def test_few_clusters_warn_and_the_warning_is_recorded(tmp_path, capsys):
    path, _ = _battles(tmp_path, [f"q{k % 4}" for k in range(300)])
    out = tmp_path / "o"
    argv = [str(path), "--cluster", "question", "--n-resamples", "30", "--no-figures"]
    code, _, err = run(["battles", *argv, "--out", str(out)], capsys)
    assert code == 0, err
    assert "rankstats battles: warning: the bootstrap over clusters (question) has only 4" in err
    assert "--cluster" in err.split("only 4")[1]


# ---------------------------------------------------------------------------- covariates
def test_collinear_style_covariates_are_named_not_blamed_on_ties(tmp_path, capsys):
    path, _ = _battles(tmp_path, [f"q{k}" for k in range(400)])
    argv = [str(path), "--battle-covariate", "z0", "--battle-covariate", "z1", "--n-resamples", "0"]
    line = _refused(capsys, "battles", [*argv, "--no-figures"], tmp_path / "o", "collinear")
    assert "'z0', 'z1' and the order effect" in line and "--no-order-effect" in line
    assert "ties" not in line  # it was blamed on ties and the order effect's size
    raw = [str(path), "--battle-covariate", "z0", "--battle-covariate", "z2", "--n-resamples", "0"]
    code, _, err = run(["battles", *raw, "--no-figures", "--out", str(tmp_path / "r")], capsys)
    assert code == 0, err


def _system_covariates(tmp_path: Path, columns: dict) -> Path:
    systems = rs.load_dataset("xtreme").systems
    table = pd.DataFrame({"system": systems, **{k: v(len(systems)) for k, v in columns.items()}})
    path = tmp_path / "covariates.csv"
    table.to_csv(path, index=False)
    return path


FIT = ["--dataset", "xtreme", "--model", "bt", "--method", "mle", "--no-figures"]


def test_system_covariates_on_a_raw_scale_fit_and_collinear_ones_are_named(tmp_path, capsys):
    rng = np.random.default_rng(2)
    flops = rng.uniform(1e17, 1e19, 100)
    raw = _system_covariates(
        tmp_path, {"flops": lambda n: flops[:n], "open": lambda n: np.arange(n) % 2}
    )
    code, _, err = run(
        ["fit", *FIT, "--system-covariates", str(raw), "--out", str(tmp_path / "a")], capsys
    )
    assert code == 0, err
    both = _system_covariates(
        tmp_path, {"flops": lambda n: flops[:n], "twice": lambda n: 2 * flops[:n]}
    )
    line = _refused(
        capsys, "fit", [*FIT, "--system-covariates", str(both)], tmp_path / "b", "collinear"
    )
    assert "'flops', 'twice'" in line


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("", ("is empty",)),
        ("\n \n", ("is empty",)),
        ("system,size\nmBERT,1\nmBERT ,2\n", ("whitespace", "'mBERT' (line 2)", "(line 3)")),
    ],
)
def test_a_bad_covariates_file_exits_2(tmp_path, capsys, text, needles):
    path = tmp_path / "covariates.csv"
    path.write_text(text)
    _refused(capsys, "fit", [*FIT, "--system-covariates", str(path)], tmp_path / "o", *needles)


# ---------------------------------------------------------------------------- preferences
MALLOWS = ["--format", "preferences", "--model", "mallows", "--draws", "50", "--tune", "50"]


@pytest.mark.parametrize(
    ("text", "extra", "needles"),
    [
        ("assessor,preferred,other\n", [], ("no rows",)),
        ("assessor,preferred,other\n1,a,b\n1,a ,c\n", [], ("whitespace", "'a' (line 2)")),
        ("assessor,preferred,other\nx,a,b\nx ,b,c\n", [], ("assessor names", "'x ' (line 3)")),
        # the API refuses the combination, so does the command line (it fitted a mixture
        # without the error model)
        ("assessor,preferred,other\n1,a,b\n2,b,c\n3,a,c\n",
         ["--error-model", "bernoulli", "--clusters", "2"],
         ("--error-model bernoulli fits one population", "--clusters 2")),
        # with cycles: the same refusal, not a request for the option already given
        ("assessor,preferred,other\n1,a,b\n1,b,c\n1,c,a\n2,a,b\n3,b,c\n",
         ["--error-model", "bernoulli", "--clusters", "2"],
         ("--error-model bernoulli fits one population",)),
        ("assessor,preferred,other\n1,a,b\n1,b,c\n1,c,a\n2,a,b\n3,b,c\n", ["--clusters", "2"],
         ("a ≻ b ≻ c ≻ a", "--error-model bernoulli")),
        ("assessor,preferred,other\n1,a,b\n1,b,c\n1,c,a\n2,a,b\n", [],
         ("a ≻ b ≻ c ≻ a", "--error-model bernoulli fits preferences")),
    ],
)  # fmt: skip
def test_bad_preferences_exit_2(tmp_path, capsys, text, extra, needles):
    path = tmp_path / "prefs.csv"
    path.write_text(text)
    _refused(capsys, "fit", [str(path), *MALLOWS, *extra], tmp_path / "o", *needles)


# ---------------------------------------------------------------------------- power, PrefLib
def test_power_beyond_memory_is_refused_with_advice_valid_for_power(tmp_path, capsys):
    argv = ["--instances", "1000000000", "--n-replications", "10"]
    line = _refused(capsys, "power", argv, tmp_path / "o", "instances", "--ignore-memory-check")
    assert "--stream" not in line


SKATERS = Path(rs.datasets.data_path("rankings/skaters.toc"))


@pytest.mark.parametrize("command", ["fit", "rank", "check", "report"])
def test_a_preflib_file_with_an_unknown_suffix_says_how_to_read_it(tmp_path, capsys, command):
    path = tmp_path / "skaters.txt"
    path.write_bytes(SKATERS.read_bytes())
    _refused(capsys, command, [str(path)], tmp_path / "o", "PrefLib", "--format preflib")


def test_the_tree_reads_its_covariates_with_the_same_refusals(tmp_path, capsys):
    scores = tmp_path / "scores.csv"
    rows = [f"{s},t{t},{(t * 7 + ord(s)) % 5}" for t in range(6) for s in "abc"]
    scores.write_text("system,task,score\n" + "\n".join(rows) + "\n")
    covariates = tmp_path / "covariates.csv"
    for text, needles in (
        ("", ("is empty",)),
        ("task,kind\nt0,x\nt0 ,y\n", ("task names that differ only", "(line 3)")),
    ):
        covariates.write_text(text)
        argv = [str(scores), "--ranker-covariates", str(covariates)]
        _refused(capsys, "tree", argv, tmp_path / "o", *needles)

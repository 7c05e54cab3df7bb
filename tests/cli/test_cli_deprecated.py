"""The old spellings of renamed flags (docs/vocabulary.md): still accepted for one release, hidden
from ``--help``, one line on stderr; the old and the new spelling together are a usage error."""

import argparse

import pytest

from rankstats.cli import build_parser, main
from rankstats.cli.usage import EXIT_USAGE, Parser, renamed


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="rankstats x")
    renamed(parser, "--n-resamples", old=("--boot", "--bootstrap"), type=int, default=1000)
    renamed(parser, "--ranker-covariates", old=("--covariates",), required=True)
    return parser


def _note(old: str, new: str) -> str:
    return f"rankstats: {old} is now {new} (the old spelling will be removed in the next release)\n"


def test_the_old_spelling_sets_the_new_option_with_one_line(capsys):
    args = _parser().parse_args(["--boot", "50", "--covariates", "c.csv"])
    assert (args.n_resamples, args.ranker_covariates) == (50, "c.csv")
    assert not [k for k in vars(args) if k.startswith("_renamed")]  # no marks left
    err = capsys.readouterr().err
    assert err == _note("--boot", "--n-resamples") + _note("--covariates", "--ranker-covariates")


def test_the_new_spelling_is_silent_and_the_default_stands(capsys):
    args = _parser().parse_args(["--ranker-covariates", "c.csv"])
    assert args.n_resamples == 1000
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "argv", [["--boot", "5", "--n-resamples", "6"], ["--n-resamples", "6", "--bootstrap", "5"]]
)
def test_both_spellings_are_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as done:
        _parser().parse_args([*argv, "--ranker-covariates", "c.csv"])
    assert done.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1  # the error alone: no note of the rename
    last = err.splitlines()[-1]
    assert last.startswith("rankstats x: error: give --n-resamples or its old spelling --")
    assert last.endswith(", not both (see rankstats x --help)")


def test_a_required_option_is_required_by_either_spelling(capsys):
    with pytest.raises(SystemExit) as done:
        _parser().parse_args(["--boot", "5"])
    assert done.value.code == EXIT_USAGE
    assert "the following arguments are required: --ranker-covariates" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "old", "new"),
    [
        ("significance", "--boot", "--n-resamples"),
        ("significance", "--samples", "--signed-rank-draws"),
        ("significance", "--adjust", "--correction"),
        ("rank", "--level", "--by"),
        ("rank", "--workers", "--n-jobs"),
        ("battles", "--bootstrap", "--n-resamples"),
        ("battles", "--confidence", "--confidence-level"),
        ("battles", "--covariate", "--battle-covariate"),
        ("fit", "--prob", "--ci-prob"),
        ("fit", "--covariates", "--system-covariates"),
        ("tree", "--covariates", "--ranker-covariates"),
        ("tree", "--n-draws", "--draws"),
        ("power", "--replications", "--n-replications"),
        ("power", "--missing", "--missing-rate"),
        ("power", "--jobs", "--n-jobs"),
        ("report", "--power-replications", "--n-replications"),
        ("robustness", "--reps", "--n-replications"),
        ("simulate", "--missing", "--missing-rate"),
        ("paired", "--bootstrap", "--n-resamples"),
    ],
)
def test_each_old_flag_is_hidden_and_names_its_new_one(command, old, new, capsys):
    sub = next(
        a for a in build_parser([command])._actions if isinstance(a, argparse._SubParsersAction)
    ).choices[command]
    actions = sub._option_string_actions
    assert actions[old].help == argparse.SUPPRESS and actions[new].help != argparse.SUPPRESS
    assert actions[old].dest == actions[new].dest
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert new in text and f"{old} " not in text and f"{old}\n" not in text


def test_a_command_run_with_an_old_flag(tmp_path, capsys):
    """``rankstats rank --level task``: the ranking of ``--by task``, and the one line."""
    out_old, out_new = tmp_path / "old", tmp_path / "new"
    common = ["rank", "--dataset", "glue", "--no-figures"]
    assert main([*common, "--level", "task", "--out", str(out_old)]) == 0
    assert _note("--level", "--by") in capsys.readouterr().err
    assert main([*common, "--by", "task", "--out", str(out_new)]) == 0
    assert (out_old / "ranking.csv").read_text() == (out_new / "ranking.csv").read_text()
    with pytest.raises(SystemExit) as done:  # argparse's usage error, as for any bad option
        main([*common, "--level", "task", "--by", "task", "--out", str(out_new)])
    assert done.value.code == EXIT_USAGE
    assert "give --by or its old spelling --level, not both" in capsys.readouterr().err

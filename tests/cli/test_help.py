"""``rankstats <command> --help``: every option explained, every command with an example."""

import argparse

import pytest

from rankstats.cli import COMMANDS, build_parser, main


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help_and_the_command_an_example(command, capsys):
    sub = _subparsers()[command]
    undocumented = [a.option_strings or [a.dest] for a in sub._actions if not a.help]
    assert undocumented == []
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert f"example:\n  rankstats {command}" in text
    for action in sub._actions:
        if action.help == argparse.SUPPRESS:  # an old spelling, kept for one release
            continue
        for option in action.option_strings:
            assert option in text


def test_top_level_help_names_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "2 usage or input error" in text and "130 interrupted" in text


def test_the_method_choices_name_every_aggregator():
    # The options list the methods from rankstats.aggregation.choices (light); every method
    # that aggregate() knows must be among them, and every built-in one defined.
    from rankstats.aggregation.aggregators import AGGREGATORS
    from rankstats.aggregation.choices import BUILTIN_METHODS, METHODS

    assert set(BUILTIN_METHODS) <= set(AGGREGATORS) <= set(METHODS)


def test_only_the_command_run_has_its_options_built():
    parser = build_parser(["rank"])
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert "--method" in action.choices["rank"]._option_string_actions
    assert "--posthoc" not in action.choices["significance"]._option_string_actions


@pytest.mark.parametrize("lead", [["--quiet"], ["--qui"], ["--deb"], ["--d", "--q"]])
def test_command_options_before_the_subcommand_as_argparse_spells_them(lead, tmp_path, capsys):
    """``--debug`` / ``--quiet`` before the subcommand, whole or shortened as argparse allows:
    the subcommand still gets its own options (only its options are built)."""
    out = tmp_path / "o"
    assert main([*lead, "rank", "--dataset", "xtreme", "--out", str(out)]) == 0
    assert (out / "ranking.csv").exists()

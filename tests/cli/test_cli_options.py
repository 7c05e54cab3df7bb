"""The command line's options objects: built once from the parsed namespace, frozen, and the only
thing a command's functions see (no function of rankstats/cli takes the argparse namespace)."""

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

import rankstats.cli
from rankstats.cli import COMMANDS, _build_options, build_parser

CLI = Path(rankstats.cli.__file__).parent

#: The building step: the functions that read the namespace (file, function name).
BUILDERS = {
    ("__init__.py", "_build_options"),
    ("options/groups.py", "from_namespace"),
    ("report.py", "build_options"),
    ("power.py", "build_options"),
    ("fit.py", "build_options"),
    # argparse's own method (its ``args`` are the words of the command line)
    ("usage.py", "parse_known_args"),
}


def _namespace_parameters(path: Path) -> list[str]:
    """``function(parameter)`` of every function of ``path`` with a parameter named ``args`` or
    annotated as an argparse namespace."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is None:
                continue
            note = ast.unparse(arg.annotation) if getattr(arg, "annotation", None) else ""
            if arg.arg == "args" or "Namespace" in note:
                found.append(f"{getattr(node, 'name', 'lambda')}({arg.arg})")
    return found


def test_no_function_below_the_parser_takes_the_namespace():
    offenders = []
    for path in sorted(CLI.rglob("*.py")):
        rel = path.relative_to(CLI).as_posix()
        for hit in _namespace_parameters(path):
            if (rel, hit.split("(")[0]) not in BUILDERS:
                offenders.append(f"{rel}: {hit}")
    assert offenders == []


def test_the_walk_finds_a_namespace_parameter(tmp_path):
    """The check above is not vacuous."""
    code = "import argparse\ndef f(args): pass\ndef g(ns: argparse.Namespace): pass\n"
    (tmp_path / "m.py").write_text(code)
    assert _namespace_parameters(tmp_path / "m.py") == ["f(args)", "g(ns)"]


def _parse(argv: list[str]):
    parser = build_parser(argv[:1])
    return parser.parse_args(argv)


#: A command line of each command whose options can be built without reading data.
ARGV = {
    "check": ["check", "--dataset", "glue"],
    "rank": ["rank", "--dataset", "glue"],
    "significance": ["significance", "--dataset", "glue"],
    "report": ["report", "--dataset", "glue"],
    "fit": ["fit", "--dataset", "glue"],
    "tree": ["tree", "--dataset", "glue", "--ranker-covariates", "c.csv"],
    "simulate": ["simulate", "--out", "x.csv"],
    "robustness": ["robustness", "--experiment", "colombo2022-manipulation"],
    "power": ["power", "--systems", "4"],
    "paired": ["paired", "--dataset", "tac08"],
    "datasets": ["datasets"],
    "kemeny": ["kemeny", "--dataset", "glue"],
    "battles": ["battles", "log.csv"],
    "irt": ["irt", "answers.csv"],
}


def test_every_command_has_a_command_line_here():
    assert set(ARGV) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_options_objects_are_frozen_and_hold_every_option(command):
    namespace = _parse(ARGV[command])
    module = importlib.import_module(f"rankstats.cli.{command}")
    options = _build_options(namespace, module)
    assert dataclasses.is_dataclass(options)
    assert type(options).__dataclass_params__.frozen
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if dataclasses.is_dataclass(value):  # a shared group: frozen too
            assert type(value).__dataclass_params__.frozen
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(value, dataclasses.fields(value)[0].name, None)
    if dataclasses.fields(options):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(options, dataclasses.fields(options)[0].name, None)


def test_an_option_without_a_field_is_a_bug():
    from rankstats.cli.options.groups import OutputOptions, from_namespace

    namespace = _parse(["check", "--dataset", "glue"])
    with pytest.raises(TypeError, match="no field for the options"):
        from_namespace(OutputOptions, namespace)


def test_shared_groups_are_one_object_type_across_commands():
    """``--dataset``, ``--out``: the same group object in every command that has them."""
    from rankstats.cli.options.groups import InputOptions, OutputOptions

    for command in ("check", "rank", "significance", "report", "fit", "kemeny", "paired"):
        options = _build_options(
            _parse(ARGV[command]), importlib.import_module(f"rankstats.cli.{command}")
        )
        assert isinstance(options.input, InputOptions)
        assert isinstance(options.output, OutputOptions)
        assert options.input.dataset in ("glue", "tac08")


def test_derived_options_are_computed_when_built():
    """What the commands once wrote into the namespace is set when the options are built."""
    fit = _build_options(
        _parse(["fit", "--dataset", "glue", "--model", "mallows"]),
        importlib.import_module("rankstats.cli.fit"),
    )
    assert (fit.model, fit.model_list, fit.method, fit.mcmc.tune) == (
        "mallows",
        ["mallows"],
        "mcmc",
        1000,
    )
    power = _build_options(
        _parse(["power", "--systems", "4", "--target-power", "0.8", "--tests", "friedman"]),
        importlib.import_module("rankstats.cli.power"),
    )
    assert (power.tests, power.vary, power.target) == (["friedman"], "n_instances", "omnibus")
    report = _build_options(_parse(ARGV["report"]), importlib.import_module("rankstats.cli.report"))
    assert report.methods == ["borda", "borda2", "mean"]

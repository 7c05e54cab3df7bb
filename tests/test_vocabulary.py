"""One name per concept (issue 46): the table of docs/vocabulary.md is the contract.

The test reads the table's rows (after its marker comment, to the end of the table), refuses a
malformed row, and walks every public signature (functions, class constructors and public
methods of ``rankstats.__all__`` and of the ``__all__`` of each public subpackage): no parameter
may be spelled as a replaced word. The old spellings live on only as deprecated aliases
(``rankstats._util.renamed``), which signatures do not show.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

import rankstats as rs
from rankstats._util.renamed import RENAMES

TABLE = Path(__file__).parents[1] / "docs" / "vocabulary.md"
MARKER = "<!-- vocabulary-table"
PYTHON_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
FLAG = re.compile(r"^--[a-z][a-z0-9-]*(?:[ =][A-Za-z|\\]+)*$")
#: The CLI cell of a concept the command line does not spell (a result's attribute).
NO_FLAG = "—"
#: The public subpackages walked beside ``rankstats.__all__`` (each with an ``__all__``).
SUBPACKAGES = ("models", "simulate", "planning", "datacheck", "plotting", "reporting", "scan")


@dataclasses.dataclass(frozen=True)
class Row:
    """One concept: its Python names, CLI flags, and the Python / CLI spellings it replaces
    (``qualified``: the replaced words that carry a meaning in parentheses, such as
    ``level`` (of a test), which are replaced in that meaning only)."""

    concept: str
    python: tuple[str, ...]
    cli: tuple[str, ...]
    replaced: tuple[str, ...]
    replaced_flags: tuple[str, ...]
    qualified: frozenset[str]


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row (``\\|`` is a pipe inside a cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _names(cell: str) -> list[tuple[str, bool]]:
    """The backticked names of a cell outside parentheses, each with whether a parenthesised
    qualifier follows it (``level`` (of a test) → ``("level", True)``)."""
    found = []
    for match in re.finditer(r"`([^`]+)`(\s*\((?:[^()`]|`[^`]*`)*\))?", cell):
        if cell[: match.start()].count("(") > cell[: match.start()].count(")"):
            continue  # a name inside a qualifier ("task" / "instance")
        found.append((match.group(1), bool(match.group(2))))
    return found


def parse_row(line: str) -> Row:
    """One row of the table, or a ValueError naming what is wrong with it."""
    cells = _cells(line)
    if len(cells) != 4:
        raise ValueError(f"a row has 4 cells (concept, Python, CLI, replaces), not {len(cells)}")
    concept, python_cell, cli_cell, replaces_cell = cells
    python = tuple(name for name, _ in _names(python_cell))
    cli = tuple(name for name, _ in _names(cli_cell))
    if not concept or not python or not (cli or cli_cell == NO_FLAG):
        raise ValueError(
            f"{concept or 'a row'}: the concept, a Python name and a flag (or {NO_FLAG}) are needed"
        )
    for name in python:
        if not PYTHON_NAME.match(name):
            raise ValueError(f"{concept}: {name!r} is not a Python parameter name")
    for flag in cli:
        if not FLAG.match(flag):
            raise ValueError(f"{concept}: {flag!r} is not a command-line flag")
    replaced, flags, qualified = [], [], set()
    for name, has_qualifier in _names(replaces_cell):
        if name.startswith("--"):
            if not FLAG.match(name):
                raise ValueError(f"{concept}: {name!r} is not a command-line flag")
            flags.append(name)
            continue
        if not PYTHON_NAME.match(name):
            raise ValueError(f"{concept}: {name!r} is neither a Python name nor a flag")
        if name in python:
            raise ValueError(f"{concept}: {name!r} both replaces and is the new name")
        replaced.append(name)
        if has_qualifier:
            qualified.add(name)
    return Row(concept, python, cli, tuple(replaced), tuple(flags), frozenset(qualified))


def table_lines(text: str) -> list[str]:
    """The table's rows: the lines after the marker's header and separator, to the first
    line that is not a table row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(MARKER))
    rows = []
    for line in lines[start + 3 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def read_table(text: str) -> list[Row]:
    rows = [parse_row(line) for line in table_lines(text)]
    current = {name for row in rows for name in row.python}
    for row in rows:
        for name in set(row.replaced) & current - row.qualified:
            raise ValueError(
                f"{row.concept}: {name!r} is replaced everywhere but is a current name; "
                "say in parentheses which meaning it replaces"
            )
    return rows


def banned(rows: list[Row]) -> dict[str, str]:
    """Replaced word → the concept's new name(s): the words no public parameter may use.

    A word that is also a current name (``missing``, the treatment of missing scores) is
    replaced in one meaning only; the walk cannot tell meanings apart, so it is checked where
    that meaning lives (:func:`test_the_simulator_spells_the_share_of_missing_cells`).
    """
    current = {name for row in rows for name in row.python}
    words: dict[str, list[str]] = {}
    for row in rows:
        for name in row.replaced:
            if name not in current:
                words.setdefault(name, []).extend(row.python)
    return {word: " or ".join(dict.fromkeys(new)) for word, new in words.items()}


# ---------------------------------------------------------------------------- the walk
def _members(name: str, cls: type) -> Iterator[tuple[str, Callable[..., object]]]:
    """The class (its constructor) and its public methods, inherited ones included."""
    yield name, cls
    for attribute in dir(cls):
        member = inspect.getattr_static(cls, attribute)
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if not attribute.startswith("_") and inspect.isfunction(member):
            yield f"{name}.{attribute}", member


def public_callables() -> Iterator[tuple[str, Callable[..., object]]]:
    """``(dotted name, callable)`` of every public function, class and method."""
    modules = [("", rs)] + [
        (f"{name}.", importlib.import_module(f"rankstats.{name}")) for name in SUBPACKAGES
    ]
    seen: set[int] = set()
    for prefix, module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            if id(obj) in seen or not getattr(obj, "__module__", "").startswith("rankstats"):
                continue
            seen.add(id(obj))
            if inspect.isclass(obj):
                yield from _members(prefix + name, obj)
            elif inspect.isfunction(obj):
                yield prefix + name, obj


def offenders(callables, words: dict[str, str]) -> list[str]:
    found = []
    for name, function in callables:
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            continue  # a class without an introspectable constructor
        for parameter in parameters:
            if parameter in words:
                found.append(f"{name}({parameter}=): now {words[parameter]}")
    return found


@pytest.fixture(scope="module")
def rows():
    return read_table(TABLE.read_text(encoding="utf-8"))


def test_the_table_is_read(rows):
    concepts = {row.concept.split(" (")[0] for row in rows}
    assert "bootstrap resamples" in concepts and len(rows) >= 15
    words = banned(rows)
    assert words["cores"] == "n_jobs" and words["n_boot"] == "n_resamples"
    assert words["level"] == "alpha or confidence_level or ci_prob or by"
    assert "missing" not in words  # the treatment of missing scores keeps its name


def test_no_public_parameter_is_spelled_as_a_replaced_word(rows):
    callables = list(public_callables())
    assert {"bayes_hierarchical", "models.PlackettLuce.fit", "RankSets"} <= dict(callables).keys()
    assert offenders(callables, banned(rows)) == []


def test_the_simulator_spells_the_share_of_missing_cells(rows):
    """``missing`` (a fraction) is replaced by ``missing_rate``; ``missing`` stays the
    treatment of missing scores in the tests."""
    assert "missing" in next(row for row in rows if "missing_rate" in row.python).qualified
    for function in (rs.simulate.Corruptions, rs.BenchmarkDesign):  # gumbel's corruptions
        parameters = inspect.signature(function).parameters
        assert "missing_rate" in parameters and "missing" not in parameters, function


def test_the_walk_can_fail(rows):
    @rs._util.renamed.renamed_parameters(cores="n_jobs")
    def good(data, n_jobs=1, alpha=0.05):
        return data, n_jobs, alpha

    def bad(data, n_boot=100, level=0.05, confidence=0.95):
        return data, n_boot, level, confidence

    assert offenders([("good", good)], banned(rows)) == []
    assert offenders([("bad", bad)], banned(rows)) == [
        "bad(n_boot=): now n_resamples",
        "bad(level=): now alpha or confidence_level or ci_prob or by",
        "bad(confidence=): now confidence_level",
    ]


def test_every_deprecated_alias_is_a_replaced_word_of_the_table(rows):
    """A rename (old → new) of the public API follows a row: old is replaced by new there."""
    pairs = {(old, new) for row in rows for old in row.replaced for new in row.python}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for name, function in public_callables():
            target = function.__init__ if inspect.isclass(function) else function
            for old, new in getattr(target, RENAMES, {}).items():
                assert (old, new) in pairs, f"{name}: {old} → {new} is not in docs/vocabulary.md"


MARKED = (
    f"{MARKER}: the test reads the rows below -->\n"
    "| concept | Python | CLI | replaces |\n|---|---|---|---|\n"
)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("| seeds | `seed` | `--seed` |", "a row has 4 cells"),
        ("| seeds | seed | `--seed` | `rng` |", "a Python name and a flag (or —) are needed"),
        ("| seeds | `seed` | | `rng` |", "a Python name and a flag (or —) are needed"),
        ("| seeds | `Seed!` | `--seed` | `rng` |", "'Seed!' is not a Python parameter name"),
        ("| seeds | `seed` | `-s` | `rng` |", "'-s' is not a command-line flag"),
        ("| seeds | `seed` | `--seed` | `random state` |", "neither a Python name nor a flag"),
        ("| seeds | `seed` | `--seed` | `seed`, `rng` |", "'seed' both replaces and is the new"),
        ("| seeds | `seed` | `--seed` | `alpha` |", "'alpha' is replaced everywhere but"),
    ],
)
def test_a_malformed_row_is_refused(row, message):
    text = MARKED + "| significance level of a test | `alpha` | `--alpha` | `level` (of a test) |\n"
    with pytest.raises(ValueError, match=re.escape(message)):
        read_table(text + row + "\n\nAfter the table.\n")


def test_the_table_ends_at_the_first_line_that_is_not_a_row():
    text = MARKED + "| seeds | `seed` | `--seed` | `rng` |\n\n| not | read | at | all |\n"
    assert [row.python for row in read_table(text)] == [("seed",)]


# ---------------------------------------------------------------------------- old spellings
def _same_with_warning(old, new, word):
    """``old()`` warns naming ``word`` and gives what ``new()`` gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        expected = new()
    with pytest.warns(FutureWarning, match=rf"^{word} is now "):
        got = old()
    return got, expected


def test_old_keywords_still_work_for_one_release():
    sim = rs.simulate.gumbel(n_systems=4, n_tasks=6, n_instances=3, seed=3)
    got, expected = _same_with_warning(
        lambda: rs.friedman(sim, level="task"), lambda: rs.friedman(sim, by="task"), "level"
    )
    assert (got.statistic, got.p_value) == (expected.statistic, expected.p_value)
    got, expected = _same_with_warning(
        lambda: rs.simulate.gumbel(n_systems=4, n_tasks=6, missing=0.3, seed=1),
        lambda: rs.simulate.gumbel(
            n_systems=4, n_tasks=6, seed=1, corruptions=rs.simulate.Corruptions(missing_rate=0.3)
        ),
        "missing",
    )
    pd.testing.assert_frame_equal(got.data, expected.data)
    rk = rs.Rankings.from_scores(sim, by="task")
    got, expected = _same_with_warning(
        lambda: rs.models.PlackettLuce().fit(rk, method="mle").pairwise(prob=0.9),
        lambda: rs.models.PlackettLuce().fit(rk, method="mle").pairwise(ci_prob=0.9),
        "prob",
    )
    pd.testing.assert_frame_equal(got, expected)
    with pytest.raises(TypeError, match="got both n_resamples and its old spelling n_boot"):
        rs.rank_confidence_sets(sim, n_boot=200, n_resamples=200)


def test_old_result_attributes_and_option_keys_still_work():
    sim = rs.simulate.gumbel(n_systems=4, n_tasks=30, seed=3)
    sets = rs.rank_confidence_sets(sim, n_resamples=200)
    with pytest.warns(FutureWarning, match=r"^n_boot is now n_resamples \(in RankSets\)"):
        assert sets.n_boot == sets.n_resamples == 200
    with pytest.warns(FutureWarning, match=r"^level is now by \(in RankSets\)"):
        assert sets.level == sets.by == "task"
    with pytest.warns(FutureWarning, match=r"^missing is now missing_rate \(in robustness"):
        table = rs.simulate.robustness(
            grid={"missing": [0.2]},
            n_replications=2,
            base={"n_systems": 4, "n_tasks": 5, "n_instances": 3},
        ).table
    assert "missing_rate" in table.columns

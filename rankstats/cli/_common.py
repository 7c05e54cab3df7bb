"""What every subcommand shares: the input options, argument checks, the exit-code convention,
escaping of names on the terminal, JSON helpers and the atomic output directory.

Exit codes (the same for every subcommand):

=====  ==========================================================================
0      success
1      failure while computing (a bug or an unexpected condition; ``--debug`` shows the traceback)
2      usage or input error: a bad option, an unreadable or invalid file, an output path that
       cannot be written, an input too large for this machine
130    interrupted (Ctrl-C); no output directory is left half-written
=====  ==========================================================================
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from rankstats._util.atomic import check_output_dir, checkpoint
from rankstats._util.text import shorten, terminal
from rankstats.datasets import DATASETS

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the shell's code for a writer whose reader went away


class UsageError(Exception):
    """A user error found by the CLI itself (printed as one line, exit code 2)."""


class Parser(argparse.ArgumentParser):
    """``argparse`` with the one-line error format of every rankstats error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---------------------------------------------------------------------------- argument types
def _number(kind: type, check: Callable[[float], bool], what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}") from None
        if not check(value):
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}")
        return value

    parse.__name__ = what  # argparse names the type in its messages
    return parse


probability = _number(float, lambda v: 0 < v < 1, "a number strictly between 0 and 1")
positive = _number(float, lambda v: math.isfinite(v) and v > 0, "a positive number")
finite = _number(float, math.isfinite, "a finite number")
fraction = _number(float, lambda v: 0 <= v < 1, "a number in [0, 1)")
coverage = _number(float, lambda v: 0 <= v <= 1, "a number in [0, 1]")


def at_least(minimum: int) -> Callable[[str], int]:
    """An integer option ``≥ minimum``."""
    return _number(int, lambda v: v >= minimum, f"an integer ≥ {minimum}")


# ---------------------------------------------------------------------------- shared input
class _Columns(argparse.Action):
    """One column name as a string, several as a list (``--system name pretrained``)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values[0] if len(values) == 1 else list(values))


def add_input_arguments(
    parser: argparse.ArgumentParser, task_flag: str = "--task", level: bool = False
) -> None:
    """FILE | --dataset NAME and the column / direction options shared by subcommands.

    ``task_flag`` names the option of the task column (``args.task`` either way): a subcommand
    whose ``--task`` chooses a metric passes ``"--task-column"``. ``level`` adds ``--level``."""
    parser.add_argument("file", nargs="?", help="score table: CSV, TSV or Parquet (long or wide)")
    parser.add_argument("--dataset", choices=sorted(DATASETS), help="a bundled data set instead")
    parser.add_argument(
        "--system",
        nargs="+",
        action=_Columns,
        default="system",
        metavar="COLUMN",
        help="system column (default: system); several columns name a system together, e.g. "
        "--system name pretrained (joined as 'RN50 / openai')",
    )
    parser.add_argument(
        task_flag, dest="task", default="task", help="task column of a long table (default: task)"
    )
    parser.add_argument(
        "--instance",
        default=None,
        help="instance column of a long table (default: a column named 'instance', if any)",
    )
    parser.add_argument("--score", default="score", help="score column of a long table")
    parser.add_argument(
        "--layout",
        choices=["auto", "long", "wide"],
        default="auto",
        help="long = one row per score; wide = one row per system (default: auto)",
    )
    parser.add_argument(
        "--lower-is-better",
        nargs="+",
        default=[],
        metavar="TASK",
        help="tasks where a lower score is better",
    )
    parser.add_argument(
        "--sep", default=None, help="field separator of a text file (default: detected)"
    )
    parser.add_argument(
        "--encoding",
        default="utf-8",
        help="text encoding of a CSV/TSV file (default: utf-8; e.g. latin-1, utf-16)",
    )
    parser.add_argument(
        "--na-values",
        nargs="+",
        default=None,
        metavar="WORD",
        help="words to read as 'not evaluated' in the score column, e.g. NA n/a (default: only "
        "empty cells; other words are refused)",
    )
    parser.add_argument(
        "--ignore-memory-check",
        action="store_true",
        help="compute even when the memory estimated from the input's shape exceeds what this "
        "machine has (sets RANKSTATS_IGNORE_MEMORY=1)",
    )
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="wide tables: the task columns to rank (default: every other column; a column "
        "named like an aggregate, e.g. Average, must be chosen or left out explicitly)",
    )
    parser.add_argument(
        "--drop-columns",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="wide tables: columns that are not tasks (an average, parameter counts, FLOPs), "
        "left out; every other column is a task",
    )

    if level:
        parser.add_argument(
            "--level",
            choices=["task", "instance"],
            default=None,
            help="rank per task or per (task, instance) (default: instance when the data has it)",
        )


def add_significance_arguments(parser: argparse.ArgumentParser, form: bool) -> None:
    """``--delta``, ``--correction``, [``--form``], ``--estimand`` of the Hoeffding intervals."""
    from rankstats.aggregation.hoeffding_intervals import CORRECTIONS, ESTIMANDS, FORMS

    parser.add_argument(
        "--delta", type=probability, default=0.05, help="error level δ, in (0, 1) (default 0.05)"
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiplicity correction over pairs (default: holm)",
    )
    if form:
        parser.add_argument(
            "--form",
            choices=FORMS,
            default="two-sided",
            help="Hoeffding half-width: two-sided (default) or the one-sided width printed by "
            "Himmi et al. (2023)",
        )
    parser.add_argument(
        "--estimand",
        choices=ESTIMANDS,
        default="imputed",
        help="pairwise probability estimated (default: imputed, as Himmi et al. 2023)",
    )


@contextlib.contextmanager
def flag_names() -> Iterator[None]:
    """Errors about ``higher_is_better`` name the flag the CLI user typed (--lower-is-better)."""
    from rankstats.errors import InvalidScoresError

    try:
        yield
    except InvalidScoresError as err:
        text = str(err)
        if text.startswith("higher_is_better "):
            raise UsageError("--lower-is-better" + text[len("higher_is_better") :]) from None
        if hasattr(err, "for_cli"):  # worded for the command line by its own class
            raise
        spelled = _cli_words(text)
        if spelled != text:
            raise UsageError(spelled) from None
        raise


def load_input(args: argparse.Namespace):
    """Scores from ``FILE`` or ``--dataset`` (exactly one), read with the library's one reader."""
    from rankstats.core.scores import read_scores
    from rankstats.core.wide_columns import NotTaskColumnsError
    from rankstats.datasets import load_dataset

    if bool(args.file) == bool(args.dataset):
        raise UsageError("give a score FILE or --dataset NAME (exactly one)")
    if args.dataset:
        given = [
            f
            for f in ("lower_is_better", "na_values", "tasks", "drop_columns", "sep")
            if getattr(args, f, None)
        ]
        if args.encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            given.append("encoding")
        if given:
            flags = ", ".join("--" + f.replace("_", "-") for f in given)
            raise UsageError(f"{flags} appl{'ies' if len(given) == 1 else 'y'} to FILE input only")
        return load_dataset(args.dataset)
    path = Path(args.file)
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a score file (or --stream for a directory)")
    _refuse_rankings_file(args)
    directions = {t: False for t in args.lower_is_better} if args.lower_is_better else True
    options = {
        key: getattr(args, key)
        for key in ("sep", "na_values", "tasks", "drop_columns", "encoding")
        if getattr(args, key, None) is not None
    }
    try:
        with flag_names():
            return read_scores(
                path,
                system=args.system,
                task=args.task,
                instance=args.instance,
                score=args.score,
                higher_is_better=directions,
                layout=args.layout,
                **options,
            )
    except NotTaskColumnsError as err:  # the same refusal, in the words of the CLI
        raise err.for_cli() from None


#: ``--format`` of FILE for commands that read rankings files as well as score tables.
FILE_FORMATS = (
    "auto",
    "scores",
    "preflib",
    "soc",
    "soi",
    "toc",
    "toi",
    "rank-matrix",
    "orderings",
    "pairwise",
)
_SCORE_OPTIONS = {
    "system": "system",
    "task": "task",
    "instance": None,
    "score": "score",
    "layout": "auto",
    "lower_is_better": [],
    "tasks": None,
    "drop_columns": None,
    "placeholders": "keep",
    "level": None,
}


def add_rankings_file_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format`` (what FILE holds) and the column options of rankings files."""
    parser.add_argument(
        "--format",
        choices=FILE_FORMATS,
        default="auto",
        help="what FILE holds: auto (default: PrefLib rankings for .soc / .soi / .toc / .toi, "
        "else a score table), scores, preflib, soc, soi, toc, toi, rank-matrix (one row per "
        "ranker, one column per system, cells = ranks), orderings (one ranking per row, best "
        "first) or pairwise (one stated preference per row; --model bt)",
    )
    parser.add_argument(
        "--ranker",
        default=None,
        metavar="COLUMN",
        help="rank-matrix / orderings: the column labelling the rows (default: one named "
        "'ranker', if any)",
    )
    parser.add_argument(
        "--preferred",
        default=None,
        metavar="COLUMN",
        help="pairwise: the column of the preferred system (default: preferred)",
    )
    parser.add_argument(
        "--other",
        default=None,
        metavar="COLUMN",
        help="pairwise: the column of the system it was preferred to (default: other)",
    )


def file_format(args: argparse.Namespace) -> str:
    """What ``FILE`` holds: ``--format``, or for ``auto`` a PrefLib type from the suffix, else
    ``scores``; options that do not apply to it are refused."""
    from rankstats.io.preflib import suffix_type
    from rankstats.io.sources import COMPRESSED_SUFFIXES

    chosen = getattr(args, "format", "scores")
    if chosen == "auto":
        chosen = (suffix_type(args.file, COMPRESSED_SUFFIXES) if args.file else None) or "scores"
    if chosen != "scores" and not args.file:
        raise UsageError(f"--format {args.format} applies to FILE input only")
    rankings_only = {
        "--ranker": chosen in ("rank-matrix", "orderings"),
        "--preferred": chosen == "pairwise",
        "--other": chosen == "pairwise",
    }
    for flag, allowed in rankings_only.items():
        if getattr(args, flag[2:], None) is not None and not allowed:
            what = {"--ranker": "rank-matrix / orderings"}.get(flag, "pairwise")
            raise UsageError(f"{flag} applies to --format {what} files")
    if chosen != "scores":
        given = [
            "--" + key.replace("_", "-")
            for key, default in _SCORE_OPTIONS.items()
            if getattr(args, key, default) != default
        ]
        if chosen != "rank-matrix" and args.na_values:
            given.append("--na-values")
        if given:
            raise UsageError(
                f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to score tables, "
                f"not to a {chosen} file"
            )
    return chosen


def _refuse_rankings_file(args: argparse.Namespace) -> None:
    """A PrefLib file given to a command that reads score tables (``--format scores`` reads
    it as one anyway)."""
    from rankstats.io.preflib import suffix_type
    from rankstats.io.sources import COMPRESSED_SUFFIXES

    kind = suffix_type(args.file, COMPRESSED_SUFFIXES)
    if kind and getattr(args, "format", "auto") != "scores":
        raise UsageError(
            f"{args.file} is a PrefLib rankings file (.{kind}), not a score table: this command "
            "reads scores; fit a model to the rankings with rankstats fit FILE, or report on "
            "them with rankstats report FILE"
        )


def load_rankings_file(args: argparse.Namespace, chosen: str):
    """``(data, what)`` of a rankings FILE in format ``chosen``: Rankings, or the paired counts
    of a pairwise file (``item1, item2, wins1, wins2``)."""
    from rankstats.io.ranking_files import read_paired_comparisons, read_rankings

    options = {"sep": args.sep, "encoding": args.encoding}
    try:
        if chosen == "pairwise":
            data = read_paired_comparisons(
                args.file, args.preferred or "preferred", args.other or "other", **options
            )
            return data, "paired comparisons"
        extra = {"ranker": args.ranker} if chosen in ("rank-matrix", "orderings") else {}
        if chosen == "rank-matrix":
            extra["na_values"] = args.na_values
        return read_rankings(args.file, chosen, **options, **extra), f"{chosen} rankings"
    except ValueError as err:
        raise UsageError(_cli_words(str(err))) from None


#: The reader's advice ``option=value (CLI: --flag value)`` and its variants, and what the
#: command line shows instead: the flag alone.
_CLI_RULES = (
    (
        re.compile(
            r"format='rank-matrix' \(([^)]*)\) or format='orderings' \(([^)]*)\) "
            r"\(CLI: --format rank-matrix / orderings\)"
        ),
        r"--format rank-matrix (\1) or --format orderings (\2)",
    ),
    (re.compile(r"\w+= and \w+= \(CLI: ([^)]*)\)"), r"\1"),
    (re.compile(r"\w+= or \w+= \(CLI: ([^)]*)\)"), r"\1"),
    (re.compile(r"\w+=(?:'[^']*'|\[[^\]]*\]|[^\s,;()]+)? \(CLI: (--[^)]*)\)"), r"\1"),
)


def _cli_words(text: str) -> str:
    """A reader's advice ``option='x' (CLI: --flag x)`` as the flag alone.

    >>> _cli_words("pass na_values=['NA'] (CLI: --na-values NA), or leave the cells empty")
    'pass --na-values NA, or leave the cells empty'
    """
    text = _ABSENT_COLUMNS.sub(
        lambda m: (
            "no column named as "
            + _OPTION.sub(lambda k: f"--{k[1].replace('_', '-')} {k[2]}", m[1])
            + " asks"
        ),
        text,
    )
    for pattern, replacement in _CLI_RULES:
        text = pattern.sub(replacement, text)
    return text


_ABSENT_COLUMNS = re.compile(r"no column named as (.+?) asks \(CLI: [^)]*\)")
_OPTION = re.compile(r"(\w+)=('[^']*'|\[[^\]]*\])")


def level_of(args: argparse.Namespace, scores) -> str:
    """``--level`` (default: instance when the data has instances); refuses an impossible one."""
    from rankstats.core.rankings import default_level

    level = default_level(scores, args.level)
    if level == "instance" and not scores.has_instances:
        raise UsageError(
            "--level instance needs an instance column: name it with --instance COLUMN"
        )
    return level


def cli_spelling(err: ValueError) -> ValueError:
    """The library's advice on incomplete blocks (``missing='complete-case'``,
    ``min_coverage``) in the spelling of the CLI; other errors unchanged."""
    text = str(err)
    if "missing='complete-case'" not in text and "raise min_coverage" not in text:
        return err
    text = text.replace("pass missing='complete-case'", "pass --missing complete-case")
    text = text.replace("or missing='imputed' (", "or --missing imputed (")
    return UsageError(text.replace("raise min_coverage", "raise --min-coverage"))


def add_output_argument(parser: argparse.ArgumentParser, default: str | None, what: str) -> None:
    parser.add_argument(
        "--out",
        default=default,
        metavar="DIR",
        help=f"output directory for {what}"
        + (f" (default: {default})" if default else "")
        + "; written as a whole (a failed or interrupted run leaves the previous one untouched)",
    )


# ---------------------------------------------------------------------------- outputs
def written(tmp: Path, final: Path, files: list[Path]) -> str:
    """``wrote a, b, c`` with the final paths of files written in the temporary directory."""
    return "wrote " + ", ".join(str(final / Path(f).relative_to(tmp)) for f in files)


def file_done() -> None:
    """Test hook between two output files (``RANKSTATS_FAIL_AT=cli-file:N``)."""
    checkpoint("cli-file")


def json_default(value: object) -> object:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def clean(records: list[dict]) -> list[dict]:
    """Replace NaN by None so the JSON is standard."""
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
        for r in records
    ]


def write_json(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, indent=1, default=json_default, ensure_ascii=False))
    return path


def short(name: object, width: int) -> str:
    """A name for a terminal column: control characters escaped, cut to ``width``."""
    return shorten(terminal(name), width)


def check_out(args: argparse.Namespace) -> None:
    """Refuse an unusable ``--out`` directory before any computing."""
    if getattr(args, "out", None):
        check_output_dir(args.out)

"""The options several subcommands share, and the argument types that check a value as it is
parsed (``--delta 1.5`` is refused by argparse with the expected range).

Light on purpose: only :mod:`argparse` and the lists of choices (bundled data sets, aggregation
methods, Hoeffding options), so that ``rankstats --help`` imports no numerical library.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from rankstats.aggregation.choices import CORRECTIONS, ESTIMANDS, FORMS
from rankstats.datasets import DATASETS


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
nonnegative = _number(float, lambda v: math.isfinite(v) and v >= 0, "a finite number ≥ 0")
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


def add_zero_method_argument(parser: argparse._ActionsContainer, default: str | None) -> None:
    """``--zero-method``: the zero differences of Wilcoxon's signed-rank test (the words of
    :mod:`rankstats.significance.zero_methods`, imported when the command's options are built)."""
    from rankstats.significance.zero_methods import DEFAULT, ZERO_METHODS

    parser.add_argument(
        "--zero-method",
        choices=ZERO_METHODS,
        default=default,
        help="zero score differences in Wilcoxon's signed-rank test (scipy's zero_method): "
        f"{DEFAULT} drops them (default, as scipy and R), pratt ranks them (Pratt 1959), zsplit "
        "splits their ranks between the signs",
    )


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
    "preferences",
)


def add_rankings_file_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format`` (what FILE holds) and the column options of rankings files."""
    parser.add_argument(
        "--format",
        choices=FILE_FORMATS,
        default="auto",
        help="what FILE holds: auto (default: PrefLib rankings for .soc / .soi / .toc / .toi, "
        "else a score table), scores, preflib, soc, soi, toc, toi, rank-matrix (one row per "
        "ranker, one column per system, cells = ranks), orderings (one ranking per row, best "
        "first), pairwise (one stated preference per row; --model bt) or preferences (each "
        "assessor's stated preferences, one per row: assessor, preferred, other; --model "
        "mallows)",
    )
    parser.add_argument(
        "--ranker",
        default=None,
        metavar="COLUMN",
        help="rank-matrix / orderings: the column labelling the rows (default: one named "
        "'ranker', if any); preferences: the assessor column (default: assessor)",
    )
    parser.add_argument(
        "--preferred",
        default=None,
        metavar="COLUMN",
        help="pairwise / preferences: the column of the preferred system (default: preferred)",
    )
    parser.add_argument(
        "--other",
        default=None,
        metavar="COLUMN",
        help="pairwise / preferences: the column of the system it was preferred to (default: "
        "other)",
    )


def add_output_argument(parser: argparse.ArgumentParser, default: str | None, what: str) -> None:
    parser.add_argument(
        "--out",
        default=default,
        metavar="DIR",
        help=f"output directory for {what}"
        + (f" (default: {default})" if default else "")
        + "; written as a whole (a failed or interrupted run leaves the previous one untouched)",
    )


#: Values of ``--placeholders`` (``rank``, ``report``).
PLACEHOLDER_CHOICES = ("keep", "missing")


def add_placeholder_argument(parser: argparse.ArgumentParser) -> None:
    """``--placeholders keep|missing`` of the commands that run the check first."""
    parser.add_argument(
        "--placeholders",
        choices=PLACEHOLDER_CHOICES,
        default="keep",
        help="blocks of exact 0 or -1 below all other scores of a task, which the data check "
        "reports: keep them as scores (default) or read them as not evaluated (missing)",
    )

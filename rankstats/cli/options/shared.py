"""The options several subcommands share, declared once (``add_*``; each group held by one
frozen object of :mod:`rankstats.cli.options.groups`), and the argument types that check a value
as it is parsed (``--delta 1.5`` is refused by argparse with the expected range).

Light on purpose: only :mod:`argparse` and the lists of choices (bundled data sets, aggregation
methods, Hoeffding options), so that ``rankstats --help`` imports no numerical library.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from rankstats.aggregation.choices import CORRECTIONS, ESTIMANDS, FORMS
from rankstats.cli.usage import renamed
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
    parser: argparse.ArgumentParser, task_flag: str = "--task", by: bool = False
) -> None:
    """FILE | --dataset NAME and the column / direction options shared by subcommands
    (:class:`InputOptions`).

    ``task_flag`` names the option of the task column (``task`` either way): a subcommand whose
    ``--task`` chooses a metric passes ``"--task-column"``. ``by`` adds ``--by``."""
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
    add_text_file_arguments(parser)
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

    if by:
        add_by_argument(parser, "rank per task or per (task, instance)", None)


def add_by_argument(parser: argparse._ActionsContainer, what: str, default: str | None) -> None:
    """``--by task|instance``: what the rankings (or blocks) are built from."""
    renamed(
        parser,
        "--by",
        old=("--level",),
        choices=["task", "instance"],
        default=default,
        help=f"{what} (default: {default or 'instance when the data has it'})",
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


# ---------------------------------------------------------------------------- other groups
def add_text_file_arguments(parser: argparse._ActionsContainer) -> None:
    """``--sep`` and ``--encoding`` of a CSV/TSV file."""
    parser.add_argument(
        "--sep", default=None, help="field separator of a text file (default: detected)"
    )
    parser.add_argument(
        "--encoding",
        default="utf-8",
        help="text encoding of a CSV/TSV file (default: utf-8; e.g. latin-1, utf-16)",
    )


def add_alpha_argument(
    parser: argparse._ActionsContainer, default: float | None, what: str
) -> None:
    """``--alpha``: the significance level of a test (docs/vocabulary.md)."""
    parser.add_argument(
        "--alpha",
        type=probability,
        default=default,
        help=f"significance level of {what}, in (0, 1) (default 0.05)",
    )


def add_scheduler_argument(parser: argparse._ActionsContainer, what: str) -> None:
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help=f"run {what} on this Dask cluster, e.g. tcp://host:8786 (needs rankstats[dask])",
    )


def add_covariate_columns_argument(parser: argparse._ActionsContainer, default: str) -> None:
    parser.add_argument(
        "--covariate-columns",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help=f"the covariates to use (default: {default})",
    )


def add_seed_argument(parser: argparse._ActionsContainer, what: str = "random seed") -> None:
    parser.add_argument("--seed", type=int, default=0, help=f"{what} (default 0)")


def add_n_jobs_argument(
    parser: argparse._ActionsContainer,
    default: int,
    what: str,
    old: tuple[str, ...] = ("--jobs",),
    all_cores: bool = True,
) -> None:
    """``--n-jobs N``: parallel workers, -1 for all cores where ``all_cores`` (checked by
    :func:`check_n_jobs`)."""
    renamed(
        parser,
        "--n-jobs",
        old=old,
        type=int if all_cores else at_least(1),
        default=default,
        metavar="N",
        help=f"{what} ({'-1: all cores; ' if all_cores else ''}default {default})",
    )


def check_n_jobs(n_jobs: int) -> None:
    """``--n-jobs``: ≥ 1 or -1."""
    from rankstats.cli.usage import UsageError

    if n_jobs == 0 or n_jobs < -1:
        raise UsageError(f"--n-jobs must be ≥ 1 or -1 (all cores), not {n_jobs}")


def add_progress_argument(parser: argparse._ActionsContainer, what: str = "") -> None:
    """``--progress / --no-progress`` (default: a bar when stderr is a terminal)."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"progress display{what} on stderr: --progress also writes it as plain lines when "
        "stderr is not a terminal, --no-progress (or --quiet) draws none (default: a bar when "
        "stderr is a terminal)",
    )


def add_confidence_level_argument(parser: argparse._ActionsContainer, what: str) -> None:
    renamed(
        parser,
        "--confidence-level",
        old=("--confidence",),
        type=probability,
        default=0.95,
        help=f"coverage of the {what}, in (0, 1) (default 0.95)",
    )


def add_n_resamples_argument(
    parser: argparse._ActionsContainer,
    default: int | None,
    minimum: int,
    what: str,
    old: tuple[str, ...] = ("--bootstrap",),
) -> None:
    renamed(
        parser,
        "--n-resamples",
        old=old,
        type=at_least(minimum),
        default=default,
        metavar="N",
        help=f"bootstrap resamples{what}",
    )


def add_mcmc_arguments(
    parser: argparse._ActionsContainer,
    draws: int,
    tune: int | None,
    minimum: int,
    what: str,
    tune_help: str | None = None,
    draws_help: str | None = None,
) -> None:
    """``--draws``, ``--tune``, ``--chains`` of a sampler (:class:`McmcOptions`)."""
    parser.add_argument(
        "--draws",
        type=at_least(max(minimum, 1)),
        default=draws,
        metavar="N",
        help=draws_help or f"{what}: draws per chain (default {draws})",
    )
    parser.add_argument(
        "--tune",
        type=at_least(minimum),
        default=tune,
        metavar="N",
        help=tune_help or f"{what}: tuning steps per chain (default {tune})",
    )
    parser.add_argument(
        "--chains",
        type=at_least(1),
        default=4,
        metavar="N",
        help=f"{what}: chains (default 4)" if what else "independent chains (default 4)",
    )


def add_figures_argument(parser: argparse._ActionsContainer, what: str = "the figures") -> None:
    parser.add_argument("--no-figures", action="store_true", help=f"skip {what}")


def add_top_argument(parser: argparse._ActionsContainer, what: str) -> None:
    parser.add_argument(
        "--top",
        type=at_least(1),
        default=None,
        metavar="N",
        help=f"{what} (the statistics use all systems; ranking.csv and pairs.csv list every one)",
    )


def add_battle_columns(parser: argparse._ActionsContainer, what: str = "") -> None:
    """``--model-a``, ``--model-b``, ``--winner``: the columns of a battle log."""
    for flag, default, text in (
        ("--model-a", "model_a", "column of the model shown first"),
        ("--model-b", "model_b", "column of the model shown second"),
        (
            "--winner",
            "winner",
            "winner column: a / model_a, b / model_b, tie, both-bad / tie (bothbad)",
        ),
    ):
        parser.add_argument(flag, default=default, metavar="COL", help=f"{what}{text} ({default})")


def add_missing_treatment_arguments(
    parser: argparse._ActionsContainer, missing: str | None, min_coverage: float | None
) -> None:
    """``--missing`` (incomplete blocks of a rank test) and ``--min-coverage``."""
    from rankstats.significance.blocks import MISSING

    parser.add_argument(
        "--missing",
        choices=list(MISSING),
        default=missing,
        help="incomplete blocks: refuse them, naming the first (default), or keep only the "
        "complete blocks and report what was dropped (docs/user-guide/significance.md has "
        "every choice)",
    )
    parser.add_argument(
        "--min-coverage",
        type=coverage,
        default=min_coverage,
        metavar="FRACTION",
        help="with --missing complete-case or imputed: first drop the systems evaluated in "
        "fewer than this fraction of the blocks (default 0: only systems evaluated nowhere)",
    )


def add_simulated_scores(
    parser: argparse._ActionsContainer, noise: str, missing_pattern: str | None
) -> None:
    """``--scale``, ``--missing-rate``, ``--missing-pattern``, ``--round`` of a simulator."""
    parser.add_argument(
        "--scale", type=positive, default=1.0, help=f"{noise} scale of every score (default 1)"
    )
    renamed(
        parser,
        "--missing-rate",
        old=("--missing",),
        type=fraction,
        default=0.0,
        help="share of scores removed, in [0, 1) (default 0)",
    )
    parser.add_argument(
        "--missing-pattern",
        choices=["cell", "block"],
        default=missing_pattern,
        help="remove single scores (cell; default) or whole (system, task) blocks (block"
        + ("; the default with --partitions)" if missing_pattern is None else ")"),
    )
    parser.add_argument(
        "--round",
        type=at_least(0),
        default=None,
        dest="round_to",
        help="round scores to this many decimals (creates ties)",
    )

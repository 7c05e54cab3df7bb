"""The options as data: each subcommand declares a table (``ARGUMENTS``) of :func:`opt` specs,
the groups several subcommands share (functions below returning a tuple of specs, each group held
by one frozen object of :mod:`rankstats.cli.options.groups`), argument groups (:func:`group`) and
mutually exclusive ones (:func:`exclusive`); :func:`add` declares a table on a parser. The
argument types check a value as it is parsed (``--delta 1.5`` is refused by argparse with the
expected range).

Light on purpose: only :mod:`argparse` and the lists of choices (bundled data sets, aggregation
methods, Hoeffding options), so that ``rankstats --help`` imports no numerical library; a group
whose choices live with the numerical code is a function called when the command's options are
built (a callable in a table).

The tables are laid out by hand (``# fmt: off``): one option a line, its help below it.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable
from typing import Any

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


# ---------------------------------------------------------------------------- the tables
@dataclasses.dataclass(frozen=True)
class Opt:
    """One option: ``add_argument(*flags, **kwargs)``, each ``old`` spelling still accepted
    (:func:`rankstats.cli.usage.renamed`)."""

    flags: tuple[str, ...]
    old: tuple[str, ...]
    kwargs: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Group:
    """Options shown under ``title`` in ``--help``; no title: a mutually exclusive group."""

    title: str | None
    items: tuple


def opt(*flags: str, old: tuple[str, ...] = (), **kwargs: Any) -> Opt:
    return Opt(flags, old, kwargs)


def group(title: str, *items: Any) -> Group:
    return Group(title, items)


def exclusive(*items: Any) -> Group:
    return Group(None, items)


def add(container: Any, items: Any) -> None:
    """Declare a table on ``container`` (a parser or a group), in its order: an :class:`Opt`,
    a :class:`Group`, a nested tuple (a shared group) or a callable returning one of these."""
    for item in items:
        if isinstance(item, Opt):
            renamed(container, *item.flags, old=item.old, **item.kwargs)
        elif isinstance(item, Group):
            title = item.title
            add(container.add_argument_group(title) if title else
                container.add_mutually_exclusive_group(), item.items)  # fmt: skip
        else:
            add(container, item() if callable(item) else item)


# ---------------------------------------------------------------------------- shared input
class _Columns(argparse.Action):
    """One column name as a string, several as a list (``--system name pretrained``)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values[0] if len(values) == 1 else list(values))


# fmt: off
def input_arguments(task_flag: str = "--task", by: bool = False) -> tuple:
    """FILE | --dataset NAME and the column / direction options shared by subcommands
    (:class:`InputOptions`).

    ``task_flag`` names the option of the task column (``task`` either way): a subcommand whose
    ``--task`` chooses a metric passes ``"--task-column"``. ``by`` adds ``--by``."""
    return (
        opt("file", nargs="?", help="score table: CSV, TSV or Parquet (long or wide)"),
        opt("--dataset", choices=sorted(DATASETS), help="a bundled data set instead"),
        opt("--system", nargs="+", action=_Columns, default="system", metavar="COLUMN",
            help="system column (default: system); several columns name a system together, "
            "e.g. --system name pretrained (joined as 'RN50 / openai')"),
        opt(task_flag, dest="task", default="task",
            help="task column of a long table (default: task)"),
        opt("--instance", default=None,
            help="instance column of a long table (default: a column named 'instance', if any)"),
        opt("--score", default="score", help="score column of a long table"),
        opt("--layout", choices=["auto", "long", "wide"], default="auto",
            help="long = one row per score; wide = one row per system (default: auto)"),
        opt("--lower-is-better", nargs="+", default=[], metavar="TASK",
            help="tasks where a lower score is better"),
        text_file_arguments(),
        opt("--na-values", nargs="+", default=None, metavar="WORD",
            help="words to read as 'not evaluated' in the score column, e.g. NA n/a (default: "
            "only empty cells; other words are refused)"),
        opt("--ignore-memory-check", action="store_true",
            help="compute even when the memory estimated from the input's shape exceeds what "
            "this machine has (sets RANKSTATS_IGNORE_MEMORY=1)"),
        opt("--tasks", nargs="+", default=None, metavar="COLUMN",
            help="wide tables: the task columns to rank (default: every other column; a column "
            "named like an aggregate, e.g. Average, must be chosen or left out explicitly)"),
        opt("--drop-columns", nargs="+", default=None, metavar="COLUMN",
            help="wide tables: columns that are not tasks (an average, parameter counts, "
            "FLOPs), left out; every other column is a task"),
        by_argument("rank per task or per (task, instance)", None) if by else (),
    )


def by_argument(what: str, default: str | None) -> tuple:
    """``--by task|instance``: what the rankings (or blocks) are built from."""
    return (opt("--by", old=("--level",), choices=["task", "instance"], default=default,
                help=f"{what} (default: {default or 'instance when the data has it'})"),)


def significance_arguments(form: bool) -> tuple:
    """``--delta``, ``--correction``, [``--form``], ``--estimand`` of the Hoeffding intervals."""
    return (
        opt("--delta", type=probability, default=0.05,
            help="error level δ, in (0, 1) (default 0.05)"),
        opt("--correction", choices=CORRECTIONS, default="holm",
            help="multiplicity correction over pairs (default: holm)"),
        opt("--form", choices=FORMS, default="two-sided",
            help="Hoeffding half-width: two-sided (default) or the one-sided width printed by "
            "Himmi et al. (2023)") if form else (),
        opt("--estimand", choices=ESTIMANDS, default="imputed",
            help="pairwise probability estimated (default: imputed, as Himmi et al. 2023)"),
    )


def zero_method_argument(default: str | None) -> Callable[[], tuple]:
    """``--zero-method``: the zero differences of Wilcoxon's signed-rank test (the words of
    :mod:`rankstats.significance.zero_methods`, imported when the command's options are built)."""
    def build() -> tuple:
        from rankstats.significance.zero_methods import DEFAULT, ZERO_METHODS

        return (opt("--zero-method", choices=ZERO_METHODS, default=default,
                    help="zero score differences in Wilcoxon's signed-rank test (scipy's "
                    f"zero_method): {DEFAULT} drops them (default, as scipy and R), pratt ranks "
                    "them (Pratt 1959), zsplit splits their ranks between the signs"),)

    return build


#: ``--format`` of FILE for commands that read rankings files as well as score tables.
FILE_FORMATS = ("auto", "scores", "preflib", "soc", "soi", "toc", "toi", "rank-matrix",
                "orderings", "pairwise", "preferences")

#: ``--format`` (what FILE holds) and the column options of rankings files.
RANKINGS_FILE = (
    opt("--format", choices=FILE_FORMATS, default="auto",
        help="what FILE holds: auto (default: PrefLib rankings for .soc / .soi / .toc / .toi, "
        "else a score table), scores, preflib, soc, soi, toc, toi, rank-matrix (one row per "
        "ranker, one column per system, cells = ranks), orderings (one ranking per row, best "
        "first), pairwise (one stated preference per row; --model bt) or preferences (each "
        "assessor's stated preferences, one per row: assessor, preferred, other; --model "
        "mallows)"),
    opt("--ranker", default=None, metavar="COLUMN",
        help="rank-matrix / orderings: the column labelling the rows (default: one named "
        "'ranker', if any); preferences: the assessor column (default: assessor)"),
    opt("--preferred", default=None, metavar="COLUMN",
        help="pairwise / preferences: the column of the preferred system (default: preferred)"),
    opt("--other", default=None, metavar="COLUMN",
        help="pairwise / preferences: the column of the system it was preferred to (default: "
        "other)"),
)


def output_argument(default: str | None, what: str) -> Opt:
    return opt("--out", default=default, metavar="DIR",
               help=f"output directory for {what}" + (f" (default: {default})" if default else "")
               + "; written as a whole (a failed or interrupted run leaves the previous one "
               "untouched)")


#: Values of ``--placeholders`` (``rank``, ``report``).
PLACEHOLDER_CHOICES = ("keep", "missing")
#: ``--placeholders keep|missing`` of the commands that run the check first.
PLACEHOLDERS = opt(
    "--placeholders", choices=PLACEHOLDER_CHOICES, default="keep",
    help="blocks of exact 0 or -1 below all other scores of a task, which the data check reports: "
    "keep them as scores (default) or read them as not evaluated (missing)")


# ---------------------------------------------------------------------------- other groups
def text_file_arguments() -> tuple:
    """``--sep`` and ``--encoding`` of a CSV/TSV file."""
    return (
        opt("--sep", default=None, help="field separator of a text file (default: detected)"),
        opt("--encoding", default="utf-8",
            help="text encoding of a CSV/TSV file (default: utf-8; e.g. latin-1, utf-16)"),
    )


def alpha_argument(default: float | None, what: str) -> Opt:
    """``--alpha``: the significance level of a test (docs/vocabulary.md)."""
    return opt("--alpha", type=probability, default=default,
               help=f"significance level of {what}, in (0, 1) (default 0.05)")


def scheduler_argument(what: str) -> Opt:
    return opt("--scheduler", default=None, metavar="ADDRESS",
               help=f"run {what} on this Dask cluster, e.g. tcp://host:8786 (needs "
               "rankstats[dask])")


def covariate_columns_argument(default: str) -> Opt:
    return opt("--covariate-columns", nargs="+", default=None, metavar="COLUMN",
               help=f"the covariates to use (default: {default})")


def seed_argument(what: str = "random seed") -> Opt:
    return opt("--seed", type=int, default=0, help=f"{what} (default 0)")


def n_jobs_argument(default: int, what: str, old: tuple[str, ...] = ("--jobs",),
                    all_cores: bool = True) -> Opt:
    """``--n-jobs N``: parallel workers, -1 for all cores where ``all_cores`` (checked by
    :func:`check_n_jobs`)."""
    return opt("--n-jobs", old=old, type=int if all_cores else at_least(1), default=default,
               metavar="N",
               help=f"{what} ({'-1: all cores; ' if all_cores else ''}default {default})")


def check_n_jobs(n_jobs: int) -> None:
    """``--n-jobs``: ≥ 1 or -1."""
    from rankstats.cli.usage import UsageError

    if n_jobs == 0 or n_jobs < -1:
        raise UsageError(f"--n-jobs must be ≥ 1 or -1 (all cores), not {n_jobs}")


def progress_argument(what: str = "") -> Opt:
    """``--progress / --no-progress`` (default: a bar when stderr is a terminal)."""
    return opt("--progress", action=argparse.BooleanOptionalAction, default=None,
               help=f"progress display{what} on stderr: --progress also writes it as plain lines "
               "when stderr is not a terminal, --no-progress (or --quiet) draws none (default: a "
               "bar when stderr is a terminal)")


def confidence_level_argument(what: str) -> Opt:
    return opt("--confidence-level", old=("--confidence",), type=probability, default=0.95,
               help=f"coverage of the {what}, in (0, 1) (default 0.95)")


def n_resamples_argument(default: int | None, minimum: int, what: str,
                         old: tuple[str, ...] = ("--bootstrap",)) -> Opt:
    return opt("--n-resamples", old=old, type=at_least(minimum), default=default, metavar="N",
               help=f"bootstrap resamples{what}")


def mcmc_arguments(draws: int, tune: int | None, minimum: int, what: str,
                   tune_help: str | None = None, draws_help: str | None = None) -> tuple:
    """``--draws``, ``--tune``, ``--chains`` of a sampler (:class:`McmcOptions`)."""
    return (
        opt("--draws", type=at_least(max(minimum, 1)), default=draws, metavar="N",
            help=draws_help or f"{what}: draws per chain (default {draws})"),
        opt("--tune", type=at_least(minimum), default=tune, metavar="N",
            help=tune_help or f"{what}: tuning steps per chain (default {tune})"),
        opt("--chains", type=at_least(1), default=4, metavar="N",
            help=f"{what}: chains (default 4)" if what else "independent chains (default 4)"),
    )


def figures_argument(what: str = "the figures") -> Opt:
    return opt("--no-figures", action="store_true", help=f"skip {what}")


def top_argument(what: str) -> Opt:
    return opt("--top", type=at_least(1), default=None, metavar="N",
               help=f"{what} (the statistics use all systems; ranking.csv and pairs.csv list "
               "every one)")


def battle_columns(what: str = "") -> tuple:
    """``--model-a``, ``--model-b``, ``--winner``: the columns of a battle log."""
    return tuple(
        opt(flag, default=default, metavar="COL", help=f"{what}{text} ({default})")
        for flag, default, text in (
            ("--model-a", "model_a", "column of the model shown first"),
            ("--model-b", "model_b", "column of the model shown second"),
            ("--winner", "winner",
             "winner column: a / model_a, b / model_b, tie, both-bad / tie (bothbad)"),
        )
    )


def missing_treatment_arguments(missing: str | None,
                                min_coverage: float | None) -> Callable[[], tuple]:
    """``--missing`` (incomplete blocks of a rank test) and ``--min-coverage``."""
    def build() -> tuple:
        from rankstats.significance.blocks import MISSING

        return (
            opt("--missing", choices=list(MISSING), default=missing,
                help="incomplete blocks: refuse them, naming the first (default), or keep only "
                "the complete blocks and report what was dropped "
                "(docs/user-guide/significance.md has every choice)"),
            opt("--min-coverage", type=coverage, default=min_coverage, metavar="FRACTION",
                help="with --missing complete-case or imputed: first drop the systems evaluated "
                "in fewer than this fraction of the blocks (default 0: only systems evaluated "
                "nowhere)"),
        )

    return build


def simulated_scores(noise: str, missing_pattern: str | None) -> tuple:
    """``--scale``, ``--missing-rate``, ``--missing-pattern``, ``--round`` of a simulator."""
    return (
        opt("--scale", type=positive, default=1.0,
            help=f"{noise} scale of every score (default 1)"),
        opt("--missing-rate", old=("--missing",), type=fraction, default=0.0,
            help="share of scores removed, in [0, 1) (default 0)"),
        opt("--missing-pattern", choices=["cell", "block"], default=missing_pattern,
            help="remove single scores (cell; default) or whole (system, task) blocks (block"
            + ("; the default with --partitions)" if missing_pattern is None else ")")),
        opt("--round", type=at_least(0), default=None, dest="round_to",
            help="round scores to this many decimals (creates ties)"),
    )
# fmt: on


# ---------------------------------------------------------------------------- old builders
def _adder(build: Callable[..., Any]) -> Callable[..., None]:
    """``add_<group>(parser, …)``: the group declared on ``parser``, for an options module
    written against the builders of the last release (a command added in parallel)."""

    def add_group(parser: Any, *given: Any, **named: Any) -> None:
        add(parser, (build(*given, **named),))

    return add_group


add_input_arguments = _adder(input_arguments)
add_by_argument = _adder(by_argument)
add_significance_arguments = _adder(significance_arguments)
add_zero_method_argument = _adder(zero_method_argument)
add_rankings_file_arguments = _adder(lambda: RANKINGS_FILE)
add_output_argument = _adder(output_argument)
add_placeholder_argument = _adder(lambda: PLACEHOLDERS)
add_text_file_arguments = _adder(text_file_arguments)
add_alpha_argument = _adder(alpha_argument)
add_scheduler_argument = _adder(scheduler_argument)
add_covariate_columns_argument = _adder(covariate_columns_argument)
add_seed_argument = _adder(seed_argument)
add_n_jobs_argument = _adder(n_jobs_argument)
add_progress_argument = _adder(progress_argument)
add_confidence_level_argument = _adder(confidence_level_argument)
add_n_resamples_argument = _adder(n_resamples_argument)
add_mcmc_arguments = _adder(mcmc_arguments)
add_figures_argument = _adder(figures_argument)
add_top_argument = _adder(top_argument)
add_battle_columns = _adder(battle_columns)
add_missing_treatment_arguments = _adder(missing_treatment_arguments)
add_simulated_scores = _adder(simulated_scores)

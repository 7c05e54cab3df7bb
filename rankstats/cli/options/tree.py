"""The options of ``rankstats tree`` (its implementation: :mod:`rankstats.cli.tree`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import InputOptions, OutputOptions, RankingsFileOptions
from rankstats.cli.options.shared import (
    RANKINGS_FILE,
    alpha_argument,
    at_least,
    covariate_columns_argument,
    input_arguments,
    opt,
    output_argument,
    positive,
    progress_argument,
    seed_argument,
)

HELP = (
    "partition the rankings by covariates of the rankers or tasks: a tree of Plackett–Luce "
    "worths (which systems win on which kind of task)"
)
EXAMPLE = (
    "rankstats tree --dataset openclip --ranker-covariates task_groups.csv --systems A B C D\n  "
    "rankstats tree trials.csv --format orderings --ranker farmer --ranker-covariates farmers.csv"
)


# fmt: off
ARGUMENTS = (
    input_arguments(by=True),
    RANKINGS_FILE,
    opt("--ranker-covariates", old=("--covariates",), required=True, metavar="FILE",
        help="CSV, TSV or Parquet: one row per ranker (the --ranker labels of a rankings "
        "FILE, which may repeat: several rankings per ranker), or per task when the rankings "
        "are per (task, instance); its first column (or --key) names the ranker or task; columns "
        "without a number (text, true/false) are categorical, numbers numeric; a column of "
        "numbers with other cells (a typo, inf) is refused, naming them"),
    opt("--key", default=None, metavar="COLUMN", help="the column naming the ranker or task"),
    covariate_columns_argument("every column but the key"),
    opt("--categorical", nargs="+", default=[], metavar="COLUMN",
        help="covariates to treat as categorical although they hold numbers (codes, years); "
        "columns without a number are categorical anyway"),
    opt("--systems", nargs="+", default=None, metavar="NAME",
        help="fit these systems only (each ranking restricted to them); the tests need more "
        "rankers (or tasks) than systems"),
    alpha_argument(0.05, "the Bonferroni-adjusted instability tests"),
    opt("--min-size", type=at_least(1), default=10,
        help="fewest rankers (or tasks) in a leaf (default 10)"),
    opt("--max-depth", type=at_least(0), default=None, help="deepest split (default: none)"),
    opt("--trim", type=positive, default=0.1,
        help="trimming π of the numeric covariates' supLM test, in (0, 0.5) (default 0.1)"),
    opt("--draws", old=("--n-draws",), type=at_least(100), default=10_000,
        help="draws of the simulated supLM null distribution (default 10000: its p-values "
        "are at least 1/10001, printed as a bound '≤' there)"),
    seed_argument("seed of the simulated supLM null distribution"),
    output_argument(None, "leaves.csv, worths.csv, tests.csv, tree.png and tree.pdf"),
    progress_argument(),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats tree``."""

    input: InputOptions
    rankings_file: RankingsFileOptions
    output: OutputOptions
    ranker_covariates: str
    key: str | None = None
    covariate_columns: list[str] | None = None
    categorical: list[str] = dataclasses.field(default_factory=list)
    systems: list[str] | None = None
    alpha: float = 0.05
    min_size: int = 10
    max_depth: int | None = None
    trim: float = 0.1
    draws: int = 10_000
    seed: int = 0
    progress: bool | None = None

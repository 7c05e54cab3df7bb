"""The options of ``rankstats battles`` (its implementation: :mod:`rankstats.cli.battles`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import McmcOptions, OutputOptions
from rankstats.cli.options.shared import (
    battle_columns,
    confidence_level_argument,
    exclusive,
    figures_argument,
    finite,
    group,
    mcmc_arguments,
    n_resamples_argument,
    opt,
    output_argument,
    progress_argument,
    seed_argument,
    text_file_arguments,
)

HELP = "Bradley–Terry ratings of pairwise battles (model_a, model_b, winner), with intervals"
EXAMPLE = "rankstats battles battles.parquet --n-resamples 1000 --anchor gpt-4-0613 --out arena-out"


# fmt: off
ARGUMENTS = (
    opt("file", metavar="FILE", help="battle log: CSV, TSV, Parquet, JSON (lines)"),
    battle_columns(),
    text_file_arguments(),
    opt("--both-bad", choices=["tie", "drop"], default="tie",
        help="'both bad' battles: count as ties (default) or leave out"),
    opt("--ties", choices=["davidson", "half"], default="davidson",
        help="Davidson's tie parameter (default) or a tie as half a win each way"),
    exclusive(
        opt("--order-effect", dest="order_effect", action="store_const", const=True, default=None,
            help="estimate the advantage of the model shown first, and refuse a design that "
            "cannot identify it (default: estimate it when the design identifies it; a star "
            "design, every battle against one baseline, does not: it is then left out with a "
            "warning)"),
        opt("--no-order-effect", dest="order_effect", action="store_const", const=False,
            help="do not estimate the advantage of the model shown first"),
    ),
    opt("--cluster", default=None, metavar="COL",
        help="column grouping battles that are not independent (e.g. question_id when each "
        "question is judged several times): the bootstrap resamples clusters, not battles"),
    opt("--battle-covariate", old=("--covariate",), action="append", default=None,
        metavar="NAME[=COL|=COL_A,COL_B]",
        help="style control: a covariate of each battle in the log-odds (repeatable); a column "
        "of values oriented model a − model b, or two columns of non-negative values (e.g. "
        "token counts) compared as (a − b) / (a + b); the ratings are then adjusted for them"),
    opt("--no-standardize", action="store_true",
        help="--battle-covariate: fit the covariates as given (default: divided by their "
        "standard deviation, effects per standard deviation)"),
    n_resamples_argument(None, 0, " (default 1000; none with --bias-reduction)"),
    opt("--bias-reduction", action="store_true",
        help="Firth's bias-reduced ratings (the likelihood penalised by Jeffreys' prior, as "
        "BradleyTerry2's br = TRUE): finite when a model never wins or never loses"),
    opt("--posterior", action="store_true", help="also sample the posterior (PyMC NUTS; slower)"),
    mcmc_arguments(1000, 1000, 0, "--posterior"),
    confidence_level_argument("intervals"),
    opt("--anchor", default=None, metavar="MODEL", help="model fixed at --rating"),
    opt("--rating", type=finite, default=1000.0, help="rating of --anchor, or the mean (1000)"),
    seed_argument(),
    output_argument("battles-out", "ratings.csv/.tex, the figures, win_probability.csv"),
    figures_argument(),
    progress_argument(),
    group("paper-ready report (with --report)",
        opt("--report", default=None, metavar="DIR",
            help="also write the paper-ready report of the fit into DIR (a directory of its own "
            "beside --out): report.html, LaTeX tables, CSV, figures, methods and BibTeX; see "
            "`rankstats report` for score tables"),
        opt("--title", default=None, help="--report: title of the report (default: the file name)"),
    ),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats battles``."""

    file: str
    output: OutputOptions
    mcmc: McmcOptions
    model_a: str = "model_a"
    model_b: str = "model_b"
    winner: str = "winner"
    sep: str | None = None
    encoding: str = "utf-8"
    both_bad: str = "tie"
    ties: str = "davidson"
    order_effect: bool | None = None
    cluster: str | None = None
    battle_covariate: list[str] | None = None
    no_standardize: bool = False
    n_resamples: int | None = None
    bias_reduction: bool = False
    posterior: bool = False
    confidence_level: float = 0.95
    anchor: str | None = None
    rating: float = 1000.0
    seed: int = 0
    report: str | None = None
    title: str | None = None
    progress: bool | None = None

"""The options of ``rankstats rank`` (its implementation: :mod:`rankstats.cli.rank`)."""

from __future__ import annotations

import dataclasses

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.groups import HoeffdingOptions, InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    PLACEHOLDERS,
    at_least,
    figures_argument,
    group,
    input_arguments,
    n_jobs_argument,
    opt,
    output_argument,
    progress_argument,
    scheduler_argument,
    significance_arguments,
    top_argument,
)

HELP = "rank systems, with Hoeffding significance of every pair"
EXAMPLE = (
    "rankstats rank --dataset xtreme_missing\n  "
    "rankstats rank scores.csv --by instance --method borda2 --lower-is-better perplexity"
)


# fmt: off
ARGUMENTS = (
    input_arguments(by=True),
    PLACEHOLDERS,
    opt("--method", default="borda", choices=METHODS,
        help="aggregation method (default: borda, i.e. σ^l)"),
    significance_arguments(form=True),
    output_argument("rankstats-out", "ranking.csv, pairs.csv, the heatmap, JSON"),
    figures_argument("the heatmap"),
    top_argument("print and draw only the best N systems (the multiplicity correction too uses "
                 "all)"),
    group("streaming (files larger than memory; FILE may be a directory or a quoted glob)",
        opt("--stream", action="store_true",
            help="read FILE in batches with rs.scan_scores (instance level; mean, borda, borda2, "
            "bt)"),
        opt("--batch-rows", type=at_least(1), default=2_000_000,
            help="rows per batch (default 2,000,000)"),
        scheduler_argument("the scan"),
        n_jobs_argument(1, "local worker processes reducing Parquet row groups in parallel",
                        old=("--workers",), all_cores=False),
        opt("--order", choices=("auto", "grouped", "any"), default="auto",
            help="row order of the files: grouped (the rows of each (task, instance) together; "
            "else an error), any (partitioned on disk first), auto (default: grouped, switching "
            "to any with a warning)"),
    ),
    progress_argument(),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats rank``."""

    input: InputOptions
    hoeffding: HoeffdingOptions
    output: OutputOptions
    method: str = "borda"
    top: int | None = None
    stream: bool = False
    batch_rows: int = 2_000_000
    scheduler: str | None = None
    n_jobs: int = 1
    order: str = "auto"
    progress: bool | None = None

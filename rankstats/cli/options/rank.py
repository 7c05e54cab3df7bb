"""The options of ``rankstats rank`` (its implementation: :mod:`rankstats.cli.rank`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.groups import HoeffdingOptions, InputOptions, OutputOptions
from rankstats.cli.options.shared import (
    add_figures_argument,
    add_input_arguments,
    add_n_jobs_argument,
    add_output_argument,
    add_placeholder_argument,
    add_progress_argument,
    add_scheduler_argument,
    add_significance_arguments,
    add_top_argument,
    at_least,
)

HELP = "rank systems, with Hoeffding significance of every pair"
EXAMPLE = (
    "rankstats rank --dataset xtreme_missing\n  "
    "rankstats rank scores.csv --by instance --method borda2 --lower-is-better perplexity"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, by=True)
    add_placeholder_argument(parser)
    parser.add_argument(
        "--method",
        default="borda",
        choices=METHODS,
        help="aggregation method (default: borda, i.e. σ^l)",
    )
    add_significance_arguments(parser, form=True)
    add_output_argument(parser, "rankstats-out", "ranking.csv, pairs.csv, the heatmap, JSON")
    add_figures_argument(parser, "the heatmap")
    add_top_argument(
        parser, "print and draw only the best N systems (the multiplicity correction too uses all)"
    )
    stream = parser.add_argument_group(
        "streaming (files larger than memory; FILE may be a directory or a quoted glob)"
    )
    stream.add_argument(
        "--stream",
        action="store_true",
        help="read FILE in batches with rs.scan_scores (instance level; mean, borda, borda2, bt)",
    )
    stream.add_argument(
        "--batch-rows",
        type=at_least(1),
        default=2_000_000,
        help="rows per batch (default 2,000,000)",
    )
    add_scheduler_argument(stream, "the scan")
    add_n_jobs_argument(
        stream,
        1,
        "local worker processes reducing Parquet row groups in parallel",
        old=("--workers",),
        all_cores=False,
    )
    stream.add_argument(
        "--order",
        choices=("auto", "grouped", "any"),
        default="auto",
        help="row order of the files: grouped (the rows of each (task, instance) together; "
        "else an error), any (partitioned on disk first), auto (default: grouped, switching "
        "to any with a warning)",
    )
    add_progress_argument(parser)


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

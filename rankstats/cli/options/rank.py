"""The options of ``rankstats rank`` (its implementation: :mod:`rankstats.cli.rank`)."""

from __future__ import annotations

import argparse

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.shared import (
    add_input_arguments,
    add_output_argument,
    add_placeholder_argument,
    add_significance_arguments,
    at_least,
)

HELP = "rank systems, with Hoeffding significance of every pair"
EXAMPLE = (
    "rankstats rank --dataset xtreme_missing\n  "
    "rankstats rank scores.csv --level instance --method borda2 --lower-is-better perplexity"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
    add_placeholder_argument(parser)
    parser.add_argument(
        "--method",
        default="borda",
        choices=METHODS,
        help="aggregation method (default: borda, i.e. σ^l)",
    )
    add_significance_arguments(parser, form=True)
    add_output_argument(parser, "rankstats-out", "ranking.csv, pairs.csv, the heatmap, JSON")
    parser.add_argument("--no-figures", action="store_true", help="skip the heatmap")
    parser.add_argument(
        "--top",
        type=at_least(1),
        default=None,
        metavar="N",
        help="print and draw only the best N systems (the statistics and the multiplicity "
        "correction use all systems; ranking.csv and pairs.csv list every one)",
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
    stream.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run on a Dask cluster, e.g. tcp://host:8786 (needs rankstats[dask])",
    )
    stream.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        metavar="N",
        help="local worker processes reducing Parquet row groups in parallel (default 1)",
    )
    stream.add_argument(
        "--order",
        choices=("auto", "grouped", "any"),
        default="auto",
        help="row order of the files: grouped (the rows of each (task, instance) together; "
        "else an error), any (partitioned on disk first), auto (default: grouped, switching "
        "to any with a warning)",
    )
    stream.add_argument(
        "--progress",
        action="store_true",
        help="progress also when stderr is not a terminal, as plain lines (default: a bar "
        "on a terminal only; --quiet: none)",
    )

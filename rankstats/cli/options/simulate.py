"""The options of ``rankstats simulate`` (its implementation: :mod:`rankstats.cli.simulate`)."""

from __future__ import annotations

import argparse

from rankstats.cli.options.shared import at_least, finite, fraction, positive

HELP = "write a synthetic Gumbel benchmark with its truth"
EXAMPLE = (
    "rankstats simulate --systems 20 --tasks 20 --instances 20 --missing 0.2 --out bench.parquet"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--systems", type=at_least(2), default=20, help="number of systems (default 20)"
    )
    parser.add_argument(
        "--tasks", type=at_least(1), default=20, help="number of tasks (default 20)"
    )
    parser.add_argument(
        "--instances",
        type=at_least(1),
        default=None,
        help="instances per task (default: task-level scores)",
    )
    parser.add_argument(
        "--phi",
        type=finite,
        default=0.5,
        help="location step φ between consecutive systems (default 0.5; Colombo et al. 2022)",
    )
    parser.add_argument(
        "--scale", type=positive, default=1.0, help="Gumbel scale of every score (default 1)"
    )
    parser.add_argument(
        "--adversarial",
        type=at_least(0),
        default=0,
        help="adversarial tasks (their order reversed; at most --tasks)",
    )
    parser.add_argument(
        "--missing", type=fraction, default=0.0, help="share of scores removed, in [0, 1)"
    )
    parser.add_argument(
        "--missing-pattern",
        choices=["cell", "block"],
        default=None,
        dest="missing_pattern_given",
        help="remove single scores (cell; default) or whole (system, task) blocks (block; the "
        "default with --partitions)",
    )
    parser.add_argument(
        "--round",
        type=at_least(0),
        default=None,
        dest="round_to",
        help="round scores to this many decimals (creates ties)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--out",
        required=True,
        help="output file (.csv, .csv.gz, .parquet); with --partitions, an output "
        "directory. Written atomically.",
    )
    parser.add_argument(
        "--partitions",
        type=at_least(1),
        default=None,
        help="write a benchmark larger than memory as this many files in --out, one at a time "
        "(needs --instances; missing scores are left out, --missing-pattern block by default); "
        "rankstats-manifest.json, written last, marks the set complete",
    )
    parser.add_argument(
        "--format",
        choices=["parquet", "csv"],
        default="parquet",
        help="file format with --partitions (default: parquet)",
    )

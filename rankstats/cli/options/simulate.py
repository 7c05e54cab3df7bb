"""The options of ``rankstats simulate`` (its implementation: :mod:`rankstats.cli.simulate`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.cli.options.shared import (
    add_progress_argument,
    add_seed_argument,
    add_simulated_scores,
    at_least,
    finite,
)

HELP = "write a synthetic Gumbel benchmark with its truth"
EXAMPLE = (
    "rankstats simulate --systems 20 --tasks 20 --instances 20 --missing-rate 0.2 "
    "--out bench.parquet"
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
        "--adversarial",
        type=at_least(0),
        default=0,
        help="adversarial tasks (their order reversed; at most --tasks)",
    )
    add_simulated_scores(parser, "Gumbel", None)
    add_seed_argument(parser)
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
    add_progress_argument(parser, " (with --partitions)")


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats simulate``; ``missing_pattern`` is None when not given (its
    default depends on ``--partitions``)."""

    out: str
    systems: int = 20
    tasks: int = 20
    instances: int | None = None
    phi: float = 0.5
    scale: float = 1.0
    adversarial: int = 0
    missing_rate: float = 0.0
    missing_pattern: str | None = None
    round_to: int | None = None
    seed: int = 0
    partitions: int | None = None
    format: str = "parquet"
    progress: bool | None = None

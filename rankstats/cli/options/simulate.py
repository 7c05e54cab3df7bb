"""The options of ``rankstats simulate`` (its implementation: :mod:`rankstats.cli.simulate`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.shared import (
    at_least,
    finite,
    opt,
    progress_argument,
    seed_argument,
    simulated_scores,
)

HELP = "write a synthetic Gumbel benchmark with its truth"
EXAMPLE = (
    "rankstats simulate --systems 20 --tasks 20 --instances 20 --missing-rate 0.2 "
    "--out bench.parquet"
)


# fmt: off
ARGUMENTS = (
    opt("--systems", type=at_least(2), default=20, help="number of systems (default 20)"),
    opt("--tasks", type=at_least(1), default=20, help="number of tasks (default 20)"),
    opt("--instances", type=at_least(1), default=None,
        help="instances per task (default: task-level scores)"),
    opt("--phi", type=finite, default=0.5,
        help="location step φ between consecutive systems (default 0.5; Colombo et al. 2022)"),
    opt("--adversarial", type=at_least(0), default=0,
        help="adversarial tasks (their order reversed; at most --tasks)"),
    simulated_scores("Gumbel", None),
    seed_argument(),
    opt("--out", required=True,
        help="output file (.csv, .csv.gz, .parquet); with --partitions, an output "
        "directory. Written atomically."),
    opt("--partitions", type=at_least(1), default=None,
        help="write a benchmark larger than memory as this many files in --out, one at a time "
        "(needs --instances; missing scores are left out, --missing-pattern block by default); "
        "rankstats-manifest.json, written last, marks the set complete"),
    opt("--format", choices=["parquet", "csv"], default="parquet",
        help="file format with --partitions (default: parquet)"),
    progress_argument(" (with --partitions)"),
)
# fmt: on


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

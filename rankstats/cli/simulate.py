"""``rankstats simulate``: a synthetic Gumbel benchmark with its true ranking."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rankstats._util.atomic import check_output_dir, check_output_file
from rankstats.cli._common import UsageError, at_least, finite, fraction, positive

HELP = "write a synthetic Gumbel benchmark with its truth"
EXAMPLE = (
    "rankstats simulate --systems 20 --tasks 20 --instances 20 --missing 0.2 --out bench.parquet"
)

SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


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


def _gumbel_options(args: argparse.Namespace) -> dict:
    """Generator options shared by the in-memory and the partitioned benchmark."""
    return {
        "phi": args.phi,
        "scale": args.scale,
        "seed": args.seed,
        "missing": args.missing,
        "round_to": args.round_to,
    }


def check(args: argparse.Namespace) -> None:
    """Every argument and the output path, before generating anything."""
    if args.adversarial > args.tasks:
        raise UsageError(f"--adversarial {args.adversarial} exceeds --tasks {args.tasks}")
    if args.partitions is None:
        check_output_file(args.out, SUFFIXES)
        return
    if args.instances is None:
        raise UsageError("--partitions needs --instances")
    if args.adversarial:
        raise UsageError("--adversarial is not available with --partitions")
    if args.partitions > args.tasks * args.instances:
        raise UsageError(
            f"--partitions {args.partitions} exceeds the {args.tasks * args.instances} "
            "(task, instance) rankings"
        )
    if Path(args.out).suffix.lower() in SUFFIXES:
        raise UsageError(f"--out {args.out}: with --partitions, give a directory")
    check_output_dir(args.out)


def _partitioned(args: argparse.Namespace) -> int:
    from rankstats.simulate import gumbel_files

    start = time.perf_counter()
    files, truth = gumbel_files(
        args.out,
        args.systems,
        args.tasks,
        args.instances,
        partitions=args.partitions,
        missing_pattern=args.missing_pattern_given or "block",
        fmt=args.format,
        progress=True,  # a bar on a terminal, unless --quiet (rankstats._util.progress)
        **_gumbel_options(args),
    )
    size = sum(f.stat().st_size for f in files)
    total = args.systems * args.tasks * args.instances
    print(
        f"wrote {len(files)} {args.format} files to {args.out} ({size / 1e6:,.0f} MB; "
        f"{total:,} scores before removing missing ones) and {truth} in "
        f"{time.perf_counter() - start:.1f} s"
    )
    print(f"read them with: rankstats rank {args.out} --stream")
    return 0


def run(args: argparse.Namespace) -> int:
    from rankstats.simulate import gumbel

    if args.partitions is not None:
        return _partitioned(args)
    sim = gumbel(
        args.systems,
        args.tasks,
        args.instances,
        adversarial_tasks=args.adversarial,
        missing_pattern=args.missing_pattern_given or "cell",
        **_gumbel_options(args),
    )
    out = Path(args.out)
    paths = sim.to_parquet(out) if out.suffix in (".parquet", ".pq") else sim.to_csv(out)
    print(repr(sim))
    print(f"wrote {paths[0]} and {paths[1]} (truth, best first: {', '.join(sim.truth[:5])}, ...)")
    return 0

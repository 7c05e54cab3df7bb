"""``rankstats simulate``: a synthetic Gumbel benchmark with its true ranking."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rankstats._util.atomic import check_output_dir, check_output_file
from rankstats.cli.usage import UsageError

SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


def _gumbel_options(args: argparse.Namespace) -> dict:
    """Generator options shared by the in-memory and the partitioned benchmark."""
    return {
        "phi": args.phi,
        "scale": args.scale,
        "seed": args.seed,
        "missing_rate": args.missing,
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

"""``rankstats simulate``: a synthetic Gumbel benchmark with its true ranking."""

from __future__ import annotations

import time
from pathlib import Path

from rankstats._util.atomic import check_output_dir, check_output_file
from rankstats.cli.options.simulate import Options
from rankstats.cli.usage import UsageError

SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


def _gumbel_options(opts: Options, pattern: str, adversarial: dict) -> dict:
    """Generator options shared by the in-memory and the partitioned benchmark."""
    from rankstats.simulate import Corruptions

    corruptions = Corruptions(
        missing_rate=opts.missing_rate,
        missing_pattern=opts.missing_pattern or pattern,
        round_to=opts.round_to,
        **adversarial,
    )
    return {"phi": opts.phi, "scale": opts.scale, "seed": opts.seed, "corruptions": corruptions}


def check(opts: Options) -> None:
    """Every argument and the output path, before generating anything."""
    if opts.adversarial > opts.tasks:
        raise UsageError(f"--adversarial {opts.adversarial} exceeds --tasks {opts.tasks}")
    if opts.partitions is None:
        check_output_file(opts.out, SUFFIXES)
        return
    if opts.instances is None:
        raise UsageError("--partitions needs --instances")
    if opts.adversarial:
        raise UsageError("--adversarial is not available with --partitions")
    if opts.partitions > opts.tasks * opts.instances:
        raise UsageError(
            f"--partitions {opts.partitions} exceeds the {opts.tasks * opts.instances} "
            "(task, instance) rankings"
        )
    if Path(opts.out).suffix.lower() in SUFFIXES:
        raise UsageError(f"--out {opts.out}: with --partitions, give a directory")
    check_output_dir(opts.out)


def _partitioned(opts: Options) -> int:
    from rankstats.simulate import gumbel_files

    start = time.perf_counter()
    files, truth = gumbel_files(
        opts.out,
        opts.systems,
        opts.tasks,
        opts.instances,
        partitions=opts.partitions,
        fmt=opts.format,
        progress=True,  # a bar on a terminal, unless --quiet (rankstats._util.progress)
        **_gumbel_options(opts, "block", {}),
    )
    size = sum(f.stat().st_size for f in files)
    total = opts.systems * opts.tasks * opts.instances
    print(
        f"wrote {len(files)} {opts.format} files to {opts.out} ({size / 1e6:,.0f} MB; "
        f"{total:,} scores before removing missing ones) and {truth} in "
        f"{time.perf_counter() - start:.1f} s"
    )
    print(f"read them with: rankstats rank {opts.out} --stream")
    return 0


def run(opts: Options) -> int:
    from rankstats.simulate import gumbel

    if opts.partitions is not None:
        return _partitioned(opts)
    sim = gumbel(
        opts.systems,
        opts.tasks,
        opts.instances,
        **_gumbel_options(opts, "cell", {"adversarial_tasks": opts.adversarial}),
    )
    out = Path(opts.out)
    paths = sim.to_parquet(out) if out.suffix in (".parquet", ".pq") else sim.to_csv(out)
    print(repr(sim))
    print(f"wrote {paths[0]} and {paths[1]} (truth, best first: {', '.join(sim.truth[:5])}, ...)")
    return 0

"""Rank systems on a benchmark larger than memory: write it as Parquet parts, stream it back.

Run: ``python examples/scale_streaming.py [--instances 330000] [--workers 2] [--dir DIR]``

With ``--instances 330000`` this is the 131-million-score benchmark of the "Scaling up" page
(1 GB on disk; its streaming pass took 13.2 s with two worker processes in
``tests/benchmarks/bench_scale.py``); the default of 33,000 instances per task (13 million scores)
was written in 1.7 s and streamed in 6.1 s here.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import rankstats as rs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=33_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    directory = Path(args.dir or tempfile.mkdtemp(prefix="rankstats-scale-"))

    start = time.perf_counter()
    files, truth_path = rs.simulate.gumbel_files(
        directory,
        20,
        20,
        args.instances,
        partitions=8,
        corruptions=rs.simulate.Corruptions(missing_rate=0.1, missing_pattern="block"),
        seed=0,
    )
    print(f"wrote {len(files)} Parquet files to {directory} in {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    scanned = rs.scan_scores(directory, n_jobs=args.workers)
    # One pass over the files, kept on `scanned`: the calls below do not read them again. The
    # rows may come in any order (order="auto": files written system after system are
    # partitioned on disk by (task, instance) first, with a warning).
    borda2 = rs.aggregate(scanned, "borda2")
    mean = rs.aggregate(scanned, "mean")
    stats = scanned.statistics()
    intervals = rs.hoeffding_test(
        rs.pairwise(scanned), delta=0.05, correction="holm", order=borda2.order
    )
    elapsed = time.perf_counter() - start
    print(
        f"{stats.pairwise.n_rankings:,} instance rankings, {stats.instance_count.sum():,.0f} "
        f"scores streamed with {args.workers} worker process(es) in {elapsed:.1f} s"
    )

    truth = json.loads(truth_path.read_text())["truth"]
    # The marks of the test itself: significant AND won by the upper system.
    above_next = intervals.marks().set_index("system")["above_next"]
    print("\nσ^2l rank  system  σ^μ rank  true rank  significantly above the next (Hoeffding)?")
    for rank, system in enumerate(borda2.order, 1):
        above = above_next[system]
        print(
            f"{rank:>9}  {system}  {mean.order.index(system) + 1:>8}  "
            f"{truth.index(system) + 1:>9}  {'yes' if above else ''}"
        )
    print(
        "\nA system missing from a task is imputed towards the middle of that task's rankings, so "
        "with 10 % of the (system, task) blocks missing σ^2l may swap neighbours of the true order."
    )


if __name__ == "__main__":
    main()

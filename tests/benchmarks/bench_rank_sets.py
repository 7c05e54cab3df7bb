"""Rank confidence sets, Hoeffding intervals and the figures at 1,000 systems (issue 47, item 4).

Run: ``python tests/benchmarks/bench_rank_sets.py [--systems 1000] [--blocks 60]``

* ``rs.rank_confidence_sets`` of ``systems`` × ``blocks`` (1,000 resamples; simultaneous and
  marginal, single-step and step-down): the studentized bootstrap costs one product
  ``(B × N) @ (N × P)`` per pass over the ``P = n (n − 1) / 2`` pairs (about 500,000 at 1,000
  systems), and the elementwise work on ``B × P`` statistics;
* ``rs.hoeffding_test(rs.pairwise(...))`` on the same systems, ranked per block;
* the CD diagram and the Hoeffding heat map as drawn by default (the best 30 named; blocks of
  systems) and saved as PNG.

``uptime`` is printed before and after: the load changes every number.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rankstats as rs
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.significance.critical_difference import cd_diagram
from rankstats.significance.posthoc_tests import posthoc
from rankstats.significance.rank_sets import rank_confidence_sets


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def timed(label: str, function):
    start = time.perf_counter()
    out = function()
    print(f"  {label:58} {time.perf_counter() - start:8.2f} s", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--blocks", type=int, default=60)
    args = parser.parse_args()
    n, n_blocks = args.systems, args.blocks
    print("uptime:", uptime())
    rng = np.random.default_rng(0)
    values = rng.normal(np.linspace(0.0, 3.0, n), 1.0, size=(n_blocks, n))
    table = pd.DataFrame(values, columns=[f"model-{i:04d}" for i in range(n)])
    print(f"{n} systems × {n_blocks} blocks ({n * (n - 1) // 2:,} pairs), 1,000 resamples")
    for simultaneous in (True, False):
        for stepdown in (False, True):
            sets = timed(
                f"rank_confidence_sets simultaneous={simultaneous} stepdown={stepdown}",
                lambda s=simultaneous, d=stepdown: rank_confidence_sets(
                    table, n_resamples=1000, simultaneous=s, stepdown=d
                ),
            )
            print(
                f"    {sets.n_steps} step(s), median set width "
                f"{int((sets.table['rank_high'] - sets.table['rank_low'] + 1).median())}"
            )
    wide = table.T.reset_index(names="system")
    scores = rs.Scores.from_wide(wide)
    pw = timed("pairwise (per-block rankings)", lambda: rs.pairwise(scores))
    ranking = rs.aggregate(scores, method="borda")
    test = timed("hoeffding_test (Holm)", lambda: rs.hoeffding_test(pw, order=ranking.order))
    with tempfile.TemporaryDirectory() as tmp:
        fig = timed(
            "significance_heatmap (blocks) + PNG",
            lambda: _save(significance_heatmap(test), Path(tmp) / "heatmap.png"),
        )
        res = timed("posthoc Nemenyi", lambda: posthoc(scores, method="nemenyi"))
        fig = timed(
            "cd_diagram (best 30 named) + PNG", lambda: _save(cd_diagram(res), Path(tmp) / "cd.png")
        )
        del fig
    print("uptime:", uptime())


def _save(fig, path: Path):
    fig.savefig(path, dpi=150)
    return fig


if __name__ == "__main__":
    main()

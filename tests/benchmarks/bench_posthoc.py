"""Post-hoc tests at leaderboard scale from a CSV file: rankstats against scikit-posthocs, side by
side in one run (issue 47, item 3).

Run in an environment with scikit-posthocs (a reference tool: rankstats never imports it):

    .venv/bin/pip install scikit-posthocs
    .venv/bin/python tests/benchmarks/bench_posthoc.py  # 100 × 3,000, 100 × 10,000, 300 × 1,000
    .venv/bin/python tests/benchmarks/bench_posthoc.py --shapes 100x3000 --repeat 5

Each shape (systems × blocks) is written once as a long CSV (``system, task, instance, score``:
one task, one block per instance, Beta scores without ties) and every timing starts from that
file, as a user's script does:

- rankstats: ``rs.read_scores(path)`` (validation included) → ``rs.posthoc(scores, method=...)``
  with every default (one block per instance; effect sizes on: Cliff's δ, Cohen's d, Akinshin's γ of
  every pair); for Nemenyi ``rs.friedman`` first (Friedman + Nemenyi), and once more without the
  effect sizes;
- scikit-posthocs: ``pandas.read_csv(path)`` → ``DataFrame.pivot`` to blocks × systems →
  ``posthoc_wilcoxon(p_adjust="holm")`` / ``posthoc_conover_friedman(p_adjust="holm")`` /
  ``scipy.stats.friedmanchisquare`` + ``posthoc_nemenyi_friedman`` (no effect sizes).

One warm-up run of both on a small file (imports and first-call costs), then the best of
``--repeat``. The ratio is scikit-posthocs' time over rankstats' (> 1: rankstats faster). The
p-values of every pair are compared with scikit-posthocs' (Holm-adjusted for Wilcoxon and
Conover) and the run stops on a relative difference above 1e-10 (Nemenyi: also 1e-12 absolute,
the precision of scipy's ``1 − cdf`` that scikit-posthocs uses); the effect sizes of 20 pairs are
recomputed pair by pair (Cliff's δ by ``searchsorted``, d and γ by their formulas). ``uptime`` is
printed before and after each shape: the machine is shared, the timings are noisy.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import rankstats as rs

SHAPES = ((100, 3_000), (100, 10_000), (300, 1_000))


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def write_csv(path: Path, n_systems: int, n_blocks: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.beta(np.linspace(2.0, 4.0, n_systems), 3.0, size=(n_blocks, n_systems))
    systems = np.array([f"sys{j:03d}" for j in range(n_systems)])
    pd.DataFrame(
        {
            "system": np.tile(systems, n_blocks),
            "task": "t",
            "instance": np.repeat([f"i{i:05d}" for i in range(n_blocks)], n_systems),
            "score": scores.ravel(),
        }
    ).to_csv(path, index=False)


def ours(path: Path, method: str, effect_sizes: bool = True):
    scores = rs.read_scores(path)
    if method == "nemenyi":
        rs.friedman(scores)
    return rs.posthoc(scores, method=method, effect_sizes=effect_sizes)


def theirs(path: Path, method: str) -> pd.DataFrame:
    import scikit_posthocs as sp  # reference tool: benchmark environment only

    frame = pd.read_csv(path)
    table = frame.pivot(index=["task", "instance"], columns="system", values="score")
    if method == "wilcoxon-holm":
        matrix = sp.posthoc_wilcoxon(table.to_numpy().T, p_adjust="holm")
        matrix.index = matrix.columns = table.columns
        return matrix
    if method == "conover":
        return sp.posthoc_conover_friedman(table, p_adjust="holm")
    stats.friedmanchisquare(*table.to_numpy().T)
    return sp.posthoc_nemenyi_friedman(table)


def timed(function, repeat: int):
    best, value = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def p_agreement(post, matrix: pd.DataFrame, method: str) -> float:
    """Largest relative difference of the pairs' p-values (adjusted for Holm); raises above
    the tolerance."""
    column = "p_value" if method == "nemenyi" else "p_adjusted"
    got = post.table[column].to_numpy()
    rows = matrix.index.get_indexer(post.table["system_a"])
    cols = matrix.columns.get_indexer(post.table["system_b"])
    expected = matrix.to_numpy()[rows, cols]
    # scikit-posthocs' Nemenyi p is scipy's 1 − cdf: about 1e-13 off in absolute terms (at 300
    # systems, p = 9.67375850330e-5 by an adaptive quadrature to 1e-15, where it gives
    # 9.67375849161e-5 and rankstats 9.67375850330e-5).
    atol = 1e-12 if method == "nemenyi" else 1e-300
    scale = np.maximum(np.abs(got), np.abs(expected))
    relative = np.where(scale > 0, np.abs(got - expected) / np.where(scale > 0, scale, 1), 0.0)
    bad = np.abs(got - expected) > 1e-10 * scale + atol
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AssertionError(f"{method}: pair {i} p = {got[i]!r}, scikit-posthocs {expected[i]!r}")
    # Nemenyi: scikit-posthocs' p is 1 − cdf, relative agreement only where p ≥ 1e-3.
    return float(relative[scale >= (1e-3 if method == "nemenyi" else 1e-290)].max(initial=0.0))


def effect_size_agreement(post, path: Path, pairs: int = 20) -> float:
    """Largest relative difference of the effect sizes of ``pairs`` pairs recomputed one by
    one: Cliff's δ over all pairs of blocks by ``searchsorted``, Cohen's d, Akinshin's γ."""
    wide = pd.read_csv(path).pivot(index="instance", columns="system", values="score")
    worst = 0.0
    for row in post.table.iloc[:: max(1, len(post.table) // pairs)].itertuples():
        x, y = wide[row.system_a].to_numpy(), wide[row.system_b].to_numpy()
        ys = np.sort(y)
        greater = np.searchsorted(ys, x, side="left").sum()  # y < x
        less = (len(y) - np.searchsorted(ys, x, side="right")).sum()  # y > x
        delta = (greater - less) / (len(x) * len(y))
        d = (x.mean() - y.mean()) / np.sqrt((x.var(ddof=1) + y.var(ddof=1)) / 2)
        mad = [1.4826 * np.median(np.abs(v - np.median(v))) for v in (x, y)]
        gamma = (np.median(x) - np.median(y)) / np.sqrt((mad[0] ** 2 + mad[1] ** 2) / 2)
        for got, expected in (
            (row.cliffs_delta, delta),
            (row.cohens_d, d),
            (row.akinshin_gamma, gamma),
        ):
            worst = max(worst, abs(got - expected) / max(abs(expected), 1e-12))
    if worst > 1e-10:
        raise AssertionError(f"effect sizes differ by {worst:.2e} (relative)")
    return worst


METHODS = {
    "wilcoxon-holm": "Wilcoxon–Holm",
    "conover": "Conover (Holm)",
    "nemenyi": "Friedman + Nemenyi",
}


def compare(path: Path, shape: tuple[int, int], repeat: int, methods: list[str]) -> None:
    k, n = shape
    print(f"\n== {k} systems × {n:,} blocks (uptime: {uptime()})")
    for method in methods:
        label = METHODS[method]
        t_ours, post = timed(lambda m=method: ours(path, m), repeat)
        t_ref, matrix = timed(lambda m=method: theirs(path, m), repeat)
        worst = p_agreement(post, matrix, method)
        sizes = effect_size_agreement(post, path) if method == "nemenyi" else float("nan")
        line = (
            f"   {label:19} rankstats {t_ours:7.3f} s | scikit-posthocs {t_ref:7.3f} s | "
            f"ratio {t_ref / t_ours:5.2f} | max rel. |Δp| {worst:.1e}"
            + (" (p ≥ 1e-3)" if method == "nemenyi" else "")
        )
        if method == "nemenyi":
            t_bare, _ = timed(lambda: ours(path, "nemenyi", effect_sizes=False), repeat)
            line += (
                f" | effect sizes (20 pairs) {sizes:.1e}\n   {'':19} without effect sizes "
                f"{t_bare:7.3f} s | ratio {t_ref / t_bare:5.2f}"
            )
        print(line, flush=True)
    print(f"   uptime: {uptime()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--shapes", nargs="*", default=[f"{k}x{n}" for k, n in SHAPES], help="systems x blocks"
    )
    parser.add_argument("--methods", nargs="*", default=list(METHODS), choices=list(METHODS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes]
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.csv"
        write_csv(warm, 10, 60)
        for method in ("wilcoxon-holm", "conover", "nemenyi"):
            ours(warm, method)
            theirs(warm, method)
        for shape in shapes:
            path = Path(tmp) / f"{shape[0]}x{shape[1]}.csv"
            write_csv(path, *shape)
            compare(path, shape, args.repeat, args.methods)


if __name__ == "__main__":
    main()

"""Friedman + post-hoc + critical difference, and the automatic test choice, against
scikit-posthocs and autorank; the speed of rank_confidence_sets.

Run in the benchmark environment (the reference tools are never dependencies of rankstats, and
rankstats never imports them):

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e . autorank scikit-posthocs pytest
    .venv-bench/bin/python tests/benchmarks/bench_significance.py            # everything
    .venv-bench/bin/python tests/benchmarks/bench_significance.py --small    # bundled data only

Every timing starts from a pandas DataFrame, as a user's script does:

- rankstats: the long table (``system, task[, instance], score``) → ``rs.Scores.from_long``
  (validation) → ``rs.friedman`` → ``rs.posthoc`` (Nemenyi; Conover) → the critical
  difference and the groups of the CD diagram (``res.groups()``); effect sizes off for the CD
  path (they are timed separately: Cliff's δ is the costly one);
- scikit-posthocs: the same long table pivoted to blocks × systems (``DataFrame.pivot``: what its
  users do) → ``scipy.stats.friedmanchisquare`` → ``posthoc_nemenyi_friedman`` /
  ``posthoc_conover_friedman(p_adjust="holm")``;
- autorank: the same pivot → ``autorank(frame, alpha=0.05)`` (normality, homoscedasticity,
  Friedman, Nemenyi's CD, effect sizes against the best and the next system; its printing
  silenced) against ``rankstats.significance.which_test.choose_test(..., effect_sizes=False)`` on
  the same long table (the same effect sizes; the time with every pair's effect sizes is printed
  too).

The paper path (issue 24, item 9; ``--paper`` runs it alone): ``rs.friedman`` + ``rs.posthoc``
with every default (Nemenyi, effect sizes on) + the critical difference and the groups, from a
long DataFrame (validation included), against scipy's ``friedmanchisquare`` +
scikit-posthocs' ``posthoc_nemenyi_friedman`` + the CD from ``scipy.stats.studentized_range``
(after the pivot) and against autorank, on 15 × 10, 105 × 14 and 100 × 10,000 tables (systems ×
blocks, :data:`PAPER_SHAPES`); one warm-up run each, then the best of ``--repeat``; the ratios
and ``uptime`` are printed. Goal: ratios ≥ 1.

Data: (a) the bundled benchmarks (``rs.load_dataset``: leaderboards at task level, the NLG data at
instance level with one task), (b) 100 systems × 10,000 blocks (goal: the CD analysis under 1 s),
and the four seeded frames of tests/significance/test_test_choice.py (the decisions compared live).
The p-values are compared while timing (largest absolute difference printed).  Finally
``rs.rank_confidence_sets`` with 1,000 resamples on 20 systems × 5,000 blocks (goal: seconds) and
its peak memory (tracemalloc) on 100 systems.

Ratios > 1 mean rankstats is faster; best of ``--repeat`` runs. Timings on a shared machine are
noisy: ``uptime`` is printed before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata as metadata
import io
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import rankstats as rs
from rankstats.significance.which_test import choose_test

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ (seeded frames; pytest)


def timed(function, repeat: int):
    best, value = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def long_table(scores: rs.Scores, task: str | None) -> tuple[pd.DataFrame, bool]:
    """The user's input: a long DataFrame (instance-level data: one task)."""
    data = scores.data
    if task is not None:
        data = data[data["task"] == task]
    columns = ["system", "task", "instance", "score"] if task else ["system", "task", "score"]
    frame = data[columns].copy()
    for name in ("system", "task", "instance"):
        if name in frame:
            frame[name] = frame[name].astype(str)
    return frame.reset_index(drop=True), task is not None


def wide(frame: pd.DataFrame, instance: bool) -> pd.DataFrame:
    """Blocks × systems, as scikit-posthocs and autorank take it (higher = better)."""
    return frame.pivot(index="instance" if instance else "task", columns="system", values="score")


def ours_cd(frame: pd.DataFrame, instance: bool, method: str = "nemenyi", sizes: bool = False):
    scores = rs.Scores.from_long(frame, instance="instance" if instance else None)
    level = "instance" if instance else "task"
    fr = rs.friedman(scores, by=level)
    post = rs.posthoc(scores, method=method, by=level, effect_sizes=sizes)
    return fr, post, post.groups()


def theirs(frame: pd.DataFrame, instance: bool, method: str):
    import scikit_posthocs as sp  # reference tool: benchmark environment only

    table = wide(frame, instance)
    p = stats.friedmanchisquare(*table.to_numpy().T).pvalue
    if method == "nemenyi":
        return p, sp.posthoc_nemenyi_friedman(table)
    return p, sp.posthoc_conover_friedman(table, p_adjust="holm")


def run_autorank(table: pd.DataFrame):
    from autorank import autorank  # reference tool: benchmark environment only

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return autorank(table, alpha=0.05, verbose=False)


def ours_choice(frame: pd.DataFrame, instance: bool, sizes: bool = False):
    """As autorank: the effect sizes of the summary only (``effect_sizes=False``) by default."""
    scores = rs.Scores.from_long(frame, instance="instance" if instance else None)
    return choose_test(scores, by="instance" if instance else "task", effect_sizes=sizes)


def p_difference(post, reference: pd.DataFrame, column: str) -> float:
    ours = post.matrix(column)
    ref = reference.loc[ours.index, ours.columns].to_numpy(dtype=float)
    mask = ~np.eye(len(ours), dtype=bool)
    return float(np.max(np.abs(ours.to_numpy()[mask] - ref[mask])))


def compare(name: str, frame: pd.DataFrame, instance: bool, repeat: int) -> None:
    table = wide(frame, instance)
    n, k = table.shape
    print(f"\n== {name}: {k} systems × {n} {'instance' if instance else 'task'} blocks ==")
    if table.isna().any().any():
        print("   incomplete blocks: skipped (the reference tools need complete blocks)")
        return
    for method in ("nemenyi", "conover"):
        t_ours, (fr, post, _) = timed(lambda m=method: ours_cd(frame, instance, m), repeat)
        t_ref, (p_ref, matrix) = timed(lambda m=method: theirs(frame, instance, m), repeat)
        column = "p_value" if method == "nemenyi" else "p_adjusted"
        diff = p_difference(post, matrix, column)
        cd = f", CD = {post.critical_difference:.4g}" if method == "nemenyi" else ""
        print(
            f"   {method:8} rankstats {t_ours:7.3f} s | scikit-posthocs {t_ref:7.3f} s | ratio "
            f"{t_ref / t_ours:6.1f} | Friedman |Δp| = {abs(fr.p_value - p_ref):.1e}, "
            f"max |Δp| pairs = {diff:.1e}{cd}"
        )
    if n < 5 or k < 3:
        print("   autorank: needs ≥ 5 blocks and ≥ 3 systems (skipped)")
        return
    t_ours, mine = timed(lambda: ours_choice(frame, instance), repeat)
    t_full, _ = timed(lambda: ours_choice(frame, instance, sizes=True), 1)
    t_ref, ref = timed(lambda: run_autorank(table), 1)
    agree = mine.decision == (
        "anova-tukey" if ref.omnibus == "anova" else "friedman-nemenyi"
    ) and mine.homoscedastic == bool(ref.homoscedastic)
    cd = "" if ref.cd is None else f", CD {ref.cd:.4g} vs {mine.posthoc.critical_difference:.4g}"
    print(
        f"   choice   rankstats {t_ours:7.3f} s | autorank        {t_ref:7.3f} s | ratio "
        f"{t_ref / t_ours:6.1f} | {mine.decision} vs {ref.omnibus}+{ref.posthoc} "
        f"({'same' if agree else 'DIFFERENT'}), omnibus |Δp| = "
        f"{abs(mine.p_value - ref.pvalue):.1e}{cd}; with every pair's effect sizes "
        f"{t_full:.3f} s"
    )


def seeded_frames() -> None:
    from significance.test_test_choice import frames

    print("\n== the seeded frames of tests/significance/test_test_choice.py: autorank live ==")
    for name, table in frames().items():
        ref = run_autorank(table)
        mine = choose_test(table)
        same = mine.decision == ("anova-tukey" if ref.omnibus == "anova" else "friedman-nemenyi")
        shapiro = dict(zip(ref.rankdf.index, ref.pvals_shapiro, strict=True))
        mislabelled = any(
            not np.isclose(shapiro[s], mine.normality[s], rtol=1e-9) for s in table.columns
        )
        print(
            f"   {name:16} rankstats {mine.decision:16} autorank {ref.omnibus}+{ref.posthoc:9} "
            f"{'same' if same else 'DIFFERENT'}; |Δp| omnibus "
            f"{abs(mine.p_value - ref.pvalue):.1e}, homogeneity "
            f"{abs(mine.homoscedasticity_p - ref.pval_homogeneity):.1e}"
            + ("; autorank's Shapiro p-values are attached to the wrong systems" * mislabelled)
        )


def big_frame(n_systems: int, n_blocks: int, seed: int = 0) -> pd.DataFrame:
    """A long table of skewed scores (Beta): autorank then chooses Friedman + Nemenyi."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(2.0, 4.0, n_systems)
    scores = rng.beta(skill, 3.0, size=(n_blocks, n_systems))
    systems = np.array([f"sys{j:03d}" for j in range(n_systems)])
    return pd.DataFrame(
        {
            "system": np.tile(systems, n_blocks),
            "task": "t",
            "instance": np.repeat([f"i{i:05d}" for i in range(n_blocks)], n_systems),
            "score": scores.ravel(),
        }
    )


def paper_path_ours(frame: pd.DataFrame):
    """The paper path with every default: validation, Friedman, Nemenyi (effect sizes on), the
    critical difference and the groups of the CD diagram."""
    scores = rs.Scores.from_long(frame, instance="instance")
    fr = rs.friedman(scores, by="instance")
    post = rs.posthoc(scores, by="instance")
    return fr, post, post.critical_difference, post.groups()


def paper_path_theirs(frame: pd.DataFrame):
    """scipy + scikit-posthocs: pivot, ``friedmanchisquare``, ``posthoc_nemenyi_friedman`` and
    the critical difference from ``scipy.stats.studentized_range``."""
    import scikit_posthocs as sp  # reference tool: benchmark environment only

    table = wide(frame, True)
    n, k = table.shape
    p = stats.friedmanchisquare(*table.to_numpy().T).pvalue
    matrix = sp.posthoc_nemenyi_friedman(table)
    q = stats.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2.0)
    return p, matrix, q * np.sqrt(k * (k + 1) / (6.0 * n))


#: The shapes of the paper path (issue 24, item 9): systems × blocks.
PAPER_SHAPES = ((15, 10), (105, 14), (100, 10_000))


def paper_path(repeat: int) -> None:
    """``rs.friedman`` + ``rs.posthoc`` + the CD from a DataFrame against scipy +
    scikit-posthocs and autorank, on the three shapes of :data:`PAPER_SHAPES`."""
    print("\n== the paper path from a DataFrame (validation, Friedman, Nemenyi, CD, groups) ==")
    print("   uptime:", uptime())
    for k, n in PAPER_SHAPES:
        frame = big_frame(k, n)
        reps = repeat
        paper_path_ours(frame)  # warm: first-call costs (imports, caches) are not the shape's
        paper_path_theirs(frame)
        t_ours, (fr, post, cd, _) = timed(lambda f=frame: paper_path_ours(f), reps)
        t_ref, (p_ref, matrix, cd_ref) = timed(lambda f=frame: paper_path_theirs(f), reps)
        t_auto, auto = timed(lambda f=frame: run_autorank(wide(f, True)), 1)  # slow: once
        diff = p_difference(post, matrix, "p_value")
        print(
            f"   {k:3d} × {n:6,d}: rankstats {t_ours:7.3f} s | scipy + scikit-posthocs "
            f"{t_ref:7.3f} s (ratio {t_ref / t_ours:5.2f}) | autorank {t_auto:7.3f} s (ratio "
            f"{t_auto / t_ours:5.2f}) | Friedman |Δp| = {abs(fr.p_value - p_ref):.1e}, max |Δp| "
            f"pairs = {diff:.1e}, |ΔCD| = {abs(cd - cd_ref):.1e}"
            + ("" if auto.cd is None else f", autorank |ΔCD| = {abs(cd - auto.cd):.1e}")
        )
    print("   uptime:", uptime())


def rank_sets_speed(repeat: int) -> None:
    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        rng.normal(np.linspace(0, 0.2, 20), 1.0, size=(5000, 20)),
        columns=[f"s{j:02d}" for j in range(20)],
    )
    print("\n== rs.rank_confidence_sets, 1,000 resamples ==")
    for simultaneous in (True, False):
        t, sets = timed(
            lambda s=simultaneous: rs.rank_confidence_sets(table, n_resamples=1000, simultaneous=s),
            repeat,
        )
        kind = "simultaneous" if simultaneous else "marginal"
        print(f"   20 systems × 5,000 blocks, {kind:12}: {t:6.2f} s ({sets.n_steps} steps)")
    big = pd.DataFrame(
        rng.normal(np.linspace(0, 1, 100), 3.0, size=(2000, 100)),
        columns=[f"s{j:03d}" for j in range(100)],
    )
    for simultaneous in (True, False):
        tracemalloc.start()
        start = time.perf_counter()
        rs.rank_confidence_sets(big, n_resamples=1000, simultaneous=simultaneous)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        kind = "simultaneous" if simultaneous else "marginal"
        print(
            f"   100 systems × 2,000 blocks, {kind:12}: {elapsed:6.2f} s, peak memory "
            f"{peak / 2**20:.1f} MiB (tracemalloc; 64 MiB budget)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="bundled data only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--paper", action="store_true", help="the paper path only")
    args = parser.parse_args()
    if args.paper:
        warnings.simplefilter("ignore")
        paper_path(args.repeat)
        return
    print("uptime before:", uptime())
    print(
        "versions: "
        + ", ".join(
            f"{p} {metadata.version(p)}"
            for p in ("rankstats", "numpy", "scipy", "pandas", "scikit-posthocs", "autorank")
        )
    )
    warnings.simplefilter("ignore")
    for name, task in [
        ("glue", None),
        ("superglue", None),
        ("xtreme", None),
        ("summeval", "coherence"),
        ("tac08", "H:pyramid"),
    ]:
        scores = rs.load_dataset(name)
        if task is not None and task not in scores.tasks:
            task = scores.tasks[0]
        frame, instance = long_table(scores, task)
        compare(f"{name}{'' if task is None else ' / ' + task}", frame, instance, args.repeat)
    seeded_frames()
    paper_path(args.repeat)
    if not args.small:
        frame = big_frame(100, 10_000)
        compare("synthetic Beta scores", frame, True, 1)
        t_cd, _ = timed(lambda: ours_cd(frame, True), args.repeat)
        t_sizes, _ = timed(lambda: ours_cd(frame, True, sizes=True), 1)
        verdict = "met" if t_cd < 1.0 else "NOT met"
        print(
            f"   CD analysis (validation + Friedman + Nemenyi + groups): {t_cd:.3f} s, goal < 1 s "
            f"{verdict}; with the effect sizes (Cliff's δ, d, γ): {t_sizes:.3f} s"
        )
        rank_sets_speed(1)
    print("\nuptime after: ", uptime())


if __name__ == "__main__":
    main()

"""``rankstats power``: power and sample size of the tests for a simulated benchmark design."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats._util.text import write_csv
from rankstats.cli._common import file_done, written
from rankstats.cli._console import print_frame
from rankstats.cli.usage import UsageError


def _design(args: argparse.Namespace):
    from rankstats.planning.design import BenchmarkDesign

    common = dict(
        n_tasks=args.tasks,
        n_instances=args.instances,
        missing=args.missing,
        missing_pattern=args.missing_pattern,
    )
    if args.accuracies is not None:
        return BenchmarkDesign.from_accuracies(args.accuracies, args.agreement, **common)
    return BenchmarkDesign(
        n_systems=args.systems or 10,
        phi=args.phi,
        scale=args.scale,
        noise=args.noise,
        correlation=args.correlation,
        round_to=args.round_to,
        **common,
    )


def check(args: argparse.Namespace) -> None:
    """The combinations argparse cannot check, before simulating anything."""
    if args.jobs == 0 or args.jobs < -1:
        raise UsageError(f"--jobs must be ≥ 1 or -1 (all cores), not {args.jobs}")
    if args.accuracies is not None:
        given = [
            flag
            for flag, value, default in (
                ("--systems", args.systems, None),
                ("--phi", args.phi, 0.1),
                ("--scale", args.scale, 1.0),
                ("--noise", args.noise, "gumbel"),
                ("--correlation", args.correlation, 0.0),
                ("--round", args.round_to, None),
            )
            if value != default
        ]
        if given:
            raise UsageError(
                f"--accuracies sets the systems and their outcomes: {' '.join(given)} cannot be "
                "given with it"
            )
    elif args.agreement is not None:
        raise UsageError("--agreement needs --accuracies")
    elif args.tests and "mcnemar" in args.tests:
        raise UsageError(
            "--tests mcnemar needs --accuracies (paired binary outcomes); on scores use "
            "--tests sign"
        )
    if args.tests is None:
        args.tests = ["hoeffding"] if args.target_power else ["hoeffding", "friedman", "nemenyi"]
    if args.target_power is None:
        for flag, value in (("--target", args.target), ("--sizes", args.sizes)):
            if value is not None:
                raise UsageError(f"{flag} needs --target-power (the sample-size mode)")
        return
    if len(args.tests) > 1:
        raise UsageError(
            f"--target-power finds the size for one test; --tests names {len(args.tests)} "
            f"({' '.join(args.tests)})"
        )
    target = args.target or ("omnibus" if args.tests[0] in ("friedman", "imputed") else "adjacent")
    if target == "pair" and args.pair is None:
        raise UsageError("--target pair needs --pair A B")
    args.target = target


def _shown(table):
    """``value ± se`` columns for the terminal (the CSV files keep them apart)."""
    import pandas as pd

    out = pd.DataFrame({table.index.name: table.index.astype(str)})
    for column in table.columns:
        if column.endswith("_se") or f"{column}_se" not in table.columns:
            continue
        value, se = table[column].to_numpy(), table[f"{column}_se"].to_numpy()
        if pd.isna(value).all():
            continue
        out[column] = [
            "" if pd.isna(v) else f"{v:.3f} ± {s:.3f}" for v, s in zip(value, se, strict=True)
        ]
    return out


def run(args: argparse.Namespace) -> int:
    import rankstats as rs

    design = _design(args)
    common = dict(
        pair=args.pair,
        level=args.level,
        alpha=args.alpha,
        seed=args.seed,
        n_jobs=args.jobs,
        rope=args.rope,
        threshold=args.threshold,
        posterior_draws=args.posterior_draws,
        progress=True,  # a bar on a terminal, unless --quiet (rankstats._util.progress)
    )
    if args.target_power is not None:
        return _sample_size(args, design, common)
    res = rs.power(design, tests=args.tests, replications=args.replications or 2000, **common)
    if not res.complete:
        raise KeyboardInterrupt
    print(f"design: {design.describe()}; {res.replications:,} simulated benchmarks")
    print_frame(_shown(res.summary), title="power ± Monte Carlo s.e.")
    print_frame(_shown(res.recovery), title="recovery of the true order ± s.e.")
    for test in res.tests:
        omnibus = test in ("friedman", "imputed")
        print(res.sentence(test, target="pair" if res.pair and not omnibus else None))
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / "summary.csv", tmp / "pairs.csv", tmp / "recovery.csv"]
        for frame, path in zip(
            (res.summary.reset_index(), res.pairs, res.recovery.reset_index()), files, strict=True
        ):
            write_csv(frame, path)
            file_done()
    print(written(tmp, out, files))
    return 0


def _sample_size(args: argparse.Namespace, design, common: dict) -> int:
    import rankstats as rs
    from rankstats.plotting.saving import save_figure

    res = rs.sample_size(
        design,
        test=args.tests[0],
        target=args.target,
        power=args.target_power,
        vary=args.vary,
        sizes=args.sizes,
        refine=args.refine,
        replications=args.replications or 1000,
        **common,
    )
    print(f"design: {design.describe()} (varying {args.vary})")
    print_frame(res.curve.reset_index(), title="power curve", digits=3)
    print(res.sentence())
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / "curve.csv"]
        write_csv(res.curve.reset_index(), files[0])
        file_done()
        files += save_figure(res.plot(), tmp / "power_curve")
    print(written(tmp, out, files))
    return 0

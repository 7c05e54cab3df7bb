"""``rankstats power``: power and sample size of the tests for a simulated benchmark design."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats._util.text import write_csv
from rankstats.cli._common import file_done, written
from rankstats.cli._console import print_frame
from rankstats.cli.usage import UsageError


def _battle_design(args: argparse.Namespace):
    """A battle design: fitted on the pilot log (--battle-log), or from the parameters."""
    from rankstats.planning.battle_design import BattleDesign

    given = {
        "n_battles": args.battles,
        "elo_step": args.elo_step,
        "order_effect": args.order_effect,
        "tie": args.tie,
        "allocation": args.allocation,
    }
    if args.battle_log:
        import warnings

        import rankstats as rs
        from rankstats.errors import DataWarning

        battles = rs.read_battles(
            Path(args.battle_log), model_a=args.model_a, model_b=args.model_b, winner=args.winner
        )
        with warnings.catch_warnings():  # the fit's notes (e.g. no order effect) are its own
            warnings.simplefilter("ignore", DataWarning)
            fit = rs.fit_battles(battles, n_resamples=0)
        sizes = {"n_battles": args.battles} if args.battles else {}
        return BattleDesign.from_fit(fit, battles, **sizes)
    fields = {key: value for key, value in given.items() if value is not None}
    return BattleDesign(n_models=args.models or 10, **fields)


def _design(args: argparse.Namespace):
    """The design: calibrated on the pilot (FILE or --dataset), or from the parameters."""
    from rankstats.planning.design import BenchmarkDesign

    if battle_mode(args):
        return _battle_design(args), None

    sizes = {"n_tasks": args.tasks or 1, "n_instances": args.instances or 100}
    if args.file or args.dataset:
        from rankstats.planning.calibration import calibrate

        pilot = _pilot(args)
        cal = calibrate(pilot, n_tasks=args.tasks, n_instances=args.instances)
        return cal.design, cal
    common = dict(missing_rate=args.missing, missing_pattern=args.missing_pattern, **sizes)
    if args.accuracies is not None:
        return BenchmarkDesign.from_accuracies(args.accuracies, args.agreement, **common), None
    design = BenchmarkDesign(
        n_systems=args.systems or 10,
        phi=args.phi,
        scale=args.scale,
        noise=args.noise,
        correlation=args.correlation,
        round_to=args.round_to,
        identical=args.identical,
        **common,
    )
    return design, None


def _pilot(args: argparse.Namespace):
    from rankstats.datasets import load_dataset
    from rankstats.io.score_files import read_scores

    if args.dataset:
        if args.lower_is_better:
            raise UsageError("--lower-is-better applies to FILE input only")
        scores = load_dataset(args.dataset)
    else:
        directions = dict.fromkeys(args.lower_is_better, False) if args.lower_is_better else True
        scores = read_scores(Path(args.file), higher_is_better=directions)
    if not args.metric:
        return scores
    try:
        return scores.select(tasks=args.metric)
    except KeyError as err:  # an unknown task: the user's word, not a failure
        raise UsageError(f"--metric: {err.args[0]}") from None


#: The options of a design without a pilot (flag, attribute, default): a pilot or --accuracies
#: sets what they set.
_SCORE_MODEL = (
    ("--systems", "systems", None),
    ("--phi", "phi", 0.1),
    ("--scale", "scale", 1.0),
    ("--noise", "noise", "gumbel"),
    ("--correlation", "correlation", 0.0),
    ("--round", "round_to", None),
    ("--identical", "identical", 0.0),
)
_ACCURACY_MODEL = (("--accuracies", "accuracies", None), ("--agreement", "agreement", None))


def _changed(args: argparse.Namespace, options: tuple) -> list[str]:
    """The flags of ``options`` given a value other than their default."""
    return [flag for flag, name, default in options if getattr(args, name) != default]


#: The options of a battle design (flag, attribute); none is given for a score table.
_BATTLE_MODEL = (
    ("--battle-log", "battle_log"),
    ("--models", "models"),
    ("--battles", "battles"),
    ("--elo-step", "elo_step"),
    ("--order-effect", "order_effect"),
    ("--tie", "tie"),
    ("--allocation", "allocation"),
)


def battle_mode(args: argparse.Namespace) -> bool:
    """A battle design: one of its options, or only battle tests, was given."""
    from rankstats.cli.options.power import BATTLE_TESTS

    if any(getattr(args, name) is not None for _, name in _BATTLE_MODEL):
        return True
    return bool(args.tests) and all(t in BATTLE_TESTS for t in args.tests)


def _check_log_columns(args: argparse.Namespace) -> None:
    """``--model-a`` / ``--model-b`` / ``--winner`` name the columns of ``--battle-log``: refused
    without it, not ignored."""
    columns = _changed(
        args,
        (
            ("--model-a", "model_a", "model_a"),
            ("--model-b", "model_b", "model_b"),
            ("--winner", "winner", "winner"),
        ),
    )
    if columns and not args.battle_log:
        raise UsageError(f"{' '.join(columns)} name(s) the columns of --battle-log FILE")


def _check_battles(args: argparse.Namespace) -> None:
    """A battle design's combinations: no score-table option, battle tests and sizes only."""
    from rankstats.cli.options.power import BATTLE_TESTS

    scores = _changed(
        args,
        (
            *_SCORE_MODEL,
            *_ACCURACY_MODEL,
            ("--missing", "missing", 0.0),
            ("--missing-pattern", "missing_pattern", "cell"),
            ("--tasks", "tasks", None),
            ("--instances", "instances", None),
            ("--level", "level", "instance"),
            ("--metric", "metric", None),
        ),
    )
    if args.file or args.dataset:
        scores.insert(0, "a pilot score table")
    if scores:
        raise UsageError(
            f"a battle design has no score table: {' '.join(scores)} cannot be given with it"
        )
    _check_log_columns(args)
    if args.battle_log:
        fixed = [
            flag
            for flag, name in _BATTLE_MODEL[1:]
            if name != "battles" and getattr(args, name) is not None
        ]
        if fixed:
            raise UsageError(
                f"the pilot battle log sets the design: {' '.join(fixed)} cannot be given with "
                "it (only the size --battles)"
            )
    others = [t for t in args.tests or () if t not in BATTLE_TESTS]
    if others:
        raise UsageError(
            f"--tests {' '.join(others)} test score tables; a battle design's tests are "
            f"{' '.join(BATTLE_TESTS)}"
        )
    for flag, value in (("--rope", args.rope != 0.01), ("--threshold", args.threshold != 0.95)):
        if value:
            raise UsageError(f"{flag} belongs to the Bayesian signed-rank test (score tables)")
    if args.zero_method is not None:
        raise UsageError("--zero-method belongs to the Wilcoxon signed-rank test (score tables)")
    if args.tests is None:
        args.tests = ["battles"] if args.target_power else list(BATTLE_TESTS)
    if args.vary is None:
        args.vary = "n_battles"
    elif args.vary not in ("n_battles", "elo_step"):
        raise UsageError(
            f"--vary {args.vary} varies a score table; a battle design varies n_battles or elo_step"
        )
    if args.vary == "elo_step" and args.battle_log:
        raise UsageError("--vary elo_step changes the default ratings; the pilot log sets its own")
    _check_sizes(args, "adjacent")


def check(args: argparse.Namespace) -> None:
    """The combinations argparse cannot check, before simulating anything."""
    if args.jobs == 0 or args.jobs < -1:
        raise UsageError(f"--jobs must be ≥ 1 or -1 (all cores), not {args.jobs}")
    if battle_mode(args):
        _check_battles(args)
        return
    _check_log_columns(args)
    from rankstats.cli.options.power import BATTLE_TESTS

    battle_tests = [t for t in args.tests or () if t in BATTLE_TESTS]
    if battle_tests:
        raise UsageError(
            f"--tests {' '.join(battle_tests)} test(s) battle logs: give a battle design "
            "(--models, --battles, --battle-log), or the score tests alone"
        )
    if args.vary is None:
        args.vary = "n_instances"
    elif args.vary in ("n_battles", "elo_step"):
        raise UsageError(f"--vary {args.vary} needs a battle design (--models, --battles, ...)")
    if args.file and args.dataset:
        raise UsageError("give a pilot FILE or --dataset NAME, not both")
    if args.file or args.dataset:
        given = _changed(args, (*_SCORE_MODEL, *_ACCURACY_MODEL, ("--missing", "missing", 0.0)))
        if given:
            raise UsageError(
                f"the pilot sets the design: {' '.join(given)} cannot be given with it "
                "(only the sizes --tasks and --instances)"
            )
    elif args.metric or args.lower_is_better:
        raise UsageError("--metric and --lower-is-better choose the pilot's tasks: give a pilot")
    if args.accuracies is not None:
        given = _changed(args, _SCORE_MODEL)
        if given:
            raise UsageError(
                f"--accuracies sets the systems and their outcomes: {' '.join(given)} cannot be "
                "given with it"
            )
    elif args.agreement is not None:
        raise UsageError("--agreement needs --accuracies")
    elif args.tests and "mcnemar" in args.tests and not (args.file or args.dataset):
        raise UsageError(
            "--tests mcnemar needs --accuracies (paired binary outcomes); on scores use "
            "--tests sign"
        )
    if args.tests is None:
        args.tests = ["hoeffding"] if args.target_power else ["hoeffding", "friedman", "nemenyi"]
    omnibus = args.tests[0] in ("friedman", "imputed")
    _check_sizes(args, "omnibus" if omnibus else "adjacent")


def _check_sizes(args: argparse.Namespace, default_target: str) -> None:
    """The sample-size options: only with --target-power, and then for one test."""
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
    target = args.target or default_target
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

    design, cal = _design(args)
    if cal is not None:
        print(f"calibrated on the pilot: {cal.summary()}".replace("\n", "\n  "))
    common = dict(
        pair=args.pair,
        by=args.level,
        alpha=args.alpha,
        seed=args.seed,
        n_jobs=args.jobs,
        rope=args.rope,
        threshold=args.threshold,
        posterior_draws=args.posterior_draws,
        zero_method=args.zero_method,
        progress=True,  # a bar on a terminal, unless --quiet (rankstats._util.progress)
    )
    if args.target_power is not None:
        return _sample_size(args, design, common, cal)
    res = rs.power(design, tests=args.tests, n_replications=args.replications or 2000, **common)
    if not res.complete:
        raise KeyboardInterrupt
    simulated = "battle logs" if res.by == "battle" else "benchmarks"
    print(f"design: {design.describe()}; {res.n_replications:,} simulated {simulated}")
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
        files += _calibration_files(cal, tmp)
    print(written(tmp, out, files))
    return 0


def _calibration_files(cal, tmp: Path) -> list[Path]:
    """The calibration's checks beside the results (nothing without a pilot)."""
    if cal is None:
        return []
    from rankstats.plotting.saving import save_figure

    files = [tmp / "calibration_systems.csv", tmp / "calibration_pairs.csv"]
    write_csv(cal.systems, files[0])
    file_done()
    write_csv(cal.pairs, files[1])
    file_done()
    return files + save_figure(cal.plot(), tmp / "calibration")


def _sample_size(args: argparse.Namespace, design, common: dict, cal) -> int:
    import rankstats as rs
    from rankstats.plotting.saving import save_figure

    if cal is not None and args.vary in ("phi", "accuracy_gap"):
        # A pilot fixes the locations: the detectable step between neighbours, on its noise.
        found = cal.detectable(
            test=args.tests[0],
            power=args.target_power,
            target=args.target,
            n_replications=args.replications or 1000,
            seed=args.seed,
            progress=True,
            sizes=args.sizes,
            refine=args.refine,
            zero_method=args.zero_method,
        )
        res, sentence = found.curve, found.sentence()
    else:
        res = rs.sample_size(
            design,
            test=args.tests[0],
            target=args.target,
            power=args.target_power,
            vary=args.vary,
            sizes=args.sizes,
            refine=args.refine,
            n_replications=args.replications or 1000,
            **common,
        )
        sentence = res.sentence()
    print(f"design: {design.describe()} (varying {args.vary})")
    print_frame(res.curve.reset_index(), title="power curve", digits=3)
    print(sentence)
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / "curve.csv"]
        write_csv(res.curve.reset_index(), files[0])
        file_done()
        files += save_figure(res.plot(), tmp / "power_curve")
        files += _calibration_files(cal, tmp)
    print(written(tmp, out, files))
    return 0

"""``rankstats power``: power and sample size of the tests for a simulated benchmark design."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import write_tables, written
from rankstats.cli._console import print_frame
from rankstats.cli.options.groups import from_namespace
from rankstats.cli.options.power import Options
from rankstats.cli.options.shared import check_n_jobs
from rankstats.cli.usage import UsageError


def _battle_design(opts: Options):
    """A battle design: fitted on the pilot log (--battle-log), or from the parameters."""
    from rankstats.planning.battle_design import BattleDesign

    given = {
        "n_battles": opts.battles,
        "elo_step": opts.elo_step,
        "order_effect": opts.order_effect,
        "tie": opts.tie,
        "allocation": opts.allocation,
    }
    if opts.battle_log:
        import warnings

        import rankstats as rs
        from rankstats.errors import DataWarning

        battles = rs.read_battles(
            Path(opts.battle_log), model_a=opts.model_a, model_b=opts.model_b, winner=opts.winner
        )
        with warnings.catch_warnings():  # the fit's notes (e.g. no order effect) are its own
            warnings.simplefilter("ignore", DataWarning)
            fit = rs.fit_battles(battles, n_resamples=0)
        sizes = {"n_battles": opts.battles} if opts.battles else {}
        return BattleDesign.from_fit(fit, battles, **sizes)
    fields = {key: value for key, value in given.items() if value is not None}
    return BattleDesign(n_models=opts.models or 10, **fields)


def _design(opts: Options):
    """The design: calibrated on the pilot (FILE or --dataset), or from the parameters."""
    from rankstats.planning.design import BenchmarkDesign

    if battle_mode(opts):
        return _battle_design(opts), None

    sizes = {"n_tasks": opts.tasks or 1, "n_instances": opts.instances or 100}
    if opts.file or opts.dataset:
        from rankstats.planning.calibration import calibrate

        pilot = _pilot(opts)
        cal = calibrate(pilot, n_tasks=opts.tasks, n_instances=opts.instances)
        return cal.design, cal
    common = dict(missing_rate=opts.missing_rate, missing_pattern=opts.missing_pattern, **sizes)
    if opts.accuracies is not None:
        return BenchmarkDesign.from_accuracies(opts.accuracies, opts.agreement, **common), None
    design = BenchmarkDesign(
        n_systems=opts.systems or 10,
        phi=opts.phi,
        scale=opts.scale,
        noise=opts.noise,
        correlation=opts.correlation,
        round_to=opts.round_to,
        identical=opts.identical,
        **common,
    )
    return design, None


def _pilot(opts: Options):
    from rankstats.datasets import load_dataset
    from rankstats.io.score_files import read_scores

    if opts.dataset:
        if opts.lower_is_better:
            raise UsageError("--lower-is-better applies to FILE input only")
        scores = load_dataset(opts.dataset)
    else:
        directions = dict.fromkeys(opts.lower_is_better, False) if opts.lower_is_better else True
        scores = read_scores(Path(opts.file), higher_is_better=directions)
    if not opts.metric:
        return scores
    try:
        return scores.select(tasks=opts.metric)
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


def _changed(opts: Options, options: tuple) -> list[str]:
    """The flags of ``options`` given a value other than their default."""
    return [flag for flag, name, default in options if getattr(opts, name) != default]


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


def battle_mode(opts: Options) -> bool:
    """A battle design: one of its options, or only battle tests, was given."""
    from rankstats.cli.options.power import BATTLE_TESTS

    if any(getattr(opts, name) is not None for _, name in _BATTLE_MODEL):
        return True
    return bool(opts.tests) and all(t in BATTLE_TESTS for t in opts.tests)


def _check_log_columns(opts: Options) -> None:
    """``--model-a`` / ``--model-b`` / ``--winner`` name the columns of ``--battle-log``: refused
    without it, not ignored."""
    columns = _changed(
        opts,
        (
            ("--model-a", "model_a", "model_a"),
            ("--model-b", "model_b", "model_b"),
            ("--winner", "winner", "winner"),
        ),
    )
    if columns and not opts.battle_log:
        raise UsageError(f"{' '.join(columns)} name(s) the columns of --battle-log FILE")


def _check_battles(opts: Options) -> dict:
    """A battle design's combinations: no score-table option, battle tests and sizes only.
    Returns the derived ``tests``, ``vary`` and ``target``."""
    from rankstats.cli.options.power import BATTLE_TESTS

    scores = _changed(
        opts,
        (
            *_SCORE_MODEL,
            *_ACCURACY_MODEL,
            ("--missing-rate", "missing_rate", 0.0),
            ("--missing-pattern", "missing_pattern", "cell"),
            ("--tasks", "tasks", None),
            ("--instances", "instances", None),
            ("--by", "by", "instance"),
            ("--metric", "metric", None),
        ),
    )
    if opts.file or opts.dataset:
        scores.insert(0, "a pilot score table")
    if scores:
        raise UsageError(
            f"a battle design has no score table: {' '.join(scores)} cannot be given with it"
        )
    _check_log_columns(opts)
    if opts.battle_log:
        fixed = [
            flag
            for flag, name in _BATTLE_MODEL[1:]
            if name != "battles" and getattr(opts, name) is not None
        ]
        if fixed:
            raise UsageError(
                f"the pilot battle log sets the design: {' '.join(fixed)} cannot be given with "
                "it (only the size --battles)"
            )
    others = [t for t in opts.tests or () if t not in BATTLE_TESTS]
    if others:
        raise UsageError(
            f"--tests {' '.join(others)} test score tables; a battle design's tests are "
            f"{' '.join(BATTLE_TESTS)}"
        )
    for flag, value in (("--rope", opts.rope != 0.01), ("--threshold", opts.threshold != 0.95)):
        if value:
            raise UsageError(f"{flag} belongs to the Bayesian signed-rank test (score tables)")
    if opts.zero_method is not None:
        raise UsageError("--zero-method belongs to the Wilcoxon signed-rank test (score tables)")
    tests = opts.tests or (["battles"] if opts.target_power else list(BATTLE_TESTS))
    vary = opts.vary or "n_battles"
    if vary not in ("n_battles", "elo_step"):
        raise UsageError(
            f"--vary {vary} varies a score table; a battle design varies n_battles or elo_step"
        )
    if vary == "elo_step" and opts.battle_log:
        raise UsageError("--vary elo_step changes the default ratings; the pilot log sets its own")
    return {"tests": tests, "vary": vary, "target": _check_sizes(opts, tests, "adjacent")}


def build_options(namespace: argparse.Namespace) -> Options:
    """The options, checked for the combinations argparse cannot check (before simulating
    anything), with the derived ``tests``, ``vary`` and ``target``."""
    opts = from_namespace(Options, namespace)
    return dataclasses.replace(opts, **_derived(opts))


def _derived(opts: Options) -> dict:
    """``tests``, ``vary`` and ``target`` of the design and mode, after checking them."""
    check_n_jobs(opts.n_jobs)
    if battle_mode(opts):
        return _check_battles(opts)
    _check_log_columns(opts)
    from rankstats.cli.options.power import BATTLE_TESTS

    battle_tests = [t for t in opts.tests or () if t in BATTLE_TESTS]
    if battle_tests:
        raise UsageError(
            f"--tests {' '.join(battle_tests)} test(s) battle logs: give a battle design "
            "(--models, --battles, --battle-log), or the score tests alone"
        )
    vary = opts.vary or "n_instances"
    if vary in ("n_battles", "elo_step"):
        raise UsageError(f"--vary {vary} needs a battle design (--models, --battles, ...)")
    if opts.file and opts.dataset:
        raise UsageError("give a pilot FILE or --dataset NAME, not both")
    if opts.file or opts.dataset:
        given = _changed(
            opts, (*_SCORE_MODEL, *_ACCURACY_MODEL, ("--missing-rate", "missing_rate", 0.0))
        )
        if given:
            raise UsageError(
                f"the pilot sets the design: {' '.join(given)} cannot be given with it "
                "(only the sizes --tasks and --instances)"
            )
    elif opts.metric or opts.lower_is_better:
        raise UsageError("--metric and --lower-is-better choose the pilot's tasks: give a pilot")
    if opts.accuracies is not None:
        given = _changed(opts, _SCORE_MODEL)
        if given:
            raise UsageError(
                f"--accuracies sets the systems and their outcomes: {' '.join(given)} cannot be "
                "given with it"
            )
    elif opts.agreement is not None:
        raise UsageError("--agreement needs --accuracies")
    elif opts.tests and "mcnemar" in opts.tests and not (opts.file or opts.dataset):
        raise UsageError(
            "--tests mcnemar needs --accuracies (paired binary outcomes); on scores use "
            "--tests sign"
        )
    tests = opts.tests or (
        ["hoeffding"] if opts.target_power else ["hoeffding", "friedman", "nemenyi"]
    )
    omnibus = tests[0] in ("friedman", "imputed")
    target = _check_sizes(opts, tests, "omnibus" if omnibus else "adjacent")
    return {"tests": tests, "vary": vary, "target": target}


def _check_sizes(opts: Options, tests: list[str], default_target: str) -> str | None:
    """The sample-size options: only with --target-power, and then for one test; the target
    (None without --target-power)."""
    if opts.target_power is None:
        for flag, value in (("--target", opts.target), ("--sizes", opts.sizes)):
            if value is not None:
                raise UsageError(f"{flag} needs --target-power (the sample-size mode)")
        return None
    if len(tests) > 1:
        raise UsageError(
            f"--target-power finds the size for one test; --tests names {len(tests)} "
            f"({' '.join(tests)})"
        )
    target = opts.target or default_target
    if target == "pair" and opts.pair is None:
        raise UsageError("--target pair needs --pair A B")
    return target


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


def run(opts: Options) -> int:
    import rankstats as rs

    design, cal = _design(opts)
    if cal is not None:
        print(f"calibrated on the pilot: {cal.summary()}".replace("\n", "\n  "))
    common = dict(
        pair=opts.pair,
        by=opts.by,
        alpha=opts.alpha,
        seed=opts.seed,
        n_jobs=opts.n_jobs,
        rope=opts.rope,
        threshold=opts.threshold,
        posterior_draws=opts.posterior_draws,
        zero_method=opts.zero_method,
        progress=True,  # a bar on a terminal, unless --quiet (rankstats._util.progress)
    )
    if opts.target_power is not None:
        return _sample_size(opts, design, common, cal)
    res = rs.power(design, tests=opts.tests, n_replications=opts.n_replications or 2000, **common)
    if not res.complete:
        raise KeyboardInterrupt
    simulated = "battle logs" if res.by == "battle" else "benchmarks"
    print(f"design: {design.describe()}; {res.n_replications:,} simulated {simulated}")
    print_frame(_shown(res.summary), title="power ± Monte Carlo s.e.")
    print_frame(_shown(res.recovery), title="recovery of the true order ± s.e.")
    for test in res.tests:
        omnibus = test in ("friedman", "imputed")
        print(res.sentence(test, target="pair" if res.pair and not omnibus else None))
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        tables = {"summary.csv": res.summary.reset_index(), "pairs.csv": res.pairs}
        files = write_tables(tmp, tables | {"recovery.csv": res.recovery.reset_index()})
        files += _calibration_files(cal, tmp)
    print(written(tmp, out, files))
    return 0


def _calibration_files(cal, tmp: Path) -> list[Path]:
    """The calibration's checks beside the results (nothing without a pilot)."""
    if cal is None:
        return []
    from rankstats.plotting.saving import save_figure

    tables = {"calibration_systems.csv": cal.systems, "calibration_pairs.csv": cal.pairs}
    return write_tables(tmp, tables) + save_figure(cal.plot(), tmp / "calibration")


def _sample_size(opts: Options, design, common: dict, cal) -> int:
    import rankstats as rs
    from rankstats.plotting.saving import save_figure

    if cal is not None and opts.vary in ("phi", "accuracy_gap"):
        # A pilot fixes the locations: the detectable step between neighbours, on its noise.
        found = cal.detectable(
            test=opts.tests[0],
            power=opts.target_power,
            target=opts.target,
            n_replications=opts.n_replications or 1000,
            seed=opts.seed,
            progress=True,
            sizes=opts.sizes,
            refine=opts.refine,
            zero_method=opts.zero_method,
        )
        res, sentence = found.curve, found.sentence()
    else:
        res = rs.sample_size(
            design,
            test=opts.tests[0],
            target=opts.target,
            power=opts.target_power,
            vary=opts.vary,
            sizes=opts.sizes,
            refine=opts.refine,
            n_replications=opts.n_replications or 1000,
            **common,
        )
        sentence = res.sentence()
    print(f"design: {design.describe()} (varying {opts.vary})")
    print_frame(res.curve.reset_index(), title="power curve", digits=3)
    print(sentence)
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        files = write_tables(tmp, {"curve.csv": res.curve.reset_index()})
        files += save_figure(res.plot(), tmp / "power_curve")
        files += _calibration_files(cal, tmp)
    print(written(tmp, out, files))
    return 0

"""``rankstats report``: an HTML + LaTeX + figures report for a paper."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankstats._util.text import terminal
from rankstats.cli._common import file_format, load_input, load_rankings_file
from rankstats.cli.check import before_analysis
from rankstats.cli.usage import UsageError
from rankstats.core.rankings import Rankings, as_rankings, require_systems


def run(args: argparse.Namespace) -> int:
    if args.methods is not None and len(set(args.methods)) != len(args.methods):
        raise UsageError("--methods lists a method twice")
    _power_options(args)  # refused before anything is read
    significance = _significance_options(args)
    rankings = _rankings_file(args)
    if rankings is not None:  # rankings without scores: no data check, nothing on scores
        require_systems(rankings.systems)  # before anything is computed (as rs.report)
        args.data_check = None
        _announce_models(args, rankings)
        return _finish(_report(args, rankings, significance))
    if args.methods is None:
        args.methods = ["borda", "borda2", "mean"]
    scores = load_input(args)
    require_systems(scores.systems)  # before the data check prints (as rs.report refuses it)
    scores, args.data_check = before_analysis(args, scores)  # its warnings printed here
    if args.paired:
        unknown = [t for t in args.paired if t not in scores.tasks]
        if unknown:
            raise UsageError(
                f"--paired: no task {', '.join(map(repr, unknown))}; tasks are "
                f"{', '.join(map(repr, scores.tasks[:20]))}"
            )
        if not scores.has_instances:
            raise UsageError("--paired needs instance-level scores (--instance COLUMN)")
    _announce_models(args, scores)
    return _finish(_report(args, scores, significance))


def _finish(rep) -> int:
    print("\n".join(terminal(line) for line in rep.methods_text.splitlines()))
    print("\nwrote " + ", ".join(str(p) for p in rep.files))
    return 0


def _rankings_file(args: argparse.Namespace):
    """The Rankings of a rankings FILE (``--format``, read as ``rankstats fit`` reads it), with
    every option that needs scores refused, naming its flag; None for a score table."""
    from rankstats.reporting import rankings_input

    chosen = file_format(args)  # refuses the score-table options (--level, --placeholders, ...)
    if chosen == "scores":
        return None
    if args.dataset:
        raise UsageError("give a FILE or --dataset NAME (exactly one)")
    if chosen == "pairwise":
        raise UsageError(
            "--format pairwise: paired comparisons are not rankings; fit them with rankstats "
            "fit FILE --format pairwise --model bt"
        )
    if chosen == "preferences":
        raise UsageError(
            "--format preferences: assessors' preferences are not rankings; fit them with "
            "rankstats fit FILE --format preferences --model mallows"
        )
    rankings, _ = load_rankings_file(args, chosen)
    what = f"{args.file} holds rankings, not scores"
    if args.paired:
        raise UsageError(f"--paired needs instance-level scores; {what}")
    methods = args.methods or list(rankings_input.DEFAULT_METHODS)
    bad = rankings_input.unavailable(rankings, methods)
    if bad:
        method, reason = next(iter(bad.items()))
        raise UsageError(
            f"--methods {method}: {reason}; {what} (use borda, copeland, kemeny, bt or pl)"
        )
    args.methods = methods
    args.title = args.title or Path(args.file).name.split(".")[0]
    return rankings


def _report(args: argparse.Namespace, data, significance: dict | bool):
    from rankstats.reporting import report

    return report(data, **_options(args, data, significance))


def _options(args: argparse.Namespace, data, significance: dict | bool) -> dict:
    """The keyword arguments of :func:`rankstats.reporting.report` (``level`` only for scores)."""
    return dict(
        out=args.out,
        methods=args.methods,
        delta=args.delta,
        correction=args.correction,
        estimand=args.estimand,
        by=None if isinstance(data, Rankings) else args.level,
        title=args.title,
        models=args.models,
        model_method=args.model_method,
        paired=args.paired or (),
        significance=significance,
        data_check=getattr(args, "data_check", None),
        top=args.top,
        power=_power_options(args),
        zero_method=args.zero_method,
    )


def _power_options(args: argparse.Namespace) -> dict | bool:
    """The ``power=`` argument of :func:`rankstats.reporting.report`; the section's options
    without ``--power`` are refused (they would be silently ignored)."""
    given = {
        "--power-test": ("test", args.power_test),
        "--power-replications": ("replications", args.power_replications),
    }
    given = {flag: kv for flag, kv in given.items() if kv[1] is not None}
    if given and not args.power:
        raise UsageError(f"{', '.join(given)}: only with --power")
    return dict(given.values()) or args.power


def _significance_options(args: argparse.Namespace) -> dict | bool:
    """The ``significance=`` argument of :func:`rankstats.reporting.report`, checked by the
    post-hoc test's own check before the data is read; the section's options without
    ``--significance`` are refused (they would be silently ignored)."""
    from rankstats.reporting.significance import with_zero_method
    from rankstats.significance.posthoc_tests import check_posthoc

    given = {
        "--posthoc": ("method", args.posthoc),
        "--alpha": ("alpha", args.alpha),
        "--missing": ("missing", args.missing),
        "--min-coverage": ("min_coverage", args.min_coverage),
    }
    given = {flag: kv for flag, kv in given.items() if kv[1] is not None}
    if given and not args.significance:
        raise UsageError(f"{', '.join(given)}: only with --significance")
    options = dict(given.values())
    if options:
        check_posthoc(**{"method": "nemenyi", **options})
    # --zero-method: with --posthoc wilcoxon-holm, --paired or --power-test wilcoxon, refused
    # otherwise (the library's check, before the data is read).
    section = {"method": "nemenyi", **options} if args.significance else None
    power_wilcoxon = bool(args.power) and args.power_test == "wilcoxon"
    with_zero_method(section, args.zero_method, bool(args.paired), power_wilcoxon)
    return options or args.significance


def _announce_models(args: argparse.Namespace, data) -> None:
    """Before a report that samples its models: how long each fit should take (the same estimate
    as ``rankstats fit``; fits expected under a few seconds are not announced)."""
    if not args.models:
        return

    from rankstats import models
    from rankstats.models.timing import fit_estimate
    from rankstats.reporting.report_data import complete_untied

    rankings = as_rankings(data, args.level)  # Scores at --level; Rankings as they are
    for name in args.models:
        if name == "mallows":
            complete = complete_untied(rankings.ranks)
            method = "map" if args.model_method == "map" and complete else "mcmc"
            data, draws, tune = (
                models.Mallows()._prepare(rankings),
                models.mallows.DRAWS,
                models.mallows.TUNE,
            )
        else:
            method, data, draws, tune = args.model_method, rankings, 1000, 1000
        line = fit_estimate(name, data, method, draws, tune, 4)
        if line:
            print(f"{name}: {line}", flush=True)

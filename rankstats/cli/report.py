"""``rankstats report``: an HTML + LaTeX + figures report for a paper."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from rankstats._util.text import terminal
from rankstats.cli._common import file_format, load_input, load_rankings_file
from rankstats.cli.check import before_analysis
from rankstats.cli.options.groups import from_namespace
from rankstats.cli.options.report import Options
from rankstats.cli.usage import UsageError
from rankstats.core.rankings import Rankings, as_rankings, require_systems


def build_options(namespace: argparse.Namespace) -> Options:
    """The options, with the defaults that depend on what FILE holds: the methods (those of
    rankings for a rankings FILE) and the title (the file's name)."""
    from rankstats.reporting import rankings_input

    opts = from_namespace(Options, namespace)
    chosen = file_format(
        opts.input, opts.rankings_file
    )  # refuses the score-table options (--by, ...)
    if chosen == "scores":
        methods = opts.methods or ["borda", "borda2", "mean"]
        return dataclasses.replace(opts, methods=methods)
    methods = opts.methods or list(rankings_input.DEFAULT_METHODS)
    title = opts.title or Path(opts.input.file).name.split(".")[0]
    return dataclasses.replace(opts, methods=methods, title=title)


def run(opts: Options) -> int:
    if len(set(opts.methods)) != len(opts.methods):
        raise UsageError("--methods lists a method twice")
    _power_options(opts)  # refused before anything is read
    significance = _significance_options(opts)
    rankings = _rankings_file(opts)
    if rankings is not None:  # rankings without scores: no data check, nothing on scores
        require_systems(rankings.systems)  # before anything is computed (as rs.report)
        _announce_models(opts.models, opts.model_method, opts.input.by, rankings)
        return _finish(_report(opts, rankings, significance, None))
    scores = load_input(opts.input, opts.rankings_file.format)
    require_systems(scores.systems)  # before the data check prints (as rs.report refuses it)
    scores, data_check = before_analysis(opts.input, scores)  # its warnings printed here
    if opts.paired:
        unknown = [t for t in opts.paired if t not in scores.tasks]
        if unknown:
            raise UsageError(
                f"--paired: no task {', '.join(map(repr, unknown))}; tasks are "
                f"{', '.join(map(repr, scores.tasks[:20]))}"
            )
        if not scores.has_instances:
            raise UsageError("--paired needs instance-level scores (--instance COLUMN)")
    _announce_models(opts.models, opts.model_method, opts.input.by, scores)
    return _finish(_report(opts, scores, significance, data_check))


def _finish(rep) -> int:
    print("\n".join(terminal(line) for line in rep.methods_text.splitlines()))
    print("\nwrote " + ", ".join(str(p) for p in rep.files))
    return 0


def _rankings_file(opts: Options):
    """The Rankings of a rankings FILE (``--format``, read as ``rankstats fit`` reads it), with
    every option that needs scores refused, naming its flag; None for a score table."""
    from rankstats.reporting import rankings_input

    chosen = file_format(opts.input, opts.rankings_file)
    if chosen == "scores":
        return None
    if opts.input.dataset:
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
    rankings, _ = load_rankings_file(opts.input, opts.rankings_file, chosen)
    what = f"{opts.input.file} holds rankings, not scores"
    if opts.paired:
        raise UsageError(f"--paired needs instance-level scores; {what}")
    bad = rankings_input.unavailable(rankings, opts.methods)
    if bad:
        method, reason = next(iter(bad.items()))
        raise UsageError(
            f"--methods {method}: {reason}; {what} (use borda, copeland, kemeny, bt or pl)"
        )
    return rankings


def _report(opts: Options, data, significance: dict | bool, data_check):
    from rankstats.reporting import report

    return report(data, **_options(opts, data, significance, data_check))


def _options(opts: Options, data, significance: dict | bool, data_check) -> dict:
    """The keyword arguments of :func:`rankstats.reporting.report` (``by`` only for scores)."""
    return dict(
        out=opts.output.out,
        methods=opts.methods,
        delta=opts.hoeffding.delta,
        correction=opts.hoeffding.correction,
        estimand=opts.hoeffding.estimand,
        by=None if isinstance(data, Rankings) else opts.input.by,
        title=opts.title,
        models=opts.models,
        model_method=opts.model_method,
        paired=opts.paired or (),
        significance=significance,
        data_check=data_check,
        top=opts.top,
        power=_power_options(opts),
        zero_method=opts.zero_method,
    )


def _power_options(opts: Options) -> dict | bool:
    """The ``power=`` argument of :func:`rankstats.reporting.report`; the section's options
    without ``--power`` are refused (they would be silently ignored)."""
    given = {
        "--power-test": ("test", opts.power_test),
        "--n-replications": ("n_replications", opts.n_replications),
    }
    given = {flag: kv for flag, kv in given.items() if kv[1] is not None}
    if given and not opts.power:
        raise UsageError(f"{', '.join(given)}: only with --power")
    return dict(given.values()) or opts.power


def _significance_options(opts: Options) -> dict | bool:
    """The ``significance=`` argument of :func:`rankstats.reporting.report`, checked by the
    post-hoc test's own check before the data is read; the section's options without
    ``--significance`` are refused (they would be silently ignored)."""
    from rankstats.reporting.significance import with_zero_method
    from rankstats.significance.posthoc_tests import check_posthoc

    given = {
        "--posthoc": ("method", opts.posthoc),
        "--alpha": ("alpha", opts.alpha),
        "--missing": ("missing", opts.missing),
        "--min-coverage": ("min_coverage", opts.min_coverage),
    }
    given = {flag: kv for flag, kv in given.items() if kv[1] is not None}
    if given and not opts.significance:
        raise UsageError(f"{', '.join(given)}: only with --significance")
    options = dict(given.values())
    if options:
        check_posthoc(**{"method": "nemenyi", **options})
    # --zero-method: with --posthoc wilcoxon-holm, --paired or --power-test wilcoxon, refused
    # otherwise (the library's check, before the data is read).
    section = {"method": "nemenyi", **options} if opts.significance else None
    power_wilcoxon = bool(opts.power) and opts.power_test == "wilcoxon"
    with_zero_method(section, opts.zero_method, bool(opts.paired), power_wilcoxon)
    return options or opts.significance


def _announce_models(names: list[str], model_method: str, by: str | None, data) -> None:
    """Before a report that samples its models (``--models``, fitted by ``--model-method``): how
    long each fit should take (the same estimate as ``rankstats fit``; fits expected under a few
    seconds are not announced)."""
    if not names:
        return

    from rankstats import models
    from rankstats.models.mallows.model import DRAWS, TUNE
    from rankstats.models.timing import fit_estimate
    from rankstats.reporting.report_data import complete_untied

    rankings = as_rankings(data, by)  # Scores --by task or instance; Rankings as they are
    for name in names:
        if name == "mallows":
            complete = complete_untied(rankings.ranks)
            method = "map" if model_method == "map" and complete else "mcmc"
            data, draws, tune = (
                models.Mallows()._prepare(rankings),
                DRAWS,
                TUNE,
            )
        else:
            method, data, draws, tune = model_method, rankings, 1000, 1000
        line = fit_estimate(name, data, method, draws, tune, 4)
        if line:
            print(f"{name}: {line}", flush=True)

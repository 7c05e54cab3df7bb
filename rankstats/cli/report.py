"""``rankstats report``: an HTML + LaTeX + figures report for a paper."""

from __future__ import annotations

import argparse

from rankstats._text import terminal
from rankstats.aggregate import AGGREGATORS, LAZY_METHODS
from rankstats.cli._common import (
    UsageError,
    add_input_arguments,
    add_output_argument,
    add_significance_arguments,
    load_input,
)

HELP = "write an HTML + LaTeX + figures report"
EXAMPLE = "rankstats report --dataset dialogue_tc --models pl bt mallows --out report/"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
    parser.add_argument(
        "--methods",
        nargs="+",
        default=["borda", "borda2", "mean"],
        choices=sorted({*AGGREGATORS, *LAZY_METHODS}),
        metavar="METHOD",
        help="aggregators; the first orders the tables (default: borda borda2 mean; also median, "
        "copeland, kemeny, bt, pl)",
    )
    add_significance_arguments(parser, form=False)
    parser.add_argument("--title", default=None, help="title of the report (default: data name)")
    parser.add_argument(
        "--models",
        nargs="*",
        default=[],
        choices=["pl", "bt", "mallows"],
        help="rank models to fit and compare with the Hoeffding intervals",
    )
    parser.add_argument(
        "--model-method",
        default="map",
        choices=["map", "nuts", "mcmc"],
        help="fitting method of the models (default: map)",
    )
    parser.add_argument(
        "--paired",
        nargs="+",
        metavar="TASK",
        default=None,
        help="add a paired instance-level analysis (sign / Wilcoxon / t / Mood tests, BT, Elo, "
        "TrueSkill) of these tasks (metrics)",
    )
    parser.add_argument(
        "--significance",
        action="store_true",
        help="add the Friedman test, Nemenyi post-hoc tests, the critical-difference diagram and "
        "its LaTeX table (complete blocks only; see `rankstats significance` for the options)",
    )
    add_output_argument(parser, "report", "the report")


def run(args: argparse.Namespace) -> int:
    from rankstats.report import report

    if len(set(args.methods)) != len(args.methods):
        raise UsageError("--methods lists a method twice")
    scores = load_input(args)
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
    rep = report(
        scores,
        out=args.out,
        methods=args.methods,
        delta=args.delta,
        correction=args.correction,
        estimand=args.estimand,
        level=args.level,
        title=args.title,
        models=args.models,
        model_method=args.model_method,
        paired=args.paired or (),
        significance=args.significance,
    )
    print("\n".join(terminal(line) for line in rep.methods_text.splitlines()))
    print("\nwrote " + ", ".join(str(p) for p in rep.files))
    return 0


def _announce_models(args: argparse.Namespace, scores) -> None:
    """Before a report that samples its models: how long each fit should take (the same estimate
    as ``rankstats fit``; fits expected under a few seconds are not announced)."""
    if not args.models:
        return
    import numpy as np

    from rankstats import models
    from rankstats.models._timing import fit_estimate
    from rankstats.rankings import Rankings, default_level

    rankings = Rankings.from_scores(scores, by=default_level(scores, args.level))
    for name in args.models:
        if name == "mallows":
            ranks = rankings.ranks
            complete = not np.isnan(ranks).any() and not (ranks % 1).any()
            method = "map" if args.model_method == "map" and complete else "mcmc"
            data, draws, tune = (
                models.Mallows._prepare(rankings),
                models.mallows.DRAWS,
                models.mallows.TUNE,
            )
        else:
            method, data, draws, tune = args.model_method, rankings, 1000, 1000
        line = fit_estimate(name, data, method, draws, tune, 4)
        if line:
            print(f"{name}: {line}", flush=True)

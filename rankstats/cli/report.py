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
    )
    print("\n".join(terminal(line) for line in rep.methods_text.splitlines()))
    print("\nwrote " + ", ".join(str(p) for p in rep.files))
    return 0

"""``rankstats battles``: Bradley–Terry leaderboard of pairwise battles (Chatbot-Arena style)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from rankstats._atomic import output_dir
from rankstats._text import latex_escape, terminal, write_csv
from rankstats.cli._common import (
    UsageError,
    add_output_argument,
    at_least,
    clean,
    file_done,
    probability,
    write_json,
    written,
)
from rankstats.cli._console import print_frame

HELP = "Bradley–Terry ratings of pairwise battles (model_a, model_b, winner), with intervals"
EXAMPLE = "rankstats battles battles.parquet --bootstrap 1000 --anchor gpt-4-0613 --out arena-out"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="battle log: CSV, TSV, Parquet, JSON (lines)")
    parser.add_argument("--model-a", default="model_a", metavar="COL", help="model shown first")
    parser.add_argument("--model-b", default="model_b", metavar="COL", help="model shown second")
    parser.add_argument(
        "--winner",
        default="winner",
        metavar="COL",
        help="winner column: a / model_a, b / model_b, tie, both-bad / tie (bothbad)",
    )
    parser.add_argument("--sep", default=None, help="delimiter of a text file (default: sniffed)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of a text file")
    parser.add_argument(
        "--both-bad",
        choices=["tie", "drop"],
        default="tie",
        help="'both bad' battles: count as ties (default) or leave out",
    )
    parser.add_argument(
        "--ties",
        choices=["davidson", "half"],
        default="davidson",
        help="Davidson's tie parameter (default) or a tie as half a win each way",
    )
    parser.add_argument(
        "--no-order-effect",
        action="store_true",
        help="do not estimate the advantage of the model shown first",
    )
    parser.add_argument(
        "--bootstrap", type=at_least(0), default=1000, help="bootstrap replicates (default 1000)"
    )
    parser.add_argument(
        "--posterior", action="store_true", help="also sample the posterior (PyMC NUTS; slower)"
    )
    parser.add_argument("--confidence", type=probability, default=0.95, help="level (default 0.95)")
    parser.add_argument("--anchor", default=None, metavar="MODEL", help="model fixed at --rating")
    parser.add_argument(
        "--rating", type=float, default=1000.0, help="rating of --anchor, or the mean (1000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_output_argument(parser, "battles-out", "ratings.csv/.tex, the figures, win_probability.csv")
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")


def latex_table(table: pd.DataFrame, methods: list[str], confidence: float) -> str:
    """A booktabs table of the leaderboard; every name through :func:`latex_escape`."""
    header = ["Rank", "Model", "Rating"] + [f"{m} {confidence:.0%} CI" for m in methods] + ["n"]
    lines = [
        "\\begin{tabular}{rl" + "r" * (len(header) - 2) + "}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in header) + " \\\\",
        "\\midrule",
    ]
    for _, row in table.iterrows():
        cells = [f"{row['rank']:g}", latex_escape(row["model"]), f"{row['rating']:.1f}"]
        cells += [f"[{row[f'{m}_low']:.1f}, {row[f'{m}_high']:.1f}]" for m in methods]
        cells.append(f"{int(row['n_battles'])}")
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from rankstats.battles import read_battles
    from rankstats.battles_fit import fit_battles

    battles = read_battles(
        Path(args.file),
        model_a=args.model_a,
        model_b=args.model_b,
        winner=args.winner,
        sep=args.sep,
        encoding=args.encoding,
    )
    if args.anchor is not None and args.anchor not in battles.models:
        raise UsageError(
            f"--anchor {args.anchor!r} is not a model of the battles; models are "
            f"{', '.join(map(repr, battles.models[:20]))}"
        )
    print(terminal(repr(battles)))
    fit = fit_battles(
        battles,
        # Davidson's ν only when ties remain after --both-bad (decided on the counts fitted).
        ties=None if args.ties == "davidson" else False,
        order_effect=not args.no_order_effect,
        both_bad=args.both_bad,
        bootstrap=args.bootstrap,
        posterior=args.posterior,
        confidence=args.confidence,
        anchor=args.anchor,
        anchor_rating=args.rating,
        seed=args.seed,
    )
    table = fit.table()
    parameters = fit.parameters()
    print(f"\nratings (Elo scale, {args.confidence:.0%} intervals: {', '.join(fit.methods)}):")
    print_frame(
        table, decimals={c: 1 for c in table.columns if c not in ("rank", "rank_ub", "n_battles")}
    )
    if len(parameters):
        print("\norder effect η = log h and log tie parameter log ν:")
        print_frame(parameters)
    problems = fit.info.get("posterior_problems")
    if problems:
        print("\nposterior NOT converged: " + "; ".join(problems))
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = []
        for name, frame in (("ratings.csv", table), ("parameters.csv", parameters)):
            write_csv(frame, tmp / name)
            files.append(tmp / name)
            file_done()
        matrix = fit.win_probability().loc[list(table["model"]), list(table["model"])]
        write_csv(matrix.reset_index(names="model"), tmp / "win_probability.csv")
        files.append(tmp / "win_probability.csv")
        (tmp / "ratings.tex").write_text(latex_table(table, fit.methods, args.confidence))
        files.append(tmp / "ratings.tex")
        summary = {
            "battles": repr(battles),
            "info": {k: v for k, v in fit.info.items()},
            "parameters": clean(parameters.to_dict("records")),
            "ratings": clean(table.to_dict("records")),
        }
        files.append(write_json(tmp / "summary.json", summary))
        file_done()
        if not args.no_figures:
            import matplotlib.pyplot as plt

            from rankstats.plotting import save_figure

            for stem, figure in (
                ("intervals", fit.plot(top=60)),
                ("win_probability", fit.plot_win_probability(top=30)),
            ):
                files += save_figure(figure, tmp / stem)
                plt.close(figure)
                file_done()
    print("\n" + written(tmp, out, files))
    return 0

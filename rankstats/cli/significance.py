"""``rankstats significance``: Friedman's test, a post-hoc test of every pair, the
critical-difference diagram, confidence sets for the ranks and (with ``--rope``) the Bayesian
signed-rank test of adjacent systems: Demšar's (2006) protocol on complete blocks."""

from __future__ import annotations

import argparse
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._atomic import output_dir
from rankstats._text import write_csv
from rankstats.cli._common import (
    UsageError,
    add_input_arguments,
    add_output_argument,
    at_least,
    check_out,
    clean,
    file_done,
    level_of,
    load_input,
    probability,
    short,
    write_json,
    written,
)
from rankstats.cli._console import NAME_WIDTH, format_numbers, print_frame, print_table

HELP = (
    "Friedman's test, Nemenyi / Conover / Wilcoxon-Holm post-hoc tests, the critical-difference "
    "diagram and confidence sets for the ranks (complete blocks)"
)
EXAMPLE = (
    "rankstats significance --dataset glue\n  "
    "rankstats significance scores.csv --posthoc wilcoxon-holm --alpha 0.05 --rope 0.01 "
    "--out sig/"
)

POSTHOC = ("nemenyi", "conover", "wilcoxon-holm")
ADJUST = ("holm", "bonferroni", "none")
#: Above this many systems the Hoeffding rank ranges (N² pairs) are not computed.
HOEFFDING_LIMIT = 500


def _posthoc_method(text: str) -> str:
    """``--posthoc``: one of :data:`POSTHOC`; ``holm`` (an adjustment, not a test) is refused
    with the two spellings it may have meant."""
    if text in POSTHOC:
        return text
    if text.lower() in ADJUST:
        raise argparse.ArgumentTypeError(
            f"{text!r} is a p-value adjustment, not a test: use --posthoc wilcoxon-holm "
            f"(Wilcoxon signed-rank tests, Holm-adjusted) or --posthoc conover --adjust {text}"
        )
    raise argparse.ArgumentTypeError(f"expected one of {', '.join(POSTHOC)}, not {text!r}")


_posthoc_method.__name__ = "post-hoc test"


def _rope(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a finite number ≥ 0, not {text!r}")
    return value


_rope.__name__ = "ROPE half-width"


def _coverage(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], not {text!r}")
    return value


_coverage.__name__ = "fraction"


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
    tests = parser.add_argument_group("tests")
    tests.add_argument(
        "--posthoc",
        type=_posthoc_method,
        default="nemenyi",
        metavar="{nemenyi,conover,wilcoxon-holm}",
        help="post-hoc test of every pair (default: nemenyi, with its critical difference); "
        "conover and wilcoxon-holm are Holm-adjusted unless --adjust says otherwise",
    )
    tests.add_argument(
        "--adjust",
        choices=ADJUST,
        default=None,
        help="multiplicity adjustment of the conover / wilcoxon-holm p-values (default: holm; "
        "Nemenyi's p-values are single-step family-wise and take none)",
    )
    tests.add_argument(
        "--alpha",
        type=probability,
        default=0.05,
        help="family-wise error level of the tests, the CD and the rank sets, in (0, 1) "
        "(default 0.05)",
    )
    tests.add_argument(
        "--missing",
        choices=["error", "complete-case"],
        default="error",
        help="incomplete blocks: refuse them, naming the first (default), or keep only the "
        "complete blocks and report what was dropped",
    )
    tests.add_argument(
        "--min-coverage",
        type=_coverage,
        default=0.0,
        metavar="FRACTION",
        help="with --missing complete-case: first drop the systems evaluated in fewer than this "
        "fraction of the blocks (default 0: only systems evaluated nowhere)",
    )
    sets = parser.add_argument_group("confidence sets for the ranks (Mogstad et al. 2024)")
    sets.add_argument(
        "--rank-sets",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="bootstrap confidence sets for the ranks of the mean scores (default: on)",
    )
    kind = sets.add_mutually_exclusive_group()
    kind.add_argument(
        "--simultaneous",
        dest="simultaneous",
        action="store_true",
        default=True,
        help="sets covering the ranks of all systems at once (default)",
    )
    kind.add_argument(
        "--marginal",
        dest="simultaneous",
        action="store_false",
        help="sets each covering the rank of its own system (narrower)",
    )
    sets.add_argument(
        "--boot",
        type=at_least(100),
        default=1000,
        metavar="N",
        help="bootstrap resamples of the blocks, ≥ 100 (default 1000)",
    )
    sets.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the bootstrap and of the Bayesian posterior draws (default 0)",
    )
    bayes = parser.add_argument_group("Bayesian signed-rank test (Benavoli et al. 2017)")
    bayes.add_argument(
        "--rope",
        type=_rope,
        default=None,
        metavar="R",
        help="half-width of the region of practical equivalence, in score units (≥ 0): test "
        "every adjacent pair of the average-rank order and report P(a better), P(rope), "
        "P(b better) (default: not run)",
    )
    bayes.add_argument(
        "--samples",
        type=at_least(1000),
        default=50_000,
        metavar="N",
        help="posterior draws per pair of the Bayesian test (default 50000)",
    )
    add_output_argument(
        parser,
        "significance-out",
        "friedman.json, the CSV tables, the CD diagram and its LaTeX table",
    )


def check(args: argparse.Namespace) -> None:
    """Every argument is checked here, before the data is read."""
    if args.adjust is not None and args.posthoc == "nemenyi":
        raise UsageError(
            "--adjust applies to --posthoc conover and wilcoxon-holm; Nemenyi's p-values are "
            "single-step family-wise already"
        )
    if args.min_coverage > 0 and args.missing != "complete-case":
        raise UsageError("--min-coverage applies with --missing complete-case")
    if args.rope is None and args.samples != 50_000:
        raise UsageError("--samples applies with --rope R")
    check_out(args)


def _cli_spelling(err: ValueError) -> UsageError:
    """The library's advice ``missing='complete-case'`` in the spelling of the CLI."""
    text = str(err).replace("pass missing='complete-case'", "pass --missing complete-case")
    text = text.replace("raise min_coverage", "raise --min-coverage")
    return UsageError(text)


def _finite(value: object) -> object:
    """NaN as null, recursively, so that friedman.json is standard JSON."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float | np.floating) and math.isnan(value):
        return None
    return value


def _label(block: object) -> str:
    return "/".join(map(str, block)) if isinstance(block, tuple) else str(block)


def run(args: argparse.Namespace) -> int:
    from rankstats.cd_diagram import cd_table, group_letters
    from rankstats.friedman import friedman
    from rankstats.plotting import save_figure
    from rankstats.posthoc import posthoc

    scores = load_input(args)
    level = level_of(args, scores)
    try:
        fr = friedman(scores, level=level, missing=args.missing, min_coverage=args.min_coverage)
    except ValueError as err:
        raise _cli_spelling(err) from None
    blocks = fr.blocks
    ph = posthoc(blocks, method=args.posthoc, alpha=args.alpha, adjust=args.adjust)
    letters = group_letters(ph)
    significant = bool(fr.f_p_value < args.alpha)

    ranks = ph.mean_ranks.rename_axis("system").reset_index()
    ranks.insert(0, "position", np.arange(1, len(ranks) + 1))
    ranks["group"] = ranks["system"].map(letters)

    sets = None
    if args.rank_sets:
        from rankstats.rank_sets import rank_confidence_sets

        sets = rank_confidence_sets(
            blocks,
            alpha=args.alpha,
            simultaneous=args.simultaneous,
            # The expected rank in a block (Friedman's parameter), not the mean score: the
            # blocks may mix tasks on different scales, and the table is in average-rank order.
            of="rank",
            n_boot=args.boot,
            seed=args.seed,
        )
        table = _hoeffding(scores, level, blocks, sets)
        if table is None:
            table = sets.table[["system", "estimate", "rank", "rank_low", "rank_high"]]
        # ``estimate`` is the mean rank again (the table's mean_rank column): not repeated.
        table = table.drop(columns=["estimate"]).rename(columns={"rank": "rank_of_mean_rank"})
        ranks = ranks.merge(table, on="system", how="left")

    bayes = _bayes(blocks, ph, args) if args.rope is not None else None

    name = scores.name or (Path(args.file).name if args.file else "scores")
    _print(args, name, fr, ph, ranks, sets, bayes, significant)

    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / "average_ranks.csv", tmp / "posthoc_pairs.csv"]
        write_csv(ranks, files[0])
        file_done()
        write_csv(ph.table, files[1])
        file_done()
        files += save_figure(ph.plot(), tmp / "cd_diagram")
        file_done()
        files.append(tmp / "cd_table.tex")
        files[-1].write_text(cd_table(ph))
        file_done()
        if sets is not None:
            files.append(tmp / "rank_sets.csv")
            write_csv(sets.table, files[-1])
            file_done()
        if bayes is not None:
            files.append(tmp / "bayes_signed_rank.csv")
            write_csv(bayes, files[-1])
            file_done()
        summary = _finite(_summary(args, name, level, fr, ph, ranks, sets, bayes, significant))
        summary["files"] = [str(out / p.relative_to(tmp)) for p in files] + [
            str(out / "friedman.json")
        ]
        files.append(write_json(tmp / "friedman.json", summary))
    print("\n" + written(tmp, out, files))
    return 0


def _hoeffding(scores, level: str, blocks, sets) -> pd.DataFrame | None:
    """The Hoeffding rank ranges next to the rank sets, when they rank the same systems (nothing
    dropped) and the N² pairs are cheap; else None."""
    if blocks.dropped_systems or len(blocks.dropped_blocks) or blocks.set_aside:
        return None
    if len(blocks.systems) > HOEFFDING_LIMIT:
        return None
    from rankstats.confidence import hoeffding_test
    from rankstats.pairwise import pairwise

    test = hoeffding_test(pairwise(scores, by=level), order=list(sets.systems))
    return sets.compare_hoeffding(test).drop(columns=["width", "hoeffding_width"])


def _bayes(blocks, ph, args: argparse.Namespace) -> pd.DataFrame:
    """The Bayesian signed-rank test of every adjacent pair of the average-rank order, on the
    scores of the same complete blocks."""
    from rankstats.bayes_signed_rank import bayes_signed_rank

    frame = pd.DataFrame(blocks.values, columns=list(blocks.systems))
    order = list(ph.mean_ranks.index)
    rows = []
    for a, b in itertools.pairwise(order):
        res = bayes_signed_rank(frame, a, b, rope=args.rope, samples=args.samples, seed=args.seed)
        rows.append(
            {
                "system_a": a,
                "system_b": b,
                "mean_rank_a": ph.mean_ranks[a],
                "mean_rank_b": ph.mean_ranks[b],
                "n_blocks": res.n,
                "p_a_better": res.p_a,
                "p_rope": res.p_rope,
                "p_b_better": res.p_b,
                "decision": {"a": a, "b": b, "rope": "equivalent", None: ""}[res.decision],
            }
        )
    return pd.DataFrame(rows)


def _dropped_lines(fr) -> str:
    dropped = fr.blocks.dropped()
    return dropped if dropped else "nothing dropped"


def _spans(low: pd.Series, high: pd.Series) -> list[str]:
    return [f"{int(lo)}–{int(hi)}" for lo, hi in zip(low, high, strict=True)]


def _p(value: float) -> str:
    """``p = 0.0123``; a p-value that underflows to 0 in double precision as ``p < 1e-300``."""
    return "p < 1e-300" if value == 0 else f"p = {value:.4g}"


def _print(args, name, fr, ph, ranks, sets, bayes, significant) -> None:
    b = fr.blocks
    print(f"rankstats significance: {short(name, 80)}")
    print(
        f"  N = {fr.n_blocks} {b.level} blocks, k = {fr.n_systems} systems, "
        f"missing = {b.missing}; {_dropped_lines(fr)}"
    )
    ties = "tie-corrected" if fr.corrected else "no tie correction"
    print(
        f"Friedman: χ²_F = {fr.statistic:.4g} (df {fr.df}, {ties}), {_p(fr.p_value)}; "
        f"Iman–Davenport F_F = {fr.f_statistic:.4g} (df {fr.f_df[0]}, {fr.f_df[1]}), "
        f"{_p(fr.f_p_value)}"
    )
    if significant:
        print(f"  the systems do not all rank alike (Iman–Davenport p < α = {args.alpha:g})")
    else:
        print(
            f"  NOT significant at α = {args.alpha:g} (Iman–Davenport p = {fr.f_p_value:.4g}): "
            "by Demšar's (2006) protocol no pairwise difference below may be claimed; the "
            "post-hoc results are written for completeness only"
        )
    print()
    columns = [
        ("#", "right"),
        ("system", "left"),
        ("avg rank", "right"),
        ("group", "left"),
    ]
    cells = [
        format_numbers(ranks["position"]),
        ranks["system"].tolist(),
        format_numbers(ranks["mean_rank"]),
        ranks["group"].tolist(),
    ]
    if sets is not None:
        kind = "simult." if sets.simultaneous else "marginal"
        columns += [(f"rank set ({kind})", "right")]
        cells.append(_spans(ranks["rank_low"], ranks["rank_high"]))
        if "hoeffding_low" in ranks:
            columns.append(("Hoeffding range", "right"))
            cells.append(_spans(ranks["hoeffding_low"], ranks["hoeffding_high"]))
    print_table(columns, list(zip(*cells, strict=True)), max_width={1: NAME_WIDTH})
    print(
        "\ngroup: systems sharing a letter are not significantly different (the bars of the CD "
        "diagram)."
    )
    if sets is not None:
        kind = "simultaneous" if sets.simultaneous else "marginal"
        text = (
            f"rank set: {kind} {1 - args.alpha:.0%} confidence set for the rank of the expected "
            f"rank in a block (Mogstad et al. 2024; {sets.n_boot} bootstrap resamples of the "
            f"blocks, seed {sets.seed})"
        )
        if "hoeffding_low" in ranks:
            text += "; Hoeffding range: rank range implied by the Hoeffding intervals (δ = 0.05)"
        print(text + ".")
    adjust = {"single-step": "single-step", "none": "no adjustment"}.get(
        ph.adjust, f"{ph.adjust}-adjusted"
    )
    line = (
        f"\nPost-hoc {ph.method} ({adjust}, α = {ph.alpha:g}): {ph.n_significant} of "
        f"{ph.n_pairs} pairs significant"
    )
    if np.isfinite(ph.critical_difference):
        line += f"; critical difference CD = {ph.critical_difference:.4g} average ranks"
    print(line + ".")
    if bayes is not None:
        print(
            f"\nBayesian signed-rank test of adjacent systems, ROPE ±{args.rope:g} "
            f"({args.samples} posterior draws, seed {args.seed}; decision at P ≥ 0.95):"
        )
        print_frame(
            bayes[["system_a", "system_b", "p_a_better", "p_rope", "p_b_better", "decision"]],
            headers={
                "p_a_better": "P(a better)",
                "p_rope": "P(rope)",
                "p_b_better": "P(b better)",
            },
            decimals={"p_a_better": 3, "p_rope": 3, "p_b_better": 3},
            text_width=NAME_WIDTH,
        )


def _summary(args, name, level, fr, ph, ranks, sets, bayes, significant) -> dict:
    b = fr.blocks
    return {
        "data": {
            "name": name,
            "level": level,
            "n_blocks": fr.n_blocks,
            "n_systems": fr.n_systems,
            "n_input_blocks": b.n_input_blocks,
            "missing": b.missing,
            "min_coverage": args.min_coverage,
            "dropped_systems": list(b.dropped_systems),
            "dropped_blocks": [_label(x) for x in b.dropped_blocks],
            "set_aside": list(b.set_aside),
            "dropped": b.dropped(),
        },
        "friedman": {
            "chi2": fr.statistic,
            "df": fr.df,
            "p_value": fr.p_value,
            "tie_correction": fr.tie_correction,
            "tie_corrected": fr.corrected,
            "iman_davenport_f": fr.f_statistic,
            "iman_davenport_df": list(fr.f_df),
            "iman_davenport_p_value": fr.f_p_value,
            "alpha": args.alpha,
            "significant": significant,
            "decided_by": "iman_davenport_p_value",
        },
        "posthoc": {
            "method": ph.method,
            "adjust": ph.adjust,
            "alpha": ph.alpha,
            "critical_difference": ph.critical_difference,
            "q_alpha": ph.q_alpha,
            "n_pairs": ph.n_pairs,
            "n_significant": ph.n_significant,
            "groups": [list(g) for g in ph.groups()],
            "claimable": significant,
        },
        "average_ranks": clean(ranks.to_dict(orient="records")),
        "rank_sets": None
        if sets is None
        else {
            "simultaneous": sets.simultaneous,
            "stepdown": sets.stepdown,
            "alpha": sets.alpha,
            "n_boot": sets.n_boot,
            "seed": sets.seed,
            "n_steps": sets.n_steps,
            "hoeffding_ranges": "hoeffding_low" in ranks,
        },
        "bayes_signed_rank": None
        if bayes is None
        else {
            "rope": args.rope,
            "samples": args.samples,
            "seed": args.seed,
            "threshold": 0.95,
            "pairs": clean(bayes.to_dict(orient="records")),
        },
    }

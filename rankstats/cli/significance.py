"""``rankstats significance``: Friedman's test, a post-hoc test of every pair, the
critical-difference diagram, confidence sets for the ranks and (with ``--rope``) the Bayesian
signed-rank test of adjacent systems: Demšar's (2006) protocol on complete blocks. With
``--hierarchical`` the same adjacent pairs also get the hierarchical model across tasks of
Corani et al. (2017) on the instance-level scores (``hierarchical.csv``)."""

from __future__ import annotations

import argparse
import importlib
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._atomic import output_dir
from rankstats._text import terminal, write_csv
from rankstats.blocks import MISSING
from rankstats.cli._common import (
    UsageError,
    add_input_arguments,
    add_output_argument,
    at_least,
    check_out,
    clean,
    cli_spelling,
    coverage,
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
    "diagram and confidence sets for the ranks (complete blocks, or imputed expected ranks)"
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


def _correlation(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), not {text!r}")
    return value


_correlation.__name__ = "correlation"

#: The defaults of the hierarchical test's options (refused without --hierarchical).
HIERARCHICAL_DEFAULTS = {"rho": 0.0, "draws": 2000, "tune": 2000, "chains": 4}


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
        "Nemenyi's p-values are single-step family-wise and take none, except with --missing "
        "imputed, where holm / bonferroni / none replace the single-step max-|z| p-values)",
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
        choices=list(MISSING),
        default="error",
        help="incomplete blocks: refuse them, naming the first (default), or keep only the "
        "complete blocks and report what was dropped (see docs/user-guide/significance.md "
        "for every choice)",
    )
    tests.add_argument(
        "--min-coverage",
        type=coverage,
        default=0.0,
        metavar="FRACTION",
        help="with --missing complete-case or imputed: first drop the systems evaluated in "
        "fewer than this fraction of the blocks (default 0: only systems evaluated nowhere)",
    )
    tests.add_argument(
        "--choose",
        action="store_true",
        help="also make the automatic choice autorank makes (Shapiro–Wilk normality, Bartlett / "
        "Levene homoscedasticity → repeated-measures ANOVA + Tukey HSD, or Friedman + Nemenyi), "
        "print its explanation and write choice.json, choice_summary.csv and the chosen "
        "post-hoc pairs (complete blocks only)",
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
    hier = parser.add_argument_group(
        "Bayesian hierarchical test across tasks (Corani et al. 2017; needs instance-level scores)"
    )
    hier.add_argument(
        "--hierarchical",
        action="store_true",
        help="also run the hierarchical model (PyMC NUTS) on the same adjacent pairs as --rope: "
        "P(a better), P(rope), P(b better) on a new task, written to hierarchical.csv "
        "(needs --rope R)",
    )
    hier.add_argument(
        "--rho",
        type=_correlation,
        default=0.0,
        metavar="RHO",
        help="correlation of two instances of one task, in [0, 1): 0 for independent instances "
        "(default), 1/k for the folds of k-fold cross-validation",
    )
    hier.add_argument(
        "--draws",
        type=at_least(100),
        default=2000,
        metavar="N",
        help="NUTS draws per chain of the hierarchical test, ≥ 100 (default 2000)",
    )
    hier.add_argument(
        "--tune",
        type=at_least(100),
        default=2000,
        metavar="N",
        help="NUTS tuning steps per chain of the hierarchical test, ≥ 100 (default 2000)",
    )
    hier.add_argument(
        "--chains",
        type=at_least(1),
        default=4,
        metavar="N",
        help="NUTS chains of the hierarchical test (default 4)",
    )
    add_output_argument(
        parser,
        "significance-out",
        "friedman.json, the CSV tables, the CD diagram and its LaTeX table",
    )


def check(args: argparse.Namespace) -> None:
    """Every argument is checked here, before the data is read."""
    if args.adjust is not None and args.posthoc == "nemenyi" and args.missing != "imputed":
        raise UsageError(
            "--adjust applies to --posthoc conover and wilcoxon-holm (and to nemenyi with "
            "--missing imputed); Nemenyi's p-values are single-step family-wise already"
        )
    if args.missing == "imputed" and args.posthoc != "nemenyi":
        raise UsageError(
            f"--posthoc {args.posthoc} needs complete blocks: with --missing imputed use "
            "--posthoc nemenyi (z tests on the imputed ranks, single-step or --adjust holm)"
        )
    if args.choose and args.missing == "imputed":
        raise UsageError(
            "--choose needs complete blocks (its ANOVA and normality checks read the scores): "
            "use --missing complete-case"
        )
    if args.min_coverage > 0 and args.missing not in ("complete-case", "imputed"):
        raise UsageError("--min-coverage applies with --missing complete-case or imputed")
    if args.rope is None and args.samples != 50_000:
        raise UsageError("--samples applies with --rope R")
    if args.hierarchical and args.rope is None:
        raise UsageError("--hierarchical needs --rope R")
    changed = [k for k, v in HIERARCHICAL_DEFAULTS.items() if getattr(args, k) != v]
    if changed and not args.hierarchical:
        raise UsageError(
            ", ".join(f"--{k}" for k in changed) + " applies with --hierarchical --rope R"
        )
    check_out(args)


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
    if args.hierarchical and not scores.has_instances:
        raise UsageError(
            "--hierarchical needs instance-level scores (an instance column: several instances "
            "per task)"
        )
    level = level_of(args, scores)
    try:
        fr = friedman(scores, level=level, missing=args.missing, min_coverage=args.min_coverage)
    except ValueError as err:
        raise cli_spelling(err) from None
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
    hier = _hierarchical(scores, ph, args) if args.hierarchical else None
    choice = _choose(blocks, args) if args.choose else None

    name = scores.name or (Path(args.file).name if args.file else "scores")
    _print(args, name, fr, ph, ranks, sets, bayes, significant)
    if hier is not None:
        _print_hierarchical(args, hier)
    if choice is not None:
        _print_choice(choice)

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
        if hier is not None:
            files.append(tmp / "hierarchical.csv")
            write_csv(hier, files[-1])
            file_done()
        if choice is not None:
            files += _write_choice(choice, tmp)
        summary = _finite(_summary(args, name, level, fr, ph, ranks, sets, bayes, significant))
        summary["bayes_hierarchical"] = _finite(_hierarchical_summary(args, hier))
        summary["files"] = [str(out / p.relative_to(tmp)) for p in files] + [
            str(out / "friedman.json")
        ]
        files.append(write_json(tmp / "friedman.json", summary))
    print("\n" + written(tmp, out, files))
    return 0


def _choose(blocks, args: argparse.Namespace):
    """autorank's automatic choice on the same complete blocks (:func:`rankstats.choose_test`)."""
    from rankstats.choice import choose_test

    return choose_test(blocks, alpha=args.alpha)


def _print_choice(choice) -> None:
    print(
        f"\nAutomatic choice (as autorank): {_CHOICE_NAMES[choice.decision]}; omnibus "
        f"{_p(choice.p_value)}, {choice.posthoc.n_significant} of {choice.posthoc.n_pairs} pairs "
        f"significant at α = {choice.alpha:g}"
    )
    print(terminal(choice.explanation))
    summary = choice.summary[["system", "mean_rank", "mean", "std", "effect_size", "magnitude"]]
    print_frame(
        summary,
        headers={"mean_rank": "avg rank", "effect_size": choice.effect_size.replace("_", " ")},
    )


_CHOICE_NAMES = {
    "anova-tukey": "repeated-measures ANOVA + Tukey's HSD",
    "friedman-nemenyi": "Friedman + Nemenyi",
}


def _write_choice(choice, tmp: Path) -> list[Path]:
    """``choice.json`` (the checks, the decision, the omnibus and post-hoc summary),
    ``choice_summary.csv`` and ``choice_pairs.csv`` (the chosen post-hoc test's table)."""
    files = [tmp / "choice_summary.csv", tmp / "choice_pairs.csv"]
    write_csv(choice.summary, files[0])
    file_done()
    write_csv(choice.posthoc.table, files[1])
    file_done()
    record = {
        "decision": choice.decision,
        "test": _CHOICE_NAMES[choice.decision],
        "alpha": choice.alpha,
        "normality": {
            "test": "shapiro-wilk",
            "alpha": choice.alpha_normality,
            "p_values": {str(k): float(v) for k, v in choice.normality.items()},
            "all_normal": choice.all_normal,
        },
        "homoscedasticity": {
            "test": choice.homoscedasticity_test,
            "p_value": choice.homoscedasticity_p,
            "homoscedastic": choice.homoscedastic,
        },
        "omnibus_p_value": choice.p_value,
        "significant": choice.significant,
        "posthoc": {
            "n_pairs": choice.posthoc.n_pairs,
            "n_significant": choice.posthoc.n_significant,
            "groups": [list(g) for g in choice.posthoc.groups()],
        },
        "effect_size": choice.effect_size,
        "explanation": choice.explanation,
    }
    files.append(write_json(tmp / "choice.json", _finite(record)))
    return files


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
    # On imputed ranks the scores of a block may be missing: each pair uses the blocks where
    # both systems were scored (n_blocks says how many); scores are never imputed.
    missing = "complete-case" if blocks.imputed else "refuse"
    rows = []
    for a, b in itertools.pairwise(order):
        res = bayes_signed_rank(
            frame, a, b, rope=args.rope, samples=args.samples, seed=args.seed, missing=missing
        )
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


def _hierarchical(scores, ph, args: argparse.Namespace) -> pd.DataFrame:
    """The hierarchical test (Corani et al. 2017) of every adjacent pair of the average-rank
    order, on the instance-level scores (the instances where both systems were scored). One
    compiled PyMC model serves every pair with the same number of tasks."""
    # The module (rs.bayes_hierarchical is the function of the same name).
    module = importlib.import_module("rankstats.bayes_hierarchical")

    order = list(ph.mean_ranks.index)
    rows = []
    for a, b in itertools.pairwise(order):
        try:
            res = module.bayes_hierarchical(
                scores,
                a,
                b,
                rope=args.rope,
                rho=args.rho,
                draws=args.draws,
                tune=args.tune,
                chains=args.chains,
                seed=args.seed,
                missing="drop" if args.missing == "complete-case" else "refuse",
            )
        except ValueError as err:
            text = str(err).replace("pass missing='drop'", "pass --missing complete-case")
            raise UsageError(f"--hierarchical, {short(a, 40)} vs {short(b, 40)}: {text}") from None
        d = res.diagnostics
        delta0 = res.task_table().set_index("task").loc["(population mean δ0)"]
        rows.append(
            {
                "system_a": a,
                "system_b": b,
                "mean_rank_a": ph.mean_ranks[a],
                "mean_rank_b": ph.mean_ranks[b],
                "n_tasks": res.n_tasks,
                "n_instances": res.n,
                "p_a_better": res.p_a,
                "p_rope": res.p_rope,
                "p_b_better": res.p_b,
                "share_a": res.shares["a"],
                "share_rope": res.shares["rope"],
                "share_b": res.shares["b"],
                "delta0_mean": delta0["delta_mean"],
                "delta0_low": delta0["delta_low"],
                "delta0_high": delta0["delta_high"],
                "decision": {"a": a, "b": b, "rope": "equivalent", None: ""}[res.decision],
                "converged": d["converged"],
                "max_r_hat": d["max_r_hat"],
                "min_ess_bulk": d["min_ess_bulk"],
                "divergences": d["divergences"],
                "dropped_tasks": ";".join(map(str, res.dropped["task"])),
            }
        )
    return pd.DataFrame(rows)


def _print_hierarchical(args, hier: pd.DataFrame) -> None:
    print(
        f"\nBayesian hierarchical test of adjacent systems (Corani et al. 2017), ROPE "
        f"±{args.rope:g}, ρ = {args.rho:g} ({args.chains} chains × {args.draws} draws after "
        f"{args.tune} tuning, seed {args.seed}; P for a new task, decision at P ≥ 0.95):"
    )
    shown = hier.assign(
        verdict=[
            "ok" if ok else f"NO (R-hat {r:.3f}, ESS {e:.0f}, {int(n)} div.)"
            for ok, r, e, n in zip(
                hier["converged"],
                hier["max_r_hat"],
                hier["min_ess_bulk"],
                hier["divergences"],
                strict=True,
            )
        ]
    )
    print_frame(
        shown[
            ["system_a", "system_b", "p_a_better", "p_rope", "p_b_better", "decision", "verdict"]
        ],
        headers={
            "p_a_better": "P(a better)",
            "p_rope": "P(rope)",
            "p_b_better": "P(b better)",
            "verdict": "converged",
        },
        decimals={"p_a_better": 3, "p_rope": 3, "p_b_better": 3},
        text_width=NAME_WIDTH,
    )
    bad = int((~hier["converged"].astype(bool)).sum())
    if bad:
        print(
            f"WARNING: {bad} of {len(hier)} hierarchical fits did NOT converge (R-hat > 1.01, "
            "bulk ESS < 400 or divergences): do not report them; raise --draws and --tune."
        )


def _hierarchical_summary(args, hier: pd.DataFrame | None) -> dict | None:
    if hier is None:
        return None
    return {
        "rope": args.rope,
        "rho": args.rho,
        "draws": args.draws,
        "tune": args.tune,
        "chains": args.chains,
        "seed": args.seed,
        "sampler": "pymc",
        "threshold": 0.95,
        "all_converged": bool(hier["converged"].all()),
        "pairs": clean(hier.to_dict(orient="records")),
    }


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
    if b.imputed:
        f_name = "F form"
        print(
            f"Friedman-type test on imputed expected ranks ({b.n_imputed} of {b.ranks.size} "
            f"cells imputed; exact permutation covariance): T = {fr.statistic:.4g} "
            f"(df {fr.df}), {_p(fr.p_value)}; F form = {fr.f_statistic:.4g} "
            f"(df {fr.f_df[0]}, {fr.f_df[1]}), {_p(fr.f_p_value)}"
        )
    else:
        f_name = "Iman–Davenport"
        ties = "tie-corrected" if fr.corrected else "no tie correction"
        print(
            f"Friedman: χ²_F = {fr.statistic:.4g} (df {fr.df}, {ties}), {_p(fr.p_value)}; "
            f"Iman–Davenport F_F = {fr.f_statistic:.4g} (df {fr.f_df[0]}, {fr.f_df[1]}), "
            f"{_p(fr.f_p_value)}"
        )
    if significant:
        print(f"  the systems do not all rank alike ({f_name} p < α = {args.alpha:g})")
    else:
        print(
            f"  NOT significant at α = {args.alpha:g} ({f_name} p = {fr.f_p_value:.4g}): "
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
            # With missing = "imputed": T on the imputed expected ranks and its F form (equal
            # to χ²_F and Iman–Davenport's F_F on complete blocks); "statistic" says which.
            "statistic": "T (imputed expected ranks)" if b.imputed else "chi2_F",
            "n_imputed_cells": b.n_imputed,
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

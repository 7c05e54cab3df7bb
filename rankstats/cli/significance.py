"""``rankstats significance``: Friedman's test, a post-hoc test of every pair, the
critical-difference diagram, confidence sets for the ranks and (with ``--rope``) the Bayesian
signed-rank test of adjacent systems (or of the pair ``--pair A B``): Demšar's (2006) protocol on
complete blocks. With ``--hierarchical`` the same pairs also get the hierarchical model across
tasks of Corani et al. (2017) on the instance-level scores (``hierarchical.csv``).

The options are passed to the library as they are and checked by it (before the data is read, in
:func:`check`); its errors and warnings name the flags (``--missing complete-case``) when
printed (:mod:`rankstats._util.advice`); the warnings are also written to ``friedman.json``
(``"warnings"``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util.atomic import output_dir
from rankstats._util.resources import require_memory
from rankstats.cli._common import (
    file_done,
    level_of,
    load_input,
    noted,
    short,
    write_json,
    write_tables,
    written,
)
from rankstats.cli._console import NAME_WIDTH, format_numbers, print_columns
from rankstats.cli._significance_bayes import (
    bayes_table,
    hierarchical_summary,
    hierarchical_table,
    pairs,
    print_bayes,
    print_hierarchical,
)
from rankstats.cli._significance_choice import choose, print_choice, write_choice
from rankstats.cli._significance_text import finite, p_text, summary_record
from rankstats.cli.options.significance import Options
from rankstats.cli.usage import UsageError, check_out

#: Above this many systems the Hoeffding rank ranges (N² pairs) are not computed.
HOEFFDING_LIMIT = 500


#: The defaults of the hierarchical test's options (refused without --hierarchical).
HIERARCHICAL_DEFAULTS = {"rho": 0.0, "draws": 2000, "tune": 2000, "chains": 4}
#: Bytes per pair of systems at the peak of the post-hoc table, its groups and the figure's
#: inputs (measured with tracemalloc: about 300 + 170 per pair), and the fixed part (the
#: integration chunk of the studentized range, the rank sets' 64 MiB budget).
BYTES_PER_PAIR = 500
FIXED_BYTES = 128 * 2**20


def memory_needed(n_systems: int) -> int:
    """Estimated peak bytes of ``rankstats significance`` on ``n_systems`` systems."""
    return BYTES_PER_PAIR * n_systems * (n_systems - 1) // 2 + FIXED_BYTES


def check(opts: Options) -> None:
    """Every argument is checked here, before the data is read: the options passed to the
    library by the library's own checks (their errors name the flags: :mod:`rankstats.cli`),
    the combinations of flags that exist only on the command line here."""
    from rankstats.significance.posthoc_tests import check_posthoc
    from rankstats.significance.rank_sets import check_rank_sets
    from rankstats.significance.scored_blocks import check_missing_scores

    check_posthoc(
        opts.posthoc,
        opts.alpha,
        opts.correction,
        opts.missing,
        opts.min_coverage,
        zero_method=opts.zero_method,
    )
    if opts.choose:
        check_missing_scores(opts.missing, opts.min_coverage)
    if opts.rank_sets:
        check_rank_sets(opts.alpha, opts.n_resamples, opts.missing, of="rank")
    if opts.rope is None and opts.signed_rank_draws != 50_000:
        raise UsageError("--signed-rank-draws applies with --rope R")
    if opts.hierarchical and opts.rope is None:
        raise UsageError("--hierarchical needs --rope R")
    if opts.pair is not None:
        if opts.rope is None:
            raise UsageError("--pair applies with --rope R (the Bayesian tests of one pair)")
        if opts.pair[0] == opts.pair[1]:
            raise UsageError(f"--pair: give two different systems, not {opts.pair[0]!r} twice")
    given = {"rho": opts.rho, **dataclasses.asdict(opts.mcmc)}
    changed = [k for k, v in HIERARCHICAL_DEFAULTS.items() if given[k] != v]
    if changed and not opts.hierarchical:
        raise UsageError(
            ", ".join(f"--{k}" for k in changed) + " applies with --hierarchical --rope R"
        )
    check_out(opts.output)


@dataclasses.dataclass(frozen=True)
class _Results:
    """What ``rankstats significance`` computed (None: not asked for)."""

    fr: object
    ph: object
    ranks: pd.DataFrame
    significant: bool
    sets: object = None
    bayes: pd.DataFrame | None = None
    hier: pd.DataFrame | None = None
    choice: object = None


def run(opts: Options) -> int:
    scores = load_input(opts.input)
    if opts.hierarchical and not scores.has_instances:
        raise UsageError(
            "--hierarchical needs instance-level scores (an instance column: several instances "
            "per task)"
        )
    require_memory(
        memory_needed(len(scores.systems)),
        "rankstats significance",
        n_systems=len(scores.systems),
    )
    level = level_of(opts.input.by, scores)
    said: list[str] = []  # the data warnings, as printed (also in friedman.json)
    with noted(said):
        res = _compute(opts, scores, level)
    name = scores.name or (Path(opts.input.file).name if opts.input.file else "scores")
    _print(opts, name, res.fr, res.ph, res.ranks, res.sets, res.bayes, res.significant)
    if res.hier is not None:
        print_hierarchical(opts, res.hier)
    if res.choice is not None:
        print_choice(res.choice)
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        files = _write(tmp, res)
        summary = finite(
            summary_record(
                opts, name, level, res.fr, res.ph, res.ranks, res.sets, res.bayes, res.significant
            )
        )
        summary["bayes_hierarchical"] = finite(hierarchical_summary(opts, res.hier))
        summary["warnings"] = said
        summary["files"] = [str(out / p.relative_to(tmp)) for p in files] + [
            str(out / "friedman.json")
        ]
        files.append(write_json(tmp / "friedman.json", summary))
    print("\n" + written(tmp, out, files))
    return 0


def _compute(opts: Options, scores, level: str) -> _Results:
    """Friedman's test, the post-hoc test, the rank sets and the tests asked for."""
    from rankstats.significance.critical_difference import group_letters
    from rankstats.significance.friedman_test import friedman
    from rankstats.significance.posthoc_tests import posthoc

    fr = friedman(scores, by=level, missing=opts.missing, min_coverage=opts.min_coverage)
    blocks = fr.blocks
    chosen = pairs(scores, blocks, None, opts) if opts.pair is not None else None
    ph = posthoc(
        blocks,
        method=opts.posthoc,
        alpha=opts.alpha,
        correction=opts.correction,
        zero_method=opts.zero_method,
    )
    letters = group_letters(ph)
    significant = fr.significant(opts.alpha)
    ranks = ph.mean_ranks.rename_axis("system").reset_index()
    ranks.insert(0, "position", np.arange(1, len(ranks) + 1))
    ranks["group"] = ranks["system"].map(letters)
    sets = None
    if opts.rank_sets:
        sets, ranks = _rank_sets(opts, scores, level, blocks, ranks)
    chosen = chosen or pairs(scores, blocks, ph, opts)
    return _Results(
        fr,
        ph,
        ranks,
        significant,
        sets,
        bayes_table(blocks, ph, opts, chosen) if opts.rope is not None else None,
        hierarchical_table(scores, ph, opts, chosen) if opts.hierarchical else None,
        choose(blocks, opts) if opts.choose else None,
    )


def _rank_sets(opts: Options, scores, level: str, blocks, ranks: pd.DataFrame):
    """The confidence sets for the ranks, and the table of average ranks with them (and the
    Hoeffding rank ranges, when computed)."""
    from rankstats.significance.rank_sets import rank_confidence_sets

    sets = rank_confidence_sets(
        blocks,
        alpha=opts.alpha,
        simultaneous=opts.simultaneous,
        # The expected rank in a block (Friedman's parameter), not the mean score: the
        # blocks may mix tasks on different scales, and the table is in average-rank
        # order. With --missing imputed: the expected imputed rank (every block used).
        of="rank",
        n_resamples=opts.n_resamples,
        seed=opts.seed,
    )
    table = _hoeffding(scores, level, blocks, sets)
    if table is None:
        table = sets.table[["system", "estimate", "rank", "rank_low", "rank_high"]]
    # ``estimate`` is the mean rank again (the table's mean_rank column): not repeated.
    table = table.drop(columns=["estimate"]).rename(columns={"rank": "rank_of_mean_rank"})
    return sets, ranks.merge(table, on="system", how="left")


def _write(tmp: Path, res: _Results) -> list[Path]:
    """The tables, the CD diagram and its LaTeX table, and the tests' tables asked for."""
    from rankstats.cli._top import key_file
    from rankstats.plotting.saving import save_figure
    from rankstats.significance.critical_difference import cd_table

    ph = res.ph
    files = write_tables(tmp, {"average_ranks.csv": res.ranks, "posthoc_pairs.csv": ph.table})
    files += save_figure(ph.plot(), tmp / "cd_diagram")
    files += key_file(list(ph.mean_ranks.index), tmp, figure="cd_diagram")  # shortened names
    file_done()
    files.append(tmp / "cd_table.tex")
    files[-1].write_text(cd_table(ph))
    file_done()
    files += write_tables(
        tmp,
        {
            "rank_sets.csv": None if res.sets is None else res.sets.table,
            "bayes_signed_rank.csv": res.bayes,
            "hierarchical.csv": res.hier,
        },
    )
    if res.choice is not None:
        files += write_choice(res.choice, tmp)
    return files


def _hoeffding(scores, level: str, blocks, sets) -> pd.DataFrame | None:
    """The Hoeffding rank ranges next to the rank sets, when they rank the same systems (nothing
    dropped) and the N² pairs are cheap; else None."""
    if blocks.dropped_systems or len(blocks.dropped_blocks) or blocks.set_aside:
        return None
    if len(blocks.systems) > HOEFFDING_LIMIT:
        return None
    from rankstats.aggregation.hoeffding_intervals import hoeffding_test
    from rankstats.core.pair_probabilities import pairwise

    test = hoeffding_test(pairwise(scores, by=level), order=list(sets.systems))
    return sets.compare_hoeffding(test).drop(columns=["width", "hoeffding_width"])


def _dropped_lines(fr) -> str:
    dropped = fr.blocks.dropped()
    return dropped if dropped else "nothing dropped"


def _spans(low: pd.Series, high: pd.Series) -> list[str]:
    return [f"{int(lo)}–{int(hi)}" for lo, hi in zip(low, high, strict=True)]


def _print(opts: Options, name, fr, ph, ranks, sets, bayes, significant) -> None:
    from rankstats.significance.zero_methods import SHORT

    b = fr.blocks
    print(f"rankstats significance: {short(name, 80)}")
    print(
        f"  N = {fr.n_blocks} {b.by} blocks, k = {fr.n_systems} systems, "
        f"missing = {b.missing}; {_dropped_lines(fr)}"
    )
    if b.imputed:
        f_name = "F form"
        print(
            f"Friedman-type test on imputed expected ranks ({b.n_imputed} of {b.ranks.size} "
            f"cells imputed; exact permutation covariance): T = {fr.statistic:.4g} "
            f"(df {fr.df}), {p_text(fr.p_value)}; F form = {fr.f_statistic:.4g} "
            f"(df {fr.f_df[0]}, {fr.f_df[1]}), {p_text(fr.f_p_value)}"
        )
    else:
        f_name = "Iman–Davenport"
        ties = "tie-corrected" if fr.corrected else "no tie correction"
        print(
            f"Friedman: χ²_F = {fr.statistic:.4g} (df {fr.df}, {ties}), {p_text(fr.p_value)}; "
            f"Iman–Davenport F_F = {fr.f_statistic:.4g} (df {fr.f_df[0]}, {fr.f_df[1]}), "
            f"{p_text(fr.f_p_value)}"
        )
    if significant:
        print(f"  the systems do not all rank alike ({f_name} p < α = {opts.alpha:g})")
    else:
        print(
            f"  NOT significant at α = {opts.alpha:g} ({f_name} p = {fr.f_p_value:.4g}): "
            "by Demšar's (2006) protocol no pairwise difference below may be claimed; the "
            "post-hoc results are written for completeness only"
        )
    print()
    columns = [
        ("#", "right", format_numbers(ranks["position"])),
        ("system", "left", ranks["system"].tolist()),
        ("avg rank", "right", format_numbers(ranks["mean_rank"])),
        ("group", "left", ranks["group"].tolist()),
    ]
    if sets is not None:
        kind = "simult." if sets.simultaneous else "marginal"
        columns.append(
            (f"rank set ({kind})", "right", _spans(ranks["rank_low"], ranks["rank_high"]))
        )
        if "hoeffding_low" in ranks:
            spans = _spans(ranks["hoeffding_low"], ranks["hoeffding_high"])
            columns.append(("Hoeffding range", "right", spans))
    print_columns(columns, max_width={1: NAME_WIDTH})
    print(
        "\ngroup: systems sharing a letter are not significantly different (the bars of the CD "
        "diagram)."
    )
    if sets is not None:
        kind = "simultaneous" if sets.simultaneous else "marginal"
        text = (
            f"rank set: {kind} {1 - opts.alpha:.0%} confidence set for the rank of the expected "
            f"{'imputed ' if fr.blocks.imputed else ''}rank in a block (Mogstad et al. 2024, "
            f"studentized; {sets.n_resamples} bootstrap resamples of the blocks, seed {sets.seed})"
        )
        if "hoeffding_low" in ranks:
            text += "; Hoeffding range: rank range implied by the Hoeffding intervals (δ = 0.05)"
        print(text + ".")
    adjust = {"single-step": "single-step", "none": "no adjustment"}.get(
        ph.correction, f"{ph.correction}-adjusted"
    )
    if ph.zero_method is not None:
        adjust += f"; zero method {ph.zero_method!r}: {SHORT[ph.zero_method].removeprefix('with ')}"
    line = (
        f"\nPost-hoc {ph.method} ({adjust}, α = {ph.alpha:g}): {ph.n_significant} of "
        f"{ph.n_pairs} pairs significant"
    )
    if np.isfinite(ph.critical_difference):
        line += f"; critical difference CD = {ph.critical_difference:.4g} average ranks"
    print(line + ".")
    if bayes is not None:
        print_bayes(opts, bayes)

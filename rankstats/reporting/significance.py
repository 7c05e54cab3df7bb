"""The classical rank-test section of :func:`rankstats.report` (``significance=True``).

Friedman's test with Iman–Davenport's F (:func:`rankstats.friedman`) and a post-hoc test of every
pair (:func:`rankstats.posthoc`, Nemenyi by default) on the complete blocks of the report's level,
after Demšar (2006). :func:`options` checks the request before anything is computed,
:func:`run_significance` computes it (refusing incomplete blocks unless
``missing="complete-case"``), :func:`write_significance` writes the critical-difference diagram,
its LaTeX table and the pairs, :func:`methods_sentence` gives the methods paragraph its sentence
and citations, and :func:`section` the values of the HTML section (the template escapes them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rankstats._util.advice import AdviceError, Spelled
from rankstats._util.renamed import translate
from rankstats._util.text import terminal, write_csv
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.plotting.saving import save_figure
from rankstats.reporting._format import column
from rankstats.significance.critical_difference import cd_table, group_letters
from rankstats.significance.friedman_test import FriedmanResult, friedman
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.posthoc_tests import METHODS, posthoc
from rankstats.significance.zero_methods import check_zero_method, zero_method_text

#: Keyword arguments a ``significance={...}`` mapping may hold (those of rs.posthoc).
OPTIONS = ("method", "alpha", "correction", "missing", "min_coverage")

#: Post-hoc method → (name in prose, citation keys).
_METHOD_TEXT = {
    "nemenyi": ("Nemenyi's test", ["nemenyi1963"]),
    "conover": ("Conover's test", ["conover1979"]),
    "wilcoxon-holm": ("Wilcoxon's signed-rank test on every pair", ["wilcoxon1945"]),
}


@dataclass(frozen=True)
class Significance:
    """Friedman's test and the post-hoc comparisons of a report."""

    friedman: FriedmanResult
    posthoc: PosthocResult

    @property
    def significant(self) -> bool:
        """Iman–Davenport's F significant at the post-hoc α (Demšar's protocol)."""
        return self.friedman.significant(self.posthoc.alpha)


@dataclass(frozen=True)
class SignificanceFiles:
    """What :func:`write_significance` wrote (paths inside the output directory)."""

    figures: tuple[Path, ...]
    table: Path
    pairs: Path


def options(significance: bool | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The keyword arguments of the section (``None``: no section); refuses unknown keys and bad
    values before anything is computed.

    Examples
    --------
    >>> options(True)
    {'method': 'nemenyi', 'alpha': 0.05}
    >>> options({"method": "conover"})["method"]
    'conover'
    """
    if significance is None or significance is False:
        return None
    given = {} if significance is True else dict(significance)
    given = translate(given, {"adjust": "correction"}, "report(significance=...)")
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise ValueError(
            f"significance= accepts {', '.join(OPTIONS)}; not {', '.join(map(repr, unknown))}"
        )
    out = {"method": "nemenyi", "alpha": 0.05, **given}
    if out["method"] not in METHODS:
        raise ValueError(
            f"significance method must be one of {', '.join(METHODS)}, not {out['method']!r}"
        )
    if not 0.0 < float(out["alpha"]) < 1.0:
        raise ValueError(f"significance alpha must be in (0, 1), not {out['alpha']!r}")
    return out


def with_zero_method(
    opts: dict[str, Any] | None, zero_method: str | None, paired: bool, power_wilcoxon: bool = False
) -> dict[str, Any] | None:
    """The section's options with the report's Wilcoxon ``zero_method`` (checked here, before
    anything is computed); refused when the report runs no Wilcoxon signed-rank test (neither
    the ``"wilcoxon-holm"`` post-hoc test, nor a paired analysis, nor the power section's
    simulated Wilcoxon test, ``power_wilcoxon``): it would be ignored."""
    if zero_method is None:
        return opts
    check_zero_method(zero_method)
    wilcoxon = opts is not None and opts["method"] == "wilcoxon-holm"
    if not (wilcoxon or paired or power_wilcoxon):
        raise AdviceError(
            "{zero_method} applies to the report's Wilcoxon signed-rank tests: {posthoc}, "
            "{paired} or {power}; this report runs none",
            zero_method=None,
            posthoc=Spelled(
                "significance={'method': 'wilcoxon-holm'}", "--significance --posthoc wilcoxon-holm"
            ),
            paired=Spelled("paired=[task, ...]", "--paired TASK"),
            power=Spelled("power={'test': 'wilcoxon'}", "--power --power-test wilcoxon"),
        )
    return {**opts, "zero_method": zero_method} if wilcoxon else opts


def run_significance(
    scores: Scores | Rankings, by: str | None, opts: Mapping[str, Any]
) -> Significance:
    """Friedman and the post-hoc test on the same complete blocks (for Rankings, ``by`` is
    None: each ranking is a block)."""
    opts = dict(opts)
    blocks_opts = {k: opts.pop(k) for k in ("missing", "min_coverage") if k in opts}
    fr = friedman(scores, by=by, **blocks_opts)
    return Significance(friedman=fr, posthoc=posthoc(fr.blocks, **opts))


def write_significance(
    sig: Significance, directory: Path, written: Callable[[Path], None] = lambda path: None
) -> SignificanceFiles:
    """``cd_diagram.png/.pdf``, ``cd_table.tex`` and ``posthoc_pairs.csv`` into ``directory``."""
    figures = save_figure(sig.posthoc.plot(), directory / "cd_diagram")
    for path in figures:
        written(path)
    table = directory / "cd_table.tex"
    table.write_text(cd_table(sig.posthoc), encoding="utf-8")
    written(table)
    pairs = directory / "posthoc_pairs.csv"
    write_csv(sig.posthoc.table, pairs)
    written(pairs)
    return SignificanceFiles(tuple(figures), table, pairs)


def _dropped(sig: Significance) -> str:
    text = sig.friedman.blocks.dropped()
    return terminal(text) if text else ""


def posthoc_name(ph: PosthocResult) -> str:
    """The post-hoc test in prose, with its adjustment (``"Conover's test (Holm-adjusted)"``):
    the name every count of the test is stated under."""
    name = _METHOD_TEXT[ph.method][0]
    adjust = {"none": "without adjustment"}.get(
        ph.correction, f"{ph.correction.capitalize()}-adjusted"
    )
    if ph.blocks.imputed:
        # No single critical difference: each pair has its own standard error.
        how = (
            "single-step: the distribution of the largest |z|"
            if ph.correction == "single-step"
            else adjust
        )
        return f"z statistics on the average imputed ranks ({how})"
    if ph.method == "nemenyi":
        return f"{name} (critical difference CD = {ph.critical_difference:.3g} average ranks)"
    return f"{name} ({adjust})"


def _blocks_text(sig: Significance) -> str:
    """``N = 4 complete task blocks`` or, on imputed ranks, how many cells were imputed."""
    fr = sig.friedman
    b = fr.blocks
    if not b.imputed:
        return f"N = {fr.n_blocks} complete {b.by} blocks"
    return (
        f"N = {fr.n_blocks} {b.by} blocks, {b.n_imputed} of {b.ranks.size} (block, system) "
        "cells not evaluated and given their expected rank under a uniformly random completion "
        "of the block's ranking [himmi2023]"
    )


def methods_sentence(sig: Significance) -> tuple[str, list[str]]:
    """The sentence of the methods paragraph and its citation keys."""
    fr, ph = sig.friedman, sig.posthoc
    cites = ["demsar2006", "friedman1937", "imandavenport1980", *_METHOD_TEXT[ph.method][1]]
    if ph.correction == "holm":
        cites.append("holm1979")
    dropped = _dropped(sig)
    zeros = ""
    if ph.zero_method is not None:
        words, keys = zero_method_text(ph.zero_method)
        cited = "".join(f" [{k}]" for k in keys if k not in cites)
        cites += [k for k in keys if k not in cites]
        zeros = f" ({words}{cited}: scipy.stats.wilcoxon, zero_method={ph.zero_method!r})"
    if fr.blocks.imputed:
        cites = ["demsar2006", "friedman1937", "imandavenport1980", "himmi2023"]
        cites += ["holm1979"] if ph.correction == "holm" else []
        omnibus = (
            f"a Friedman-type test on the imputed expected ranks [friedman1937] (T = AᵀΣ⁺A with "
            f"Σ the exact permutation covariance of each block's observed ranks; T = "
            f"{fr.statistic:.4g}, df {fr.df}, p = {fr.p_value:.3g}; Friedman's χ²_F on complete "
            f"blocks) and its F form (F = {fr.f_statistic:.4g}, df {fr.f_df[0]}, {fr.f_df[1]}, "
            f"p = {fr.f_p_value:.3g}; Iman and Davenport's F_F on complete blocks "
            "[imandavenport1980])"
        )
        posthoc_cite = " [holm1979]" if ph.correction == "holm" else ""
    else:
        omnibus = (
            f"Friedman's test [friedman1937] (χ²_F = {fr.statistic:.4g}, df {fr.df}, "
            f"p = {fr.p_value:.3g}) and Iman and Davenport's F [imandavenport1980] "
            f"(F_F = {fr.f_statistic:.4g}, df {fr.f_df[0]}, {fr.f_df[1]}, "
            f"p = {fr.f_p_value:.3g})"
        )
        posthoc_cite = f" [{_METHOD_TEXT[ph.method][1][0]}]" + (
            " [holm1979]" if ph.correction == "holm" else ""
        )
    text = (
        f"Following Demšar's protocol [demsar2006], we tested whether the systems rank alike over "
        f"{_blocks_text(sig)} (k = {fr.n_systems} systems{'; ' + dropped if dropped else ''}) "
        f"with {omnibus}, then compared the pairs with {posthoc_name(ph)}{posthoc_cite}"
        f"{zeros} at α = {ph.alpha:g}: {ph.n_significant} of {ph.n_pairs} pairs differ "
        "significantly."
    )
    if not sig.significant:
        test = "The Friedman-type test" if fr.blocks.imputed else "Friedman's test"
        text += (
            f" {test} is not significant at α = {ph.alpha:g}, so no pairwise difference is claimed."
        )
    return text, cites


def section(sig: Significance, files: SignificanceFiles, image: str) -> dict[str, Any]:
    """The values of the HTML section (text; the template escapes them)."""
    fr, ph = sig.friedman, sig.posthoc
    letters = group_letters(ph)
    ranks = column(ph.mean_ranks, "rank")
    return {
        "test": posthoc_name(ph),
        "alpha": f"{ph.alpha:g}",
        "n_blocks": fr.n_blocks,
        "imputed": fr.blocks.imputed,
        "n_imputed": fr.blocks.n_imputed,
        "n_cells": fr.blocks.ranks.size,
        "n_systems": fr.n_systems,
        "level": fr.blocks.by,
        "dropped": _dropped(sig),
        "chi2": f"{fr.statistic:.4g}",
        "df": fr.df,
        "p": f"{fr.p_value:.3g}",
        "f": f"{fr.f_statistic:.4g}",
        "f_df": f"{fr.f_df[0]}, {fr.f_df[1]}",
        "f_p": f"{fr.f_p_value:.3g}",
        "significant": sig.significant,
        "n_significant": ph.n_significant,
        "n_pairs": ph.n_pairs,
        "has_cd": bool(np.isfinite(ph.critical_difference)),
        "image": image,
        "table_file": files.table.name,
        "pairs_file": files.pairs.name,
        "rows": [
            {"system": str(system), "rank": ranks[i], "group": letters[system]}
            for i, system in enumerate(ph.mean_ranks.index)
        ],
    }

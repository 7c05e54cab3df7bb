"""Formatting shared by the parts of ``rankstats significance``."""

from __future__ import annotations

import math

import numpy as np

from rankstats.cli._common import clean
from rankstats.cli._significance_bayes import bayes_summary
from rankstats.cli.options.significance import Options


def finite(value: object) -> object:
    """NaN as null, recursively, so that friedman.json is standard JSON."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    if isinstance(value, float | np.floating) and math.isnan(value):
        return None
    return value


def p_text(value: float) -> str:
    """``p = 0.0123``; a p-value that underflows to 0 in double precision as ``p < 1e-300``."""
    return "p < 1e-300" if value == 0 else f"p = {value:.4g}"


def _label(block: object) -> str:
    return "/".join(map(str, block)) if isinstance(block, tuple) else str(block)


def summary_record(opts: Options, name, level, fr, ph, ranks, sets, bayes, significant) -> dict:
    """The record of friedman.json (without the hierarchical part, the warnings and files)."""
    b = fr.blocks
    return {
        "data": {
            "name": name,
            "level": level,
            "n_blocks": fr.n_blocks,
            "n_systems": fr.n_systems,
            "n_input_blocks": b.n_input_blocks,
            "missing": b.missing,
            "min_coverage": opts.min_coverage,
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
            "alpha": opts.alpha,
            "significant": significant,
            "decided_by": "iman_davenport_p_value",
        },
        "posthoc": {
            "method": ph.method,
            "adjust": ph.correction,
            "zero_method": ph.zero_method,
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
            # The rank, within a block, whose expectation is ranked (imputed: every block).
            "parameter": "expected imputed rank" if b.imputed else "expected rank",
            "bootstrap": "studentized (standard errors recomputed in every resample)",
            "simultaneous": sets.simultaneous,
            "stepdown": sets.stepdown,
            "alpha": sets.alpha,
            "n_boot": sets.n_resamples,
            "seed": sets.seed,
            "n_steps": sets.n_steps,
            "hoeffding_ranges": "hoeffding_low" in ranks,
        },
        "bayes_signed_rank": bayes_summary(opts, bayes),
    }

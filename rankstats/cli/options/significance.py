"""The options of ``rankstats significance`` (its implementation:
:mod:`rankstats.cli.significance`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.cli.options.groups import InputOptions, McmcOptions, OutputOptions
from rankstats.cli.options.shared import (
    alpha_argument,
    at_least,
    exclusive,
    fraction,
    group,
    input_arguments,
    mcmc_arguments,
    missing_treatment_arguments,
    n_resamples_argument,
    nonnegative,
    opt,
    output_argument,
    progress_argument,
    seed_argument,
    zero_method_argument,
)

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


def _posthoc_method(text: str) -> str:
    """``--posthoc``: one of :data:`POSTHOC`; ``holm`` (an adjustment, not a test) is refused
    with the two spellings it may have meant."""
    if text in POSTHOC:
        return text
    if text.lower() in ADJUST:
        raise argparse.ArgumentTypeError(
            f"{text!r} is a p-value adjustment, not a test: use --posthoc wilcoxon-holm "
            f"(Wilcoxon signed-rank tests, Holm-adjusted) or --posthoc conover --correction {text}"
        )
    raise argparse.ArgumentTypeError(f"expected one of {', '.join(POSTHOC)}, not {text!r}")


_posthoc_method.__name__ = "post-hoc test"


# fmt: off
ARGUMENTS = (
    input_arguments(by=True),
    group("tests",
        opt("--posthoc", type=_posthoc_method, default="nemenyi",
            metavar="{nemenyi,conover,wilcoxon-holm}",
            help="post-hoc test of every pair (default: nemenyi, with its critical difference); "
            "conover and wilcoxon-holm are Holm-adjusted unless --correction says otherwise"),
        opt("--correction", old=("--adjust",), choices=ADJUST, default=None,
            help="multiplicity adjustment of the conover / wilcoxon-holm p-values (default: "
            "holm; Nemenyi's p-values are single-step family-wise and take none, except with "
            "--missing imputed, where holm / bonferroni / none replace the single-step max-|z| "
            "p-values)"),
        zero_method_argument(None),  # checked with --posthoc: wilcoxon-holm only
        alpha_argument(0.05, "the tests, the CD and the rank sets (family-wise)"),
        missing_treatment_arguments("error", 0.0),
        opt("--choose", action="store_true",
            help="also make the automatic choice autorank makes (Shapiro–Wilk normality, "
            "Bartlett / Levene homoscedasticity → repeated-measures ANOVA + Tukey HSD, or "
            "Friedman + Nemenyi), print its explanation and write choice.json, "
            "choice_summary.csv and the chosen post-hoc pairs (complete blocks only)"),
    ),
    group("confidence sets for the ranks (Mogstad et al. 2024)",
        opt("--rank-sets", action=argparse.BooleanOptionalAction, default=True,
            help="bootstrap confidence sets for the ranks of the mean scores (default: on)"),
        exclusive(
            opt("--simultaneous", dest="simultaneous", action="store_true", default=True,
                help="sets covering the ranks of all systems at once (default)"),
            opt("--marginal", dest="simultaneous", action="store_false",
                help="sets each covering the rank of its own system (narrower)"),
        ),
        n_resamples_argument(1000, 100, " of the blocks, ≥ 100 (default 1000)", ("--boot",)),
        seed_argument("seed of the bootstrap and of the Bayesian posterior draws"),
    ),
    group("Bayesian signed-rank test (Benavoli et al. 2017)",
        opt("--rope", type=nonnegative, default=None, metavar="R",
            help="half-width of the region of practical equivalence, in score units (≥ 0): test "
            "every adjacent pair of the average-rank order and report P(a better), P(rope), "
            "P(b better) (default: not run)"),
        opt("--pair", nargs=2, default=None, metavar=("A", "B"),
            help="test this pair of systems (with --rope, and --hierarchical) instead of every "
            "adjacent pair of the average-rank order"),
        opt("--signed-rank-draws", old=("--samples",), type=at_least(1000), default=50_000,
            metavar="N", help="posterior draws per pair of the Bayesian test (default 50000)"),
    ),
    group("Bayesian hierarchical test across tasks (Corani et al. 2017; needs instance-level "
          "scores)",
        opt("--hierarchical", action="store_true",
            help="also run the hierarchical model (PyMC NUTS) on the same adjacent pairs as "
            "--rope: P(a better), P(rope), P(b better) on a new task, written to "
            "hierarchical.csv (needs --rope R)"),
        opt("--rho", type=fraction, default=0.0, metavar="RHO",
            help="correlation of two instances of one task, in [0, 1): 0 for independent "
            "instances (default), 1/k for the folds of k-fold cross-validation"),
        mcmc_arguments(2000, 2000, 100, "NUTS of the hierarchical test (each ≥ 100)"),
    ),
    output_argument("significance-out",
                    "friedman.json, the CSV tables, the CD diagram and its LaTeX table"),
    progress_argument(),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats significance``."""

    input: InputOptions
    mcmc: McmcOptions
    output: OutputOptions
    posthoc: str = "nemenyi"
    correction: str | None = None
    zero_method: str | None = None
    alpha: float = 0.05
    missing: str = "error"
    min_coverage: float = 0.0
    choose: bool = False
    rank_sets: bool = True
    simultaneous: bool = True
    n_resamples: int = 1000
    seed: int = 0
    rope: float | None = None
    pair: list[str] | None = None
    signed_rank_draws: int = 50_000
    hierarchical: bool = False
    rho: float = 0.0
    progress: bool | None = None

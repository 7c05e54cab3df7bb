"""The options of ``rankstats fit`` (its implementation: :mod:`rankstats.cli.fit`)."""

from __future__ import annotations

import argparse

from rankstats.cli.options.shared import (
    add_input_arguments,
    add_output_argument,
    add_rankings_file_arguments,
    at_least,
    positive,
    probability,
)
from rankstats.datasets import PAIRED, PREFERENCES, RANKINGS

#: :data:`rankstats.models.DISTANCES`, Kendall first (the default), written out: this module is
#: imported by ``rankstats --help``, which loads no numerical library (tests/cli: the same
#: names).
MALLOWS_DISTANCES = ("kendall", "footrule", "spearman", "cayley", "hamming", "ulam")
#: The Metropolis–Hastings fit's default ``tune``
#: (:data:`rankstats.models.mallows.metropolis_fit.TUNE`; tests/cli: the same number).
METROPOLIS_TUNE = 5000

HELP = "fit a Plackett–Luce, Bradley–Terry or Mallows model (MLE, MAP, NUTS or Gibbs)"
EXAMPLE = (
    "rankstats fit --dataset glue --model pl --method map\n  "
    "rankstats fit --rankings nascar --model mallows\n  "
    "rankstats fit --rankings sushi --model pl bt mallows --compare"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
    add_rankings_file_arguments(parser)
    parser.add_argument(
        "--rankings", choices=sorted(RANKINGS), help="a bundled classic ranking data set instead"
    )
    parser.add_argument(
        "--paired", choices=sorted(PAIRED), help="a bundled paired-comparison data set (bt only)"
    )
    parser.add_argument(
        "--preferences",
        choices=sorted(PREFERENCES),
        help="a bundled set of assessors' pairwise preferences (mallows only)",
    )
    parser.add_argument(
        "--model",
        choices=["pl", "bt", "mallows"],
        nargs="+",
        default=["pl"],
        help="default: pl; several (e.g. --model pl bt mallows) only with --compare",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="fit every --model by its sampler (nuts for pl/bt, mcmc for mallows) and compare "
        "them by their expected log predictive density of a new ranking (PSIS-LOO or WAIC, "
        "--ic); prints the table and writes model_comparison.csv",
    )
    parser.add_argument(
        "--ic",
        choices=["loo", "waic"],
        default="loo",
        help="with --compare: PSIS-LOO with its Pareto k diagnostic (default) or WAIC",
    )
    parser.add_argument(
        "--kfold",
        type=at_least(2),
        default=None,
        metavar="K",
        help="with --compare: K-fold cross-validation instead of PSIS-LOO / WAIC (every model "
        "refitted K times on the same seeded folds, --seed); with --method map or mle the "
        "refits are point fits (fast; a plug-in estimate), else by the samplers (K × slower)",
    )
    parser.add_argument(
        "--method",
        choices=["nuts", "mle", "map", "pql", "mcmc"],
        default=None,
        help="pl/bt: nuts (default), mle or map, and with --random-effect pql (penalised "
        "quasi-likelihood, BradleyTerry2's BTm; mle: the Laplace approximation); mallows: mcmc "
        "(Gibbs, default) or map (Kemeny consensus + ML dispersion, complete rankings)",
    )
    parser.add_argument(
        "--prior",
        choices=["gamma", "bayesmallows"],
        default="gamma",
        help="mallows: θ ~ Gamma(1, 0.1) (default) or BayesMallows' α = nθ ~ Exp(0.001)",
    )
    parser.add_argument(
        "--distance",
        choices=MALLOWS_DISTANCES,
        default="kendall",
        help="mallows: the distance of the model (default kendall: the exact Gibbs sampler; the "
        "others, BayesMallows' footrule among them, run Metropolis–Hastings)",
    )
    parser.add_argument(
        "--top-k",
        type=at_least(1),
        default=None,
        metavar="K",
        help="mallows: also the posterior predictive probability that a new ranking puts each "
        "system in its top K (mallows_top_k.csv)",
    )
    parser.add_argument(
        "--predictive",
        type=at_least(1),
        default=None,
        metavar="N",
        help="mallows: also the N most probable rankings of a new assessor, with their "
        "posterior predictive probability (exact up to 8 systems; mallows_predictive.csv)",
    )
    parser.add_argument(
        "--error-model",
        choices=["bernoulli"],
        default=None,
        help="mallows, assessors' preferences: each stated preference may be a mistake "
        "(BayesMallows' Bernoulli error model; preferences with cycles are then fitted)",
    )
    parser.add_argument(
        "--clusters",
        type=at_least(1),
        default=1,
        metavar="K",
        help="mallows: a mixture of K Mallows models, clusters of assessors each with its own "
        "consensus and dispersion (default 1; Metropolis–Hastings; mallows_clusters.csv, "
        "mallows_assignments.csv)",
    )
    parser.add_argument(
        "--thin",
        type=at_least(1),
        default=None,
        help="mallows, Metropolis–Hastings: iterations per kept draw (default 10)",
    )
    parser.add_argument(
        "--rho-proposal",
        choices=["leap_and_shift", "swap"],
        default="leap_and_shift",
        help="mallows, Metropolis–Hastings: the proposal of the consensus — leap-and-shift "
        "(default) or BayesMallows' swap of two items at most --leap ranks apart",
    )
    parser.add_argument(
        "--partition",
        default=None,
        metavar="FILE",
        help="mallows, Metropolis–Hastings: the partition function to use, a table written by "
        "PartitionFunction.save or with columns alpha, log_z (e.g. from BayesMallows)",
    )
    parser.add_argument(
        "--leap",
        type=at_least(1),
        default=1,
        help="mallows, Metropolis–Hastings: the largest leap of the consensus proposal "
        "(1 … n − 1; default 1, BayesMallows' default)",
    )
    parser.add_argument(
        "--kind",
        choices=["subset", "top_k"],
        default="subset",
        help="partial rankings are "
        "sub-rankings (default) or top-k lists (ranked systems beat all unranked ones; "
        "mallows: Metropolis–Hastings)",
    )
    parser.add_argument(
        "--covariates",
        default=None,
        metavar="FILE",
        help="pl/bt: system covariates, a CSV table with the system names in its first column "
        "and one numeric column per covariate: log-worth = xᵀβ (a system absent or with an "
        "empty cell keeps a log-worth of its own); --method mle or nuts (pql with "
        "--random-effect); the coefficients in "
        "<model>_coefficients.csv",
    )
    parser.add_argument(
        "--covariate-columns",
        nargs="+",
        default=None,
        metavar="COLUMN",
        help="with --covariates: the columns to use (default: every column after the first)",
    )
    parser.add_argument(
        "--random-effect",
        action="store_true",
        help="pl/bt: add a system random effect u ~ N(0, σ²) to the log-worths (with or "
        "without --covariates); σ by a Laplace approximation (--method mle), penalised "
        "quasi-likelihood as BradleyTerry2's BTm (--method pql) or in the posterior (nuts)",
    )
    parser.add_argument(
        "--bias-reduction",
        action="store_true",
        help="pl/bt with --method mle: Firth's bias-reduced estimate (the likelihood penalised "
        "by Jeffreys' prior, as BradleyTerry2's br = TRUE), finite when a system never wins or "
        "never loses; with or without --covariates",
    )
    parser.add_argument(
        "--prior-scale",
        type=positive,
        default=1.0,
        help="pl/bt: σ of the ZeroSumNormal prior on the log-worths (default 1)",
    )
    parser.add_argument(
        "--draws",
        type=at_least(1),
        default=1000,
        help="draws (NUTS) or sweeps (Mallows Gibbs) kept per chain (default 1000)",
    )
    parser.add_argument(
        "--tune",
        type=at_least(0),
        default=None,
        help="tuning steps (NUTS) or discarded sweeps (Mallows Gibbs) per chain (default 1000); "
        "Mallows Metropolis–Hastings: discarded iterations (default 5000)",
    )
    parser.add_argument(
        "--chains", type=at_least(1), default=4, help="independent chains (default 4)"
    )
    parser.add_argument(
        "--max-draws",
        type=at_least(1),
        default=None,
        help="mallows: while R-hat > 1.01 or bulk ESS < 400, the chains continue in blocks of "
        "--draws sweeps up to this many kept sweeps per chain (default 20 × --draws; "
        "= --draws: no extension)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--sampler",
        choices=["auto", "pymc", "nutpie"],
        default="auto",
        help="NUTS implementation: auto (default: the faster for the model's size: PyMC's own "
        "below 50 parameters, nutpie from 50 when installed), pymc, or nutpie (needs "
        "rankstats[fast])",
    )
    parser.add_argument(
        "--backend",
        choices=["auto", "numpy", "numba"],
        default="auto",
        help="mallows: where the Gibbs sweeps run, the same draws either way: numba (about 10× "
        "faster, needs rankstats[fast]), numpy, or auto (default: numba when installed)",
    )
    parser.add_argument(
        "--prob", type=probability, default=0.95, help="interval probability (default 0.95)"
    )
    add_output_argument(parser, "rankstats-out", "the tables, the forest plot and the JSON")
    parser.add_argument("--save", metavar="DIR", help="also store the fit as DIR/<data>_<model>.nc")
    parser.add_argument(
        "--keep", type=at_least(1), default=100, help="draws per chain kept by --save"
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the forest plot")
    parser.add_argument("--no-progress", action="store_true", help="no sampling progress bar")

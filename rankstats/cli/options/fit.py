"""The options of ``rankstats fit`` (its implementation: :mod:`rankstats.cli.fit`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import (
    InputOptions,
    McmcOptions,
    OutputOptions,
    RankingsFileOptions,
)
from rankstats.cli.options.shared import (
    RANKINGS_FILE,
    at_least,
    covariate_columns_argument,
    figures_argument,
    input_arguments,
    mcmc_arguments,
    opt,
    output_argument,
    positive,
    probability,
    progress_argument,
    seed_argument,
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


# fmt: off
ARGUMENTS = (
    input_arguments(by=True),
    RANKINGS_FILE,
    opt("--rankings", choices=sorted(RANKINGS), help="a bundled classic ranking data set instead"),
    opt("--paired", choices=sorted(PAIRED), help="a bundled paired-comparison data set (bt only)"),
    opt("--preferences", choices=sorted(PREFERENCES),
        help="a bundled set of assessors' pairwise preferences (mallows only)"),
    opt("--model", choices=["pl", "bt", "mallows"], nargs="+", default=["pl"],
        help="default: pl; several (e.g. --model pl bt mallows) only with --compare"),
    opt("--compare", action="store_true",
        help="fit every --model by its sampler (nuts for pl/bt, mcmc for mallows) and compare "
        "them by their expected log predictive density of a new ranking (PSIS-LOO or WAIC, "
        "--ic); prints the table and writes model_comparison.csv"),
    opt("--ic", choices=["loo", "waic"], default="loo",
        help="with --compare: PSIS-LOO with its Pareto k diagnostic (default) or WAIC"),
    opt("--kfold", type=at_least(2), default=None, metavar="K",
        help="with --compare: K-fold cross-validation instead of PSIS-LOO / WAIC (every model "
        "refitted K times on the same seeded folds, --seed); with --method map or mle the "
        "refits are point fits (fast; a plug-in estimate), else by the samplers (K × slower)"),
    opt("--method", choices=["nuts", "mle", "map", "pql", "mcmc"], default=None,
        help="pl/bt: nuts (default), mle or map, and with --random-effect pql (penalised "
        "quasi-likelihood, BradleyTerry2's BTm; mle: the Laplace approximation); mallows: mcmc "
        "(Gibbs, default), map (Kemeny consensus + ML dispersion, complete rankings) or mle "
        "(a maximum-likelihood mixture of --clusters K by EM, complete rankings)"),
    opt("--prior", choices=["gamma", "bayesmallows"], default="gamma",
        help="mallows: θ ~ Gamma(1, 0.1) (default) or BayesMallows' α = nθ ~ Exp(0.001)"),
    opt("--distance", choices=MALLOWS_DISTANCES, default="kendall",
        help="mallows: the distance of the model (default kendall: the exact Gibbs sampler; the "
        "others, BayesMallows' footrule among them, run Metropolis–Hastings)"),
    opt("--top-k", type=at_least(1), default=None, metavar="K",
        help="mallows: also the posterior predictive probability that a new ranking puts each "
        "system in its top K (mallows_top_k.csv)"),
    opt("--predictive", type=at_least(1), default=None, metavar="N",
        help="mallows: also the N most probable rankings of a new assessor, with their "
        "posterior predictive probability (exact up to 8 systems; mallows_predictive.csv)"),
    opt("--error-model", choices=["bernoulli"], default=None,
        help="mallows, assessors' preferences: each stated preference may be a mistake "
        "(BayesMallows' Bernoulli error model; preferences with cycles are then fitted)"),
    opt("--clusters", type=at_least(1), default=1, metavar="K",
        help="mallows: a mixture of K Mallows models, clusters of assessors each with its own "
        "consensus and dispersion (default 1; Metropolis–Hastings; mallows_clusters.csv, "
        "mallows_assignments.csv)"),
    opt("--starts", type=at_least(1), default=None, metavar="N",
        help="mallows --method mle: EM runs from N seeded starts, the one of highest "
        "likelihood kept (default 100)"),
    opt("--thin", type=at_least(1), default=None,
        help="mallows, Metropolis–Hastings: iterations per kept draw (default 10)"),
    opt("--rho-proposal", choices=["leap_and_shift", "swap"], default="leap_and_shift",
        help="mallows, Metropolis–Hastings: the proposal of the consensus — leap-and-shift "
        "(default) or BayesMallows' swap of two items at most --leap ranks apart"),
    opt("--partition", default=None, metavar="FILE",
        help="mallows, Metropolis–Hastings: the partition function to use, a table written by "
        "PartitionFunction.save or with columns alpha, log_z (e.g. from BayesMallows)"),
    opt("--leap", type=at_least(1), default=1,
        help="mallows, Metropolis–Hastings: the largest leap of the consensus proposal "
        "(1 … n − 1; default 1, BayesMallows' default)"),
    opt("--kind", choices=["subset", "top_k"], default="subset",
        help="partial rankings are sub-rankings (default) or top-k lists (ranked systems beat "
        "all unranked ones; mallows: Metropolis–Hastings)"),
    opt("--system-covariates", old=("--covariates",), default=None, metavar="FILE",
        help="pl/bt: system covariates, a CSV table with the system names in its first column "
        "and one numeric column per covariate: log-worth = xᵀβ (a system absent or with an "
        "empty cell keeps a log-worth of its own); --method mle or nuts (pql with "
        "--random-effect); the coefficients in <model>_coefficients.csv"),
    covariate_columns_argument("with --system-covariates, every column after the first"),
    opt("--random-effect", action="store_true",
        help="pl/bt: add a system random effect u ~ N(0, σ²) to the log-worths (with or "
        "without --system-covariates); σ by a Laplace approximation (--method mle), penalised "
        "quasi-likelihood as BradleyTerry2's BTm (--method pql) or in the posterior (nuts)"),
    opt("--bias-reduction", action="store_true",
        help="pl/bt with --method mle: Firth's bias-reduced estimate (the likelihood penalised "
        "by Jeffreys' prior, as BradleyTerry2's br = TRUE), finite when a system never wins or "
        "never loses; with or without --system-covariates"),
    opt("--prior-scale", type=positive, default=1.0,
        help="pl/bt: σ of the ZeroSumNormal prior on the log-worths (default 1)"),
    mcmc_arguments(1000, None, 0, "",
        tune_help="tuning steps (NUTS) or discarded sweeps (Mallows Gibbs) per chain (default "
        "1000); Mallows Metropolis–Hastings: discarded iterations (default 5000)",
        draws_help="draws (NUTS) or sweeps (Mallows Gibbs) kept per chain (default 1000)"),
    opt("--max-draws", type=at_least(1), default=None,
        help="mallows: while R-hat > 1.01 or bulk ESS < 400, the chains continue in blocks of "
        "--draws sweeps up to this many kept sweeps per chain (default 20 × --draws; "
        "= --draws: no extension)"),
    seed_argument(),
    opt("--sampler", choices=["auto", "pymc", "nutpie"], default="auto",
        help="NUTS implementation: auto (default: the faster for the model's size: PyMC's own "
        "below 50 parameters, nutpie from 50 when installed), pymc, or nutpie (needs "
        "rankstats[fast])"),
    opt("--backend", choices=["auto", "numpy", "numba"], default="auto",
        help="mallows: where the Gibbs sweeps run, the same draws either way: numba (about 10× "
        "faster, needs rankstats[fast]), numpy, or auto (default: numba when installed)"),
    opt("--ci-prob", old=("--prob",), type=probability, default=0.95,
        help="posterior mass (or Wald coverage) of the intervals (default 0.95)"),
    output_argument("rankstats-out", "the tables, the forest plot and the JSON"),
    opt("--save", metavar="DIR", help="also store the fit as DIR/<data>_<model>.nc"),
    opt("--keep", type=at_least(1), default=100, help="draws per chain kept by --save"),
    figures_argument("the forest plot"),
    progress_argument(" (the sampler's)"),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats fit``. Built by :func:`rankstats.cli.fit.build_options`:
    ``model`` is the model fitted (the first of ``model_list``, the ``--model`` list), and
    ``method`` and ``mcmc.tune`` are the sampler's defaults when not given."""

    input: InputOptions
    rankings_file: RankingsFileOptions
    output: OutputOptions
    mcmc: McmcOptions
    model: str
    model_list: list[str]
    rankings: str | None = None
    paired: str | None = None
    preferences: str | None = None
    compare: bool = False
    ic: str = "loo"
    kfold: int | None = None
    method: str | None = None
    prior: str = "gamma"
    distance: str = "kendall"
    top_k: int | None = None
    predictive: int | None = None
    error_model: str | None = None
    clusters: int = 1
    starts: int | None = None
    thin: int | None = None
    rho_proposal: str = "leap_and_shift"
    partition: str | None = None
    leap: int = 1
    kind: str = "subset"
    system_covariates: str | None = None
    covariate_columns: list[str] | None = None
    random_effect: bool = False
    bias_reduction: bool = False
    prior_scale: float = 1.0
    max_draws: int | None = None
    seed: int = 0
    sampler: str = "auto"
    backend: str = "auto"
    ci_prob: float = 0.95
    save: str | None = None
    keep: int = 100
    progress: bool | None = None

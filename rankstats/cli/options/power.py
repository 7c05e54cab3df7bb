"""The options of ``rankstats power`` (its implementation: :mod:`rankstats.cli.power`)."""

from __future__ import annotations

import dataclasses

from rankstats.cli.options.groups import OutputOptions
from rankstats.cli.options.shared import (
    alpha_argument,
    at_least,
    battle_columns,
    by_argument,
    fraction,
    group,
    n_jobs_argument,
    nonnegative,
    opt,
    output_argument,
    positive,
    probability,
    progress_argument,
    simulated_scores,
    zero_method_argument,
)
from rankstats.datasets import DATASETS

HELP = "power and sample size of the tests for a simulated benchmark design"
EXAMPLE = (
    "rankstats power --systems 10 --instances 500 --phi 0.1 --tests hoeffding friedman nemenyi\n"
    "  rankstats power --dataset summeval --metric BERTScore --tests t --target-power 0.8\n"
    "  rankstats power --models 10 --battles 5000 --elo-step 20 --target-power 0.8"
)
#: The tests and targets of rs.power (repeated here so that --help imports no numerical library;
#: tests/cli/test_power.py checks them against rankstats.planning).
TESTS = (
    "hoeffding",
    "friedman",
    "nemenyi",
    "conover",
    "imputed",
    "imputed-holm",
    "sign",
    "mcnemar",
    "wilcoxon",
    "t",
    "bayes",
    "battles",
    "battles-ub",
)
#: The tests of a battle design (rankstats.planning.battle_replications.BATTLE_TESTS).
BATTLE_TESTS = ("battles", "battles-ub")
TARGETS = (
    "adjacent",
    "pair",
    "all_adjacent",
    "all_pairs",
    "omnibus",
    "borda_top1",
    "borda_tau",
    "mean_top1",
    "mean_tau",
    "bt_top1",
    "bt_tau",
)
VARIES = ("n_instances", "n_tasks", "phi", "accuracy_gap", "n_battles", "elo_step")


# fmt: off
ARGUMENTS = (
    group("a pilot table to calibrate the design on (rs.calibrate)",
        opt("file", nargs="?", help="pilot score table: CSV, TSV or Parquet (long or wide)"),
        opt("--dataset", choices=sorted(DATASETS), help="a bundled pilot instead"),
        opt("--metric", nargs="+", default=None, metavar="TASK",
            help="the pilot's task(s) to calibrate on (default: all)"),
        opt("--lower-is-better", nargs="+", default=[], metavar="TASK",
            help="pilot tasks where a lower score is better"),
    ),
    group("design without a pilot (the Gumbel simulator's parameters)",
        opt("--systems", type=at_least(2), default=None, help="systems (default 10)"),
        opt("--tasks", type=at_least(1), default=None, help="tasks (default 1, or the pilot's)"),
        opt("--instances", type=at_least(1), default=None,
            help="instances per task (default 100, or the pilot's)"),
        opt("--phi", type=positive, default=0.1,
            help="location step between consecutive systems (default 0.1)"),
        opt("--noise", choices=["gumbel", "normal", "laplace"], default="gumbel",
            help="Gumbel noise (Plackett–Luce rankings; default), normal or Laplace noise"),
        opt("--identical", type=fraction, default=0.0,
            help="share of instances on which every system gives the same output (zero "
            "differences; default 0)"),
        opt("--correlation", type=float, default=0.0,
            help="with --noise normal: correlation of two systems' scores on one instance "
            "(default 0)"),
        opt("--accuracies", nargs="+", type=probability, default=None, metavar="ACC",
            help="paired binary outcomes instead of scores: each system's accuracy (Card et al. "
            "2020's setting; test them with --tests mcnemar)"),
        opt("--agreement", type=probability, default=None,
            help="with --accuracies: share of items on which the two most accurate systems "
            "agree (default: independent errors)"),
        simulated_scores("noise", "cell"),
    ),
    group("a battle design instead (rs.BattleDesign; tests battles, battles-ub)",
        opt("--battle-log", default=None, metavar="FILE",
            help="a pilot battle log (model_a, model_b, winner): its Bradley–Terry fit sets the "
            "ratings, order effect, ties and the allocation over pairs"),
        battle_columns("the pilot log's "),
        opt("--models", type=at_least(2), default=None, help="models (default 10)"),
        opt("--battles", type=at_least(1), default=None,
            help="battles per simulated log (default 5000, or the pilot log's)"),
        opt("--elo-step", type=nonnegative, default=None,
            help="Elo points between models next to each other (default 20)"),
        opt("--order-effect", type=float, default=None,
            help="log advantage η of the model shown first (default 0)"),
        opt("--tie", type=float, default=None,
            help="Davidson's log tie parameter log ν (default: no ties; 0: a third of the "
            "battles of equal models tie)"),
        opt("--allocation", choices=["uniform", "balanced", "star"], default=None,
            help="pairs drawn uniformly per battle (default), the same battles per ordered "
            "pair, or every battle against the first model"),
    ),
    group("tests",
        opt("--tests", nargs="+", choices=TESTS, default=None, metavar="TEST",
            help="tests whose power is simulated (default: hoeffding friedman nemenyi; with "
            f"--target-power one test, default hoeffding; of {', '.join(TESTS)})"),
        opt("--pair", nargs=2, default=None, metavar=("A", "B"),
            help="a pair of systems to report"),
        by_argument("blocks: each (task, instance) or each task (mean over its instances)",
                    "instance"),
        alpha_argument(0.05, "the tests"),
        opt("--rope", type=nonnegative, default=0.01,
            help="bayes: half-width of the region of practical equivalence, in score units "
            "(default 0.01)"),
        opt("--threshold", type=probability, default=0.95,
            help="bayes: posterior probability a claim needs (default 0.95)"),
        opt("--posterior-draws", type=at_least(100), default=1000,
            help="bayes: posterior draws per decision (default 1000)"),
        zero_method_argument(None),  # wilcoxon only: refused without it
        opt("--n-replications", old=("--replications",), type=at_least(2), default=None,
            help="simulated benchmarks (default 2000; with --target-power, 1000 per point)"),
        opt("--seed", type=at_least(0), default=0, help="random seed (default 0)"),
        n_jobs_argument(-1, "threads"),
    ),
    group("sample size (with --target-power)",
        opt("--target-power", type=probability, default=None,
            help="find the size that reaches this power (one test: the first of --tests)"),
        opt("--target", choices=TARGETS, default=None,
            help="the power to reach: adjacent pairs (default), the --pair, every adjacent "
            "pair, every pair, Friedman's omnibus test, or the recovery of the true order by "
            "Borda (σ^l) or the mean (σ^μ): P(true best first) or the mean Kendall τ"),
        opt("--vary", choices=VARIES, default=None,
            help="what the curve varies (default n_instances, or n_battles for a battle design; "
            "phi, accuracy_gap (binary outcomes), elo_step: the detectable effect)"),
        opt("--sizes", nargs="+", type=positive, default=None, metavar="N",
            help="the grid of the curve (increasing; default: 10 values from 10 to 10,000 "
            "instances)"),
        opt("--refine", type=at_least(0), default=2,
            help="extra points simulated at the interpolated crossing (default 2)"),
    ),
    opt("--ignore-memory-check", action="store_true",
        help="simulate even when the results' memory, estimated from the systems and "
        "replications, exceeds what this machine has (sets RANKSTATS_IGNORE_MEMORY=1)"),
    output_argument("power-out",
                    "summary.csv, pairs.csv, recovery.csv (or curve.csv and the figure)"),
    progress_argument(),
)
# fmt: on


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats power``; ``tests``, ``vary`` and ``target`` are filled in
    when the options are built (their defaults depend on the design and the mode)."""

    output: OutputOptions
    file: str | None = None
    dataset: str | None = None
    metric: list[str] | None = None
    lower_is_better: list[str] = dataclasses.field(default_factory=list)
    systems: int | None = None
    tasks: int | None = None
    instances: int | None = None
    phi: float = 0.1
    scale: float = 1.0
    noise: str = "gumbel"
    identical: float = 0.0
    correlation: float = 0.0
    accuracies: list[float] | None = None
    agreement: float | None = None
    missing_rate: float = 0.0
    missing_pattern: str = "cell"
    round_to: int | None = None
    battle_log: str | None = None
    model_a: str = "model_a"
    model_b: str = "model_b"
    winner: str = "winner"
    models: int | None = None
    battles: int | None = None
    elo_step: float | None = None
    order_effect: float | None = None
    tie: float | None = None
    allocation: str | None = None
    tests: list[str] | None = None
    pair: list[str] | None = None
    by: str = "instance"
    alpha: float = 0.05
    rope: float = 0.01
    threshold: float = 0.95
    posterior_draws: int = 1000
    zero_method: str | None = None
    n_replications: int | None = None
    seed: int = 0
    n_jobs: int = -1
    target_power: float | None = None
    target: str | None = None
    vary: str | None = None
    sizes: list[float] | None = None
    refine: int = 2
    ignore_memory_check: bool = False
    progress: bool | None = None

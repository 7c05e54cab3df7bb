"""The options of ``rankstats report`` (its implementation: :mod:`rankstats.cli.report`)."""

from __future__ import annotations

import argparse
import dataclasses

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.groups import (
    HoeffdingOptions,
    InputOptions,
    OutputOptions,
    RankingsFileOptions,
)
from rankstats.cli.options.shared import (
    add_alpha_argument,
    add_input_arguments,
    add_missing_treatment_arguments,
    add_output_argument,
    add_placeholder_argument,
    add_progress_argument,
    add_rankings_file_arguments,
    add_significance_arguments,
    add_top_argument,
    add_zero_method_argument,
    at_least,
)
from rankstats.cli.usage import renamed

HELP = "write an HTML + LaTeX + figures report"
EXAMPLE = "rankstats report --dataset dialogue_tc --models pl bt mallows --out report/"


def arguments(parser: argparse.ArgumentParser) -> None:
    # The names of --missing and --posthoc live with SciPy's rank tests in the library: imported
    # only when this command's options are built.
    from rankstats.significance.posthoc_tests import METHODS as POSTHOC_METHODS

    add_input_arguments(parser, by=True)
    add_rankings_file_arguments(parser)
    add_placeholder_argument(parser)
    parser.add_argument(
        "--methods",
        nargs="+",
        default=None,
        choices=METHODS,
        metavar="METHOD",
        help="aggregators; the first orders the tables (default: borda borda2 mean for scores, "
        "borda copeland for a rankings FILE; also median, kemeny, bt, pl)",
    )
    add_significance_arguments(parser, form=False)
    parser.add_argument("--title", default=None, help="title of the report (default: data name)")
    parser.add_argument(
        "--models",
        nargs="*",
        default=[],
        choices=["pl", "bt", "mallows"],
        help="rank models to fit and compare with the Hoeffding intervals",
    )
    parser.add_argument(
        "--model-method",
        default="map",
        choices=["map", "nuts", "mcmc"],
        help="fitting method of the models (default: map, fast; nuts samples Plackett–Luce / "
        "Bradley–Terry posteriors and mcmc for Mallows: the model-comparison section (PSIS-LOO, "
        "posterior predictive checks) needs these posterior draws)",
    )
    parser.add_argument(
        "--paired",
        nargs="+",
        metavar="TASK",
        default=None,
        help="add a paired instance-level analysis (sign / Wilcoxon / t / Mood tests, BT, Elo, "
        "TrueSkill) of these tasks (metrics)",
    )
    pw = parser.add_argument_group("power section (with --power)")
    pw.add_argument(
        "--power",
        action="store_true",
        help="add 'what this benchmark can detect': a design calibrated on the scores and, by "
        "simulation, the smallest difference between neighbouring systems detected with power "
        "0.8 (see `rankstats power`)",
    )
    pw.add_argument(
        "--power-test",
        choices=["t", "wilcoxon", "sign", "hoeffding", "nemenyi", "conover"],
        default=None,
        help="the test of the power section (default: t, the paired t-test)",
    )
    renamed(
        pw,
        "--n-replications",
        old=("--power-replications",),
        type=at_least(2),
        default=None,
        help="simulated benchmarks per point of the power curve (default 1000)",
    )
    sig = parser.add_argument_group("significance section (with --significance)")
    sig.add_argument(
        "--significance",
        action="store_true",
        help="add the Friedman test, post-hoc tests of every pair, the critical-difference "
        "diagram and its LaTeX table (`rankstats significance` has more options)",
    )
    sig.add_argument(
        "--posthoc",
        choices=list(POSTHOC_METHODS),
        default=None,
        help="post-hoc test of the section (default: nemenyi)",
    )
    add_alpha_argument(sig, None, "the post-hoc tests (family-wise)")
    # Also that of --paired and --power-test wilcoxon: refused when none runs it.
    add_zero_method_argument(sig, None)
    add_missing_treatment_arguments(sig, None, None)
    add_top_argument(parser, "show only the best N systems in the ranking tables and the heat map")
    add_output_argument(parser, "report", "the report")
    add_progress_argument(parser)


@dataclasses.dataclass(frozen=True)
class Options:
    """The options of ``rankstats report``; ``methods`` and ``title`` are filled in when the
    options are built (their defaults depend on what FILE holds)."""

    input: InputOptions
    rankings_file: RankingsFileOptions
    hoeffding: HoeffdingOptions
    output: OutputOptions
    methods: list[str] | None = None
    title: str | None = None
    models: list[str] = dataclasses.field(default_factory=list)
    model_method: str = "map"
    paired: list[str] | None = None
    power: bool = False
    power_test: str | None = None
    n_replications: int | None = None
    significance: bool = False
    posthoc: str | None = None
    alpha: float | None = None
    zero_method: str | None = None
    missing: str | None = None
    min_coverage: float | None = None
    top: int | None = None
    progress: bool | None = None

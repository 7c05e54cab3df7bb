"""The options of ``rankstats report`` (its implementation: :mod:`rankstats.cli.report`)."""

from __future__ import annotations

import dataclasses

from rankstats.aggregation.choices import METHODS
from rankstats.cli.options.groups import (
    HoeffdingOptions,
    InputOptions,
    OutputOptions,
    RankingsFileOptions,
)
from rankstats.cli.options.shared import (
    PLACEHOLDERS,
    RANKINGS_FILE,
    alpha_argument,
    at_least,
    group,
    input_arguments,
    missing_treatment_arguments,
    opt,
    output_argument,
    progress_argument,
    significance_arguments,
    top_argument,
    zero_method_argument,
)

HELP = "write an HTML + LaTeX + figures report"
EXAMPLE = "rankstats report --dataset dialogue_tc --models pl bt mallows --out report/"


def _posthoc() -> tuple:
    # The names of --posthoc live with SciPy's rank tests in the library: imported only when
    # this command's options are built.
    from rankstats.significance.posthoc_tests import METHODS as POSTHOC_METHODS

    return (opt("--posthoc", choices=list(POSTHOC_METHODS), default=None,
                help="post-hoc test of the section (default: nemenyi)"),)  # fmt: skip


# fmt: off
ARGUMENTS = (
    input_arguments(by=True),
    RANKINGS_FILE,
    PLACEHOLDERS,
    opt("--methods", nargs="+", default=None, choices=METHODS, metavar="METHOD",
        help="aggregators; the first orders the tables (default: borda borda2 mean for scores, "
        "borda copeland for a rankings FILE; also median, kemeny, bt, pl)"),
    significance_arguments(form=False),
    opt("--title", default=None, help="title of the report (default: data name)"),
    opt("--models", nargs="*", default=[], choices=["pl", "bt", "mallows"],
        help="rank models to fit and compare with the Hoeffding intervals"),
    opt("--model-method", default="map", choices=["map", "nuts", "mcmc"],
        help="fitting method of the models (default: map, fast; nuts samples Plackett–Luce / "
        "Bradley–Terry posteriors and mcmc for Mallows: the model-comparison section (PSIS-LOO, "
        "posterior predictive checks) needs these posterior draws)"),
    opt("--paired", nargs="+", metavar="TASK", default=None,
        help="add a paired instance-level analysis (sign / Wilcoxon / t / Mood tests, BT, Elo, "
        "TrueSkill) of these tasks (metrics)"),
    group("power section (with --power)",
        opt("--power", action="store_true",
            help="add 'what this benchmark can detect': a design calibrated on the scores and, "
            "by simulation, the smallest difference between neighbouring systems detected with "
            "power 0.8 (see `rankstats power`)"),
        opt("--power-test", choices=["t", "wilcoxon", "sign", "hoeffding", "nemenyi", "conover"],
            default=None, help="the test of the power section (default: t, the paired t-test)"),
        opt("--n-replications", old=("--power-replications",), type=at_least(2), default=None,
            help="simulated benchmarks per point of the power curve (default 1000)"),
    ),
    group("significance section (with --significance)",
        opt("--significance", action="store_true",
            help="add the Friedman test, post-hoc tests of every pair, the critical-difference "
            "diagram and its LaTeX table (`rankstats significance` has more options)"),
        _posthoc,
        alpha_argument(None, "the post-hoc tests (family-wise)"),
        # Also that of --paired and --power-test wilcoxon: refused when none runs it.
        zero_method_argument(None),
        missing_treatment_arguments(None, None),
    ),
    top_argument("show only the best N systems in the ranking tables and the heat map"),
    output_argument("report", "the report"),
    progress_argument(),
)
# fmt: on


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

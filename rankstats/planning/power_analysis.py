r"""``rs.power`` and ``rs.sample_size``: how many instances (or tasks) a benchmark comparison needs.

:func:`power` simulates a :class:`~rankstats.planning.design.BenchmarkDesign` many times and
applies each test rankstats reports (:mod:`rankstats.planning.replications`) to every simulated
benchmark; :func:`sample_size` does it over a grid of sizes (or effects) and reads off where the
power curve crosses the target (:mod:`rankstats.planning.sample_size_result`). Both check every
argument before simulating anything.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from rankstats._util.arguments import count, probability
from rankstats._util.parallel import check_parallel
from rankstats._util.progress import meter
from rankstats._util.renamed import grouped_parameters, renamed_parameters
from rankstats._util.resources import power_bytes, require_memory
from rankstats._util.user_frame import user_stacklevel
from rankstats.errors import DataWarning
from rankstats.planning.accuracy_gap import (
    check_gap_design,
    keeps_accuracies_below_one,
    with_accuracy_gap,
)
from rankstats.planning.battle_design import BATTLE_EFFECTS, BattleDesign
from rankstats.planning.battle_replications import (
    BATTLE_TESTS,
    check_battle_tests,
    simulate_battle_tests,
)
from rankstats.planning.design import BenchmarkDesign, named_pair
from rankstats.planning.power_options import (
    BATTLE_VARIES as BATTLE_VARIES,  # what sample_size can vary, read here by the CLI
)
from rankstats.planning.power_options import (
    BAYES_KEYWORDS,
    SEARCH_KEYWORDS,
    BayesSettings,
    SizeSearch,
)
from rankstats.planning.power_options import VARIES as VARIES
from rankstats.planning.power_result import (
    RECOVERY_TARGETS,
    PowerResult,
    adjacent_pairs,
    power_tables,
)
from rankstats.planning.replications import (
    LEVELS,
    check_memory,
    check_tests,
    simulate_tests,
    zero_method_of,
)
from rankstats.planning.sample_size_result import SampleSizeResult, crossing
from rankstats.planning.sufficient import (
    ENGINE,
    needing,
    simulate_sufficient,
    sufficient_path,
)

DEFAULT_TESTS = ("hoeffding", "friedman", "nemenyi")
EFFECTS = ("phi", "accuracy_gap", *BATTLE_EFFECTS)
DEFAULT_GRIDS = {
    "n_battles": (200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000),
    "elo_step": (2, 5, 10, 15, 20, 30, 50, 75, 100, 150),
    "n_instances": (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000),
    "n_tasks": (2, 3, 5, 8, 10, 15, 20, 30, 50, 100),
    "phi": (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0),
    "accuracy_gap": (0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15),
}


def _design(
    design: BenchmarkDesign | BattleDesign | None, fields: dict
) -> BenchmarkDesign | BattleDesign:
    """The design, its fields overridden by keywords; without a design, a battle design when
    the keywords are a battle design's (``n_models``, ``n_battles``, ...), else a benchmark's."""
    if design is not None and not isinstance(design, BenchmarkDesign | BattleDesign):
        raise TypeError(
            f"design must be a rs.BenchmarkDesign or rs.BattleDesign, not {type(design).__name__}"
        )
    battle_fields = {f.name for f in dataclasses.fields(BattleDesign) if f.init}
    if design is None:
        kind = (
            BattleDesign if set(fields) & (battle_fields - _BENCHMARK_FIELDS) else BenchmarkDesign
        )
    else:
        kind = type(design)
    known = battle_fields if kind is BattleDesign else _BENCHMARK_FIELDS
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(
            f"unknown {'battle ' if kind is BattleDesign else ''}design parameter(s) "
            f"{', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    if design is None:
        return kind(**fields)
    return design.replace(**fields) if fields else design


_BENCHMARK_FIELDS = {f.name for f in dataclasses.fields(BenchmarkDesign) if f.init}


def check_outcome(design: BenchmarkDesign, tests: Sequence[str]) -> None:
    """McNemar's test is the sign test of paired binary outcomes: refuse ``mcnemar`` on scores
    (whose test is ``sign``), and the tests of score differences on a Mallows design (rankings
    only)."""
    on_scores = [t for t in tests if t in ("t", "wilcoxon", "mcnemar", "bayes")]
    if design.mallows is not None and on_scores:
        raise ValueError(
            f"a Mallows design draws rankings, not scores: {', '.join(on_scores)} test(s) "
            "score differences; the tests on ranks are hoeffding, friedman, nemenyi, conover, "
            "imputed, imputed-holm and sign"
        )
    if "mcnemar" in tests and design.outcome != "binary":
        raise ValueError(
            "test 'mcnemar' is for paired binary outcomes (BenchmarkDesign.from_accuracies or "
            "outcome='binary'); on scores its counterpart is 'sign'"
        )


def _check_common(
    design: BenchmarkDesign,
    by: str,
    alpha: float,
    n_replications: int,
    seed: int,
    n_jobs: int,
) -> None:
    if isinstance(design, BattleDesign) and by != "instance":
        raise ValueError("by applies to score tables; a battle log has no blocks")
    if by not in LEVELS:
        raise ValueError(f"by must be one of {', '.join(LEVELS)}, not {by!r}")
    if by == "task" and design.n_tasks < 2:
        raise ValueError(
            "by='task' ranks the systems once per task: the design needs n_tasks ≥ 2, "
            f"not {design.n_tasks}"
        )
    probability("alpha", alpha)
    count("n_replications", n_replications, 2)
    count("seed", seed, 0)
    check_parallel(n_jobs, "processes")


@renamed_parameters(level="by", replications="n_replications")
@grouped_parameters(bayes=(BayesSettings, BAYES_KEYWORDS))
def power(
    design: BenchmarkDesign | BattleDesign | None = None,
    *,
    tests: str | Sequence[str] | None = None,
    pair: Sequence[str] | None = None,
    by: str = "instance",
    alpha: float = 0.05,
    n_replications: int = 2000,
    seed: int = 0,
    progress: bool = True,
    n_jobs: int = -1,
    bayes: BayesSettings | None = None,
    zero_method: str | None = None,
    **fields: object,
) -> PowerResult:
    r"""Power of each test for a benchmark design, by simulation, with Monte Carlo errors.

    ``n_replications`` benchmarks are drawn from the design (the Gumbel simulator of Colombo et
    al. 2022, Sec. 4.1: system ``i`` scores :math:`\mathrm{Gumbel}(\mu_i, \text{scale})` on every
    instance) and each test is applied to each by the function that computes it for a real
    table (:mod:`rankstats.planning.replications`). Power is P(significant in the true
    direction) (Card et al. 2020), with the Type-S and Type-M errors of Gelman & Carlin (2014)
    (:mod:`rankstats.planning.power_result`).

    Parameters
    ----------
    design : BenchmarkDesign, optional
        The design; or give its fields as keywords (``n_systems=10, n_instances=500,
        phi=0.1, missing=0.2, ...``), which also override those of ``design``.
    tests : str or sequence of str
        Some of ``"hoeffding"``, ``"friedman"``, ``"nemenyi"``, ``"conover"``, ``"imputed"``,
        ``"imputed-holm"`` (the imputed-rank tests, every block with two scores kept),
        ``"sign"``, ``"mcnemar"`` (binary outcomes), ``"wilcoxon"``, ``"t"``, ``"bayes"`` (the
        Bayesian signed-rank test, see ``bayes``).
    pair : (str, str), optional
        A pair of systems whose power is reported as the ``pair`` target.
    by : {"instance", "task"}
        Blocks of the rank tests and the paired tests: each (task, instance), or each task (its
        scores averaged over the instances).
    alpha : float
        Level of every test (family-wise for Holm, Nemenyi and Hoeffding with Holm).
    n_replications : int
        Simulated benchmarks; the Monte Carlo s.e. of a power ``p`` is
        :math:`\sqrt{p(1-p)/R}` (at most 0.011 for 2,000).
    seed : int
        Same seed, same numbers (on any machine, with any ``n_jobs``).
    progress : bool
        A progress bar with ETA on a terminal (quiet otherwise).
    n_jobs : int
        Threads sharing the replications (-1: all cores).
    bayes : BayesSettings, optional
        The Bayesian signed-rank test (``"bayes"``;
        :class:`~rankstats.planning.power_options.BayesSettings`): the ROPE's half-width in
        score units, the posterior probability a claim needs (as
        :func:`rankstats.bayes_signed_rank`), and the posterior draws of each decision (the
        user-facing default is 50,000; 1,000 puts a Monte Carlo error of at most 0.007 on a
        share near 0.95). It decides the named pair and the adjacent pairs only: each decision
        costs ``posterior_draws × blocks`` Gamma draws. Its fields ``rope``, ``threshold``,
        ``posterior_draws`` were keywords of this function, still accepted for one release
        with a FutureWarning.
    zero_method : {"wilcox", "pratt", "zsplit"}, optional
        The zero score differences of the Wilcoxon test (``"wilcoxon"``), as
        ``scipy.stats.wilcoxon`` treats them: dropped (``"wilcox"``, the default), ranked
        (Pratt, 1959) or their ranks split between the signs
        (:mod:`rankstats.significance.zero_methods`); they arise with rounded or binary scores.
        Kept in :attr:`PowerResult.zero_method`; refused without the Wilcoxon test.

    Returns
    -------
    PowerResult
        ``.summary`` (power per test and target, with s.e.), ``.pairs`` (every pair: power,
        Type S, Type M), ``.recovery`` (Kendall τ and P(true best first) of σ^l and σ^μ),
        ``.sentence()``.

    Raises
    ------
    ValueError
        An argument out of its range, an unknown test, system or design parameter, named.
    ResourceError
        The results (a decision and an estimate per pair, benchmark and test) would not fit in
        the available memory; ``RANKSTATS_IGNORE_MEMORY=1`` skips the check.

    Examples
    --------
    Two systems, the sign test, against its exact power:

    >>> import rankstats as rs
    >>> from rankstats.planning.analytic import sign_test_power
    >>> res = rs.power(n_systems=2, n_instances=100, phi=0.3, tests="sign", progress=False)
    >>> p, se = res.power_of("sign", "adjacent")
    >>> exact = sign_test_power(res.design.win_probability("sys02", "sys01"), 100)
    >>> bool(abs(p - exact) < 4 * se), round(float(exact), 2)
    (True, 0.27)
    """
    design = _design(design, fields)
    bayes = bayes or BayesSettings()
    if isinstance(design, BattleDesign):
        bayes.refuse()
        zero_method_of(("battles",), zero_method)  # no Wilcoxon test: refused when given
        return _battle_power(design, tests, pair, by, alpha, n_replications, seed, progress, n_jobs)
    tests = check_tests(DEFAULT_TESTS if tests is None else tests)
    check_outcome(design, tests)
    zeros = zero_method_of(tests, zero_method)
    position = named_pair(design, pair)
    _check_common(design, by, alpha, n_replications, seed, n_jobs)
    decided = {int(k) for k in adjacent_pairs(design)} | ({position} if pair else set())
    options = bayes.options(decided) if "bayes" in tests else None
    path = sufficient_path(design, tests, by)
    if path is None:
        check_memory(design, tests, n_replications)
    beyond = design.extrapolation()
    if beyond:  # said, never silent: in a warning and in the result's notes and sentence
        warnings.warn(beyond, DataWarning, stacklevel=user_stacklevel())
    if path is None:
        rep = simulate_tests(
            design, tests, by, alpha, n_replications, seed, progress, n_jobs, options, zeros
        )
    else:  # the test's sufficient statistic, drawn directly (rankstats.planning.sufficient)
        rep = simulate_sufficient(design, path, tests[0], alpha, n_replications, seed, zeros)
    summary, pairs, recovery = power_tables(rep, position)
    return PowerResult(
        summary=summary,
        pairs=pairs,
        recovery=recovery,
        design=design,
        tests=tests,
        by=by,
        alpha=float(alpha),
        n_replications=rep.n_replications,
        seed=seed,
        pair=None if pair is None else (str(pair[0]), str(pair[1])),
        complete=rep.complete,
        bayes=None
        if options is None
        else {
            "rope": options.rope,
            "threshold": options.threshold,
            "posterior_draws": options.samples,
        },
        notes=(design.extrapolation(brief=True),) if beyond else (),
        zero_method=zeros,
        method=path or ENGINE,
    )


def _battle_power(
    design: BattleDesign,
    tests: str | Sequence[str] | None,
    pair: Sequence[str] | None,
    by: str,
    alpha: float,
    n_replications: int,
    seed: int,
    progress: bool,
    n_jobs: int,
) -> PowerResult:
    """:func:`power` of a battle design (:mod:`rankstats.planning.battle_replications`)."""
    tests = check_battle_tests(BATTLE_TESTS if tests is None else tests)
    position = named_pair(design, pair)
    _check_common(design, by, alpha, n_replications, seed, n_jobs)  # type: ignore[arg-type]
    require_memory(
        power_bytes(design.n_models, n_replications, len(tests)),
        "rs.power",
        n_systems=design.n_models,
        fewer="models, or fewer replications",
    )
    beyond = design.extrapolation()
    if beyond:
        warnings.warn(beyond, DataWarning, stacklevel=user_stacklevel())
    rep = simulate_battle_tests(design, tests, alpha, n_replications, seed, progress, n_jobs)
    summary, pairs, recovery = power_tables(rep, position)
    return PowerResult(
        summary=summary,
        pairs=pairs,
        recovery=recovery,
        design=design,  # type: ignore[arg-type]
        tests=tests,
        by="battle",
        alpha=float(alpha),
        n_replications=rep.n_replications,
        seed=seed,
        pair=None if pair is None else (str(pair[0]), str(pair[1])),
        complete=rep.complete,
        notes=(design.extrapolation(brief=True),) if beyond else (),
        method="battles",
    )


_power_of_design = power  # sample_size's argument ``power`` is the target, not this function


@renamed_parameters(level="by", replications="n_replications")
@grouped_parameters(search=(SizeSearch, SEARCH_KEYWORDS), bayes=(BayesSettings, BAYES_KEYWORDS))
def sample_size(
    design: BenchmarkDesign | BattleDesign | None = None,
    *,
    test: str | None = None,
    search: SizeSearch | None = None,
    pair: Sequence[str] | None = None,
    by: str = "instance",
    alpha: float = 0.05,
    n_replications: int = 1000,
    seed: int = 0,
    progress: bool = True,
    n_jobs: int = -1,
    bayes: BayesSettings | None = None,
    zero_method: str | None = None,
    **fields: object,
) -> SampleSizeResult:
    r"""The smallest size (or effect) at which a test reaches a target power, from a power curve.

    The power of ``test`` for ``target`` is simulated (:func:`power`) at every value of
    ``sizes``; the estimates are made monotone (isotonic regression, the pool-adjacent-violators
    algorithm of ``scipy.optimize.isotonic_regression``) and the crossing of ``power`` is
    interpolated linearly in the logarithm of the size between the two grid values around it.
    The same is done for the curves ± 1.96 Monte Carlo s.e., which bracket the answer. Nothing
    is extrapolated: a target not reached on the grid gives no size, and a target reached at the
    smallest size says so.

    Parameters
    ----------
    design, pair, by, alpha, n_replications, seed, progress, n_jobs, **fields
        As in :func:`power` (``n_replications`` at each size).
    bayes, zero_method
        The Bayesian signed-rank test's settings and the Wilcoxon test's zero differences, as
        in :func:`power`.
    test : str
        One test of :func:`power`.
    search : SizeSearch, optional
        The power to reach and the grid (:class:`~rankstats.planning.power_options.SizeSearch`:
        ``target``, ``power``, ``vary``, ``sizes``, ``refine``; default: the adjacent pairs at
        power 0.8, on :data:`DEFAULT_GRIDS` of the instances per task). Its fields were keywords
        of this function, still accepted for one release with a FutureWarning.

    Returns
    -------
    SampleSizeResult
        ``.size`` (None when not reached), ``.interval``, ``.curve`` (power, s.e., the monotone
        fit and its band, and Type S / Type M at each size), ``.plot()``, ``.sentence()``.

    Examples
    --------
    >>> import rankstats as rs
    >>> grid = rs.SizeSearch(target="pair", sizes=[20, 50, 100, 200, 400])
    >>> res = rs.sample_size(n_systems=2, test="sign", search=grid, pair=("sys02", "sys01"),
    ...                      phi=0.4, n_replications=400, progress=False, seed=0)
    >>> 150 < res.size < 300  # exact binomial power: 0.80 at about 210 instances
    True
    """
    design = _design(design, fields)
    battles = isinstance(design, BattleDesign)
    test = ("battles" if battles else "hoeffding") if test is None else test
    if not isinstance(test, str):
        raise ValueError(f"test must name one test, got {test!r}")
    if battles:
        check_battle_tests(test)
    else:
        check_outcome(design, check_tests(test))
    zero_method_of((test,), zero_method)
    search = (search or SizeSearch()).checked(design, test, pair)
    named_pair(design, pair)
    vary = search.vary
    if vary == "accuracy_gap":
        check_gap_design(design)
    grid = _grid(vary, _default_grid(design, vary) if search.sizes is None else search.sizes)
    designs = [_varied(design, vary, value) for value in grid]  # each checked here
    _check_common(designs[0], by, alpha, n_replications, seed, n_jobs)
    run = functools.partial(
        _power_of_design,
        tests=(test,),
        pair=pair,
        by=by,
        alpha=alpha,
        n_replications=n_replications,
        seed=seed,
        progress=False,
        n_jobs=n_jobs,
        bayes=bayes,
        zero_method=zero_method,
    )
    beyond = designs[-1].extrapolation()
    if beyond:  # once for the curve (each point would say it again)
        warnings.warn(f"power curve {beyond}", DataWarning, stacklevel=user_stacklevel())
    with meter(
        "power curve", total=len(grid) + search.refine, unit="designs", enabled=progress
    ) as m:
        return _curve(run, design, dict(zip(grid, designs, strict=True)), test, search, m)


def _curve(
    run: Callable[[BenchmarkDesign | BattleDesign], PowerResult],
    design: BenchmarkDesign | BattleDesign,
    designs: dict[float, BenchmarkDesign | BattleDesign],
    test: str,
    search: SizeSearch,
    m: Any,
) -> SampleSizeResult:
    """The power at each point of the grid, then at ``search.refine`` points interpolated at the
    crossing, and the size read off the curve."""
    target, vary, power = search.target, search.vary, float(search.power)
    points: dict[float, PowerResult] = {}
    with _curve_points(target):
        for value, d in designs.items():
            points[value] = _whole(run(d))
            m.advance()
        for _ in range(search.refine):
            found = crossing(list(points.values()), test, target, power, vary, tuple(points))
            value = _between(found, tuple(points), vary)
            if value is None:
                break
            points[value] = _whole(run(_varied(design, vary, value)))
            points = dict(sorted(points.items()))
            m.advance()
    return crossing(list(points.values()), test, target, power, vary, tuple(points))


@contextlib.contextmanager
def _curve_points(target: str) -> Iterator[None]:
    """Around the points of a power curve: the design's warnings silenced (the curve gave them
    once), and a recovery target's aggregator required of a sufficient statistic (one that does
    not determine it leaves the points to the engine: :func:`rankstats.planning.sufficient.
    needing`)."""
    aggregator = target.split("_")[0] if target in RECOVERY_TARGETS else None
    with warnings.catch_warnings(), needing(aggregator):
        warnings.simplefilter("ignore", DataWarning)
        yield


def _whole(result: PowerResult) -> PowerResult:
    """``result``, or the interrupt that cut it short: a curve is not read off partial points."""
    if not result.complete:
        raise KeyboardInterrupt("power curve interrupted")
    return result


def _between(found: SampleSizeResult, grid: tuple, vary: str) -> float | None:
    """A new grid value at the interpolated crossing, strictly between its two neighbours
    (None when there is no crossing inside the grid or no whole number left between them)."""
    if found.size is None or found.at_smallest:
        return None
    value = found.size if vary in EFFECTS else float(round(found.size))
    if vary not in EFFECTS:
        value = int(value)
    if value in grid:
        return None
    return value


def _varied(
    design: BenchmarkDesign | BattleDesign, vary: str, value: float
) -> BenchmarkDesign | BattleDesign:
    """The design at one grid value (an accuracy gap sets the accuracies, the rest a field)."""
    if vary == "accuracy_gap":
        return with_accuracy_gap(design, value)  # type: ignore[arg-type]
    return design.replace(**{vary: value})


def _default_grid(design: BenchmarkDesign | BattleDesign, vary: str) -> tuple:
    """:data:`DEFAULT_GRIDS` ``[vary]``; accuracy gaps that keep every accuracy below 1."""
    grid = DEFAULT_GRIDS[vary]
    if vary == "accuracy_gap":
        grid = tuple(g for g in grid if keeps_accuracies_below_one(design, g))  # type: ignore[arg-type]
    return grid


def _grid(vary: str, sizes: Sequence[float]) -> tuple:
    values = np.asarray(list(sizes), dtype=np.float64) if len(list(sizes)) else np.array([])
    if values.ndim != 1 or len(values) < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"sizes must be at least 2 finite numbers, got {sizes!r}")
    if np.any(np.diff(values) <= 0):
        raise ValueError(f"sizes must increase, got {list(sizes)}")
    if vary not in EFFECTS:
        if np.any(values != np.round(values)) or values[0] < 1:
            raise ValueError(f"sizes of {vary} must be whole numbers ≥ 1, got {list(sizes)}")
        return tuple(int(v) for v in values)
    if values[0] <= 0:
        raise ValueError(f"sizes of {vary} must be > 0, got {list(sizes)}")
    return tuple(float(v) for v in values)

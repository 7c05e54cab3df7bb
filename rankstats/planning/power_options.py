"""The options objects of :func:`rankstats.power` and :func:`rankstats.sample_size`: the
Bayesian signed-rank test's settings (:class:`BayesSettings`) and the search of a power curve
(:class:`SizeSearch`), with their checks."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields

from rankstats.planning.battle_design import BATTLE_EFFECTS, BATTLE_SIZES, BattleDesign
from rankstats.planning.battle_replications import BATTLE_TESTS
from rankstats.planning.design import SIZES, BenchmarkDesign
from rankstats.planning.power_result import RECOVERY_TARGETS, TARGETS
from rankstats.planning.replications import PAIR_TESTS, BayesOptions
from rankstats.significance.three_regions import check_rope, check_threshold

#: What :func:`sample_size` can vary: a size, or the effect (``phi``, ``elo_step``: the
#: detectable effect), of a benchmark design and of a battle design.
VARIES = (*SIZES, "phi", "accuracy_gap")
BATTLE_VARIES = (*BATTLE_SIZES, *BATTLE_EFFECTS)


@dataclass(frozen=True)
class BayesSettings:
    """The Bayesian signed-rank test's settings in a power simulation (as in
    :func:`rankstats.bayes_signed_rank`).

    Parameters
    ----------
    rope : float
        Half-width of the region of practical equivalence, in score units.
    threshold : float
        Posterior probability needed to claim a region.
    posterior_draws : int
        Posterior draws per decision (≥ 100; each costs ``blocks`` Gamma draws per benchmark).
    """

    rope: float = 0.01
    threshold: float = 0.95
    posterior_draws: int = 1000

    def options(self, pairs: set[int]) -> BayesOptions:
        """The checked settings of the test deciding the pairs at ``pairs``."""
        check_rope(self.rope)
        check_threshold(self.threshold)
        draws = self.posterior_draws
        if isinstance(draws, bool) or not isinstance(draws, numbers.Integral) or draws < 100:
            raise ValueError(f"posterior_draws must be an integer ≥ 100, got {draws!r}")
        return BayesOptions(
            tuple(sorted(pairs)), float(self.rope), float(self.threshold), 0.5, int(draws)
        )

    def refuse(self) -> None:
        """The settings have no meaning for a battle design: refused when given, not ignored."""
        given = [f.name for f in fields(self) if getattr(self, f.name) != f.default]
        if given:
            raise ValueError(
                f"{', '.join(given)} belong(s) to the Bayesian signed-rank test of score tables; "
                "a battle design's tests are battles and battles-ub"
            )


@dataclass(frozen=True)
class SizeSearch:
    """What :func:`rankstats.sample_size` looks for on a power curve, and where.

    Parameters
    ----------
    target : str
        The power to reach: ``"adjacent"``, ``"pair"`` (needs ``pair``), ``"all_adjacent"``,
        ``"all_pairs"``, ``"omnibus"`` (Friedman's), or a recovery of the true order by an
        aggregator, whatever the test: ``"borda_top1"`` / ``"mean_top1"`` (P(σ^l / σ^μ ranks
        the true best first)), ``"borda_tau"`` / ``"mean_tau"`` (the mean Kendall τ_b to the
        truth, whose "power" is then that mean).
    power : float
        Target power, in (0, 1).
    vary : {"n_instances", "n_tasks", "phi", "accuracy_gap", "n_battles", "elo_step"}, optional
        What the grid varies (default ``"n_instances"``, ``"n_battles"`` for a battle design):
        instances per task, tasks, or the effect ``φ`` (the location step): then the result
        is the minimum detectable effect at the design's size; ``"accuracy_gap"`` for paired
        binary outcomes (:meth:`BenchmarkDesign.from_accuracies`): the gap between
        neighbouring accuracies, the lowest accuracy and the latent correlation kept
        (:mod:`rankstats.planning.accuracy_gap`); ``"n_battles"``, ``"elo_step"`` for a
        :class:`~rankstats.planning.battle_design.BattleDesign`.
    sizes : sequence of numbers, optional
        The grid (increasing, at least 2 values; default
        :data:`~rankstats.planning.power_analysis.DEFAULT_GRIDS` ``[vary]``).
    refine : int
        Extra simulated points, each at the crossing interpolated from the points so far (the
        interpolation error then shrinks with the bracket); 0 keeps the grid alone.
    """

    target: str = "adjacent"
    power: float = 0.8
    vary: str | None = None
    sizes: Sequence[float] | None = None
    refine: int = 2

    def checked(
        self, design: BenchmarkDesign | BattleDesign, test: str, pair: Sequence[str] | None
    ) -> SizeSearch:
        """The search with its default ``vary``, checked against the design and the test."""
        battles = isinstance(design, BattleDesign)
        vary = ("n_battles" if battles else "n_instances") if self.vary is None else self.vary
        _check_target(self.target, test, pair, battles)
        power, refine = self.power, self.refine
        if not (isinstance(power, numbers.Real) and not isinstance(power, bool) and 0 < power < 1):
            raise ValueError(f"power must be a number in (0, 1), got {power!r}")
        varies = BATTLE_VARIES if battles else VARIES
        if vary not in varies:
            raise ValueError(f"vary must be one of {', '.join(varies)}, not {vary!r}")
        if isinstance(refine, bool) or not isinstance(refine, numbers.Integral) or refine < 0:
            raise ValueError(f"refine must be an integer ≥ 0, got {refine!r}")
        if vary == "phi" and design.locations is not None:  # type: ignore[union-attr]
            raise ValueError(
                "vary='phi' changes the step of the default locations φ · (1 .. N); this design "
                "has its own locations (a fit, a pilot, accuracies): vary a size, or use "
                "rs.calibrate(pilot).detectable() for the smallest detectable step"
            )
        if vary == "elo_step" and design.ratings is not None:  # type: ignore[union-attr]
            raise ValueError(
                "vary='elo_step' changes the step of the default ratings elo_step · (0 .. N−1); "
                "this design has its own ratings (a fit): vary n_battles"
            )
        return SizeSearch(self.target, float(power), vary, self.sizes, int(refine))


def _check_target(target: str, test: str, pair: Sequence[str] | None, battles: bool) -> None:
    """``target`` is one the test has."""
    recovery = ("bt_top1", "bt_tau") if battles else RECOVERY_TARGETS[:4]
    targets = tuple(t for t in TARGETS if not (battles and t == "omnibus"))
    if target not in (*targets, *recovery):
        known = ", ".join((*targets, *recovery))
        raise ValueError(f"target must be one of {known}, not {target!r}")
    if target in TARGETS and (target == "omnibus") != (test not in (*PAIR_TESTS, *BATTLE_TESTS)):
        raise ValueError(
            "target 'omnibus' is the omnibus tests' (friedman, imputed), and, with the recovery "
            "targets, their only target"
        )
    if target == "pair" and pair is None:
        raise ValueError("target='pair' needs pair=(system, system)")
    if test == "bayes" and target == "all_pairs":
        raise ValueError(
            "the Bayesian signed-rank test decides the named pair and the adjacent pairs only: "
            "target 'all_pairs' is not available for it"
        )


#: The keywords of :func:`rankstats.power` / :func:`rankstats.sample_size` that are now fields
#: of the options objects (for :func:`rankstats._util.renamed.grouped_parameters`).
BAYES_KEYWORDS = tuple(f.name for f in fields(BayesSettings))
SEARCH_KEYWORDS = tuple(f.name for f in fields(SizeSearch))

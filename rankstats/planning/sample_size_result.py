r"""Reading a sample size (or a detectable effect) off a simulated power curve.

The power estimates :math:`\hat\pi_g` at the grid values :math:`n_g` are made monotone by
isotonic regression (``scipy.optimize.isotonic_regression``, pool adjacent violators: power can
only grow with the size or the effect, so a dip is Monte Carlo noise), and the size at which the
fit reaches the target :math:`\pi^*` is interpolated linearly in :math:`\log n` between the two
grid values around the crossing. The curves :math:`\hat\pi_g \pm 1.96\,\mathrm{se}_g`, made
monotone the same way, cross the target at the ends of an interval that says how far the
simulation pins the size down (it does not include the uncertainty of the design's own
parameters). Nothing is extrapolated beyond the grid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.optimize import isotonic_regression

from rankstats._util.text import mpl_text
from rankstats.planning.power_result import (
    RECOVERY_TARGETS,
    TARGET_WORDS,
    PowerResult,
    test_label,
)

#: Normal quantile of the two-sided 95 % band around the power curve.
Z95 = 1.959963984540054
VARY_WORDS = {
    "n_instances": "instances per task",
    "n_tasks": "tasks",
    "phi": "location step φ",
    "n_battles": "battles",
    "elo_step": "rating step (Elo points)",
    "accuracy_gap": "accuracy gap between neighbours",
}
#: What varies the effect rather than a size: a real number, not a count.
EFFECTS = ("phi", "elo_step", "accuracy_gap")


def monotone(values: np.ndarray) -> np.ndarray:
    """The increasing isotonic fit of ``values`` (least squares, equal weights)."""
    return np.clip(isotonic_regression(np.asarray(values, dtype=np.float64)).x, 0.0, 1.0)


def first_crossing(grid: np.ndarray, fitted: np.ndarray, target: float) -> float | None:
    """Where the increasing ``fitted`` reaches ``target``, interpolated in ``log(grid)``; the
    first grid value when it starts above; None when it never gets there."""
    above = np.flatnonzero(fitted >= target)
    if len(above) == 0:
        return None
    i = int(above[0])
    if i == 0:
        return float(grid[0])
    x0, x1 = np.log(grid[i - 1]), np.log(grid[i])
    y0, y1 = fitted[i - 1], fitted[i]
    return float(np.exp(x0 + (target - y0) / (y1 - y0) * (x1 - x0)))


@dataclass(frozen=True, eq=False, repr=False)
class SampleSizeResult:
    """The size (or effect) that reaches a target power: the result of
    :func:`rankstats.sample_size`.

    Attributes
    ----------
    size : float or None
        Where the monotone power curve reaches the target (a whole number of instances or tasks
        is ``ceil(size)``); None when the grid never reaches it.
    interval : tuple of (float or None)
        Where the curves ± 1.96 Monte Carlo s.e. reach the target: ``(low, high)``; ``high`` is
        None when the lower curve does not reach it on the grid.
    at_smallest : bool
        The target is reached at the smallest grid value already (``size`` is then an upper
        bound: the grid says nothing below it).
    curve : pandas.DataFrame
        Per grid value: ``power``, ``power_se``, ``fitted``, ``low``, ``high`` (the monotone
        fits of the estimate and of the band) and, for a pair target, ``type_s``, ``type_m``.
    results : tuple of PowerResult
        The simulations behind each point.
    test, target, vary : str
    power : float
        The target power.
    """

    size: float | None
    interval: tuple[float | None, float | None]
    at_smallest: bool
    curve: pd.DataFrame
    results: tuple[PowerResult, ...]
    test: str
    target: str
    vary: str
    power: float

    @property
    def needed(self) -> float | None:
        """``size`` rounded up to a whole number of instances or tasks (``size`` itself for
        ``vary="phi"``)."""
        if self.size is None or self.vary in EFFECTS:
            return self.size
        return float(np.ceil(self.size - 1e-9))

    def interval_text(self) -> str:
        """The 95 % Monte Carlo interval, e.g. ``"1,452–1,530"`` (sizes as whole numbers)."""
        low, high = self.interval

        def shown(value: float | None) -> str:
            if value is None:
                return "beyond the grid"
            return f"{value:.3g}" if self.vary in EFFECTS else f"{np.ceil(value - 1e-9):,.0f}"

        return f"{shown(low)}–{shown(high)}"

    def _label(self) -> str:
        """The test's name (the Wilcoxon test's with its treatment of zero differences)."""
        return test_label(self.test, self.results[0].zero_method)

    def _subject(self) -> str:
        """What reaches the target: ``"<test> at α = … reaches power 0.8 for <target>"``."""
        alpha = self.results[0].alpha
        words = TARGET_WORDS[self.target]
        if self.target in RECOVERY_TARGETS:
            kind = "mean" if self.target.endswith("_tau") else "probability of"
            return f"the {kind} {words.removeprefix('the mean ')} reaches {self.power:g}"
        level = "" if self.test == "bayes" else f" at α = {alpha:g}"  # a posterior claim
        if self.results[0].by == "battle":
            words = words.replace("systems", "models")
        return f"{self._label()}{level} reaches power {self.power:g} for {words}"

    def sentence(self) -> str:
        """One sentence for a methods section."""
        first = self.results[0]
        d = first.design
        what = VARY_WORDS[self.vary]
        simulated = "battle logs" if first.by == "battle" else "benchmarks"
        reps = f"{first.n_replications:,} simulated {simulated} per point; Card et al. 2020"
        units = "models" if first.by == "battle" else "systems"
        subject = self._subject()
        if self.size is None:
            top = self.curve.index[-1]
            return (
                f"Not reached within the grid: {subject.replace('reaches', 'would reach')} "
                f"only beyond {top:,g} {what} (there {self.curve['power'].iloc[-1]:.3f}; "
                f"{d.n_systems} {units}, {d.effect()}; {reps})."
            )
        span = self.interval_text()
        if self.vary == "accuracy_gap":
            lowest = float(d.accuracies.min())
            return (
                f"With {d.n_instances:,} instances in each of {d.n_tasks} task(s), {subject} "
                f"from an accuracy gap of {self.size:.3g} between neighbouring systems (the "
                f"lowest accuracy {lowest:.3g}, latent correlation {d.correlation:.3g}; 95 % "
                f"Monte Carlo interval {span}; {reps})."
            )
        if self.vary == "elo_step":
            return (
                f"With {d.n_battles:,} battles among {d.n_models} models, {subject} from a "
                f"rating step of {self.size:.3g} Elo points between neighbours (95 % Monte "
                f"Carlo interval {span}; {reps})."
            )
        if self.vary == "phi":
            return (
                f"With {d.n_instances:,} instances in each of {d.n_tasks} task(s), "
                f"{subject} from a location step of φ = {self.size:.3g} (scale {d.scale:g}; "
                f"95 % Monte Carlo interval {span}; {reps})."
            )
        bound = "at most " if self.at_smallest else ""
        beyond = d.replace(**{self.vary: int(self.needed)}).extrapolation(brief=True)
        text = (
            f"{subject} with {bound}{self.needed:,.0f} {what} (95 % Monte Carlo interval "
            f"{span}; {d.n_systems} {units}, {d.effect()}; {reps}"
            f"{'; ' + beyond if beyond else ''})."
        )
        return text[0].upper() + text[1:]

    def plot(self) -> Figure:
        """The power curve: estimates with ± 1.96 s.e. bars, the monotone fit, the target and
        the size read off it."""
        fig = Figure(figsize=(6.0, 4.0), layout="constrained")
        ax = fig.add_subplot()
        x = self.curve.index.to_numpy(dtype=float)
        ax.errorbar(
            x,
            self.curve["power"],
            yerr=Z95 * self.curve["power_se"],
            fmt="o",
            color="C0",
            capsize=3,
            label="simulated power ± 1.96 s.e.",
        )
        ax.plot(x, self.curve["fitted"], color="C0", lw=1.2, label="monotone fit")
        ax.fill_between(x, self.curve["low"], self.curve["high"], color="C0", alpha=0.15, lw=0)
        ax.axhline(self.power, color="0.4", ls="--", lw=1, label=f"target {self.power:g}")
        if self.size is not None:
            shown = f"{self.size:.3g}" if self.vary in EFFECTS else f"{self.needed:,.0f}"
            ax.axvline(self.size, color="C3", lw=1, label=f"{shown} {VARY_WORDS[self.vary]}")
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(mpl_text(VARY_WORDS[self.vary]))
        recovery = self.target in RECOVERY_TARGETS
        ax.set_ylabel(
            "mean Kendall τ"
            if self.target.endswith("_tau")
            else "probability"
            if recovery
            else "power"
        )
        title = (
            TARGET_WORDS[self.target]
            if recovery
            else f"{self._label()}: {TARGET_WORDS[self.target]}"
        )
        ax.set_title(mpl_text(title), fontsize="medium", wrap=True)
        ax.legend(loc="lower right", fontsize="small")
        return fig

    def __repr__(self) -> str:
        head = (
            f"SampleSizeResult({self.test}, target {self.target}, power {self.power:g}, "
            f"varying {self.vary})"
        )
        if self.size is None:
            answer = "  not reached on the grid"
        else:
            answer = (
                f"  {'≤ ' if self.at_smallest else ''}{self.needed:g} "
                f"(95 % Monte Carlo interval {self.interval_text()})"
            )
        table = self.curve[["power", "power_se", "fitted"]].to_string(
            float_format=lambda v: f"{v:.3f}"
        )
        return "\n".join([head, answer, *("  " + line for line in table.splitlines())])


def crossing(
    results: list[PowerResult],
    test: str,
    target: str,
    power: float,
    vary: str,
    grid: tuple,
) -> SampleSizeResult:
    """The :class:`SampleSizeResult` of the power simulated at every grid value."""
    values = np.array([r.power_of(test, target) for r in results])
    estimate, se = values[:, 0], values[:, 1]
    se = np.where(np.isfinite(se), se, 0.0)
    x = np.asarray(grid, dtype=np.float64)
    fitted = monotone(estimate)
    low = monotone(estimate - Z95 * se)
    high = monotone(estimate + Z95 * se)
    curve = pd.DataFrame(
        {"power": estimate, "power_se": se, "fitted": fitted, "low": low, "high": high},
        index=pd.Index(grid, name=vary),
    )
    if target == "pair":
        for column in ("type_s", "type_m"):
            curve[column] = [_pair_value(r, test, column) for r in results]
    size = first_crossing(x, fitted, power)
    return SampleSizeResult(
        size=size,
        interval=(first_crossing(x, high, power), first_crossing(x, low, power)),
        at_smallest=size is not None and fitted[0] >= power,
        curve=curve,
        results=tuple(results),
        test=test,
        target=target,
        vary=vary,
        power=power,
    )


def _pair_value(result: PowerResult, test: str, column: str) -> float:
    a, b = result.pair or ("", "")
    rows = result.pairs[
        (result.pairs["test"] == test)
        & (
            ((result.pairs["system_a"] == a) & (result.pairs["system_b"] == b))
            | ((result.pairs["system_a"] == b) & (result.pairs["system_b"] == a))
        )
    ]
    return float(rows[column].iloc[0]) if len(rows) else float("nan")

r"""A benchmark design calibrated on a pilot score table, and how well it matches the pilot.

``rs.calibrate(pilot)`` estimates, from a table the user already has, a
:class:`~rankstats.planning.design.BenchmarkDesign` whose simulated benchmarks look like it:

- each task's scores are put on one scale: :math:`z = (x - \bar x_t) / s_t`, with
  :math:`\bar x_t` the mean of the systems' means in task ``t`` and :math:`s_t` the pooled
  within-system standard deviation of the task (so that tasks measured in different units
  share one model);
- system ``i``'s location :math:`\mu_i` is the mean over tasks of its mean ``z``, its scale
  :math:`s_i` the root mean over tasks of its variance of ``z`` (normal noise, Thurstone's
  case V with unequal variances);
- the correlation ρ of two systems' scores on one instance (the instance's difficulty, which
  they share) is the mean over tasks of the pairwise (complete-pair) Pearson correlations;
- the share and the pattern of the missing scores (whole (system, task) blocks, or cells);
- each task's difficulty and units :math:`(\bar x_t, s_t)`: a simulated task takes those of a
  pilot task drawn at random, its scores :math:`\bar x_t + s_t z` (rank tests do not see them;
  the paired tests, the Bayesian test's ROPE and σ^μ do).

Instance-level pilots give one block per (task, instance); a task-level pilot (one score per
system and task) is one block per task: its tasks become the instances of one task. A pilot of
binary outcomes (every score 0 or 1: right or wrong) gives the binary design of
:meth:`~rankstats.planning.design.BenchmarkDesign.from_accuracies` (accuracies, and the agreement
of the two most accurate systems).

**The checks** (what the estimates were not fitted to): per system, the Kolmogorov–Smirnov
distance between its standardised pilot scores and the model's normal distribution (binary pilots:
none); per task and pair, the pilot's win rate :math:`\hat P(a > b)` on the instances both scored
(ties ½) against the model's win probability, with the pilot rate's binomial standard error.
:attr:`Calibration.max_win_gap` and the (task, pair) rates more than 3 standard errors away
(:attr:`Calibration.misfits`) summarise them. Sizes beyond the pilot's (more instances or tasks)
are extrapolations of the model: the design records the pilot's sizes and every result says when
it goes beyond them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util.arguments import random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import terminal
from rankstats.core.scores import Scores
from rankstats.errors import InvalidScoresError
from rankstats.planning.design import BenchmarkDesign, pair_indices
from rankstats.planning.power_result import test_label

#: Pairs whose pilot win rate is this many standard errors from the model's are listed as misfits.
MISFIT_SE = 3.0


@renamed_parameters(level="by")
@dataclass(frozen=True, eq=False, repr=False)
class Calibration:
    """A design calibrated on a pilot table: the result of :func:`rankstats.calibrate`.

    Attributes
    ----------
    design : BenchmarkDesign
        The calibrated design (its sizes default to the pilot's; ``design.replace(n_instances=…)``
        for others).
    systems : pandas.DataFrame
        Per system: ``location`` :math:`\\mu_i`, ``scale`` :math:`s_i` (standardised units), the
        pilot's ``n`` scores, ``ks_distance`` and ``ks_p_value`` of its standardised scores
        against the model's normal distribution (NaN for binary pilots; the p-value ignores that
        μ and s were estimated, so it is generous).
    pairs : pandas.DataFrame
        Per task and pair: ``pilot_win_rate`` (ties ½), ``n`` (instances both scored),
        ``model_win_rate``, ``gap`` (pilot − model) and ``gap_se`` (the gap in standard errors of
        the pilot rate). A task that ranks the systems its own way shows here.
    task_scales : pandas.Series
        The unit :math:`s_t` of each task.
    kind : {"scores", "binary"}
    by : {"instance", "task"}
        The pilot's blocks.
    """

    design: BenchmarkDesign
    systems: pd.DataFrame
    pairs: pd.DataFrame
    task_scales: pd.Series
    kind: str
    by: str

    @property
    def max_win_gap(self) -> float:
        """Largest ``|pilot − model|`` win rate over the pairs."""
        return float(self.pairs["gap"].abs().max())

    @property
    def misfits(self) -> pd.DataFrame:
        """The (task, pair) rates more than 3 standard errors from the model's."""
        return self.pairs[self.pairs["gap_se"].abs() > MISFIT_SE]

    def summary(self) -> str:
        """Two lines: what was estimated, how well it matches."""
        d = self.design
        head = f"{d.n_systems} systems; {d.effect()} ({self.by} blocks)"
        ks = self.systems["ks_distance"]
        fit = (
            f"win rates: largest gap {self.max_win_gap:.3f}, {len(self.misfits)} of "
            f"{len(self.pairs)} (task, pair) rates beyond {MISFIT_SE:g} s.e."
        )
        if ks.notna().any():
            fit += f"; Kolmogorov–Smirnov distance to the normal model at most {ks.max():.3f}"
        return f"{head}\n{fit}"

    @renamed_parameters(replications="n_replications")
    def detectable(
        self,
        test: str | None = None,
        power: float = 0.8,
        target: str = "adjacent",
        n_replications: int = 1000,
        seed: int = 0,
        progress: bool = False,
        sizes: Sequence[float] | None = None,
        refine: int = 2,
        zero_method: str | None = None,
    ) -> Detectable:
        r"""The smallest difference between neighbouring systems this benchmark detects.

        The calibrated noise (its correlation, the root mean square of the systems' scales) and
        sizes, with ``N`` systems equally spaced by a step φ (in units of the task's
        within-system standard deviation): :func:`rankstats.sample_size` with ``vary="phi"``
        finds the step at which ``test`` reaches ``power`` for ``target`` (by default: one
        pair of neighbours, every pair in the family of the multiplicity correction). The
        result says it in score points of each task (:math:`\varphi\, s_t`) and as the share
        of instances the better neighbour wins, :math:`\Phi(\varphi / (\bar s
        \sqrt{2(1 - \rho)}))`. ``test`` defaults to the paired t-test (``"t"``).

        A binary pilot (right / wrong) is varied by the gap between neighbouring accuracies
        instead, from its lowest accuracy and at its latent correlation
        (:mod:`rankstats.planning.accuracy_gap`), with the exact McNemar test by default.
        ``zero_method``: the Wilcoxon test's zero differences, as in :func:`rankstats.power`.
        """
        random_seed("seed", seed)
        from rankstats.planning.power_analysis import sample_size
        from rankstats.planning.power_options import SizeSearch

        d = self.design
        search = SizeSearch(target=target, power=power, sizes=sizes, refine=refine)
        common = dict(
            n_replications=n_replications, seed=seed, progress=progress, zero_method=zero_method
        )
        if d.outcome == "binary":
            test = "mcnemar" if test is None else test
            search = dataclasses.replace(search, vary="accuracy_gap")
            curve = sample_size(d, test=test, search=search, **common)
            return Detectable(curve, self.task_scales, 1.0, d.correlation, kind="binary")
        spread = float(np.sqrt(np.mean(np.square(d.scales)))) if d.scales else 1.0
        base = BenchmarkDesign(
            n_systems=d.n_systems,
            n_tasks=d.n_tasks,
            n_instances=d.n_instances,
            noise="normal",
            scale=spread,
            correlation=d.correlation,
            missing_rate=d.missing_rate,
            missing_pattern=d.missing_pattern,
            task_effects=d.task_effects,
            pilot=d.pilot,
        )
        search = dataclasses.replace(search, vary="phi")
        curve = sample_size(base, test="t" if test is None else test, search=search, **common)
        return Detectable(curve, self.task_scales, spread, d.correlation)

    def plot(self):
        """Pilot against model win rates, one point per pair, with ± 2 s.e. bars."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=(4.5, 4.5), layout="constrained")
        ax = fig.add_subplot()
        p = self.pairs
        se = np.sqrt(p["pilot_win_rate"] * (1 - p["pilot_win_rate"]) / p["n"].clip(lower=1))
        ax.errorbar(
            p["model_win_rate"],
            p["pilot_win_rate"],
            yerr=2 * se,
            fmt="o",
            ms=3,
            color="C0",
            alpha=0.7,
            lw=0.8,
        )
        ax.plot([0, 1], [0, 1], color="0.4", lw=1, ls="--")
        ax.set_xlabel("model P(a beats b)")
        ax.set_ylabel("pilot win rate (± 2 s.e.)")
        ax.set_title("calibrated design against the pilot", fontsize="medium")
        return fig

    def __repr__(self) -> str:
        lines = [f"Calibration({self.kind})", *("  " + s for s in self.summary().splitlines())]
        worst = self.pairs.reindex(self.pairs["gap"].abs().sort_values(ascending=False).index)
        for _, row in worst.head(3).iterrows():
            lines.append(
                f"  {terminal(row['task'])}: {terminal(row['system_a'])} vs "
                f"{terminal(row['system_b'])}: pilot {row['pilot_win_rate']:.3f}, model "
                f"{row['model_win_rate']:.3f}"
            )
        return "\n".join(lines)


@dataclass(frozen=True, eq=False, repr=False)
class Detectable:
    """The smallest detectable difference between neighbours (:meth:`Calibration.detectable`).

    Attributes
    ----------
    curve : SampleSizeResult
        The power curve over the step φ (``.size`` is the step, None when not reached).
    task_scales : pandas.Series
        The unit of each task: the step in score points is ``step × unit``.
    spread, correlation : float
        The noise of the calibrated design.
    """

    curve: Any
    task_scales: pd.Series
    spread: float
    correlation: float
    kind: str = "scores"

    @property
    def step(self) -> float | None:
        """φ, in units of the task's within-system standard deviation (binary pilots: the gap
        between neighbouring accuracies)."""
        return self.curve.size

    @property
    def win_rate(self) -> float | None:
        """Share of instances the better of two neighbours wins at that step (None for binary
        pilots: a tie, both right or both wrong, is the rule there)."""
        if self.step is None or self.kind == "binary":
            return None
        sd = self.spread * np.sqrt(2 * (1 - self.correlation))
        return float(stats.norm.cdf(self.step / sd))

    @property
    def points(self) -> pd.Series | None:
        """The step in each task's score points (None for binary pilots)."""
        if self.step is None or self.kind == "binary":
            return None
        return self.step * self.task_scales

    def sentence(self) -> str:
        """ "With N instances, this benchmark detects …" for a methods section."""
        first = self.curve.results[0]
        d, test = first.design, self.curve.test
        label = test_label(test, first.zero_method, prose=True)
        sizes = f"{d.n_instances:,} instances in each of {d.n_tasks} task(s)"
        if self.kind == "binary":
            return self._binary_sentence(sizes, label)
        if self.step is None:
            top = self.curve.curve.index[-1]
            return (
                f"With {sizes}, this benchmark does not detect a difference between neighbouring "
                f"systems with power {self.curve.power:g} by {label} even at a step of {top:g} "
                f"within-system standard deviations (simulated; Card et al. 2020)."
            )
        points = self.points
        shown = ", ".join(f"{v:.3g} on {terminal(str(t))}" for t, v in points.head(3).items()) + (
            " …" if len(points) > 3 else ""
        )
        return (
            f"With {sizes}, this benchmark detects a difference between neighbouring systems of "
            f"at least {self.step:.3g} within-system standard deviations ({shown} in score "
            f"points; the better system then wins {self.win_rate:.0%} of the instances) with "
            f"power {self.curve.power:g} by {label} at α = {first.alpha:g}, every pair of the "
            f"{d.n_systems} systems in the family (simulated from a design calibrated on this "
            f"benchmark, {first.n_replications:,} benchmarks per point; Card et al. 2020)."
        )

    def _binary_sentence(self, sizes: str, label: str) -> str:
        first = self.curve.results[0]
        lowest = float(first.design.accuracies.min())
        if self.step is None:
            top = self.curve.curve.index[-1]
            return (
                f"With {sizes}, this benchmark does not detect an accuracy gap between "
                f"neighbouring systems with power {self.curve.power:g} by {label} even at "
                f"{top:g} (simulated; Card et al. 2020)."
            )
        return (
            f"With {sizes}, this benchmark detects an accuracy gap between neighbouring systems "
            f"of at least {self.step:.3g} (from the lowest accuracy, {lowest:.3g}; latent "
            f"correlation {self.correlation:.3g}) with power {self.curve.power:g} by {label} at "
            f"α = {first.alpha:g}, every pair of the {first.design.n_systems} systems in the "
            f"family (simulated from a design calibrated on this benchmark, "
            f"{first.n_replications:,} benchmarks per point; Card et al. 2020)."
        )

    def __repr__(self) -> str:
        return f"Detectable(step {self.step}, win rate {self.win_rate})\n  {self.sentence()}"


def _blocks(pilot: Scores) -> tuple[list[np.ndarray], str]:
    """One ``(instances, systems)`` matrix per task (task level: one matrix, tasks as rows)."""
    systems = list(pilot.systems)
    data = pilot.data
    if pilot.has_instances:
        out = []
        for _, part in data.groupby("task", observed=True, sort=False):
            wide = part.pivot_table(
                index="instance", columns="system", values="score", observed=False, dropna=False
            )
            out.append(wide.reindex(columns=systems).to_numpy(dtype=np.float64))
        return out, "instance"
    wide = data.pivot_table(
        index="task", columns="system", values="score", observed=False, dropna=False
    )
    return [wide.reindex(columns=systems).to_numpy(dtype=np.float64)], "task"


def calibrate(
    pilot: Scores, n_tasks: int | None = None, n_instances: int | None = None
) -> Calibration:
    r"""A :class:`~rankstats.planning.design.BenchmarkDesign` that looks like a pilot table.

    See :mod:`rankstats.planning.calibration` for the estimates and the checks.

    Parameters
    ----------
    pilot : Scores
        The pilot: instance level (one block per (task, instance)) or task level (one block per
        task). Lower-is-better tasks are already turned around by :class:`~rankstats.Scores`.
    n_tasks, n_instances : int, optional
        The design's sizes (default: the pilot's; its median number of instances per task).

    Returns
    -------
    Calibration
        ``.design``, the checks ``.systems`` and ``.pairs``, ``.summary()``, ``.plot()``.

    Raises
    ------
    InvalidScoresError
        A pilot with fewer than two systems, a system without a score, a task (or, at task
        level, a system) whose scores do not vary, or fewer than two blocks.

    Examples
    --------
    >>> import rankstats as rs
    >>> cal = rs.calibrate(rs.load_dataset("summeval").select(tasks=["BERTScore"]))
    >>> cal.design.n_systems, cal.design.pilot
    (16, (1, 100))
    """
    if not isinstance(pilot, Scores):
        raise TypeError(f"pilot must be a rs.Scores table, not {type(pilot).__name__}")
    systems = tuple(str(s) for s in pilot.systems)
    if len(systems) < 2:
        raise InvalidScoresError("a pilot needs at least two systems")
    blocks, by = _blocks(pilot)
    n_blocks = sum(len(b) for b in blocks)
    if n_blocks < 2:
        raise InvalidScoresError(f"a pilot needs at least two blocks, not {n_blocks}")
    never = [
        s
        for s, c in zip(systems, sum((~np.isnan(b)).sum(0) for b in blocks), strict=True)
        if c == 0
    ]
    if never:
        raise InvalidScoresError(f"system(s) without a score in the pilot: {', '.join(never[:5])}")
    values = np.concatenate([b[~np.isnan(b)] for b in blocks])
    binary = bool(np.all((values == 0) | (values == 1)))
    pilot_sizes = (
        (len(blocks), int(np.median([len(b) for b in blocks])))
        if by == "instance"
        else (1, n_blocks)
    )
    sizes = {
        "n_tasks": n_tasks if n_tasks is not None else pilot_sizes[0],
        "n_instances": n_instances if n_instances is not None else pilot_sizes[1],
    }
    missing_rate, pattern = _missing(blocks)
    if binary:
        design, table, units = _binary(blocks, systems, sizes, missing_rate, pattern)
    else:
        design, table, units = _normal(blocks, systems, sizes, missing_rate, pattern)
    design = design.replace(pilot=pilot_sizes)
    task_names = list(pilot.tasks) if by == "instance" else ["(tasks as blocks)"]
    return Calibration(
        design=design,
        systems=table,
        pairs=_win_rates(blocks, design, task_names),
        task_scales=pd.Series(units, index=task_names, name="scale"),
        kind="binary" if binary else "scores",
        by=by,
    )


def _missing(blocks: list[np.ndarray]) -> tuple[float, str]:
    """Share of missing cells, and "block" when each (system, task) is scored on all or none of
    the task's instances (else "cell")."""
    cells = sum(b.size for b in blocks)
    absent = sum(int(np.isnan(b).sum()) for b in blocks)
    whole = all(np.all(np.isnan(b).all(axis=0) | (~np.isnan(b)).all(axis=0)) for b in blocks)
    share = absent / cells if cells else 0.0
    return min(share, 0.99), "block" if whole and len(blocks) > 1 else "cell"


def _normal(
    blocks: list[np.ndarray],
    systems: tuple[str, ...],
    sizes: dict,
    missing_rate: float,
    pattern: str,
) -> tuple[BenchmarkDesign, pd.DataFrame, list[float]]:
    n = len(systems)
    units, centres, means, variances, weights, correlations = [], [], [], [], [], []
    standardised = []
    for b in blocks:
        present = ~np.isnan(b)
        count = present.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(present, b, 0.0).sum(axis=0) / count
            var = (np.where(present, b - mean, 0.0) ** 2).sum(axis=0) / (count - 1)
        ok = count >= 2
        unit = float(np.sqrt(np.nanmean(np.where(ok, var, np.nan)))) if ok.any() else np.nan
        if not np.isfinite(unit) or unit <= 0:
            raise InvalidScoresError(
                "a pilot task's scores do not vary within any system: it carries no noise to "
                "calibrate (give instance-level scores, or leave the task out)"
            )
        centre = float(np.nanmean(np.where(count > 0, mean, np.nan)))
        z = (b - centre) / unit
        standardised.append(z)
        units.append(unit)
        centres.append(centre)
        means.append(np.where(count > 0, (mean - centre) / unit, np.nan))
        variances.append(np.where(ok, var / unit**2, np.nan))
        weights.append(count)
        correlations.append(_mean_correlation(z))
    mu = np.nanmean(np.vstack(means), axis=0)
    if np.any(~np.isfinite(mu)):
        raise InvalidScoresError("a system has no score to locate it")
    var = np.nanmean(np.vstack(variances), axis=0)
    if np.any(~np.isfinite(var)) or np.any(var <= 0):
        raise InvalidScoresError(
            "a system's scores do not vary (or it has one score per task): its noise cannot be "
            "calibrated"
        )
    valid = [c for c in correlations if np.isfinite(c)]
    rho = float(np.mean(valid)) if valid else 0.0
    rho = float(np.clip(rho, -1.0 / (n - 1) + 1e-9, 0.999))
    scales = np.sqrt(var)
    design = BenchmarkDesign(
        n_systems=n,
        locations=tuple(mu - mu.mean()),
        systems=systems,
        scale=1.0,
        noise="normal",
        correlation=rho,
        scales=tuple(scales),
        task_effects=tuple(zip(centres, units, strict=True)),
        missing_rate=missing_rate,
        missing_pattern=pattern,
        **sizes,
    )
    z_all = [np.concatenate([z[:, i][~np.isnan(z[:, i])] for z in standardised]) for i in range(n)]
    # Standardised first: scipy 1.18's kstest(x, "norm", args=(loc, scale)) passes the arguments
    # to a ufunc that takes none (the statistic is the same).
    ks = [stats.kstest((v - m) / s, "norm") for v, m, s in zip(z_all, mu, scales, strict=True)]
    table = pd.DataFrame(
        {
            "system": systems,
            "location": mu - mu.mean(),
            "scale": scales,
            "n": [len(v) for v in z_all],
            "ks_distance": [k.statistic for k in ks],
            "ks_p_value": [k.pvalue for k in ks],
        }
    )
    return design, table, units


def _mean_correlation(z: np.ndarray) -> float:
    """Mean of the pairwise (complete-pair) Pearson correlations of the columns of ``z``."""
    frame = pd.DataFrame(z)
    corr = frame.corr(min_periods=3).to_numpy()
    upper = corr[np.triu_indices(corr.shape[0], 1)]
    upper = upper[np.isfinite(upper)]
    return float(upper.mean()) if len(upper) else float("nan")


def _binary(
    blocks: list[np.ndarray],
    systems: tuple[str, ...],
    sizes: dict,
    missing_rate: float,
    pattern: str,
) -> tuple[BenchmarkDesign, pd.DataFrame, list[float]]:
    stacked = np.vstack(blocks)
    present = ~np.isnan(stacked)
    accuracy = np.where(present, stacked, 0.0).sum(axis=0) / present.sum(axis=0)
    inside = np.clip(accuracy, 1e-4, 1 - 1e-4)  # all right (or wrong): a finite location
    top = np.argsort(-inside, kind="stable")[:2]
    both = present[:, top[0]] & present[:, top[1]]
    agreement = (
        float(np.mean(stacked[both, top[0]] == stacked[both, top[1]])) if both.any() else None
    )
    try:
        design = BenchmarkDesign.from_accuracies(
            inside,
            agreement,
            systems=systems,
            missing_rate=missing_rate,
            missing_pattern=pattern,
            **sizes,
        )
    except ValueError:  # an agreement at the edge of the possible range: the nearest possible
        design = BenchmarkDesign.from_accuracies(
            inside,
            None,
            systems=systems,
            missing_rate=missing_rate,
            missing_pattern=pattern,
            **sizes,
        )
    table = pd.DataFrame(
        {
            "system": systems,
            "location": design.mu,
            "scale": 1.0,
            "n": present.sum(axis=0),
            "accuracy": accuracy,
            "ks_distance": np.nan,
            "ks_p_value": np.nan,
        }
    )
    return design, table, [1.0] * len(blocks)


def _win_rates(blocks: list[np.ndarray], design: BenchmarkDesign, tasks: list[str]) -> pd.DataFrame:
    """The pilot's win rate of every pair in every task (ties ½) against the model's win
    probability (one location per system for all tasks: a task that ranks the systems its own
    way shows up here, where the pooled rates would average it away)."""
    ia, ib = pair_indices(design.n_systems)
    names = design.names
    if design.outcome == "binary":
        model = np.array(
            [
                (lambda p: p[0] + 0.5 * (1 - p[0] - p[1]))(design.discordance(names[a], names[b]))
                for a, b in zip(ia, ib, strict=True)
            ]
        )
    else:
        model = design.win_probabilities(ia, ib)
    frames = []
    for task, b in zip(tasks, blocks, strict=True):
        d = b[:, ia] - b[:, ib]
        count = (~np.isnan(d)).sum(axis=0).astype(np.float64)
        wins = (d > 0).sum(axis=0) + 0.5 * (d == 0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = wins / count
            se = np.sqrt(np.clip(model * (1 - model), 1e-12, None) / count)
            gap_se = (rate - model) / se
        frames.append(
            pd.DataFrame(
                {
                    "task": task,
                    "system_a": [names[a] for a in ia],
                    "system_b": [names[b] for b in ib],
                    "n": count.astype(np.int64),
                    "pilot_win_rate": rate,
                    "model_win_rate": model,
                    "gap": rate - model,
                    "gap_se": gap_se,
                }
            )
        )
    return pd.concat(frames, ignore_index=True).query("n > 0").reset_index(drop=True)

"""rs.calibrate: a design estimated from a pilot table recovers the simulator's own parameters
from data it generated, says how well it matches a pilot it does not fit, and never extrapolates
silently."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.planning.design import BenchmarkDesign
from rankstats.simulate.gumbel_benchmark import cube_to_scores


def _pilot(design: BenchmarkDesign, seed: int = 0, cube: np.ndarray | None = None) -> rs.Scores:
    cube = design.draw(1, np.random.default_rng(seed))[0] if cube is None else cube
    tasks = [f"t{k}" for k in range(cube.shape[1])]
    frame = cube_to_scores(cube, design.names, tasks, instances=True).dropna(subset=["score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        return rs.Scores.from_long(frame, instance="instance")


@pytest.mark.parametrize("pattern", ["cell", "block"])
def test_calibration_recovers_the_simulator_s_parameters(pattern: str) -> None:
    truth = BenchmarkDesign(
        n_systems=4,
        n_tasks=6,
        n_instances=400,
        noise="normal",
        locations=(0.0, 0.3, 0.6, 1.0),
        scales=(1.0, 1.5, 0.7, 1.2),
        correlation=0.5,
        missing_rate=0.1,
        missing_pattern=pattern,
    )
    cal = rs.calibrate(_pilot(truth))
    d = cal.design
    # Instances with fewer than two scores are dropped by Scores: the median is about 400.
    assert d.pilot[0] == 6 and 390 <= d.pilot[1] <= 400 and d.n_instances == d.pilot[1]
    assert d.correlation == pytest.approx(0.5, abs=0.05)
    assert d.missing_rate == pytest.approx(0.1, abs=0.03) and d.missing_pattern == pattern
    # Scales and locations in the task's unit √(mean s²): ratios and win rates are unit-free.
    scales = np.asarray(truth.scales)
    np.testing.assert_allclose(
        np.asarray(d.scales) / np.sqrt(np.mean(np.square(d.scales))),
        scales / np.sqrt(np.mean(scales**2)),
        rtol=0.08,
    )
    for a, b in [("sys02", "sys01"), ("sys04", "sys01"), ("sys04", "sys03")]:
        assert d.win_probability(a, b) == pytest.approx(truth.win_probability(a, b), abs=0.02)
    assert cal.pairs["gap_se"].abs().max() < 3.5  # 6 tasks × 6 pairs of ~400 instances
    assert cal.systems["ks_distance"].max() < 0.05


def test_the_checks_flag_what_the_model_cannot_fit() -> None:
    base = BenchmarkDesign(
        n_systems=4, n_tasks=2, n_instances=300, noise="normal", locations=(0.0, 0.2, 0.4, 0.6)
    )
    cube = base.draw(1, np.random.default_rng(1))[0]
    skewed = cube.copy()
    skewed = np.exp(2 * skewed)  # log-normal scores: far from normal
    assert rs.calibrate(_pilot(base, cube=skewed)).systems["ks_distance"].max() > 0.15
    reversed_task = cube.copy()
    reversed_task[:, 1, :] = reversed_task[::-1, 1, :] * 3  # task 2 ranks the systems backwards
    cal = rs.calibrate(_pilot(base, cube=reversed_task))
    assert len(cal.misfits) > 0  # one location per system cannot rank two tasks oppositely
    assert "beyond 3 s.e." in repr(cal) and cal.plot() is not None


def test_a_binary_pilot_gives_the_accuracy_design() -> None:
    truth = rs.BenchmarkDesign.from_accuracies([0.70, 0.80, 0.85], agreement=0.9, n_instances=4000)
    cal = rs.calibrate(_pilot(truth, seed=3))
    assert cal.kind == "binary" and cal.design.outcome == "binary"
    np.testing.assert_allclose(cal.design.accuracies, [0.70, 0.80, 0.85], atol=0.02)
    p10, p01 = cal.design.discordance("sys03", "sys02")
    assert 1 - p10 - p01 == pytest.approx(0.9, abs=0.015)  # the two best agree on 90 %


def test_sizes_beyond_the_pilot_are_said_never_silent() -> None:
    cal = rs.calibrate(_pilot(BenchmarkDesign(n_systems=3, n_instances=60, noise="normal")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # at the pilot's size: nothing to say
        rs.power(cal.design, tests="t", n_replications=50, progress=False)
    with pytest.warns(rs.DataWarning, match="the pilot had 60"):
        res = rs.power(
            cal.design.replace(n_instances=600), tests="t", n_replications=50, progress=False
        )
    assert "extrapolated from a pilot of 1 task(s) × 60 instances" in res.sentence()
    assert "note: extrapolated" in repr(res)


def test_bad_pilots_are_refused() -> None:
    with pytest.raises(TypeError, match=r"rs\.Scores"):
        rs.calibrate(pd.DataFrame({"a": [1.0]}))
    flat = rs.Scores.from_long(
        pd.DataFrame(
            {
                "system": ["A", "B"] * 3,
                "task": "t",
                "instance": [0, 0, 1, 1, 2, 2],
                "score": [1.0, 2.0] * 3,
            }
        ),
        instance="instance",
    )
    with pytest.raises(rs.InvalidScoresError, match="do not vary"):
        rs.calibrate(flat)


def test_the_detectable_difference_of_two_systems_is_the_t_test_s() -> None:
    from rankstats.planning.analytic import minimum_detectable_effect

    truth = BenchmarkDesign(
        n_systems=2, n_instances=80, noise="normal", correlation=0.6, locations=(0.0, 0.3)
    )
    cal = rs.calibrate(_pilot(truth, seed=2))
    found = cal.detectable(test="t", n_replications=2000, sizes=[0.05, 0.1, 0.2, 0.4, 0.8])
    spread = float(np.sqrt(np.mean(np.square(cal.design.scales))))
    exact = (
        float(minimum_detectable_effect(80)) * spread * np.sqrt(2 * (1 - cal.design.correlation))
    )
    low, high = found.curve.interval
    assert low * 0.97 <= exact <= high * 1.03, (exact, found.curve.interval)
    assert found.win_rate == pytest.approx(
        float(stats.norm.cdf(found.step / (spread * np.sqrt(2 * (1 - cal.design.correlation)))))
    )
    assert "detects a difference between neighbouring systems of at least" in found.sentence()
    assert found.points.index.tolist() == ["t0"]


def test_calibration_recovers_task_difficulty_and_units() -> None:
    # Tasks on their own units, applied here to a standard design's cube: offset + unit · z.
    truth = BenchmarkDesign(
        n_systems=3,
        n_tasks=3,
        n_instances=600,
        noise="normal",
        locations=(-0.4, 0.0, 0.4),
        correlation=0.3,
    )
    cube = truth.draw(1, np.random.default_rng(11))[0]
    offsets, units = np.array([10.0, -2.0, 0.5]), np.array([3.0, 0.2, 1.0])
    cube = offsets[None, :, None] + units[None, :, None] * cube
    cal = rs.calibrate(_pilot(truth, cube=cube))
    effects = np.asarray(cal.design.task_effects)
    # The unit is the pooled within-system sd (1 in z): each task's unit; the centre is the
    # mean of the systems' means (0 in z).
    np.testing.assert_allclose(effects[:, 1], units, rtol=0.05)
    # sd of a task's grand mean: unit · √((1 + 2ρ) / (3 systems · 600 instances))
    assert np.all(np.abs(effects[:, 0] - offsets) <= 4 * units * np.sqrt(1.6 / 1800))
    # The simulated tasks take these units: a simulated table looks like the pilot, task by task.
    simulated = cal.design.draw(200, np.random.default_rng(3))
    per_task_mean = simulated.mean(axis=(1, 3))  # (R, T): each drawn task is one of the three
    hits = np.abs(per_task_mean[..., None] - offsets).argmin(axis=-1)
    assert set(np.unique(hits)) == {0, 1, 2}
    sd = simulated.std(axis=3).mean(axis=1)  # within (system, task) sd ≈ the task's unit
    np.testing.assert_allclose(sd, units[hits], rtol=0.15)

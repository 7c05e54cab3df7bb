"""``rs.power`` / ``rs.sample_size`` / ``Calibration.detectable`` with the Wilcoxon test's
``zero_method`` (issue 45, item 7).

The simulated rejection rates are checked against ``scipy.stats.wilcoxon(zero_method=...)`` run
here replicate by replicate and pair by pair on the same simulated benchmarks (the engine's seeded
chunks redrawn), with Holm's correction written out here, on a design whose integer scores give
many zero differences (where the three zero methods decide differently).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.planning import replications as engine
from rankstats.planning.design import BenchmarkDesign

ZERO_METHODS = ("wilcox", "pratt", "zsplit")
#: Gumbel scores rounded to whole numbers: about a quarter of the paired differences are zero.
DESIGN = BenchmarkDesign(n_systems=3, n_instances=25, phi=0.4, round_to=0)
REPS, SEED, ALPHA = 300, 3, 0.05


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), written out."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[i]))
        adjusted[i] = running
    return adjusted


def _same_benchmarks(design: BenchmarkDesign, reps: int, seed: int) -> np.ndarray:
    """The ``(R, N, T, K)`` benchmarks ``rs.power`` draws: one child of ``SeedSequence(seed)``
    per chunk of :func:`~rankstats.planning.replications.chunk_size` replications."""
    per = engine.chunk_size(design)
    children = np.random.SeedSequence(seed).spawn(-(-reps // per))
    return np.concatenate(
        [
            design.draw(min(per, reps - c * per), np.random.default_rng(child))
            for c, child in enumerate(children)
        ]
    )


def _scipy_decisions(cubes: np.ndarray, zero_method: str) -> np.ndarray:
    """``(R, P)`` signed Holm decisions (+1: the first system of the pair significantly better)
    from one ``scipy.stats.wilcoxon`` call per replicate and pair."""
    ia, ib = np.triu_indices(cubes.shape[1], 1)
    out = np.zeros((len(cubes), len(ia)), dtype=int)
    for r, cube in enumerate(cubes):
        x = cube[:, 0, :]  # (systems, instances): one task
        d = x[ia] - x[ib]
        p = np.ones(len(ia))
        for k, diff in enumerate(d):
            if np.any(diff != 0):  # all zero: no test (p = 1, as the engine counts it)
                p[k] = stats.wilcoxon(diff, zero_method=zero_method).pvalue
        out[r] = np.where(_holm(p) < ALPHA, np.sign(d.mean(axis=1)), 0)
    return out


def test_zero_differences_are_frequent_in_the_design():
    cubes = _same_benchmarks(DESIGN, 20, SEED)
    d = cubes[:, 1] - cubes[:, 2]
    assert 0.2 < np.mean(d == 0) < 0.6


def test_rejection_rates_equal_scipy_replicate_by_replicate():
    cubes = _same_benchmarks(DESIGN, REPS, SEED)
    names = DESIGN.names
    ia, ib = np.triu_indices(DESIGN.n_systems, 1)
    rates = {}
    for zero_method in ZERO_METHODS:
        res = rs.power(
            DESIGN,
            tests="wilcoxon",
            n_replications=REPS,
            seed=SEED,
            alpha=ALPHA,
            progress=False,
            zero_method=zero_method,
        )
        assert res.zero_method == zero_method
        decisions = _scipy_decisions(cubes, zero_method)
        pairs = res.pairs.set_index(["system_a", "system_b"])
        for k, (a, b) in enumerate(zip(ia, ib, strict=True)):
            if (names[a], names[b]) in pairs.index:  # system_a is the truly better one
                row, right = pairs.loc[(names[a], names[b])], decisions[:, k] == 1
                wrong = decisions[:, k] == -1
            else:
                row, right = pairs.loc[(names[b], names[a])], decisions[:, k] == -1
                wrong = decisions[:, k] == 1
            assert row["power"] == pytest.approx(right.mean(), abs=1e-12), (zero_method, a, b)
            assert row["wrong_direction"] == pytest.approx(wrong.mean(), abs=1e-12)
        rates[zero_method] = res.pairs["power"].to_numpy()
        assert 0.05 < rates[zero_method].min() and rates[zero_method].max() < 0.99
    # The zeros matter here: the methods' rates differ (the comparison above can fail).
    assert not np.allclose(rates["wilcox"], rates["pratt"])
    assert not np.allclose(rates["pratt"], rates["zsplit"])


def test_the_default_drops_zeros_and_is_stated():
    common = dict(tests=("t", "wilcoxon"), n_replications=50, seed=1, progress=False)
    default = rs.power(DESIGN, **common)
    explicit = rs.power(DESIGN, zero_method="wilcox", **common)
    assert default.zero_method == "wilcox"
    np.testing.assert_array_equal(default.pairs["power"], explicit.pairs["power"])
    assert rs.power(DESIGN, tests="t", n_replications=10, progress=False).zero_method is None
    pratt = rs.power(DESIGN, zero_method="pratt", **common)
    assert "with zero differences ranked as Pratt (1959)" in pratt.sentence("wilcoxon")
    assert "zero_method='pratt'" in repr(pratt)
    assert "Pratt" not in pratt.sentence("t")


def test_sample_size_passes_the_zero_method_to_every_point():
    common = dict(test="wilcoxon", target="adjacent", sizes=[20, 40], refine=0, progress=False)
    curve = rs.sample_size(DESIGN, n_replications=60, seed=2, zero_method="pratt", **common)
    assert [r.zero_method for r in curve.results] == ["pratt", "pratt"]
    assert "ranked as Pratt (1959)" in curve.sentence()
    at_40 = rs.power(
        DESIGN.replace(n_instances=40),
        tests="wilcoxon",
        n_replications=60,
        seed=2,
        progress=False,
        zero_method="pratt",
    )
    assert curve.curve.loc[40, "power"] == pytest.approx(at_40.power_of("wilcoxon")[0])


def test_calibration_passes_the_zero_method():
    """A binary pilot (right / wrong): most paired differences are zero."""
    rng = np.random.default_rng(4)
    right = (rng.uniform(size=(60, 3)) < [0.6, 0.7, 0.8]).astype(float)
    long = pd.DataFrame(
        [(f"s{j}", "t", i, right[i, j]) for i in range(60) for j in range(3)],
        columns=["system", "task", "instance", "score"],
    )
    scores = rs.Scores.from_long(long, instance="instance")
    cal = rs.calibrate(scores)
    found = {
        zm: cal.detectable(
            test="wilcoxon", n_replications=200, sizes=[0.05, 0.15], refine=0, zero_method=zm
        )
        for zm in ZERO_METHODS
    }
    assert {r.zero_method for r in found["zsplit"].curve.results} == {"zsplit"}
    assert "with the ranks of zero differences split" in found["zsplit"].sentence()
    power = {zm: found[zm].curve.curve["power"].to_numpy() for zm in ZERO_METHODS}
    # Every nonzero difference is ±1: Pratt's statistic is then the count of positive ones, as
    # is the dropped-zeros one, with the same normal approximation; the zeros' split ranks add
    # variance (a more cautious test).
    np.testing.assert_array_equal(power["pratt"], power["wilcox"])
    assert np.all(power["zsplit"] <= power["wilcox"]) and np.any(power["zsplit"] < power["wilcox"])


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: rs.power(DESIGN, tests="wilcoxon", zero_method="drop"), "zero_method must be"),
        (lambda: rs.power(DESIGN, tests="wilcoxon", zero_method=1), "zero_method must be"),
        (lambda: rs.power(DESIGN, tests="t", zero_method="pratt"), "applies to the Wilcoxon"),
        (lambda: rs.power(n_models=3, zero_method="pratt"), "applies to the Wilcoxon"),
        (
            lambda: rs.sample_size(DESIGN, test="sign", zero_method="pratt"),
            "applies to the Wilcoxon",
        ),
    ],
)
def test_bad_zero_methods_are_refused_before_simulating(call, needle, monkeypatch):
    def no_simulation(*args, **kwargs):
        raise AssertionError("simulated before refusing")

    monkeypatch.setattr("rankstats.planning.power_analysis.simulate_tests", no_simulation)
    with pytest.raises(ValueError, match=needle):
        call()

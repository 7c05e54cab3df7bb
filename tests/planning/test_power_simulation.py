"""Simulated power (rs.power, rs.sample_size), issue 26.

Checked against what is computed another way: the exact power of the sign test and of the
Hoeffding decision with two systems (binomial sums written out here), the noncentral t of the
paired t-test (rankstats.planning.analytic, itself tested against simulation and integrals), the
size α under the null for every test, monotonicity in size and effect, Type S / Type M by exact
enumeration, and the user-facing tests (rs.hoeffding_test, rs.friedman, rs.posthoc, rs.paired)
applied to the same simulated benchmarks one by one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.planning import replications as engine
from rankstats.planning.analytic import (
    minimum_detectable_effect,
    paired_t_power,
    paired_t_sample_size,
    sign_test_power,
)
from rankstats.planning.design import BenchmarkDesign, named_pair
from rankstats.significance.friedman_test import friedman
from rankstats.significance.posthoc_tests import posthoc
from rankstats.simulate.corruptions import Corruptions
from rankstats.simulate.gumbel_benchmark import cube_to_scores, gumbel_cube, gumbel_cubes

R = 4000


def _close(simulated: float, exact: float, n: int, k: float = 4.0) -> None:
    se = max(np.sqrt(exact * (1 - exact) / n), 1e-3)
    assert abs(simulated - exact) <= k * se, (simulated, exact, se)


def _two(phi: float, n: int, **kw) -> BenchmarkDesign:
    return BenchmarkDesign(n_systems=2, n_instances=n, phi=phi, **kw)


# --- against exact and analytic power -------------------------------------------------------------


@pytest.mark.parametrize(("phi", "n"), [(0.2, 60), (0.4, 40), (0.1, 200)])
def test_sign_test_power_is_the_exact_binomial_power(phi: float, n: int) -> None:
    design = _two(phi, n)
    p_win = design.win_probability("sys02", "sys01")  # logistic: a Gumbel difference
    res = rs.power(design, tests="sign", pair=("sys02", "sys01"), n_replications=R, progress=False)
    row = res.pairs.iloc[0]
    assert (row["system_a"], row["system_b"]) == ("sys02", "sys01")
    # Right direction only: reject (p ≤ α) with more wins for the better system.
    k = np.arange(n + 1)
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5))
    right = float(stats.binom.pmf(k, n, p_win)[(p <= 0.05) & (k > n / 2)].sum())
    _close(row["power"], right, R)
    _close(row["power"] + row["wrong_direction"], float(sign_test_power(p_win, n)), R)


@pytest.mark.parametrize(("phi", "n"), [(0.3, 80), (0.5, 50)])
def test_hoeffding_power_with_two_systems_is_a_binomial_sum(phi: float, n: int) -> None:
    design = _two(phi, n)
    p_win = design.win_probability("sys02", "sys01")
    res = rs.power(
        design, tests="hoeffding", pair=("sys02", "sys01"), n_replications=R, progress=False
    )
    # Complete data: p̂ = wins / n; significant when 2 exp(−2 n (p̂ − ½)²) < α (one pair: Holm
    # changes nothing).
    k = np.arange(n + 1)
    reject = 2 * np.exp(-2 * n * (k / n - 0.5) ** 2) < 0.05
    exact = float(stats.binom.pmf(k, n, p_win)[reject & (k > n / 2)].sum())
    _close(res.power_of("hoeffding", "pair")[0], exact, R)


@pytest.mark.parametrize(("gap", "n"), [(0.3, 50), (0.5, 30), (0.2, 150)])
def test_paired_t_power_with_normal_noise_is_the_noncentral_t(gap: float, n: int) -> None:
    design = _two(gap, n, noise="normal", scale=1.0)
    res = rs.power(design, tests="t", pair=("sys02", "sys01"), n_replications=R, progress=False)
    row = res.pairs.iloc[0]
    exact = float(paired_t_power(gap / np.sqrt(2.0), n))  # d = Δ / sd(D), sd(D) = √2 scale
    _close(row["power"] + row["wrong_direction"], exact, R)


def test_type_s_and_type_m_of_the_sign_test_by_enumeration() -> None:
    n, phi = 30, 0.15
    design = _two(phi, n)
    p_win = design.win_probability("sys02", "sys01")
    res = rs.power(design, tests="sign", n_replications=20_000, progress=False, seed=3)
    row = res.pairs.iloc[0]
    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, p_win)
    reject = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(k, n - k), n, 0.5)) <= 0.05
    right, wrong = reject & (k > n / 2), reject & (k < n / 2)
    type_s = pmf[wrong].sum() / pmf[reject].sum()
    type_m = (pmf[reject] * np.abs(k[reject] / n - 0.5)).sum() / pmf[reject].sum() / (p_win - 0.5)
    assert abs(row["true_effect"] - (p_win - 0.5)) < 0.003
    assert abs(row["type_s"] - type_s) < 0.02
    assert abs(row["type_m"] - type_m) / type_m < 0.03
    assert row["type_m"] > 1.5  # an underpowered test exaggerates (Gelman & Carlin 2014)
    assert right.any() and wrong.any()


# --- size under the null and monotonicity --------------------------------------------------------


@pytest.mark.parametrize("noise", ["gumbel", "normal"])
def test_every_test_holds_its_size_under_the_null(noise: str) -> None:
    design = BenchmarkDesign(n_systems=4, n_instances=60, locations=(1.0,) * 4, noise=noise)
    on_scores = [t for t in engine.TESTS if t not in ("mcnemar", "bayes")]
    res = rs.power(design, tests=on_scores, n_replications=R, progress=False, seed=1)
    limit = 0.05 + 4 * np.sqrt(0.05 * 0.95 / R)
    for test in (t for t in engine.PAIR_TESTS if t not in ("mcnemar", "bayes")):
        assert res.summary.loc[test, "false_claims"] <= limit, test
        assert res.pairs.loc[res.pairs["test"] == test, "null"].all()
    _close(res.summary.loc["friedman", "omnibus"], 0.05, R)  # χ² approximation, 60 blocks
    # The continuous tests without Holm's slack hit α on one pair: two systems.
    two = rs.power(
        _two(1.0, 60, locations=(0.0, 0.0), noise=noise),
        tests=("t", "wilcoxon"),
        n_replications=R,
        progress=False,
        seed=2,
    )
    for test in ("t", "wilcoxon"):
        _close(two.summary.loc[test, "false_claims"], 0.05, R)
    # With missing scores: the imputed-rank tests keep their level (the omnibus χ² within
    # 4 s.e. of α; Holm's z tests at most α).
    holes = BenchmarkDesign(
        n_systems=5, n_tasks=2, n_instances=40, locations=(1.0,) * 5, missing_rate=0.3, noise=noise
    )
    imp = rs.power(holes, tests=["imputed", "imputed-holm"], n_replications=R, progress=False)
    _close(imp.summary.loc["imputed", "omnibus"], 0.05, R)
    assert imp.summary.loc["imputed-holm", "false_claims"] <= limit
    # McNemar on binary outcomes of equal accuracy: conservative, at most α.
    binary = rs.BenchmarkDesign.from_accuracies([0.8, 0.8, 0.8], agreement=0.85, n_instances=80)
    mc = rs.power(binary, tests=["mcnemar", "hoeffding"], n_replications=R, progress=False)
    assert mc.summary.loc["mcnemar", "false_claims"] <= limit
    assert mc.summary.loc["hoeffding", "false_claims"] <= limit


def test_power_grows_with_size_and_effect() -> None:
    kw = dict(tests=("hoeffding", "nemenyi", "sign"), n_replications=2000, progress=False)
    small = rs.power(n_systems=5, n_instances=200, phi=0.15, **kw)
    more = rs.power(n_systems=5, n_instances=800, phi=0.15, **kw)
    larger = rs.power(n_systems=5, n_instances=200, phi=0.3, **kw)
    for test in kw["tests"]:
        p0, s0 = small.power_of(test, "adjacent")
        for other in (more, larger):
            p1, s1 = other.power_of(test, "adjacent")
            assert p1 - p0 > 3 * np.hypot(s0, s1), test


# --- the engine applies the user-facing tests ----------------------------------------------------


@pytest.mark.parametrize("missing", [0.0, 0.25])
def test_engine_decisions_equal_the_user_facing_tests(missing: float) -> None:
    # φ = 0.6: some pairs significant and some not, for every test (a check that can fail).
    design = BenchmarkDesign(
        n_systems=4, n_tasks=2, n_instances=40, phi=0.6, missing_rate=missing, round_to=1
    )
    cubes = design.draw(3, np.random.default_rng(5))
    tests = tuple(t for t in engine.TESTS if t != "bayes")  # tested above against its loop
    out = engine._one_chunk(design, cubes, tests, "instance", 0.05)
    ia, ib = np.triu_indices(4, 1)
    for i, cube in enumerate(cubes):
        frame = cube_to_scores(cube, design.names, ["t1", "t2"], instances=True)
        scores = rs.Scores.from_long(frame.dropna(subset=["score"]), instance="instance")
        h = rs.hoeffding_test(rs.pairwise(scores)).table.set_index(["system_a", "system_b"])
        for k, (a, b) in enumerate(zip(ia, ib, strict=True)):
            row = h.loc[(design.names[a], design.names[b])]
            expected = int(np.sign(row["estimate"] - 0.5)) if row["significant"] else 0
            assert out["decisions"]["hoeffding"][i, k] == expected
            assert out["estimates"]["hoeffding"][i, k] == pytest.approx(row["estimate"] - 0.5)
        fr = friedman(scores, by="instance", missing="complete-case")
        assert out["decisions"]["friedman"][i] == (fr.p_value < 0.05)
        for method in ("nemenyi", "conover"):
            ph = posthoc(scores, method=method, by="instance", missing="complete-case").table
            ph = ph.set_index(["system_a", "system_b"])
            for k, (a, b) in enumerate(zip(ia, ib, strict=True)):
                key = (design.names[a], design.names[b])
                row = ph.loc[key] if key in ph.index else ph.loc[key[::-1]]
                assert (out["decisions"][method][i, k] != 0) == bool(row["significant"]), method
        if missing == 0.0:  # rs.paired takes one task: the engine pools both tasks' instances
            wide = pd.DataFrame(cube.transpose(1, 2, 0).reshape(-1, 4), columns=design.names)
            pairs = rs.paired(wide, n_resamples=10).pairs
            for test, column in (
                ("sign", "sign_p_holm"),
                ("t", "ttest_p_holm"),
                ("wilcoxon", "wilcoxon_p_holm"),
            ):
                got = out["decisions"][test][i] != 0
                np.testing.assert_array_equal(got, pairs[column].to_numpy() < 0.05, test)


def test_engine_imputed_rank_tests_equal_the_user_facing_ones() -> None:
    design = BenchmarkDesign(n_systems=5, n_tasks=2, n_instances=30, phi=0.3, missing_rate=0.35)
    cubes = design.draw(4, np.random.default_rng(11))
    out = engine._one_chunk(design, cubes, ("imputed", "imputed-holm"), "instance", 0.05)
    ia, ib = np.triu_indices(5, 1)
    for i, cube in enumerate(cubes):
        frame = cube_to_scores(cube, design.names, ["t1", "t2"], instances=True)
        with pytest.warns(rs.DataWarning):  # rankings with fewer than two scores are skipped
            scores = rs.Scores.from_long(frame.dropna(subset=["score"]), instance="instance")
        fr = friedman(scores, by="instance", missing="imputed")
        assert out["decisions"]["imputed"][i] == (fr.p_value < 0.05)
        ph = posthoc(scores, method="nemenyi", by="instance", missing="imputed", correction="holm")
        table = ph.table.set_index(["system_a", "system_b"])
        for k, (a, b) in enumerate(zip(ia, ib, strict=True)):
            key = (design.names[a], design.names[b])
            row = table.loc[key] if key in table.index else table.loc[key[::-1]]
            got = out["decisions"]["imputed-holm"][i, k]
            assert (got != 0) == bool(row["significant"])
            if got:  # the direction: the lower mean imputed rank is the better system
                better = key[0] if got > 0 else key[1]
                assert ph.mean_ranks[better] < ph.mean_ranks[key[1] if got > 0 else key[0]]


def test_recovery_is_the_ranking_metrics_of_the_aggregates() -> None:
    design = BenchmarkDesign(n_systems=5, n_tasks=3, n_instances=20, phi=0.2, missing_rate=0.2)
    cubes = design.draw(2, np.random.default_rng(0))
    out = engine._one_chunk(design, cubes, ("hoeffding",), "instance", 0.05)["recovery"]
    truth = pd.Series(np.arange(5, 0, -1.0), index=design.names)  # sys05 best
    for i, cube in enumerate(cubes):
        frame = cube_to_scores(cube, design.names, ["t1", "t2", "t3"], instances=True)
        scores = rs.Scores.from_long(frame.dropna(subset=["score"]), instance="instance")
        for method in ("borda", "mean"):
            agg = rs.aggregate(scores, method=method).scores.reindex(design.names)
            tau = stats.kendalltau(agg.to_numpy(), -truth.to_numpy()).statistic
            assert out[f"{method}_tau"][i] == pytest.approx(tau)


def test_batched_draws_start_with_the_single_cube() -> None:
    kw = dict(missing_rate=0.2, outliers=(0.1, 2.0), instance_types=(3, 0.5), round_to=2)
    single = gumbel_cube(4, 3, 5, 0.5, 1.0, 7, corruptions=Corruptions(**kw))
    batch = gumbel_cubes(1, 4, 3, 5, 0.5, 1.0, 7, corruptions=Corruptions(**kw))
    np.testing.assert_array_equal(batch[0], single)


# --- reproducibility, interruption, sample size ---------------------------------------------------


def test_same_seed_same_numbers_whatever_the_threads() -> None:
    kw = dict(n_systems=6, n_instances=300, phi=0.1, n_replications=700, progress=False)
    one = rs.power(n_jobs=1, **kw)
    two = rs.power(n_jobs=2, **kw)
    pd.testing.assert_frame_equal(one.pairs, two.pairs)
    other = rs.power(seed=1, n_jobs=2, **kw)
    assert not one.pairs["power"].equals(other.pairs["power"])


def test_an_interrupt_keeps_the_whole_chunks_done(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = engine._one_chunk

    def flaky(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(engine, "_one_chunk", flaky)
    design = BenchmarkDesign(n_systems=3, n_instances=100_000)  # 3 replications per chunk
    # Hoeffding: the engine (the sign test alone of 3 Gumbel systems is drawn on its sufficient
    # statistic, in one piece).
    res = rs.power(design, tests="hoeffding", n_replications=30, progress=False, n_jobs=1)
    assert not res.complete and res.n_replications == 6
    assert "INTERRUPTED" in repr(res)


def test_sample_size_of_the_paired_t_test_is_the_analytic_one() -> None:
    gap = 0.4
    design = _two(gap, 10, noise="normal")
    res = rs.sample_size(
        design,
        test="t",
        target="pair",
        pair=("sys02", "sys01"),
        sizes=[10, 20, 40, 80, 160],
        n_replications=3000,
        progress=False,
    )
    exact = float(paired_t_sample_size(gap / np.sqrt(2.0), power=0.8))
    low, high = res.interval
    assert low - 2 <= exact <= high + 2, (exact, res.interval)
    assert res.curve["fitted"].is_monotonic_increasing
    assert "type_m" in res.curve and "instances per task" in res.sentence()
    mde = rs.sample_size(
        _two(1.0, 60, noise="normal"),
        test="t",
        target="pair",
        pair=("sys02", "sys01"),
        vary="phi",
        sizes=[0.1, 0.2, 0.4, 0.8, 1.6],
        n_replications=3000,
        progress=False,
    )
    exact_gap = float(minimum_detectable_effect(60, power=0.8)) * np.sqrt(2.0)
    assert mde.interval[0] * 0.97 <= exact_gap <= mde.interval[1] * 1.03
    assert "location step of φ" in mde.sentence()


def test_a_target_not_reached_is_not_extrapolated() -> None:
    res = rs.sample_size(
        n_systems=3,
        phi=0.01,
        test="hoeffding",
        sizes=[10, 20, 40],
        n_replications=200,
        progress=False,
    )
    assert res.size is None and res.needed is None
    assert "Not reached" in res.sentence() and "not reached" in repr(res)
    easy = rs.sample_size(
        n_systems=2,
        phi=3.0,
        test="sign",
        target="pair",
        pair=("sys01", "sys02"),
        sizes=[100, 200],
        n_replications=200,
        progress=False,
    )
    assert easy.at_smallest and easy.needed == 100 and "at most 100" in easy.sentence()


def test_the_named_pair_is_found_on_the_pair_axis() -> None:
    design = BenchmarkDesign(n_systems=5)
    ia, ib = np.triu_indices(5, 1)
    for k, (a, b) in enumerate(zip(ia, ib, strict=True)):
        assert named_pair(design, (design.names[b], design.names[a])) == k


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rs.power(tests="bogus"), "unknown test"),
        (lambda: rs.power(pair=("sys01", "nope")), "unknown system 'nope'"),
        (lambda: rs.power(pair=("sys01", "sys01")), "twice"),
        (lambda: rs.power(n_sytems=3), "unknown design parameter"),
        (lambda: rs.power(by="task"), "n_tasks ≥ 2"),
        (lambda: rs.power(alpha=1.5), "alpha"),
        (lambda: rs.power(n_replications=1), "replications"),
        (lambda: rs.power(noise="cauchy"), "noise"),
        (lambda: rs.power(locations=(1.0, 2.0)), "locations"),
        (lambda: rs.power(n_jobs=0), "n_jobs"),
        (lambda: rs.power(pilot=(1,)), "pilot must be"),
        (lambda: rs.sample_size(target="pair"), "needs pair"),
        (lambda: rs.sample_size(test="friedman"), "omnibus"),
        (lambda: rs.sample_size(sizes=[10, 5]), "increase"),
        (lambda: rs.sample_size(sizes=[10.5, 20]), "whole numbers"),
        (lambda: rs.sample_size(vary="scale"), "vary"),
        (lambda: rs.sample_size(power=0.0), "power"),
        (lambda: rs.sample_size(refine=-1), "refine"),
        (lambda: rs.sample_size(test="bayes", target="all_pairs"), "adjacent pairs only"),
        (lambda: rs.sample_size(vary="phi", locations=(0.0,) * 10), "its own locations"),
    ],
)
def test_bad_arguments_are_refused_before_simulating(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_recovery_of_the_best_with_two_systems_is_a_binomial_tail() -> None:
    n, phi = 31, 0.2  # odd: Borda never ties
    design = _two(phi, n)
    res = rs.power(design, tests="sign", n_replications=R, progress=False)
    p_win = design.win_probability("sys02", "sys01")
    exact = float(stats.binom.sf(n // 2, n, p_win))  # P(sys02 wins more than half)
    _close(res.power_of("sign", "borda_top1")[0], exact, R)
    tau, _ = res.power_of("sign", "borda_tau")
    assert tau == pytest.approx(2 * res.power_of("sign", "borda_top1")[0] - 1)


def test_a_design_from_a_plackett_luce_fit() -> None:
    sim = rs.simulate.gumbel(n_systems=4, n_tasks=1, n_instances=300, phi=0.4, seed=1)
    fit = rs.models.PlackettLuce().fit(rs.Rankings.from_scores(sim, by="instance"), method="mle")
    design = BenchmarkDesign.from_fit(fit, n_instances=50)
    assert design.names == fit.systems and design.truth == tuple(fit.order)
    gap = fit.worth["sys04"] - fit.worth["sys01"]
    assert design.win_probability("sys04", "sys01") == pytest.approx(1 / (1 + np.exp(-gap)))
    with pytest.raises(ValueError, match="comes from the fit"):
        BenchmarkDesign.from_fit(fit, scale=2.0)
    with pytest.raises(ValueError, match="Plackett–Luce, Bradley–Terry or Mallows"):
        BenchmarkDesign.from_fit(object())


def test_correlated_normal_noise() -> None:
    # Equicorrelated scores on an instance: their empirical correlation is ρ, and the paired
    # t-test's power uses sd(D) = scale √(2 (1 − ρ)).
    design = BenchmarkDesign(n_systems=4, n_instances=20_000, noise="normal", correlation=0.6)
    scores = design.draw(1, np.random.default_rng(0))[0, :, 0, :]
    corr = np.corrcoef(scores)
    np.testing.assert_allclose(corr[np.triu_indices(4, 1)], 0.6, atol=0.02)
    gap, n, rho = 0.25, 40, 0.5
    two = _two(gap, n, noise="normal", correlation=rho)
    res = rs.power(two, tests="t", pair=("sys02", "sys01"), n_replications=R, progress=False)
    row = res.pairs.iloc[0]
    exact = float(paired_t_power(gap / np.sqrt(2 * (1 - rho)), n))
    _close(row["power"] + row["wrong_direction"], exact, R)
    negative = BenchmarkDesign(n_systems=3, noise="normal", correlation=-0.5)  # the bound
    assert negative.draw(2, np.random.default_rng(1)).shape == (2, 3, 1, 100)
    with pytest.raises(ValueError, match="correlation must be in"):
        BenchmarkDesign(n_systems=3, noise="normal", correlation=-0.6)
    with pytest.raises(ValueError, match="normal noise"):
        BenchmarkDesign(correlation=0.3)


def test_bayes_rows_are_the_user_facing_posterior() -> None:
    from rankstats.significance.bayesian_signed_rank import (
        posterior_sample_rows,
        posterior_samples,
        region_share_rows,
    )
    from rankstats.significance.three_regions import region_shares

    z = np.random.default_rng(4).normal(0.03, 0.1, size=40)
    one = posterior_samples(z, 0.02, 0.5, 3000, seed=9)
    rows = posterior_sample_rows(z[None, :], 0.02, 0.5, 3000, np.random.default_rng(9))
    np.testing.assert_array_equal(rows[0], one)  # the same draws from the same generator
    holes = z.copy()
    holes[::4] = np.nan  # a pair's missing blocks: weight 0, as dropping them
    got = region_share_rows(
        posterior_sample_rows(holes[None], 0.02, 0.5, 40_000, np.random.default_rng(1))
    )[0]
    want = list(
        region_shares(posterior_samples(z[~np.isnan(holes)], 0.02, samples=40_000)).values()
    )
    np.testing.assert_allclose(got, want, atol=0.012)


@pytest.mark.slow  # 3-4 s (each distance): the README's test run stays under 4 minutes
def test_bayes_power_matches_a_loop_over_the_user_facing_test() -> None:
    n, reps = 30, 300
    design = _two(0.35, n)
    res = rs.power(design, tests="bayes", rope=0.1, n_replications=2000, progress=False)
    claims = []
    for seed in range(reps):  # independent benchmarks through rs.bayes_signed_rank
        cube = design.draw(1, np.random.default_rng(10_000 + seed))[0, :, 0, :]
        out = rs.bayes_signed_rank(cube[1], cube[0], rope=0.1, draws=1000, seed=seed)
        claims.append(out.decision == "a")
    loop = float(np.mean(claims))
    p, se = res.power_of("bayes", "adjacent")
    assert abs(p - loop) <= 4 * np.sqrt(se**2 + loop * (1 - loop) / reps), (p, loop)
    assert 0.2 < p < 0.95  # a case that can fail either way
    assert "rope_claim" in res.pairs


def test_a_mallows_design_draws_the_model_s_rankings() -> None:
    # Kendall Mallows on 3 items around a > b > c, α = 3 (θ = α/n = 1): P(a above b) by
    # enumerating the 6 rankings, against the simulated sign-test estimate.
    import itertools

    alpha, n = 3.0, 3
    design = BenchmarkDesign(
        n_systems=3,
        n_instances=40,
        locations=(3.0, 2.0, 1.0),
        systems=("a", "b", "c"),
        mallows=("kendall", alpha),
    )
    weights, above = [], []
    for perm in itertools.permutations(range(3)):  # perm[k]: rank of item k (0 best)
        inversions = sum(perm[i] > perm[j] for i in range(3) for j in range(i + 1, 3))
        weights.append(np.exp(-alpha / n * inversions))
        above.append(perm[0] < perm[1])
    exact = float(np.dot(weights, above) / np.sum(weights))
    res = rs.power(design, tests="sign", n_replications=3000, progress=False)
    row = res.pairs.query("system_a == 'a' and system_b == 'b'").iloc[0]
    assert row["true_effect"] == pytest.approx(exact - 0.5, abs=0.006)
    assert design.truth == ("a", "b", "c")
    with pytest.raises(ValueError, match="draws rankings, not scores: t"):
        rs.power(design, tests=["t", "hoeffding"])
    with pytest.raises(ValueError, match="outliers do not apply"):
        BenchmarkDesign(
            n_systems=3, locations=(3.0, 2.0, 1.0), mallows=("kendall", 1.0), outliers=(0.1, 2.0)
        )
    with pytest.raises(ValueError, match="mallows must be"):
        BenchmarkDesign(n_systems=3, locations=(3.0, 2.0, 1.0), mallows=("euclid", 1.0))


def test_a_design_from_a_mallows_fit() -> None:
    fit = rs.models.Mallows().fit(rs.load_rankings("potato_visual"), seed=0)
    design = BenchmarkDesign.from_fit(fit, n_instances=12)
    assert design.truth == tuple(fit.order)
    assert design.mallows == ("kendall", pytest.approx(20 * fit.parameters["theta"]))
    res = rs.power(design, tests=["friedman", "hoeffding"], n_replications=200, progress=False)
    assert res.summary.loc["friedman", "omnibus"] > 0.9  # 12 assessors agree strongly


def test_results_that_would_not_fit_in_memory_are_refused_first(monkeypatch) -> None:
    import rankstats._util.resources as resources
    from rankstats.errors import ResourceError

    monkeypatch.setattr(resources, "available_memory", lambda: 64 * 2**20)
    from rankstats.planning import power_analysis

    monkeypatch.setattr(power_analysis, "simulate_tests", lambda *a, **k: pytest.fail("ran"))
    # 200 systems: 19,900 pairs × 10,000 benchmarks × (9 × 3 + 30) bytes ≈ 11 GB.
    with pytest.raises(ResourceError, match=r"rs\.power .*needs about"):
        rs.power(n_systems=200, n_replications=10_000, progress=False)
    monkeypatch.setenv("RANKSTATS_IGNORE_MEMORY", "1")
    assert resources.memory_check_disabled()

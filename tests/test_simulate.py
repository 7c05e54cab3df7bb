"""Simulators against closed forms; robustness runner determinism and the 2022 ordering."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.robustness import cube_aggregate, ranking_metrics
from rankstats.simulate import gumbel_cube, mallows_expected_distance


def test_gumbel_adjacent_pairs_follow_the_logistic_law():
    phi, scale = 0.4, 1.5
    sim = rs.simulate.gumbel(
        n_systems=4, n_tasks=1, n_instances=40_000, phi=phi, scale=scale, seed=0
    )
    wide = sim.data.pivot(index="instance", columns="system", values="score")
    expected = 1 / (1 + np.exp(-phi / scale))  # P(system n+1 beats n)
    for lo, hi in [("sys01", "sys02"), ("sys02", "sys03"), ("sys03", "sys04")]:
        wins = (wide[hi] > wide[lo]).mean()
        assert abs(wins - expected) < 4 * np.sqrt(expected * (1 - expected) / len(wide))
    assert sim.truth == ("sys04", "sys03", "sys02", "sys01")


def test_mallows_expected_distance():
    # shared/data/README.md: n = 5, θ = 1 → E[d] = 1.74913673651759.
    assert mallows_expected_distance(5, 1.0) == pytest.approx(1.74913673651759, abs=1e-12)
    rk = rs.simulate.mallows(6, theta=0.7, size=200_000, seed=1)
    r = rk.ranks
    d = sum((r[:, i] > r[:, j]).astype(float) for i in range(6) for j in range(i + 1, 6))
    assert abs(d.mean() - mallows_expected_distance(6, 0.7)) < 4 * d.std() / np.sqrt(len(d))


def test_mallows_small_n_distribution_is_exact():
    # n = 3: P(π) ∝ exp(-θ d(π)) over the 6 permutations.
    theta, size = 0.8, 120_000
    rk = rs.simulate.mallows(3, theta=theta, size=size, center=list("abc"), seed=2)
    counts = pd.Series(["".join(o) for o in rk.orderings()]).value_counts()
    perms = {"abc": 0, "acb": 1, "bac": 1, "bca": 2, "cab": 2, "cba": 3}
    p = np.array([np.exp(-theta * d) for d in perms.values()])
    p /= p.sum()
    observed = np.array([counts.get(k, 0) for k in perms])
    assert stats.chisquare(observed, size * p).pvalue > 1e-3


def test_plackett_luce_first_choice_probabilities():
    worths = pd.Series([1.0, 2.0, 3.0, 4.0], index=list("abcd"))
    rk = rs.simulate.plackett_luce(worths, size=100_000, seed=3)
    first = (rk.ranks == 1).mean(axis=0)
    expected = worths.to_numpy() / worths.sum()
    assert np.all(np.abs(first - expected) < 4 * np.sqrt(expected * (1 - expected) / 100_000))
    assert rk.systems == ("a", "b", "c", "d")


def test_corruptions_are_applied_and_recorded():
    sim = rs.simulate.gumbel(
        6,
        4,
        5,
        phi=1.0,
        seed=4,
        adversarial_tasks=1,
        rescale={"task02": 100.0},
        missing=0.5,
        missing_pattern="block",
        round_to=0,
    )
    assert sim.parameters["adversarial_tasks"] == ["task01"]
    assert sim.parameters["rescale"] == {"task02": 100.0}
    # Block pattern: a (system, task) has all 5 instances or none.
    counts = sim.data.groupby(["system", "task"], observed=True).size()
    assert set(counts) == {5}
    assert (sim.data.score % 1 == 0).all()
    with pytest.raises(ValueError, match="unknown tasks"):
        rs.simulate.gumbel(3, 2, rescale={"nope": 2.0})
    with pytest.raises(ValueError, match="missing_pattern"):
        rs.simulate.gumbel(3, 2, missing=0.1, missing_pattern="row")


def test_same_seed_same_benchmark_and_sidecar(tmp_path):
    a = rs.simulate.gumbel(5, 3, 4, seed=11, missing=0.2)
    b = rs.simulate.gumbel(5, 3, 4, seed=11, missing=0.2)
    pd.testing.assert_frame_equal(a.data, b.data)
    path, meta = a.to_csv(tmp_path / "bench.csv")
    back = rs.read_scores(path, instance="instance")
    keys = ["system", "task", "instance"]
    written = back.data.astype({"system": str, "task": str}).sort_values(keys)
    original = a.data.astype({"system": str, "task": str}).sort_values(keys)
    np.testing.assert_allclose(written.score, original.score)
    # Rows of one (task, instance) are contiguous in the file (for rs.scan_scores).
    raw = pd.read_csv(path)
    assert (
        raw[["task", "instance"]].drop_duplicates().shape[0]
        == (raw[["task", "instance"]] != raw[["task", "instance"]].shift()).any(axis=1).sum()
    )
    assert "sys05" in meta.read_text()


@pytest.mark.parametrize("pattern", ["cell", "block"])
def test_fast_path_equals_aggregate(pattern):
    sim = rs.simulate.gumbel(
        7, 5, 6, phi=0.3, seed=5, missing=0.35, missing_pattern=pattern, round_to=1
    )
    cube = gumbel_cube(
        7, 5, 6, 0.3, 1.0, np.random.default_rng(5), 0, {}, 0.35, pattern, None, None, 1
    )
    for method in ("mean", "borda", "borda2"):
        np.testing.assert_allclose(
            cube_aggregate(cube, method), rs.aggregate(sim, method=method).scores, err_msg=method
        )


def test_ranking_metrics_against_scipy():
    rng = np.random.default_rng(6)
    truth = np.arange(8, 0, -1.0)
    for _ in range(20):
        score = rng.integers(0, 4, size=8).astype(float)
        m = ranking_metrics(score, truth, k=3)
        assert m["kendall_tau"] == pytest.approx(stats.kendalltau(-score, truth).statistic)


def test_robustness_is_deterministic_and_independent_of_n_jobs():
    kwargs = dict(
        grid={"phi": [0.2, 1.0], "missing": [0.0, 0.3]},
        n_rep=3,
        seed=7,
        base={"n_systems": 6, "n_tasks": 5, "n_instances": 4},
    )
    one = rs.simulate.robustness(**kwargs)
    again = rs.simulate.robustness(**kwargs)
    two = rs.simulate.robustness(n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(one.table, again.table)
    pd.testing.assert_frame_equal(one.table, two.table)
    assert len(one.table) == 4 * 3 * 3
    assert one.plot(x="phi", panel="missing").axes


def test_two_level_borda_is_the_most_robust_to_manipulation():
    # Colombo et al. (2022, Fig. 2): with adversarial tasks, σ^2l > σ^l > σ^μ.
    res = rs.simulate.robustness(grid={"phi": [0.1], "adversarial_tasks": [3, 5]}, n_rep=20, seed=0)
    tau = res.summary().groupby("aggregator")["mean"].mean()
    assert tau["borda2"] > tau["borda"] > tau["mean"]
    assert tau["borda2"] - tau["mean"] > 0.5


def test_custom_aggregators_and_registered_names():
    res = rs.simulate.robustness(
        ["copeland", lambda s: rs.aggregate(s, "median")],
        grid={"phi": [1.0]},
        n_rep=2,
        base={"n_systems": 5, "n_tasks": 4, "n_instances": 3},
    )
    assert set(res.table.aggregator) == {"copeland", "<lambda>"}
    with pytest.raises(ValueError, match="unknown simulation parameter"):
        rs.simulate.robustness(grid={"temperature": [1]}, n_rep=1)


def test_perturbation_and_agreement_on_real_data():
    res = rs.simulate.perturbation(
        rs.load_dataset("glue"), grid={"missing": [0.0, 0.3]}, n_rep=3, seed=1
    )
    table = res.summary()
    full = table[table.missing == 0.0]
    assert np.allclose(full["mean"], 1.0)  # nothing removed: every aggregator agrees with itself
    assert (table[table.missing == 0.3]["mean"] < 1.0).all()
    # Two worker processes: the same table (every replicate has its own SeedSequence child).
    parallel = rs.simulate.perturbation(
        rs.load_dataset("glue"), grid={"missing": [0.0, 0.3]}, n_rep=3, seed=1, n_jobs=2
    )
    pd.testing.assert_frame_equal(parallel.table, res.table)
    x = rs.load_dataset("xtreme_missing")
    agree = rs.agreement({m: rs.aggregate(x, m) for m in ("mean", "borda")})
    b = rs.aggregate(x, "borda").scores
    m = rs.aggregate(x, "mean").scores
    assert agree.loc[0, "kendall_tau"] == pytest.approx(stats.kendalltau(m, b).statistic)


def test_cli_simulate_and_robustness(tmp_path, capsys, monkeypatch):
    from rankstats import robustness as mod
    from rankstats.cli import main

    out = tmp_path / "bench.parquet"
    assert (
        main(
            [
                "simulate",
                "--systems",
                "5",
                "--tasks",
                "3",
                "--instances",
                "4",
                "--adversarial",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    back = rs.read_scores(out, instance="instance")
    assert back.n_systems == 5 and (tmp_path / "bench.truth.json").exists()
    small = {
        "description": "test",
        "grid": {"adversarial_tasks": [0, 2]},
        "base": {"n_systems": 5, "n_tasks": 4, "n_instances": 3, "phi": 0.5},
        "x": "adversarial_tasks",
        "panel": "phi",
        "n_rep": 2,
    }
    monkeypatch.setitem(mod.PRESETS, "colombo2022-manipulation", small)
    assert (
        main(
            [
                "robustness",
                "--experiment",
                "colombo2022-manipulation",
                "--out",
                str(tmp_path / "rob"),
            ]
        )
        == 0
    )
    assert (tmp_path / "rob" / "summary.csv").exists()
    assert "mean Kendall τ" in capsys.readouterr().out


def test_partitioned_files(tmp_path):
    """gumbel_files: the distribution, the missing blocks, reproducibility, grouping by instance."""
    import json

    files, truth = rs.simulate.gumbel_files(
        tmp_path / "a", 6, 5, 4000, partitions=7, phi=0.7, scale=1.3, missing=0.25, seed=3
    )
    frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    meta = json.loads(truth.read_text())
    assert meta["truth"][0] == "sys06"
    # Missing (system, task) blocks: absent from every part, and only those.
    present = frame.groupby(["system", "task"], observed=True).size()
    blocks = {tuple(b) for b in meta["missing_blocks"]}
    expected = {(s, t) for s in rs.simulate.system_names(6) for t in rs.simulate.task_names(5)}
    assert set(present.index) == expected - blocks and blocks
    assert (present == 4000).all()
    # Each (task, instance) once per system, rows of an instance contiguous.
    key = frame["task"].astype(str) + "/" + frame["instance"].astype(str)
    assert not frame.duplicated(["system", "task", "instance"]).any()
    assert (key != key.shift()).sum() == key.nunique()
    # Scores of system n ~ Gumbel(loc = φ n, scale): Kolmogorov–Smirnov against scipy.
    for n in (1, 6):
        values = frame.loc[frame["system"] == f"sys0{n}", "score"].to_numpy()
        assert stats.kstest(values, stats.gumbel_r(loc=0.7 * n, scale=1.3).cdf).pvalue > 1e-3
    again, _ = rs.simulate.gumbel_files(
        tmp_path / "b", 6, 5, 4000, partitions=7, phi=0.7, scale=1.3, missing=0.25, seed=3
    )
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(files, again, strict=True))
    # The streamed aggregates equal the in-memory ones on the same rows.
    scores = rs.Scores.from_long(frame, instance="instance")
    for method in ("mean", "borda", "borda2"):
        streamed = rs.aggregate(rs.scan_scores(tmp_path / "a"), method).scores
        pd.testing.assert_series_equal(
            streamed.sort_index(),
            rs.aggregate(scores, method).scores.sort_index(),
            check_names=False,
            rtol=1e-12,
        )


def test_cli_simulate_partitions(tmp_path, capsys):
    from rankstats.cli import main

    out = tmp_path / "bench"
    args = ["simulate", "--systems", "4", "--tasks", "3", "--instances", "50", "--out", str(out)]
    assert main([*args, "--partitions", "2", "--missing", "0.3", "--format", "csv"]) == 0
    assert "wrote 2 csv files" in capsys.readouterr().out
    frame = pd.concat([pd.read_csv(f) for f in sorted(out.glob("part-*.csv"))])
    assert len(frame) % 50 == 0 and frame["instance"].max() == 49
    assert main(["simulate", "--out", str(out), "--partitions", "2"]) == 2
    assert "needs --instances" in capsys.readouterr().err

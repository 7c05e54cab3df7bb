"""Simulators against closed forms, their files and their command (the robustness experiments
are tested in test_robustness.py)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.simulate import mallows_expected_distance


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
        missing_rate=0.5,
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
        rs.simulate.gumbel(3, 2, missing_rate=0.1, missing_pattern="row")


def test_same_seed_same_benchmark_and_sidecar(tmp_path):
    a = rs.simulate.gumbel(5, 3, 4, seed=11, missing_rate=0.2)
    b = rs.simulate.gumbel(5, 3, 4, seed=11, missing_rate=0.2)
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


def test_partitioned_files(tmp_path):
    """gumbel_files: the distribution, the missing blocks, reproducibility, grouping by instance."""
    import json

    files, truth = rs.simulate.gumbel_files(
        tmp_path / "a", 6, 5, 4000, partitions=7, phi=0.7, scale=1.3, missing_rate=0.25, seed=3
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
        tmp_path / "b", 6, 5, 4000, partitions=7, phi=0.7, scale=1.3, missing_rate=0.25, seed=3
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


# ---- argument checks and samplers (formerly test_simulate_review.py)
@pytest.mark.parametrize("phi", [0.0, -0.5, np.nan, np.inf])
def test_gumbel_rejects_a_phi_for_which_the_recorded_truth_would_be_wrong(phi):
    # With φ ≤ 0 system 1 is at least as good as system N, so `.truth` (sysNN first) would be
    # false; NaN / inf give no benchmark at all.
    with pytest.raises(ValueError, match="phi"):
        rs.simulate.gumbel(n_systems=4, n_tasks=3, n_instances=2, phi=phi)


def test_gumbel_truth_matches_the_generating_law_for_a_valid_phi():
    sim = rs.simulate.gumbel(n_systems=5, n_tasks=40, n_instances=50, phi=1.0, seed=3)
    means = sim.to_wide().mean(axis=1).sort_values(ascending=False)
    assert tuple(means.index) == sim.truth


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_plackett_luce_rejects_non_finite_log_worths(bad):
    # A NaN log-worth used to be sorted last silently.
    with pytest.raises(ValueError, match="finite"):
        rs.simulate.plackett_luce([0.0, bad, 1.0], size=3, log=True)


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("n_systems", 1),
        ("n_systems", 2.5),
        ("n_tasks", 0),
        ("n_instances", 0),
        ("missing_rate", 1.0),
        ("missing_rate", -0.1),
        ("scale", 0.0),
        ("scale", np.inf),
        ("phi", np.inf),
        ("adversarial_tasks", 4),
        ("adversarial_tasks", -1),
        ("round_to", -1),
        ("outliers", (1.5, 3.0)),
        ("instance_types", (0, 1.0)),
        ("rescale", {"task01": 0.0}),
    ],
)
def test_every_generator_argument_is_checked_and_named(argument, value):
    kwargs = {"n_systems": 4, "n_tasks": 3, "n_instances": 2, argument: value}
    with pytest.raises(ValueError, match=argument):
        rs.simulate.gumbel(**kwargs)


def test_samplers_name_their_bad_counts():
    with pytest.raises(ValueError, match="size must be an integer ≥ 1"):
        rs.simulate.plackett_luce([1.0, 2.0], size=0)
    with pytest.raises(ValueError, match="size"):
        rs.simulate.mallows(3, theta=1.0, size=0)
    with pytest.raises(ValueError, match="theta"):
        rs.simulate.mallows(3, theta=np.inf, size=2)

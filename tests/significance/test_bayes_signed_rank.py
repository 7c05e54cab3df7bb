"""The Bayesian signed-rank test with a ROPE (Benavoli et al. 2017): against baycomp, the matrix
form of its sums, closed forms, directions, missing blocks, the result object."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import InvalidScoresError
from rankstats.significance.bayesian_signed_rank import (
    DEFAULT_PRIOR,
    BayesSignedRank,
    bayes_signed_rank,
    posterior_samples,
    thetas,
)


def _matrix_thetas(z: np.ndarray, w: np.ndarray, rope: float) -> np.ndarray:
    """The paper's sums written out: θ = w ᵀ M w for the indicator matrices of z_i + z_j."""
    values = np.concatenate([[0.0], z])
    sums = values[:, None] + values[None, :]
    above = (sums > 2 * rope).astype(float)
    below = (sums < -2 * rope).astype(float)
    theta_a = np.sum((w @ above) * w, axis=1)
    theta_b = np.sum((w @ below) * w, axis=1)
    return np.column_stack([theta_a, 1 - theta_a - theta_b, theta_b])


def _mc_close(p: float, q: float, n1: int, n2: int) -> bool:
    """Two Monte Carlo shares of independent draws agree to 5 standard errors (+ 1e-3 for
    p near 0 or 1, where the binomial standard error vanishes)."""
    se = np.sqrt(max(p * (1 - p), q * (1 - q)) * (1 / n1 + 1 / n2))
    return abs(p - q) <= 5 * se + 1e-3


# ----------------------------------------------------------------------------- the sums
@pytest.mark.parametrize("rope", [0.0, 0.01, 0.05])
def test_sorted_sums_equal_the_matrix_form(rope):
    rng = np.random.default_rng(3)
    z = np.round(rng.normal(0.01, 0.03, 40), 3)  # rounded: ties and repeated values
    w = rng.dirichlet(np.r_[0.5, np.ones(40)], size=200)
    got = thetas(z, w, rope)
    want = _matrix_thetas(z, w, rope)
    # Sums on the boundary (z_i + z_j = ±2r exactly) count in the ROPE in both.
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_boundary_is_not_decided_by_rounding():
    # 0.30 − 0.29 is 0.010000000000000009 in floating point: on the boundary of rope = 0.01.
    z = np.full(5, 0.30 - 0.29)
    w = np.full((1, 6), 1 / 6)
    # z_i + z_j = 0.02 = 2r for the 25 pairs of differences: all in the ROPE; z_0 + z_j = 0.01
    # and z_0 + z_0 = 0 too. Nothing is right of the ROPE.
    np.testing.assert_allclose(thetas(z, w, 0.01), [[0.0, 1.0, 0.0]], atol=1e-15)


# ---------------------------------------------------------------------------- baycomp
@pytest.mark.parametrize(
    ("n", "shift", "spread", "rope", "prior", "seed"),
    [
        (30, 0.01, 0.02, 0.01, 0.5, 1),
        (12, 0.005, 0.03, 0.01, 0.5, 2),
        (50, -0.004, 0.01, 0.005, 1.0, 3),
        (20, 0.02, 0.05, 0.02, 0.5, 4),
        (40, 0.0, 0.02, 0.0, 0.5, 5),
    ],
)
def test_equals_baycomp_to_monte_carlo_error(n, shift, spread, rope, prior, seed):
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(seed)
    x = rng.normal(0.8, 0.05, n)
    y = x - rng.normal(shift, spread, n)
    draws = 20_000
    ours = bayes_signed_rank(x, y, rope=rope, prior=prior, draws=draws, seed=seed)
    theirs = baycomp.SignedRankTest.sample(
        x, y, rope, prior=prior, nsamples=draws, random_state=seed
    )
    if rope == 0:  # baycomp returns (x better, y better) without a ROPE column
        winners = np.bincount(np.argmax(theirs[:, [0, 2]], axis=1), minlength=2) / draws
        assert ours.p_rope == 0.0
        probs_theirs = [winners[0], 0.0, winners[1]]
    else:
        probs_theirs = list(
            baycomp.SignedRankTest(
                x, y, rope, prior=prior, nsamples=draws, random_state=seed
            ).probs()
        )
    probs_ours = [ours.p_a, ours.p_rope, ours.p_b]
    for p, q in zip(probs_ours, probs_theirs, strict=True):
        assert _mc_close(p, q, draws, draws), (probs_ours, probs_theirs)
    # The whole posterior of θ, not only the argmax shares: means to Monte Carlo error. Without
    # a ROPE our θ_rope is the mass of exact ties (the pair z_0 + z_0 = 0), which baycomp splits
    # half to each side.
    mine = ours.draws
    if rope == 0:
        mine = mine + 0.5 * mine[:, [1]] * np.array([1.0, -2.0, 1.0])
    se = np.sqrt(mine.var(axis=0) / draws + theirs.var(axis=0) / draws)
    assert np.all(np.abs(mine.mean(axis=0) - theirs.mean(axis=0)) <= 5 * se + 1e-9)


def test_two_on_multiple_shortcut_agrees():
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(11)
    x = rng.uniform(0.6, 0.9, 25)
    y = x - rng.normal(0.008, 0.015, 25)
    theirs = baycomp.two_on_multiple(x, y, rope=0.01, nsamples=20_000, random_state=0)
    ours = bayes_signed_rank(x, y, rope=0.01, draws=20_000, seed=7)
    for p, q in zip([ours.p_a, ours.p_rope, ours.p_b], theirs, strict=True):
        assert _mc_close(p, float(q), 20_000, 20_000)


# ------------------------------------------------------------------------- closed forms
def test_far_above_the_rope_a_is_better():
    z = np.random.default_rng(0).uniform(0.5, 1.0, 30)
    res = bayes_signed_rank(z, rope=0.01, draws=5000)
    assert res.p_a == 1.0 and res.decision == "a"
    assert "a is practically better than b" in res.claim
    flipped = bayes_signed_rank(-z, rope=0.01, draws=5000)
    assert flipped.p_b == 1.0 and flipped.decision == "b"


def test_symmetric_inside_a_wide_rope_is_equivalence():
    half = np.random.default_rng(1).uniform(0.0, 0.01, 25)
    z = np.concatenate([half, -half])
    res = bayes_signed_rank(z, rope=0.5, draws=5000)
    assert res.p_rope == 1.0 and res.decision == "rope"
    assert np.allclose(res.draws[:, 1], 1.0)  # every pair sum is within ±2r


@pytest.mark.parametrize("prior", [0.5, 1.0, 2.0])
def test_posterior_mean_has_the_dirichlet_closed_form(prior):
    # Every z_i = d with r < d < 2r: z_i + z_j = 2d > 2r (right of the ROPE), z_0 + z_j = d and
    # z_0 + z_0 = 0 are inside, so θ_a = (1 − w_0)², 1 − w_0 ~ Beta(n, s):
    # E θ_a = n (n + 1) / ((n + s)(n + s + 1)).
    n, draws = 8, 100_000
    samples = posterior_samples(np.full(n, 0.015), 0.01, prior, draws, seed=5)
    want = n * (n + 1) / ((n + prior) * (n + prior + 1))
    se = samples[:, 0].std() / np.sqrt(draws)
    assert abs(samples[:, 0].mean() - want) < 5 * se
    assert np.allclose(samples[:, 2], 0.0)
    np.testing.assert_allclose(samples.sum(axis=1), 1.0)


def test_default_prior_is_baycomps():
    baycomp = pytest.importorskip("baycomp")
    import inspect

    default = inspect.signature(baycomp.SignedRankTest.sample).parameters["prior"].default
    assert DEFAULT_PRIOR == default
    assert inspect.signature(bayes_signed_rank).parameters["prior"].default == default


# ---------------------------------------------------------------------------- Scores
def _long(higher: bool = True, sign: float = 1.0) -> pd.DataFrame:
    rng = np.random.default_rng(8)
    rows = []
    for t in range(12):
        base = rng.uniform(0.3, 0.9)
        for s, shift in (("A", 0.03), ("B", 0.0), ("C", -0.02)):
            rows.append((s, f"t{t}", sign * (base + shift + rng.normal(0, 0.02))))
    return pd.DataFrame(rows, columns=["system", "task", "score"])


def test_lower_is_better_task_equals_negated_scores():
    df = _long()
    lower = df.assign(score=np.where(df["task"] == "t3", -df["score"], df["score"]))
    s_lower = rs.Scores.from_long(lower, higher_is_better={"t3": False})
    s_plain = rs.Scores.from_long(df)
    r1 = bayes_signed_rank(s_lower, "A", "B", rope=0.01, draws=5000)
    r2 = bayes_signed_rank(s_plain, "A", "B", rope=0.01, draws=5000)
    pd.testing.assert_series_equal(r1.differences, r2.differences)
    assert r1.probabilities == r2.probabilities
    # The differences are a − b of the oriented scores, one per task.
    wide = df.pivot(index="task", columns="system", values="score")
    np.testing.assert_allclose(
        r2.differences.sort_index(), (wide["A"] - wide["B"]).sort_index(), atol=1e-12
    )
    # All tasks lower-is-better: a is now the worse system.
    s_all = rs.Scores.from_long(df, higher_is_better=False)
    r3 = bayes_signed_rank(s_all, "A", "B", rope=0.01, draws=5000)
    np.testing.assert_allclose(r3.differences, -r2.differences)


def test_scores_arrays_and_dataframe_agree():
    scores = rs.Scores.from_long(_long())
    wide = scores.to_wide().T
    r_scores = bayes_signed_rank(scores, "A", "C", rope=0.01, draws=4000, seed=2)
    r_arrays = bayes_signed_rank(wide["A"], wide["C"], rope=0.01, draws=4000, seed=2)
    r_frame = bayes_signed_rank(wide, "A", "C", rope=0.01, draws=4000, seed=2)
    r_diff = bayes_signed_rank(wide["A"] - wide["C"], rope=0.01, draws=4000, seed=2)
    for other in (r_arrays, r_frame, r_diff):
        np.testing.assert_allclose(other.draws, r_scores.draws)
    assert (r_scores.a, r_scores.b, r_frame.a, r_arrays.a) == ("A", "C", "A", "a")
    assert list(r_diff.differences.index) == list(wide.index)


def test_instance_level_one_task():
    scores = rs.load_dataset("dialogue_pc", tasks=["H:overall"])
    res = bayes_signed_rank(scores, scores.systems[0], scores.systems[1], rope=0.1, draws=2000)
    assert res.parameters["by"] == "instance" and res.parameters["task"] == "H:overall"
    assert res.differences.index.names == ["task", "instance"]
    wide = scores.data.pivot(index="instance", columns="system", values="score")
    want = (wide[scores.systems[0]] - wide[scores.systems[1]]).dropna()
    np.testing.assert_allclose(np.sort(res.differences.to_numpy()), np.sort(want.to_numpy()))
    many = rs.load_dataset("dialogue_pc")
    with pytest.raises(InvalidScoresError, match="choose the task"):
        bayes_signed_rank(many, many.systems[0], many.systems[1])
    task_level = bayes_signed_rank(many, many.systems[0], many.systems[1], by="task")
    assert task_level.n == len(many.tasks)


def test_missing_blocks_refused_or_dropped_and_reported():
    df = _long()
    df = df[~((df["system"] == "B") & (df["task"] == "t4"))]
    df = df[~((df["system"] == "A") & (df["task"] == "t9"))]
    scores = rs.Scores.from_long(df)
    with pytest.raises(InvalidScoresError, match=r"2 block\(s\).*task='t4'.*missing: b"):
        bayes_signed_rank(scores, "A", "B")
    res = bayes_signed_rank(scores, "A", "B", missing="complete-case", draws=2000)
    assert res.n == 10
    assert res.dropped.to_dict("list") == {"task": ["t4", "t9"], "missing": ["b", "a"]}
    assert "2 dropped" in repr(res)
    with pytest.raises(InvalidScoresError, match="block=1"):
        bayes_signed_rank(np.array([0.1, np.nan, 0.2]))
    with pytest.raises(ValueError, match="missing must be one of 'error', 'complete-case'"):
        bayes_signed_rank(scores, "A", "B", missing="dropped")


def test_arguments_are_checked():
    scores = rs.Scores.from_long(_long())
    with pytest.raises(KeyError, match="unknown system"):
        bayes_signed_rank(scores, "A", "Z")
    with pytest.raises(ValueError, match="rope"):
        bayes_signed_rank(scores, "A", "B", rope=-0.1)
    with pytest.raises(ValueError, match="prior"):
        bayes_signed_rank(scores, "A", "B", prior=0)
    with pytest.raises(ValueError, match="same length"):
        bayes_signed_rank([1.0, 2.0], [1.0])
    with pytest.raises(InvalidScoresError, match="instance-level"):
        bayes_signed_rank(scores, "A", "B", by="instance")


# ------------------------------------------------------------------------- the result
def test_result_table_repr_claim_and_figure():
    z = np.random.default_rng(4).normal(0.004, 0.01, 30)
    res = bayes_signed_rank(z, rope=0.01, draws=3000, names=("$x^2$", "sys_b"))
    assert isinstance(res, BayesSignedRank)
    table = res.table()
    assert list(table["outcome"]) == ["a", "rope", "b"]
    assert table["probability"].sum() == pytest.approx(1.0)
    assert np.all(table["theta_low"] <= table["theta_mean"])
    assert np.all(table["theta_mean"] <= table["theta_high"])
    np.testing.assert_allclose(
        table["probability"],
        np.bincount(res.draws.argmax(axis=1), minlength=3) / len(res.draws),
    )
    text = repr(res)
    assert "BayesSignedRank($x^2$ vs sys_b: 30 paired blocks" in text and res.claim in text
    res_b = bayes_signed_rank(z, rope=0.0001, draws=3000, threshold=0.5)
    assert res_b.decision == max(res_b.probabilities, key=res_b.probabilities.get)
    fig = res.plot()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any(t.startswith(r"\$x^2\$ better") for t in texts)  # literal, never mathtext
    assert any(t.startswith("ROPE ±0.01") for t in texts)
    fig.savefig(__import__("io").BytesIO(), format="png")


def test_speed_100_blocks_50000_draws():
    z = np.random.default_rng(9).normal(0.005, 0.02, 100)
    start = time.perf_counter()
    res = bayes_signed_rank(z, rope=0.01, draws=50_000)
    elapsed = time.perf_counter() - start
    print(f"100 blocks × 50,000 draws: {elapsed:.3f} s")
    assert res.draws.shape == (50_000, 3)
    assert elapsed < 10  # about 0.2 s on one core; generous for a loaded CI machine


def test_the_test_loads_no_plotting_library():
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from rankstats.significance.bayesian_signed_rank import bayes_signed_rank\n"
        "bayes_signed_rank(np.full(5, 0.1), rope=0.01, draws=100)\n"
        "print('matplotlib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_blocks_set_aside_by_scores_are_missing_blocks():
    # Instance 2 has only A's score, instance 4 only C's: Scores sets them aside (fewer than two
    # systems), and for A against B they are blocks without B's (or A's) score.
    df = pd.DataFrame(
        {
            "system": ["A", "B", "C", "A", "A", "B", "C", "A", "B"],
            "task": ["t"] * 9,
            "instance": [1, 1, 1, 2, 3, 3, 4, 5, 5],
            "score": [1.0, 2, 3, 4, 5, 6, 7, 1, 3],
        }
    )
    with pytest.warns(rs.DataWarning):
        scores = rs.Scores.from_long(df, instance="instance")
    with pytest.raises(InvalidScoresError, match=r"2 block\(s\).*instance=2 \(missing: a or b\)"):
        bayes_signed_rank(scores, "A", "B")
    res = bayes_signed_rank(scores, "A", "B", missing="complete-case", draws=100)
    assert res.dropped["instance"].tolist() == [2, 4]
    assert sorted(res.differences.tolist()) == [-2.0, -1.0, -1.0]

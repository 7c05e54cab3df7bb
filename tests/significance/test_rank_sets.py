"""Confidence sets for ranks (Mogstad, Romano, Shaikh & Wilhelm 2024) against a loop-based
implementation of their definition, simulated coverage, limiting cases and the speed."""

from __future__ import annotations

import itertools
import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import DataWarning
from rankstats.significance.blocks import rank_blocks
from rankstats.significance.rank_sets import RankSets, rank_confidence_sets

# --------------------------------------------------------------------------------------------
# An independent implementation, written from the definitions with Python loops.


def order_statistic(draws: list[float], level: float) -> float:
    """The smallest draw x with (#draws ≤ x) / B ≥ level."""
    ordered = sorted(draws)
    k = math.ceil(level * len(ordered) - 1e-9)
    return ordered[max(k, 1) - 1]


def naive_sets(values, alpha, simultaneous, stepdown, n_boot, seed):
    """(rank_low, rank_high, critical values) per column of ``values``, in column order."""
    values = np.asarray(values, dtype=float)
    n_blocks, n = values.shape
    theta = [float(np.mean(values[:, j])) for j in range(n)]
    se = {}
    for j, k in itertools.permutations(range(n), 2):
        d = values[:, j] - values[:, k]
        se[j, k] = float(np.sqrt(np.mean((d - d.mean()) ** 2) / n_blocks))
    rng = np.random.default_rng(seed)
    boot, boot_se = [], []
    for _ in range(n_boot):
        rows = rng.integers(0, n_blocks, size=n_blocks)
        boot.append([float(np.mean(values[rows, j])) - theta[j] for j in range(n)])
        # Studentized: the standard error of each difference recomputed in the resample (the
        # full-sample one where the resampled differences are all equal).
        star = {}
        for j, k in itertools.permutations(range(n), 2):
            d = values[rows, j] - values[rows, k]
            s = float(np.sqrt(np.mean((d - d.mean()) ** 2) / n_blocks))
            star[j, k] = s if s > 1e-9 * se[j, k] else se[j, k]
        boot_se.append(star)

    def test_family(pairs):
        """Step-down over the ordered pairs (j, k): the set of pairs with θ_j > θ_k found."""
        active = [p for p in pairs if se[p] > 0]
        found = {p for p in pairs if se[p] == 0 and theta[p[0]] > theta[p[1]]}
        critical = float("nan")
        while active:
            maxima = [
                max((b[j] - b[k]) / s[j, k] for j, k in active)
                for b, s in zip(boot, boot_se, strict=True)
            ]
            critical = order_statistic(maxima, 1 - alpha)
            new = [(j, k) for j, k in active if theta[j] - theta[k] - se[j, k] * critical > 0]
            found |= set(new)
            active = [p for p in active if p not in new]
            if not stepdown or not new:
                break
        return found, critical

    low, high, criticals = [], [], []
    if simultaneous:
        found, critical = test_family(list(itertools.permutations(range(n), 2)))
        criticals.append(critical)
        for j in range(n):
            low.append(1 + sum((k, j) in found for k in range(n)))
            high.append(n - sum((j, k) in found for k in range(n)))
    else:
        for j in range(n):
            pairs = [(j, k) for k in range(n) if k != j] + [(k, j) for k in range(n) if k != j]
            found, critical = test_family(pairs)
            criticals.append(critical)
            low.append(1 + sum((k, j) in found for k in range(n)))
            high.append(n - sum((j, k) in found for k in range(n)))
    return low, high, criticals


def in_column_order(sets: RankSets, columns) -> pd.DataFrame:
    return sets.table.set_index("system").loc[list(columns)]


@pytest.mark.parametrize("simultaneous", [True, False])
@pytest.mark.parametrize("stepdown", [True, False])
def test_equals_loop_implementation(simultaneous, stepdown):
    rng = np.random.default_rng(7)
    means = np.array([0.0, 0.05, 0.3, 0.35, 0.4, 1.0])
    block_effect = rng.normal(0, 1, size=(60, 1))  # shared by all systems: paired data
    values = means + block_effect + rng.normal(0, 0.6, size=(60, 6))
    table = pd.DataFrame(values, columns=[f"s{j}" for j in range(6)])
    sets = rank_confidence_sets(
        table, simultaneous=simultaneous, stepdown=stepdown, n_resamples=200, seed=11, alpha=0.1
    )
    low, high, criticals = naive_sets(values, 0.1, simultaneous, stepdown, 200, 11)
    got = in_column_order(sets, table.columns)
    assert got["rank_low"].tolist() == low
    assert got["rank_high"].tolist() == high
    critical = sets.critical if simultaneous else in_column_order_critical(sets, table.columns)
    np.testing.assert_allclose(critical, criticals, rtol=1e-10)
    np.testing.assert_allclose(got["estimate"], values.mean(axis=0))
    # Not a trivial case: some sets are singletons, some are not.
    width = np.array(high) - np.array(low)
    assert (width == 0).any() and (width > 0).any()


def in_column_order_critical(sets: RankSets, columns) -> np.ndarray:
    position = {s: i for i, s in enumerate(sets.systems)}
    return np.array([sets.critical[position[c]] for c in columns])


def test_stepdown_never_wider_and_simultaneous_never_narrower():
    rng = np.random.default_rng(3)
    values = rng.normal(np.linspace(0, 0.6, 8), 1.0, size=(300, 8))
    table = pd.DataFrame(values, columns=list("abcdefgh"))
    width = {}
    for simultaneous, stepdown in itertools.product([True, False], repeat=2):
        t = rank_confidence_sets(table, simultaneous=simultaneous, stepdown=stepdown, seed=5)
        t = in_column_order(t, table.columns)
        width[simultaneous, stepdown] = (t["rank_high"] - t["rank_low"]).to_numpy()
    assert (width[True, True] <= width[True, False]).all()
    assert (width[False, True] <= width[False, False]).all()
    assert (width[False, True] <= width[True, True]).all()


# --------------------------------------------------------------------------------------------
# Coverage with known θ: normal scores, distinct means with some close, and one exact tie.

MEANS = np.array([0.0, 0.0, 0.1, 0.15, 0.5, 0.55, 1.0])


def true_ranks(theta: np.ndarray) -> np.ndarray:
    return 1 + (theta[None, :] > theta[:, None]).sum(axis=1)


def coverage(reps: int, n_blocks: int, n_boot: int, seed: int):
    rng = np.random.default_rng(seed)
    truth = true_ranks(MEANS)
    columns = [f"m{j}" for j in range(len(MEANS))]
    joint, marginal = 0, np.zeros(len(MEANS))
    for rep in range(reps):
        block = rng.normal(0, 0.5, size=(n_blocks, 1))
        values = MEANS + block + rng.normal(0, 1.0, size=(n_blocks, len(MEANS)))
        table = pd.DataFrame(values, columns=columns)
        sim = in_column_order(rank_confidence_sets(table, n_resamples=n_boot, seed=rep), columns)
        joint += bool(((sim["rank_low"] <= truth) & (truth <= sim["rank_high"])).all())
        mar = in_column_order(
            rank_confidence_sets(table, simultaneous=False, n_resamples=n_boot, seed=rep), columns
        )
        marginal += ((mar["rank_low"] <= truth) & (truth <= mar["rank_high"])).to_numpy()
    return joint / reps, marginal / reps


def check_coverage(reps, n_blocks, n_boot, seed):
    alpha = 0.05
    tolerance = 3 * math.sqrt(alpha * (1 - alpha) / reps)  # three Monte Carlo standard errors
    joint, marginal = coverage(reps, n_blocks, n_boot, seed)
    assert joint >= 1 - alpha - tolerance, joint
    assert (marginal >= 1 - alpha - tolerance).all(), marginal


def test_coverage_fast():
    check_coverage(reps=120, n_blocks=150, n_boot=300, seed=1)


@pytest.mark.slow
def test_coverage():
    """The powered version of test_coverage_fast. Sized to the claim (coverage ≥ 0.95): with
    500 replications the pass mark 0.95 − 3 SE = 0.921 is passed by a true 0.95 with
    probability 0.999 and failed by a defective 0.90 with probability 0.94 (binomial, normal
    approximation); 600 replications bought nothing more. The cost is replications × blocks ×
    resamples: 200 blocks and 400 resamples (the 95 % quantile of 400 studentized maxima) keep
    it a different, larger sample than the fast test's 150 × 300 at a quarter of 300 × 1000."""
    check_coverage(reps=500, n_blocks=200, n_boot=400, seed=2)


def equal_means_coverage(n_systems: int, n_blocks: int, reps: int, n_boot: int) -> float:
    """Joint coverage of the simultaneous sets when every mean is equal (the worst case: every
    true rank is 1, so the sets cover iff no pair is declared different)."""
    rng = np.random.default_rng(n_systems * 1000 + n_blocks)
    covered = 0
    columns = [f"s{j}" for j in range(n_systems)]
    for rep in range(reps):
        table = pd.DataFrame(rng.normal(size=(n_blocks, n_systems)), columns=columns)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataWarning)  # 30 blocks: at the warning's edge
            sets = rank_confidence_sets(table, n_resamples=n_boot, seed=rep)
        covered += bool((sets.table["rank_low"] == 1).all())
    return covered / reps


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n_systems", "n_blocks", "reps"), [(8, 30, 1000), (8, 50, 1000), (16, 100, 600)]
)
def test_simultaneous_coverage_when_all_systems_are_equal(n_systems, n_blocks, reps):
    """Issue 23, item 12: with the full-sample standard errors in every resample the joint
    coverage was 0.884 (8 × 30), 0.917 (8 × 50) and 0.914 (16 × 100) at nominal 0.95; the
    studentized bootstrap must reach 1 − α within three Monte Carlo standard errors (0.929 with
    1,000 replications, 0.923 with 600). About 45 s in all."""
    alpha = 0.05
    got = equal_means_coverage(n_systems, n_blocks, reps, n_boot=500)
    tolerance = 3 * math.sqrt(alpha * (1 - alpha) / reps)
    assert got >= 1 - alpha - tolerance, got


# --------------------------------------------------------------------------------------------
# Limiting cases.


def test_separated_means_give_singletons():
    rng = np.random.default_rng(0)
    values = rng.normal([0.0, 10.0, 20.0, 30.0], 1.0, size=(100, 4))
    for simultaneous in (True, False):
        sets = rank_confidence_sets(
            pd.DataFrame(values, columns=list("abcd")), simultaneous=simultaneous
        )
        assert sets.table["system"].tolist() == ["d", "c", "b", "a"]
        assert (sets.table["rank_low"] == sets.table["rank_high"]).all()
        assert sets.table["rank_low"].tolist() == [1, 2, 3, 4]


def test_equal_means_span_the_tied_ranks():
    rng = np.random.default_rng(4)
    n_blocks = 400
    noise = rng.normal(0, 1.0, size=(n_blocks, 5))
    values = np.array([20.0, 0.0, 0.0, 0.0, -20.0]) + noise
    sets = rank_confidence_sets(pd.DataFrame(values, columns=list("abcde")))
    got = in_column_order(sets, "abcde")
    assert got["rank_low"].tolist() == [1, 2, 2, 2, 5]
    assert got["rank_high"].tolist() == [1, 4, 4, 4, 5]
    # Identical columns: a difference known without error, zero, so never significant.
    same = np.column_stack([noise[:, 0], noise[:, 0], noise[:, 0] + 5.0])
    got = in_column_order(rank_confidence_sets(pd.DataFrame(same, columns=list("xyz"))), "xyz")
    assert got["rank_low"].tolist() == [2, 2, 1]
    assert got["rank_high"].tolist() == [3, 3, 1]


# --------------------------------------------------------------------------------------------
# Inputs.


def test_scores_input_uses_the_oriented_values_of_the_complete_blocks():
    scores = rs.simulate.gumbel(n_systems=5, n_tasks=1, n_instances=200, phi=0.3, seed=3)
    blocks = rank_blocks(scores, by="instance")
    sets = rank_confidence_sets(scores, by="instance", seed=9)
    table = pd.DataFrame(blocks.values, columns=list(blocks.systems))
    expected = rank_confidence_sets(table, seed=9)
    pd.testing.assert_frame_equal(sets.table, expected.table)
    assert sets.by == "instance" and sets.n_blocks == 200 and sets.dropped == ""
    assert "RankSets(5 systems, 200 instance blocks, simultaneous" in repr(sets)


def test_missing_scores_are_refused_or_dropped_and_reported():
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.normal(size=(50, 3)), columns=list("abc"))
    table.iloc[[3, 7], 1] = np.nan
    with pytest.raises(ValueError, match="complete-case"):
        rank_confidence_sets(table)
    sets = rank_confidence_sets(table, missing="complete-case")
    assert sets.n_blocks == 48
    assert "2 of 50 blocks dropped" in sets.dropped and "2 of 50 blocks dropped" in repr(sets)
    scores = rs.simulate.gumbel(n_systems=4, n_tasks=1, n_instances=60, missing_rate=0.05, seed=1)
    with pytest.raises(ValueError, match="complete-case"):
        rank_confidence_sets(scores, by="instance")
    sets = rank_confidence_sets(scores, by="instance", missing="complete-case")
    assert sets.n_blocks < 60 and "dropped" in sets.dropped


def test_arguments_and_few_blocks():
    table = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 3)), columns=list("abc"))
    with pytest.warns(DataWarning, match="only 10 blocks") as caught:
        rank_confidence_sets(table, n_resamples=200)
    assert "by='instance'" in str(caught[0].message)
    assert "--by instance" in caught[0].message.cli()
    for bad in ({"alpha": 0.0}, {"alpha": 1.5}, {"n_resamples": 0}):
        with pytest.raises(ValueError):
            rank_confidence_sets(table, **bad)
    with pytest.raises(TypeError):
        rank_confidence_sets(rs.Rankings.from_orderings([["a", "b"]] * 40))


@pytest.mark.parametrize(("alpha", "smallest"), [(0.05, 200), (0.1, 100), (0.01, 1000)])
def test_too_few_resamples_are_refused(alpha, smallest):
    """Issue 23, item 11: n_boot=1 gave "95 %" sets from one resample. The 1 − α quantile
    needs ten draws beyond it: n_resamples ≥ 10 / α, named in the message (CLI:
    --n-resamples)."""
    from rankstats._util.advice import AdviceError

    table = pd.DataFrame(np.random.default_rng(0).normal(size=(40, 3)), columns=list("abc"))
    for n_boot in (1, smallest - 1):
        with pytest.raises(
            AdviceError, match=f"n_resamples of {n_boot} resamples is too few"
        ) as err:
            rank_confidence_sets(table, alpha=alpha, n_resamples=n_boot)
        assert f"at least {smallest} resamples" in str(err.value)
        assert err.value.cli().startswith(f"--n-resamples of {n_boot}")
    rank_confidence_sets(table, alpha=alpha, n_resamples=smallest)  # accepted


def test_same_seed_same_sets_and_chunking_does_not_matter():
    from rankstats.significance import rank_sets_bootstrap as rank_sets

    rng = np.random.default_rng(2)
    values = rng.normal(np.linspace(0, 0.3, 6), 1.0, size=(500, 6))
    table = pd.DataFrame(values, columns=list("abcdef"))
    one = rank_confidence_sets(table, seed=4, n_resamples=300)
    two = rank_confidence_sets(table, seed=4, n_resamples=300)
    pd.testing.assert_frame_equal(one.table, two.table)
    whole = rank_sets.bootstrap_means(values, 300, np.random.default_rng(4))
    chunked = rank_sets.bootstrap_means(values, 300, np.random.default_rng(4), chunk=7)
    np.testing.assert_allclose(whole, chunked)


@pytest.mark.parametrize("simultaneous", [True, False])
def test_memory_budget_changes_nothing(simultaneous):
    """Same seed, chunks of 1, 7 and all resamples (memory budgets): identical output."""
    rng = np.random.default_rng(12)
    table = pd.DataFrame(
        rng.normal(np.linspace(0, 0.6, 9), 1.0, size=(150, 9)), columns=[f"s{j}" for j in range(9)]
    )
    per_resample = 2 * 8 * 9 * 9  # bytes of one resample's statistics (and masked copy)
    runs = [
        rank_confidence_sets(table, n_resamples=200, seed=3, simultaneous=simultaneous, memory=m)
        for m in (1, 7 * per_resample, 10**9)
    ]
    for other in runs[1:]:
        pd.testing.assert_frame_equal(runs[0].table, other.table, check_exact=True)
        pd.testing.assert_frame_equal(runs[0].significant, other.significant)
        np.testing.assert_array_equal(runs[0].critical, other.critical)
        assert runs[0].n_steps == other.n_steps
    with pytest.raises(ValueError, match="memory must be a positive number of bytes"):
        rank_confidence_sets(table, memory=0)


def test_peak_memory_is_bounded():
    """60 systems, 500 resamples: the whole B × n × n statistics are 14 MB (and the marginal
    family twice that); with a 2 MiB budget the traced peak stays a few MiB."""
    import tracemalloc

    rng = np.random.default_rng(13)
    table = pd.DataFrame(rng.normal(0.0, 1.0, size=(100, 60)), columns=[f"s{j}" for j in range(60)])
    for simultaneous in (True, False):
        tracemalloc.start()
        rank_confidence_sets(table, n_resamples=500, simultaneous=simultaneous, memory=2 * 2**20)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 6 * 2**20, (simultaneous, peak)


# --------------------------------------------------------------------------------------------
# Side by side with the Hoeffding rank ranges, and the plot.


def test_compare_hoeffding_and_plot():
    scores = rs.simulate.gumbel(n_systems=6, n_tasks=1, n_instances=300, phi=0.4, seed=8)
    sets = rank_confidence_sets(scores, by="instance")
    hoeffding = rs.hoeffding_test(rs.pairwise(scores, by="instance"), order=list(sets.systems))
    both = sets.compare_hoeffding(hoeffding)
    assert both["system"].tolist() == list(sets.systems)
    ranges = hoeffding.rank_range().set_index("system")
    assert both["hoeffding_low"].tolist() == ranges.loc[list(sets.systems), "rank_low"].tolist()
    assert (both["width"] == both["rank_high"] - both["rank_low"] + 1).all()
    ax = sets.plot(hoeffding=hoeffding)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(sets.systems)
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


# --------------------------------------------------------------------------------------------
# Speed: measured and printed (run with -s), not asserted.


def test_speed_reported():
    rng = np.random.default_rng(0)
    values = rng.normal(np.linspace(0, 0.2, 20), 1.0, size=(5000, 20))
    table = pd.DataFrame(values, columns=[f"s{j:02d}" for j in range(20)])
    for simultaneous in (True, False):
        start = time.perf_counter()
        sets = rank_confidence_sets(table, n_resamples=1000, simultaneous=simultaneous)
        elapsed = time.perf_counter() - start
        print(
            f"\nrank sets, 20 systems × 5000 blocks, 1000 resamples, "
            f"simultaneous={simultaneous}: {elapsed:.2f} s ({sets.n_steps} steps)"
        )
    assert len(sets.table) == 20


def test_sets_of_expected_ranks_equal_the_score_sets_of_negated_within_block_ranks():
    """of="rank": the same bootstrap on −(within-block ranks), built here independently;
    ``estimate`` is then the mean rank (Friedman's average ranks)."""
    from scipy.stats import rankdata

    from rankstats.significance.rank_sets import rank_confidence_sets

    rng = np.random.default_rng(5)
    table = pd.DataFrame(
        np.round(rng.normal([0.0, 0.2, 0.25, 1.0], 1.0, size=(300, 4)), 1), columns=list("abcd")
    )
    by_rank = rank_confidence_sets(table, of="rank", n_resamples=400, seed=3)
    negated = pd.DataFrame(-rankdata(-table.to_numpy(), axis=1), columns=table.columns)
    by_score = rank_confidence_sets(negated, n_resamples=400, seed=3)
    cols = ["system", "rank", "rank_low", "rank_high"]
    pd.testing.assert_frame_equal(by_rank.table[cols], by_score.table[cols])
    mean_rank = rankdata(-table.to_numpy(), axis=1).mean(axis=0)
    expected = pd.Series(mean_rank, index=table.columns)[list(by_rank.table["system"])]
    np.testing.assert_allclose(by_rank.table["estimate"], expected.to_numpy(), rtol=1e-12)
    assert by_rank.of == "rank" and "mean rank" in repr(by_rank)


def test_sets_of_expected_ranks_ignore_the_scale_of_a_block():
    """Blocks on different scales (one block ×1000) change the score sets, never the rank sets."""
    from rankstats.significance.rank_sets import rank_confidence_sets

    rng = np.random.default_rng(8)
    table = pd.DataFrame(rng.normal([0.0, 0.3, 0.6], 1.0, size=(200, 3)), columns=list("abc"))
    scaled = table.copy()
    scaled.iloc[::2] *= 1000.0
    a = rank_confidence_sets(table, of="rank", n_resamples=300, seed=1).table
    b = rank_confidence_sets(scaled, of="rank", n_resamples=300, seed=1).table
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="of must be"):
        rank_confidence_sets(table, of="median")


def test_imputed_blocks_give_sets_of_the_expected_imputed_rank():
    """Issue 23, item 1: with missing="imputed" the sets ranked blocks holding NaN (NaN
    estimates, every set 1–k). They are now the sets of the expected imputed rank: every block
    is used, the estimates are the mean imputed expected ranks, computed here by hand as
    m (n + 1) / (k_b + 1) for a system of mid-rank m among the k_b evaluated and (n + 1) / 2
    for one not evaluated."""
    from scipy.stats import rankdata

    rng = np.random.default_rng(4)
    n, n_blocks = 5, 80
    values = rng.normal(np.array([0.0, 0.1, 0.8, 0.9, 2.0]), 0.5, size=(n_blocks, n))
    values[rng.random((n_blocks, n)) < 0.2] = np.nan
    values[np.isnan(values).sum(axis=1) > 3, 0] = 0.0  # at least two evaluated per block
    names = [f"s{j}" for j in range(n)]
    frame = pd.DataFrame(values, columns=names).rename_axis("instance").reset_index()
    long = frame.melt(id_vars="instance", var_name="system", value_name="score")
    long["task"] = "t"
    scores = rs.Scores.from_long(long.dropna(), instance="instance")
    sets = rank_confidence_sets(scores, of="rank", missing="imputed", by="instance", seed=1)
    assert sets.n_blocks == n_blocks and not sets.table.isna().any().any()

    observed = ~np.isnan(values)
    k = observed.sum(axis=1, keepdims=True)
    mid = rankdata(np.where(observed, -values, np.inf), axis=1)  # NaN last: mid-ranks first
    expected = np.where(observed, mid * (n + 1) / (k + 1), (n + 1) / 2)
    by_hand = pd.Series(expected.mean(axis=0), index=names)
    got = sets.table.set_index("system")["estimate"]
    np.testing.assert_allclose(got[names], by_hand[names], rtol=1e-12)
    # Well separated where the means are: s4 alone at the top; not the 1–5 of NaN ranks.
    assert got.idxmin() == "s4"
    top = sets.table.iloc[0]
    assert (top["rank_low"], top["rank_high"]) == (1, 1)
    # The score, unlike the rank, has no imputation: refused, naming the way out.
    with pytest.raises(ValueError, match="of='rank'"):
        rank_confidence_sets(scores, missing="imputed", by="instance")


def test_blocks_without_variation_are_refused():
    """Issue 23, item 5: one decision for blocks in which every system ties."""
    from rankstats.significance.block_variation import NoVariationError

    table = pd.DataFrame({"a": [0.5] * 40, "b": [0.5] * 40, "c": [0.5] * 40})
    with pytest.raises(NoVariationError, match="every one of the 40 blocks"):
        rank_confidence_sets(table)


@pytest.mark.parametrize("simultaneous", [True, False])
def test_blocks_of_pairs_and_resamples_equal_the_loop_implementation(monkeypatch, simultaneous):
    """The statistics built a block of pairs × a block of resamples at a time (the path of
    1,000 systems: thousands of blocks of pairs, a step-down pass computing only the pairs
    left): tiny blocks, several of each, give the sets and critical values of the loop
    implementation."""
    from rankstats.significance import rank_sets_bootstrap

    monkeypatch.setattr(rank_sets_bootstrap, "_PAIR_CELLS", 3 * 37)  # 3 pairs a block
    monkeypatch.setattr(rank_sets_bootstrap, "_CHUNK_CELLS", 37 * 40)  # 37 resamples a block
    rng = np.random.default_rng(21)
    values = np.linspace(0, 0.8, 7) + rng.normal(0, 1, size=(40, 1)) + rng.normal(0, 0.5, (40, 7))
    table = pd.DataFrame(values, columns=[f"s{j}" for j in range(7)])
    sets = rank_confidence_sets(
        table, simultaneous=simultaneous, n_resamples=200, seed=5, alpha=0.1
    )
    low, high, criticals = naive_sets(values, 0.1, simultaneous, True, 200, 5)
    got = in_column_order(sets, table.columns)
    assert got["rank_low"].tolist() == low
    assert got["rank_high"].tolist() == high
    critical = sets.critical if simultaneous else in_column_order_critical(sets, table.columns)
    np.testing.assert_allclose(critical, criticals, rtol=1e-10)
    assert sets.n_steps > 1  # the step-down computed a subset of the pairs

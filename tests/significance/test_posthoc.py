"""Post-hoc tests and effect sizes (rankstats.significance.posthoc_tests) against scikit-posthocs,
scipy and definitions written here."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.significance.blocks import rank_blocks
from rankstats.significance.effect_sizes import EFFECT_SIZES, pairwise_effect_sizes
from rankstats.significance.posthoc_tests import critical_difference, posthoc
from rankstats.significance.studentized_range import q_alpha


def _scores(values: np.ndarray) -> rs.Scores:
    """Scores of an (N blocks, k systems) array, higher = better."""
    n, k = values.shape
    df = pd.DataFrame(values.T, columns=[f"b{i}" for i in range(n)])
    df.insert(0, "system", [f"s{j}" for j in range(k)])
    return rs.Scores.from_wide(df)


def _tables():
    """(name, Scores, blocks × systems array) of the bundled and random tables."""
    out = []
    for name in ("glue", "xtreme"):
        scores = rs.load_dataset(name)
        out.append((name, scores, scores.to_wide().to_numpy().T))
    rng = np.random.default_rng(3)
    for n, k, levels in ((12, 5, 3), (30, 7, 4), (80, 4, 10)):
        values = rng.integers(0, levels, size=(n, k)).astype(float)  # ties
        out.append((f"random{n}x{k}", _scores(values), values))
    return out


TABLES = _tables()
IDS = [t[0] for t in TABLES]


def _lookup(matrix: pd.DataFrame, table: pd.DataFrame) -> np.ndarray:
    return np.array([matrix.loc[a, b] for a, b in zip(table.system_a, table.system_b, strict=True)])


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm (1979), step by step as the paper states it."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p[i]))
        adjusted[i] = running
    return np.array(adjusted)


@pytest.mark.parametrize(("name", "scores", "values"), TABLES, ids=IDS)
def test_nemenyi_equals_scikit_posthocs(name, scores, values):
    sp = pytest.importorskip("scikit_posthocs")
    res = posthoc(scores, method="nemenyi", effect_sizes=False)
    expected = sp.posthoc_nemenyi_friedman(pd.DataFrame(values, columns=list(scores.systems)))
    # scikit-posthocs takes scipy's studentized_range.sf = 1 − cdf: accurate to ~1e-14 in
    # absolute terms only (our tail keeps its relative precision: see the test below).
    np.testing.assert_allclose(
        res.table["p_value"], _lookup(expected, res.table), rtol=1e-9, atol=1e-13
    )
    assert (
        res.table["p_adjusted"] == res.table["p_value"]
    ).all() and res.correction == "single-step"
    # The CD is the rank difference at which scikit-posthocs' p-value crosses α.
    n, k = values.shape
    cd = res.critical_difference
    assert cd == pytest.approx(critical_difference(0.05, k, n))
    wider = np.abs(res.table["mean_rank_a"] - res.table["mean_rank_b"]) > cd
    assert (wider == (_lookup(expected, res.table) < 0.05)).all()
    assert (res.table["significant"] == wider).all()


def test_critical_difference_formula():
    # CD = q_α √(k(k+1)/6N), q_α = studentized range quantile / √2 (Demšar 2006, Sec. 3.2.2).
    for alpha, k, n in ((0.05, 4, 14), (0.10, 10, 30), (0.01, 100, 10_000)):
        q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
        assert q_alpha(alpha, k) == pytest.approx(q, rel=1e-12)
        assert critical_difference(alpha, k, n) == pytest.approx(
            q * np.sqrt(k * (k + 1) / (6 * n)), rel=1e-12
        )
    # autorank's form: qsturng(1 − α, k, ∞) √(k(k+1)/12N)
    libqsturng = pytest.importorskip("statsmodels.stats.libqsturng")
    autorank_cd = libqsturng.qsturng(0.95, 7, np.inf) * np.sqrt(7 * 8 / (12 * 20))
    assert critical_difference(0.05, 7, 20) == pytest.approx(autorank_cd, rel=1e-3)


@pytest.mark.parametrize(("name", "scores", "values"), TABLES, ids=IDS)
def test_conover_equals_scikit_posthocs(name, scores, values):
    sp = pytest.importorskip("scikit_posthocs")
    frame = pd.DataFrame(values, columns=list(scores.systems))
    raw = posthoc(scores, method="conover", correction="none", effect_sizes=False)
    expected = sp.posthoc_conover_friedman(frame)
    np.testing.assert_allclose(raw.table["p_value"], _lookup(expected, raw.table), rtol=1e-9)
    holm = posthoc(scores, method="conover", effect_sizes=False)  # Holm by default
    assert holm.correction == "holm"
    expected = sp.posthoc_conover_friedman(frame, p_adjust="holm")
    np.testing.assert_allclose(holm.table["p_adjusted"], _lookup(expected, holm.table), rtol=1e-9)
    np.testing.assert_allclose(holm.table["p_adjusted"], _holm(holm.table["p_value"].to_numpy()))


def test_conover_and_nemenyi_equal_the_textbook_formulas_pair_by_pair():
    """Conover (1999, Sec. 5.8) and Nemenyi (Demšar 2006, Sec. 3.2.2) written with loops over
    blocks and pairs, on a small table with ties (mid-ranks from scipy.stats.rankdata)."""
    rng = np.random.default_rng(21)
    b, k = 12, 5
    values = rng.integers(0, 4, size=(b, k)).astype(float)
    values[:, 4] += 1.0  # one better system
    ranks = [stats.rankdata([-v for v in values[i]]) for i in range(b)]  # 1 = best
    rank_sum = [sum(ranks[i][j] for i in range(b)) for j in range(k)]
    a1 = sum(ranks[i][j] ** 2 for i in range(b) for j in range(k))
    c1 = b * k * (k + 1) ** 2 / 4
    t1 = (k - 1) * (sum(r**2 for r in rank_sum) - b * c1) / (a1 - c1)
    df = (b - 1) * (k - 1)
    scale = np.sqrt(2 * b * (a1 - c1) * (1 - t1 / (b * (k - 1))) / df)
    conover = posthoc(_scores(values), method="conover", correction="none", effect_sizes=False)
    nemenyi = posthoc(_scores(values), method="nemenyi", effect_sizes=False)
    for res in (conover, nemenyi):
        for row in res.table.itertuples():
            i, j = int(row.system_a[1:]), int(row.system_b[1:])
            if res.method == "conover":
                t = abs(rank_sum[i] - rank_sum[j]) / scale
                assert row.statistic == pytest.approx(t, rel=1e-12)
                assert row.p_value == pytest.approx(2 * stats.t.sf(t, df), rel=1e-10)
            else:
                q = abs(rank_sum[i] - rank_sum[j]) / b / np.sqrt(k * (k + 1) / (6 * b))
                assert row.statistic == pytest.approx(q, rel=1e-12)
                expected = stats.studentized_range.sf(q * np.sqrt(2), k, np.inf)
                assert row.p_value == pytest.approx(expected, rel=1e-9, abs=1e-13)


@pytest.mark.parametrize(
    ("n", "k", "levels"),
    [(10, 4, 3), (12, 3, 1000), (20, 5, 4), (30, 4, 10**6), (70, 5, 6)],
)
def test_wilcoxon_holm_equals_scipy_pair_by_pair(n, k, levels):
    rng = np.random.default_rng(n * k)
    values = rng.integers(0, levels, size=(n, k)) + np.linspace(0, 0.5 * levels, k)
    res = posthoc(_scores(values), method="wilcoxon-holm", effect_sizes=False)
    column = {f"s{j}": j for j in range(k)}
    p, statistic = [], []
    for a, b in zip(res.table.system_a, res.table.system_b, strict=True):
        expected = stats.wilcoxon(values[:, column[a]], values[:, column[b]])
        p.append(expected.pvalue)
        statistic.append(expected.statistic)
    np.testing.assert_allclose(res.table["statistic"], statistic)
    np.testing.assert_allclose(res.table["p_value"], p, rtol=1e-10)
    np.testing.assert_allclose(res.table["p_adjusted"], _holm(np.array(p)), rtol=1e-10)
    assert (res.table["significant"] == (_holm(np.array(p)) < 0.05)).all()


def test_wilcoxon_needs_scores():
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]])
    with pytest.raises(ValueError, match="needs scores"):
        posthoc(rk, method="wilcoxon-holm")
    res = posthoc(rk, method="nemenyi")
    assert res.table[["cliffs_delta", "cohens_d", "akinshin_gamma"]].isna().all().all()


def _cliff(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean([np.sign(xi - yj) for xi in x for yj in y]))


def test_effect_sizes_follow_their_definitions():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 5, size=(25, 4)).astype(float)
    values[:, 3] = rng.normal(size=25)
    a, b = np.array([0, 0, 1, 3, 2]), np.array([1, 2, 3, 0, 2])
    got = pairwise_effect_sizes(values, a, b)
    for row, (i, j) in enumerate(zip(a, b, strict=True)):
        x, y = values[:, i], values[:, j]
        pooled_sd = np.sqrt(((len(x) - 1) * x.var(ddof=1) + (len(y) - 1) * y.var(ddof=1)) / 48)
        mad = [stats.median_abs_deviation(v, scale="normal") for v in (x, y)]
        pooled_mad = np.sqrt((24 * mad[0] ** 2 + 24 * mad[1] ** 2) / 48)
        assert got.cliffs_delta[row] == pytest.approx(_cliff(x, y), abs=1e-12)
        if i != j:
            assert got.cohens_d[row] == pytest.approx((x.mean() - y.mean()) / pooled_sd)
            assert got.akinshin_gamma[row] == pytest.approx(
                (np.median(x) - np.median(y)) / pooled_mad, rel=1e-4
            )
    assert got.cliffs_delta[4] == 0.0


def test_table_layout_and_effect_orientation():
    scores = rs.load_dataset("glue")
    res = posthoc(scores, method="nemenyi")
    table = res.table
    k = scores.n_systems
    assert len(table) == k * (k - 1) // 2 == res.n_pairs
    assert (table["mean_rank_a"] <= table["mean_rank_b"]).all()
    assert (table["rank_difference"] >= 0).all()
    assert {frozenset(p) for p in zip(table.system_a, table.system_b, strict=True)} == {
        frozenset(p) for p in itertools.combinations(scores.systems, 2)
    }
    # the best-ranked system of every pair mostly scores higher: positive effect sizes
    assert (table["cliffs_delta"] > 0).mean() > 0.9
    wide = scores.to_wide()
    first = table.iloc[0]
    x, y = wide.loc[first.system_a].to_numpy(), wide.loc[first.system_b].to_numpy()
    assert first.cliffs_delta == pytest.approx(_cliff(x, y))


def _brute_groups(order: list[str], significant: set[frozenset]) -> list[tuple[str, ...]]:
    intervals = [
        (i, j)
        for i in range(len(order))
        for j in range(i, len(order))
        if not any(
            frozenset((order[a], order[b])) in significant
            for a in range(i, j + 1)
            for b in range(a + 1, j + 1)
        )
    ]
    maximal = [
        (i, j)
        for i, j in intervals
        if not any((p <= i and j <= q) and (p, q) != (i, j) for p, q in intervals)
    ]
    return [tuple(order[i : j + 1]) for i, j in sorted(maximal)]


@pytest.mark.parametrize("method", ["nemenyi", "conover", "wilcoxon-holm"])
def test_groups_are_the_maximal_cliques_of_consecutive_systems(method):
    res = posthoc(rs.load_dataset("xtreme"), method=method, alpha=0.2)
    significant = {
        frozenset((a, b))
        for a, b, s in zip(
            res.table.system_a, res.table.system_b, res.table.significant, strict=True
        )
        if s
    }
    assert res.groups() == _brute_groups(list(res.mean_ranks.index), significant)
    if method == "nemenyi":
        for group in res.groups():
            spread = res.mean_ranks[list(group)]
            assert spread.max() - spread.min() <= res.critical_difference


def test_complete_case_and_options():
    with pytest.warns(rs.DataWarning):
        scores = rs.load_dataset("xtreme_table5")
    with pytest.raises(ValueError, match="complete-case"):
        posthoc(scores)
    res = posthoc(scores, missing="complete-case", min_coverage=0.7)
    blocks = rank_blocks(scores, missing="complete-case", min_coverage=0.7)
    assert list(res.dropped_blocks) == list(blocks.dropped_blocks)
    assert res.dropped_systems == blocks.dropped_systems != ()
    assert "dropped" in repr(res)
    with pytest.raises(ValueError, match="method must be one of"):
        posthoc(scores, method="tukey")
    with pytest.raises(ValueError, match="single-step"):
        posthoc(rs.load_dataset("xtreme"), method="nemenyi", correction="holm")
    bonferroni = posthoc(rs.load_dataset("xtreme"), method="conover", correction="bonferroni")
    p = bonferroni.table["p_value"].to_numpy()
    np.testing.assert_allclose(bonferroni.table["p_adjusted"], np.minimum(1, p * len(p)))


def test_repr_and_matrix():
    res = posthoc(rs.load_dataset("xtreme"), method="nemenyi")
    text = repr(res)
    assert text.startswith("PosthocResult(nemenyi, 15 systems, 4 task blocks")
    assert "critical difference CD" in text and "single-step" in text
    matrix = res.matrix("p_value")
    assert list(matrix.index) == list(res.mean_ranks.index)
    np.testing.assert_allclose(matrix.to_numpy(), matrix.to_numpy().T)
    assert np.isnan(np.diag(matrix.to_numpy())).all()


def test_wilcoxon_pair_with_equal_scores_everywhere():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(20, 3))
    values[:, 1] = values[:, 0]
    with np.errstate(all="raise"):
        res = posthoc(_scores(values), method="wilcoxon-holm")
    same = res.table.system_a.isin(["s0", "s1"]) & res.table.system_b.isin(["s0", "s1"])
    row = res.table[same]
    assert row["p_value"].tolist() == [1.0] and row["statistic"].tolist() == [0.0]
    others = res.table.drop(index=row.index)
    expected = [
        stats.wilcoxon(values[:, int(a[1])], values[:, int(b[1])]).pvalue
        for a, b in zip(others.system_a, others.system_b, strict=True)
    ]
    np.testing.assert_allclose(others["p_value"], expected, rtol=1e-10)
    assert res.table["p_adjusted"].notna().all()


def test_imputed_missing_scores():
    with pytest.warns(rs.DataWarning):
        scores = rs.load_dataset("xtreme_table5")
    res = posthoc(scores, missing="imputed")
    assert res.blocks.imputed and res.n_blocks == 4 and res.dropped_systems == ("M5",)
    assert res.correction == "single-step" and res.table[list(EFFECT_SIZES)].isna().all().all()
    assert not np.isfinite(res.critical_difference) and np.isfinite(res.q_alpha)
    holm = posthoc(res.blocks, correction="holm")
    assert holm.correction == "holm" and not np.isfinite(holm.q_alpha)
    assert (holm.table.p_adjusted >= holm.table.p_value).all()
    text = repr(res)
    assert "missing='imputed'" in text and "no single critical difference" in text
    for method in ("conover", "wilcoxon-holm"):
        with pytest.raises(ValueError, match="missing='imputed'"):
            posthoc(res.blocks, method=method)


@pytest.mark.parametrize("k", [2, 3, 4, 10, 50, 100, 300])
def test_studentized_range_sf_equals_scipy_and_the_exact_two_sample_tail(k):
    """The vectorised quadrature against scipy where scipy's ``1 − cdf`` is accurate, and, for
    k = 2 (the range of two normals is |N(0, 2)|), against the exact tail far below 1e-16."""
    from scipy import special

    from rankstats.significance.studentized_range import studentized_range_sf

    q = np.concatenate([[0.0, 1e-6], np.linspace(0.05, 8.0, 60)])
    ref = stats.studentized_range.sf(q, k, np.inf)
    got = studentized_range_sf(q, k)
    accurate = ref > 1e-12
    np.testing.assert_allclose(got[accurate], ref[accurate], rtol=1e-9, atol=1e-14)
    assert np.all(np.diff(got) <= 1e-13) and got[0] == 1.0  # non-increasing (to rounding)
    if k == 2:
        tail = np.linspace(5.0, 25.0, 41)
        exact = 2.0 * special.ndtr(-tail / np.sqrt(2.0))
        np.testing.assert_allclose(studentized_range_sf(tail, 2), exact, rtol=1e-9)


def _cliffs_delta_one_system_at_a_time(values: np.ndarray) -> np.ndarray:
    """The implementation before issue 24: one cumulative count over all values per system
    (``O(k · Nk)``); the reference of the chunked count, which must give the same numbers."""
    n, k = values.shape
    flat = values.ravel(order="F")
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    label = order // n
    run_start = np.empty(len(flat), dtype=bool)
    run_start[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=run_start[1:])
    starts = np.flatnonzero(run_start)
    run = np.cumsum(run_start) - 1
    first = starts[run]
    after = np.append(starts[1:], len(flat))[run]
    delta = np.empty((k, k))
    count = np.zeros(len(flat) + 1, dtype=np.int64)
    for j in range(k):
        np.cumsum(label == j, out=count[1:])
        signed = count[first] + count[after] - n
        delta[:, j] = np.bincount(label, weights=signed, minlength=k) / (n * n)
    return delta


@pytest.mark.parametrize("threads", [False, True], ids=["one-thread", "second-thread"])
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 32])
def test_chunked_cliffs_delta_is_identical_to_one_count_per_system(monkeypatch, chunk, threads):
    """Exactly equal (not approximately) on random tables with ties: few distinct values (runs
    across many chunks), rounded normals, continuous values, and one or two blocks; with the
    pairs inside the chunks counted on a second thread too (as on large tables)."""
    from rankstats.significance import effect_sizes

    monkeypatch.setattr(effect_sizes, "_CHUNK", chunk)
    monkeypatch.setattr(effect_sizes, "THREAD_CELLS", 1 if threads else 10**12)
    monkeypatch.setattr(effect_sizes, "_spare_core", lambda: True)  # whatever the load
    # Blocks of one chunk, of a few, or all chunks at once in the product across chunks.
    monkeypatch.setattr(effect_sizes, "_PRODUCT_CELLS", (1, 20, 10**9)[chunk % 3])
    rng = np.random.default_rng(chunk)
    for trial in range(60):
        n, k = int(rng.integers(1, 40)), int(rng.integers(2, 9))
        kind = trial % 3
        if kind == 0:
            values = rng.integers(0, 4, size=(n, k)).astype(float)
        elif kind == 1:
            values = np.round(rng.normal(size=(n, k)), 1)
        else:
            values = rng.normal(size=(n, k))
        expected = _cliffs_delta_one_system_at_a_time(values)
        np.testing.assert_array_equal(effect_sizes._cliffs_delta(values), expected)


def test_cliffs_delta_identical_on_a_large_table_with_ties():
    from rankstats.significance.effect_sizes import _cliffs_delta

    rng = np.random.default_rng(5)
    values = np.round(rng.beta(2.0, 3.0, size=(3000, 30)), 2)  # 101 values: long runs
    np.testing.assert_array_equal(_cliffs_delta(values), _cliffs_delta_one_system_at_a_time(values))


def test_alpha_as_a_numpy_scalar_or_0d_array_gives_the_same_result():
    # q_alpha is cached: an unhashable 0-d array must reach the cache as a float
    xt = rs.load_dataset("xtreme")
    plain = posthoc(xt, alpha=0.05)
    for alpha in (np.float64(0.05), np.array(0.05)):
        other = posthoc(xt, alpha=alpha)
        assert other.critical_difference == plain.critical_difference
        pd.testing.assert_frame_equal(other.table, plain.table)
    assert q_alpha(np.array(0.05), np.int64(4)) == q_alpha(0.05, 4)


@pytest.mark.long
def test_a_result_unpickled_in_a_new_process_plots_itself(tmp_path):
    """The figure is registered when rankstats.significance is imported, which unpickling the
    result does: no import of the post-hoc module is needed to plot."""
    import pickle
    import subprocess
    import sys

    path = tmp_path / "result.pkl"
    path.write_bytes(pickle.dumps(posthoc(rs.load_dataset("xtreme"))))
    code = (
        "import pickle, sys; r = pickle.load(open(sys.argv[1], 'rb')); "
        "assert 'rankstats.significance.posthoc_tests' not in sys.modules; "
        "print(type(r.plot()).__name__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Figure"


def test_effect_sizes_counted_alongside_equal_the_sequential_table(monkeypatch):
    """A large table's Cliff's δ is counted on a second thread while the test runs: the post-hoc
    and Tukey tables are identical to those computed on one thread, and an error of the count
    reaches the caller."""
    from rankstats.significance import effect_sizes

    rng = np.random.default_rng(11)
    n, k = 2_000, 60  # 120,000 scores: above THREAD_CELLS
    assert n * k >= effect_sizes.THREAD_CELLS
    values = np.round(rng.beta(2.0, 3.0, size=(n, k)), 3)  # ties too
    frame = pd.DataFrame(
        {
            "system": np.tile([f"s{j}" for j in range(k)], n),
            "task": np.repeat([f"t{i}" for i in range(n)], k),
            "score": values.ravel(),
        }
    )
    scores = rs.Scores.from_long(frame)
    monkeypatch.setattr(effect_sizes, "_spare_core", lambda: True)  # whatever the load
    alongside = rs.posthoc(scores), rs.tukey_hsd(scores)
    monkeypatch.setattr(effect_sizes, "THREAD_CELLS", 10**12)
    sequential = rs.posthoc(scores), rs.tukey_hsd(scores)
    for threaded, alone in zip(alongside, sequential, strict=True):
        assert threaded.table["cliffs_delta"].notna().all()
        pd.testing.assert_frame_equal(threaded.table, alone.table, check_exact=True)

    counted_on = []

    def broken(values):
        counted_on.append(threading.current_thread().name)
        raise MemoryError("counting failed")

    monkeypatch.setattr(effect_sizes, "THREAD_CELLS", 1)
    monkeypatch.setattr(effect_sizes, "_cliffs_delta", broken)
    with pytest.raises(MemoryError, match="counting failed"):
        rs.posthoc(scores)
    assert counted_on == ["rankstats-effect-sizes"]  # not on the caller's thread


def test_no_second_thread_without_a_spare_core(monkeypatch):
    """A busy machine: Cliff's δ is counted on the caller's thread (a thread would wait for a
    core), with the same table."""
    from rankstats.significance import effect_sizes

    values = np.random.default_rng(2).normal(size=(2_000, 60))
    a, b = np.triu_indices(60, 1)
    spare_core = effect_sizes._spare_core
    started = []
    monkeypatch.setattr(effect_sizes, "_in_thread", lambda *args: started.append(args))
    monkeypatch.setattr(effect_sizes, "_spare_core", lambda: False)
    table = effect_sizes.effect_sizes_alongside(values, a, b)()
    assert not started
    pd.testing.assert_frame_equal(table, pairwise_effect_sizes(values, a, b), check_exact=True)
    monkeypatch.setattr(effect_sizes.os, "getloadavg", lambda: (99.0, 0.0, 0.0))
    assert not spare_core()
    monkeypatch.setattr(effect_sizes.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert spare_core()

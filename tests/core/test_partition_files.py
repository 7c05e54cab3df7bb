"""Partition functions on disk: the cache a new process loads instead of recomputing, the CSV
tables that export and import them (rankstats/core/permutations/partition_store.py,
rankstats/io/partition_files.py). Every test points the cache at its own folder."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from rankstats.core.permutations import partition as mallows_partition
from rankstats.core.permutations import partition_store
from rankstats.core.permutations.partition import IS_POINTS, partition_function
from rankstats.io.partition_files import read_partition_function

ARRAYS = ("log_counts", "alpha_grid", "log_z_grid", "log_z_se", "expected_grid")
SMALL = {"n": 15, "distance": "spearman", "draws": 300}  # an estimate in 1 s


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, and no partition function kept in memory."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("RANKSTATS_CACHE_DIR", str(folder))
    monkeypatch.setattr(partition_store, "_warned", False)
    mallows_partition._partition_function.cache_clear()
    yield folder / "partition"
    mallows_partition._partition_function.cache_clear()


def _small(**extra):
    return partition_function(
        SMALL["n"],
        SMALL["distance"],
        method="importance sampling",
        draws=SMALL["draws"],
        **extra,
    )


def _assert_same(a, b, alphas):
    assert (a.distance, a.n, a.method, a.draws, a.seed) == (
        b.distance,
        b.n,
        b.method,
        b.draws,
        b.seed,
    )
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            np.testing.assert_array_equal(x, y, err_msg=name)
    for f in ("log_z", "expected_distance", "standard_error"):
        np.testing.assert_array_equal(getattr(a, f)(alphas), getattr(b, f)(alphas), err_msg=f)


# ------------------------------------------------------------------------------ disk cache
def test_a_fresh_process_loads_the_estimate_instead_of_computing_it(cache):
    computed = _small()
    files = list(cache.iterdir())
    assert [f.name for f in files] == [
        "spearman-n15-importance_sampling-alpha60.0-draws300-seed0-v1.2.npz"
    ]
    out = cache.parent / "loaded.npz"
    script = f"""
import numpy as np
from rankstats.core.permutations import partition as mp
def refuse(*args):
    raise AssertionError("recomputed instead of loaded")
mp.importance_sampling = refuse
pf = mp.partition_function({SMALL["n"]}, {SMALL["distance"]!r}, method="importance sampling",
                           draws={SMALL["draws"]})
alphas = np.linspace(0.0, 60.0, 301)
np.savez({str(out)!r}, grid=pf.alpha_grid, log_z_grid=pf.log_z_grid, se=pf.log_z_se,
         expected=pf.expected_grid, log_z=pf.log_z(alphas), e=pf.expected_distance(alphas),
         s=pf.standard_error(alphas), meta=np.array([pf.draws, pf.seed]))
"""
    subprocess.run([sys.executable, "-c", script], check=True, env=os.environ.copy())
    alphas = np.linspace(0.0, 60.0, 301)
    with np.load(out) as loaded:
        np.testing.assert_array_equal(loaded["grid"], computed.alpha_grid)
        np.testing.assert_array_equal(loaded["log_z_grid"], computed.log_z_grid)
        np.testing.assert_array_equal(loaded["se"], computed.log_z_se)
        np.testing.assert_array_equal(loaded["expected"], computed.expected_grid)
        np.testing.assert_array_equal(loaded["log_z"], computed.log_z(alphas))
        np.testing.assert_array_equal(loaded["e"], computed.expected_distance(alphas))
        np.testing.assert_array_equal(loaded["s"], computed.standard_error(alphas))
        assert list(loaded["meta"]) == [SMALL["draws"], 0]


def test_a_loaded_function_equals_the_computed_one_and_defaults_share_a_file(cache, monkeypatch):
    computed = _small()
    mallows_partition._partition_function.cache_clear()
    monkeypatch.setattr(mallows_partition, "importance_sampling", _refuse)
    loaded = _small(alpha_max=60.0)  # 4n: the default's grid, the default's file
    _assert_same(computed, loaded, np.linspace(0.0, 60.0, 401))
    assert (
        loaded.log_z_table().coefficients.tolist() == computed.log_z_table().coefficients.tolist()
    )
    with pytest.raises(AssertionError, match="recomputed"):  # another seed: another file
        _small(seed=1)


def _refuse(*args):
    raise AssertionError("recomputed instead of loaded")


def test_exact_counts_are_kept_from_the_costly_sizes_on(cache, monkeypatch):
    assert partition_function(12, "spearman").method == "exact counts"
    assert not cache.exists()  # 0.06 s: not worth a file
    computed = partition_function(13, "spearman")
    assert [f.name for f in cache.iterdir()] == ["spearman-n13-exact_counts-v1.2.npz"]
    mallows_partition._partition_function.cache_clear()
    monkeypatch.setitem(mallows_partition.LOG_COUNTS, "spearman", _refuse)
    loaded = partition_function(13, "spearman")
    _assert_same(computed, loaded, np.linspace(0.0, 100.0, 101))
    assert not loaded.log_counts.flags.writeable


def test_the_cache_turned_off_writes_nothing(tmp_path, monkeypatch, cache):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _small(cache=False)
    monkeypatch.setenv("RANKSTATS_CACHE_DIR", "")
    assert partition_store.cache_directory() is None
    _small(seed=3)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("RANKSTATS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert partition_store.cache_directory() == tmp_path / "xdg" / "rankstats" / "partition"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored (XDG)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert partition_store.cache_directory() == tmp_path / ".cache" / "rankstats" / "partition"
    monkeypatch.setenv("RANKSTATS_CACHE_DIR", str(tmp_path / "mine"))
    assert partition_store.cache_directory() == tmp_path / "mine" / "partition"


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(b"not a zip file"),
        lambda path: path.write_bytes(path.read_bytes()[:200]),  # truncated
        lambda path: np.savez(path.open("wb"), alpha_grid=np.ones(3)),  # arrays missing
    ],
    ids=["garbage", "truncated", "incomplete"],
)
def test_a_corrupt_file_is_ignored_and_overwritten(cache, damage):
    computed = _small()
    (path,) = cache.iterdir()
    damage(path)
    mallows_partition._partition_function.cache_clear()
    again = _small()
    _assert_same(computed, again, np.linspace(0.0, 60.0, 101))
    key = {"distance": "spearman", "n": 15, "method": "importance sampling"}
    key |= {"alpha_max": 60.0, "draws": 300, "seed": 0}
    assert partition_store.read_cached(path, key, ("alpha_grid",)) is not None  # rewritten


def test_a_file_of_another_version_or_argument_set_is_not_loaded(cache, monkeypatch):
    _small()
    (path,) = cache.iterdir()
    other = cache / path.name.replace("seed0", "seed5")
    other.write_bytes(path.read_bytes())  # the right name, the wrong content
    mallows_partition._partition_function.cache_clear()
    monkeypatch.setattr(mallows_partition, "importance_sampling", _refuse)
    with pytest.raises(AssertionError, match="recomputed"):
        _small(seed=5)
    monkeypatch.setattr(mallows_partition, "ALGORITHM_VERSION", 3)  # a new estimator
    assert partition_store.cache_file(
        {"distance": "spearman", "n": 15, "method": "x"}, 3
    ).name.endswith("-v1.3.npz")
    with pytest.raises(AssertionError, match="recomputed"):
        _small()


def test_an_unwritable_folder_costs_one_warning_and_no_error(tmp_path, monkeypatch, cache):
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where the folder should be")  # refused even to root
    monkeypatch.setenv("RANKSTATS_CACHE_DIR", str(blocker))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = _small()
        _small(seed=1)
        partition_function(13, "spearman")
    assert [type(w.message) for w in caught] == [RuntimeWarning]
    assert "RANKSTATS_CACHE_DIR" in str(caught[0].message)
    assert first.method == "importance sampling"


def test_an_interrupted_write_leaves_no_file(tmp_path):
    class HalfATable:  # fails in the middle of writing its rows
        def to_csv(self, out, **options):
            out.write("alpha,log_z\n0,")
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError, match="interrupted"):
        partition_store.write_table(tmp_path / "table.csv", HalfATable(), {"n": 4})
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------ export / import
def test_an_estimate_saved_and_read_back_is_the_same_estimate(tmp_path):
    computed = _small(cache=False)
    path = computed.save(tmp_path / "z.csv")
    assert [p.name for p in tmp_path.iterdir()] == ["z.csv"]  # the temporary file renamed
    text = path.read_text()
    assert text.startswith("# rankstats partition function\n# format_version: 1\n")
    assert "# method: importance sampling\n# draws: 300\n# seed: 0\n" in text
    back = read_partition_function(path)
    _assert_same(computed, back, np.linspace(0.0, 60.0, 997))
    frame = pd.read_csv(path, comment="#")  # what a user outside rankstats reads
    assert list(frame.columns) == ["alpha", "log_z", "log_z_se", "expected_distance"]
    np.testing.assert_array_equal(frame["log_z"], computed.log_z_grid)


def test_exact_values_read_back_within_the_interpolation_error(tmp_path):
    exact = partition_function(10, "spearman")
    frame = exact.to_frame()
    assert len(frame) == mallows_partition.EXPORT_POINTS and frame["alpha"].iloc[-1] == 40.0
    assert (frame["log_z_se"] == 0).all()
    back = read_partition_function(exact.save(tmp_path / "exact.csv"))
    assert back.method == "imported"
    alphas = np.linspace(0.0, 40.0, 4001)
    gap = np.max(np.abs(back.log_z(alphas) - exact.log_z(alphas)))
    assert gap < 2e-6
    rel = np.abs(back.expected_distance(alphas) - exact.expected_distance(alphas))
    assert np.max(rel / np.maximum(exact.expected_distance(alphas), 1.0)) < 1e-3
    # The bound is not slack: 11 points on the same range miss by more.
    coarse = read_partition_function(exact.to_frame(40.0 * np.linspace(0, 1, 11) ** 2))
    assert np.max(np.abs(coarse.log_z(alphas) - exact.log_z(alphas))) > 2e-6


def test_a_table_of_log_z_alone_is_a_consistent_spline(tmp_path):
    """A BayesMallows-like table: alpha and log_z, no header. E[d] is −n times the slope of
    log Z, between the grid's points too, and the compiled kernels evaluate the same spline."""
    exact = partition_function(10, "spearman")
    alpha = 40.0 * np.linspace(0.0, 1.0, 81) ** 2  # denser where log Z bends most
    path = tmp_path / "from_r.csv"
    pd.DataFrame({"alpha": alpha, "log_z": exact.log_z(alpha)}).to_csv(path, index=False)
    with pytest.raises(ValueError, match="no distance: the table has no rankstats header"):
        read_partition_function(path)
    pf = read_partition_function(path, distance="spearman", n=10)
    assert (pf.method, pf.distance, pf.n) == ("imported", "spearman", 10)
    fine = np.linspace(0.0, 40.0, 2001)
    assert np.max(np.abs(pf.log_z(fine) - exact.log_z(fine))) < 1e-3  # 5.2e-4
    uniform = np.arange(0.0, 40.5, 0.5)  # BayesMallows' example grid: too coarse near 0
    coarse = pd.DataFrame({"alpha": uniform, "log_z": exact.log_z(uniform)})
    coarse = read_partition_function(coarse, distance="spearman", n=10)
    assert np.max(np.abs(coarse.log_z(fine) - exact.log_z(fine))) > 0.1  # 0.24 near alpha = 0
    assert np.max(np.abs(pf.log_z(alpha) - exact.log_z(alpha))) < 1e-12  # through its points
    h = 1e-6
    inner = fine[1:-1]
    slope = (pf.log_z(inner + h) - pf.log_z(inner - h)) / (2 * h)
    np.testing.assert_allclose(pf.expected_distance(inner), -10 * slope, rtol=1e-5, atol=1e-5)
    assert np.all(pf.expected_distance(fine) >= -1e-9)
    np.testing.assert_array_equal(pf.standard_error(fine), 0.0)
    with pytest.raises(ValueError, match="beyond the imported table"):
        pf.log_z(41.0)
    numba_kernels = pytest.importorskip("rankstats.models.mallows._partition_numba")
    table = pf.log_z_table()
    assert table.form == "spline"
    empty = np.empty(0)
    kernel = [
        numba_kernels.log_z(
            table.code, table.n, empty, np.zeros(1, np.int64), empty, 1, table.breaks,
            table.coefficients, table.log_factorial, float(a),
        )
        for a in fine[::20]
    ]  # fmt: skip
    np.testing.assert_allclose(kernel, pf.log_z(fine[::20]), rtol=6e-14, atol=0)


def _saved(tmp_path, pf, edit) -> str:
    """A table ``pf`` saved, then edited as text by ``edit``."""
    path = tmp_path / "bad.csv"
    path.write_text(edit(pf.save(path).read_text()))
    return path


def _replace_row(text: str, row: int, new: str) -> str:
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("alpha"))
    lines[first + row] = new
    return "\n".join(lines) + "\n"


#: The second and third values of α of the estimate's grid (as the table writes them).
A2, A3 = (repr(float(60.0 * np.linspace(0.0, 1.0, IS_POINTS)[i] ** 3)) for i in (1, 2))
ROW2 = A2 + ",{},{},504.21375798570807"  # the second row, log_z and s.e. edited
BAD = {
    "missing column": (lambda t: t.replace("alpha,log_z,", "alpha,logz,"), "no column log_z"),
    "unknown column": (
        lambda t: t.replace("alpha,log_z,", "Unnamed: 0,alpha,log_z,").replace(
            "\n0.0,", "\n1,0.0,"
        ),
        "unknown column(s) Unnamed: 0",
    ),
    "not increasing": (
        lambda t: _replace_row(t, 3, "0.00001,20.0,0.0,300.0"),
        "alpha does not increase at row 3",
    ),
    "not finite": (
        lambda t: _replace_row(t, 2, ROW2.format("nan", 0)),
        "column log_z is not finite at row 2",
    ),
    "not a number": (
        lambda t: _replace_row(t, 2, ROW2.format("abc", 0)),
        "column log_z is not a number at row 2",
    ),
    "not from 0": (
        lambda t: _replace_row(t, 1, "0.001,27.89927138384089,0,550"),
        "starts at 0.001, not at 0",
    ),
    "E out of range": (
        lambda t: _replace_row(t, 1, "0.0,27.89927138384089,0,1200"),
        "outside [0, 1120]",
    ),
    "n invalid": (lambda t: t.replace("# n: 15", "# n: fifteen"), "n must be a whole number"),
    "n too small": (lambda t: t.replace("# n: 15", "# n: 0"), "whole number of items ≥ 1"),
    "distance invalid": (
        lambda t: t.replace("# distance: spearman", "# distance: euclid"),
        "distance must be one of",
    ),
    "newer format": (
        lambda t: t.replace("# format_version: 1", "# format_version: 9"),
        "format_version 9 is newer",
    ),
    "log z rises": (
        lambda t: _replace_row(t, 3, A3 + ",28.5,0,349"),
        "log_z increases",
    ),
    "wrong n": (lambda t: t.replace("# n: 15", "# n: 16"), "is n = 16 right?"),
    "negative se": (
        lambda t: _replace_row(t, 2, ROW2.format("27.898", -0.1)),
        "log_z_se is negative",
    ),
    "one row": (lambda t: t.split("\n" + A2)[0] + "\n", "at least two values of alpha"),
    "no table": (
        lambda t: "\n".join(line for line in t.splitlines() if line.startswith("#")),
        "no table",
    ),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_table_is_refused_with_one_line_naming_the_file_and_the_problem(tmp_path, case):
    edit, message = BAD[case]
    path = _saved(tmp_path, _small(cache=False), edit)
    with pytest.raises(ValueError) as raised:
        read_partition_function(path)
    text = str(raised.value)
    assert text.startswith(f"{path}: ") and "\n" not in text
    assert message in text, text


def test_the_caller_and_the_header_must_agree(tmp_path):
    path = _small(cache=False).save(tmp_path / "z.csv")
    with pytest.raises(ValueError, match="the table is for distance = 'spearman', not 'footrule'"):
        read_partition_function(path, distance="footrule")
    with pytest.raises(ValueError, match="the table is for n = 15, not 14"):
        read_partition_function(path, n=14)
    assert read_partition_function(path, distance="spearman", n=15).n == 15


def test_a_frame_of_to_frame_reads_back_without_a_file():
    exact = partition_function(6, "footrule")
    back = read_partition_function(exact.to_frame())  # its metadata in .attrs
    assert (back.method, back.distance, back.n) == ("imported", "footrule", 6)
    np.testing.assert_allclose(back.log_z(5.0), exact.log_z(5.0), atol=1e-6)
    assert back.log_z(0.0) == pytest.approx(math.lgamma(7))
    with pytest.raises(ValueError, match=r"^the table: no column log_z"):
        read_partition_function(pd.DataFrame({"alpha": [0.0, 1.0]}), distance="footrule", n=6)


def test_a_chosen_partition_function_is_the_one_every_fit_uses(tmp_path):
    # A valid table that is not the exact one (log Z at 1.25 α: still log n! at 0 and falling),
    # so that a fit and its pointwise likelihood show which they used.
    import rankstats as rs

    rk = rs.load_rankings("salad")
    n = rk.n_systems
    exact = partition_function(n, "spearman")
    alpha = 4 * n * np.linspace(0, 1, 201) ** 2
    stretched = rs.models.read_partition_function(
        pd.DataFrame({"alpha": alpha, "log_z": exact.log_z(1.25 * alpha)}),
        distance="spearman",
        n=n,
    )
    with rs.models.use_partition_function(stretched):
        assert partition_function(n, "spearman") is stretched
        assert partition_function(n, "spearman", method="exact") is not stretched
        fit = rs.models.Mallows(distance="spearman").fit(
            rk, draws=50, tune=100, chains=1, progress=False
        )
    assert partition_function(n, "spearman") is not stretched  # the block ended
    assert fit.info["partition_function"] == "imported"
    post = fit.draws()
    rho, a = np.rint(post["position"][0]).astype(int), post["alpha"][0]
    d = float(((rk.ranks[0] - rho) ** 2).sum())
    by_hand = -a / n * d - float(stretched.log_z(a))
    from rankstats._pymc import compat

    loglik = compat.group(fit.idata, "log_likelihood")["loglik"].to_numpy()
    pointwise = loglik.reshape(-1, rk.n_rankings)[0, 0]
    assert pointwise == pytest.approx(by_hand, abs=1e-6)
    assert abs(by_hand - (-a / n * d - float(exact.log_z(a)))) > 0.05  # the test can tell
    with pytest.raises(TypeError, match="takes a PartitionFunction"):
        rs.models.use_partition_function("spearman.csv")

"""``rankstats significance`` on bad and unusual input (issue 23), classified as in
tests/cli/test_bad_input.py: the exit code (2 = usage or input error), one line
``rankstats significance: error: …`` naming the problem in the CLI's language (flags, never
Python arguments), and no output left behind; the valid unusual cases are checked against an
independent computation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from rankstats._util import resources as _resources
from rankstats.cli import main

PYTHON_SPELLINGS = ("missing=", "min_coverage", "n_resamples", "by=", "draws=", "target_accept")


def _run(capsys, argv: list[str], out: Path) -> tuple[int, str, str]:
    code = main(["significance", *argv, "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(capsys, argv: list[str], out: Path, *needles: str) -> str:
    """Exit 2, one error line naming ``needles``, no Python spelling, nothing written."""
    code, _, err = _run(capsys, argv, out)
    lines = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("rankstats significance: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert not any(p in lines[0] for p in PYTHON_SPELLINGS), lines[0]
    assert "Traceback" not in err
    assert not out.exists()
    return lines[0]


def _write(path: Path, rows: list[tuple]) -> Path:
    columns = ["system", "task", "score"] if len(rows[0]) == 3 else None
    columns = columns or ["system", "task", "instance", "score"]
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)
    return path


@pytest.fixture
def tied(tmp_path: Path) -> Path:
    """Every task a tie of the three systems (issue 23, item 5)."""
    return _write(tmp_path / "tied.csv", [(s, f"t{t}", 0.1 * t) for t in range(6) for s in "abc"])


@pytest.mark.parametrize(
    "extra",
    [[], ["--posthoc", "conover"], ["--posthoc", "wilcoxon-holm"], ["--choose"]],
    ids=["nemenyi", "conover", "wilcoxon", "choose"],
)
def test_blocks_without_variation_one_answer_on_every_path(tmp_path, capsys, tied, extra):
    """Was: χ² = nan and "NOT significant (p = nan)", a ZeroDivisionError (exit 1), "rejected
    the null (p = nan)". Now one message from
    rankstats.significance.block_variation.require_variation."""
    _refused(
        capsys,
        [str(tied), *extra],
        tmp_path / "out",
        "every one of the 6 task blocks",
        "there is no difference to test",
    )


def test_blocks_without_variation_imputed_path_says_the_same(tmp_path, capsys):
    rows = [(s, f"t{t}", 0.1 * t) for t in range(6) for s in "abc" if (s, t) != ("c", 0)]
    path = _write(tmp_path / "gap.csv", rows)
    _refused(
        capsys,
        [str(path), "--missing", "imputed"],
        tmp_path / "out",
        "every one of the 6 task blocks",
        "there is no difference to test",
    )


def test_incomplete_blocks_name_the_flags(tmp_path, capsys):
    _refused(
        capsys,
        ["--dataset", "xtreme_missing"],
        tmp_path / "out",
        "block 'Classification' has no score",
        "--missing complete-case",
        "--missing imputed",
    )


def test_imputed_rank_sets_have_no_nan_and_the_mean_imputed_ranks(tmp_path, capsys):
    """Issue 23, item 1: the rank sets of --missing imputed ranked blocks holding NaN (NaN
    estimates, every set 1–k). The estimates are now the mean imputed expected ranks, here by
    hand from the scores: m (n + 1) / (k_b + 1), or (n + 1) / 2 when not evaluated."""
    import rankstats as rs

    out = tmp_path / "out"
    code, printed, err = _run(capsys, ["--dataset", "xtreme_missing", "--missing", "imputed"], out)
    assert code == 0, err
    sets = pd.read_csv(out / "rank_sets.csv")
    assert not sets.isna().any().any()
    wide = rs.load_dataset("xtreme_missing").to_wide()  # systems × tasks, higher = better
    values = wide.to_numpy(dtype=float).T
    n = values.shape[1]
    observed = ~np.isnan(values)
    mid = rankdata(np.where(observed, -values, np.inf), axis=1)
    k = observed.sum(axis=1, keepdims=True)
    expected = np.where(observed, mid * (n + 1) / (k + 1), (n + 1) / 2).mean(axis=0)
    by_hand = pd.Series(expected, index=wide.index.astype(str))
    got = sets.set_index("system")["estimate"]
    np.testing.assert_allclose(got.to_numpy(), by_hand[got.index].to_numpy(), rtol=1e-12)
    assert "expected imputed rank" in printed
    # The few-blocks warning speaks the CLI's language, on stderr and in friedman.json.
    assert "(use --by instance" in err and "by='instance'" not in err
    summary = json.loads((out / "friedman.json").read_text())
    assert any(w.startswith("only 4 blocks") for w in summary["warnings"])
    assert summary["rank_sets"]["parameter"] == "expected imputed rank"


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--rope", "0.5", "--pair", "nope", "a"], ["--pair: unknown system(s) 'nope'"]),
        (["--rope", "0.5", "--pair", "a", "a"], ["--pair: give two different systems"]),
        (["--pair", "a", "b"], ["--pair applies with --rope R"]),
        (["--n-resamples", "150"], ["--n-resamples of 150 resamples is too few", "at least 200"]),
        (["--n-resamples", "500", "--alpha", "0.01"], ["at least 1000", "--alpha 0.01"]),
    ],
    ids=["unknown", "same", "no-rope", "boot", "boot-alpha"],
)
def test_bayes_pair_and_boot_options(tmp_path, capsys, extra, needles):
    rows = [
        (s, f"t{t}", v + 0.01 * t) for t in range(8) for s, v in zip("abc", (3, 2, 1), strict=True)
    ]
    path = _write(tmp_path / "ok.csv", rows)
    _refused(capsys, [str(path), *extra], tmp_path / "out", *needles)


def test_memory_is_checked_up_front_and_names_a_real_flag(tmp_path, capsys, monkeypatch):
    """Issue 23, item 11: 1,500 systems allocated 2.14 GiB and exited 1 with a hint to
    ``--stream``, which significance does not have. Now refused before computing (exit 2),
    naming --ignore-memory-check; and the integration of the studentized range is chunked."""
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(1500, 3)), columns=["t0", "t1", "t2"])
    wide.insert(0, "system", [f"s{i}" for i in range(1500)])
    path = tmp_path / "many.csv"
    wide.to_csv(path, index=False)
    monkeypatch.setattr(_resources, "available_memory", lambda: 200 * 2**20)
    line = _refused(capsys, [str(path)], tmp_path / "out", "rankstats significance needs about")
    assert "--ignore-memory-check" in line and "--stream" not in line


@pytest.mark.long
def test_studentized_range_tail_memory_is_bounded():
    """The tail of a million pairs at once took 2.14 GiB; now a chunk at a time (tracemalloc),
    with the same values as the unchunked integral (scipy, independently, at a few points)."""
    import tracemalloc

    from scipy import stats

    from rankstats.significance.studentized_range import studentized_range_sf

    q = np.linspace(0.5, 6.0, 100_000)  # unchunked: 100,000 × 256 nodes × 6 arrays, 1.2 GB
    tracemalloc.start()
    got = studentized_range_sf(q, 1500)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 80 * 2**20, peak
    for i in (0, 40_000, 99_999):
        expected = stats.studentized_range.sf(q[i], 1500, np.inf)
        assert got[i] == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_hierarchical_missing_instances_names_the_flag(tmp_path, capsys):
    """The hierarchical test's advice (missing='drop' in the library) is --missing
    complete-case on the command line, without rewriting the library's message."""
    rows = []
    for t in range(3):
        for i in range(4):
            for s, v in zip("abc", (0.9, 0.8, 0.7), strict=True):
                if not (s == "b" and t == 2 and i > 0):
                    rows.append((s, f"t{t}", i, v + 0.01 * i + 0.02 * t * (s == "a")))
    path = _write(tmp_path / "inst.csv", rows)
    argv = [str(path), "--by", "instance", "--missing", "imputed", "--no-rank-sets"]
    _refused(
        capsys,
        [*argv, "--rope", "0.01", "--hierarchical", "--pair", "a", "b"],
        tmp_path / "out",
        "--hierarchical, a vs b",
        "share fewer than 2 scored instances",
        "pass --missing complete-case",
    )

"""``--zero-method`` (Wilcoxon's zero differences) on the commands that run Wilcoxon's
signed-rank test: ``significance --posthoc wilcoxon-holm``, ``paired`` and ``report``; the
p-values written checked against ``scipy.stats.wilcoxon`` called here."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run
from scipy import stats


@pytest.fixture
def table(tmp_path):
    """Four systems on 16 tasks, accuracies to two decimals: several zero differences."""
    rng = np.random.default_rng(8)
    level = rng.uniform(0.5, 0.9, 16)
    values = np.round(level[:, None] + [0.04, 0.03, 0.0, -0.02] + rng.normal(0, 0.02, (16, 4)), 2)
    wide = pd.DataFrame(values, columns=["a", "b", "c", "d"])
    wide.insert(0, "task", [f"t{i}" for i in range(16)])
    long = wide.melt(id_vars="task", var_name="system", value_name="score")
    path = tmp_path / "scores.csv"
    long.to_csv(path, index=False)
    return path, wide.set_index("task")


def test_significance_passes_the_zero_method_to_the_wilcoxon_tests(table, tmp_path, capsys):
    path, wide = table
    out = tmp_path / "sig"
    argv = ["significance", str(path), "--posthoc", "wilcoxon-holm", "--zero-method", "pratt"]
    code, printed, err = run([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    assert "zero method 'pratt'" in printed
    pairs = pd.read_csv(out / "posthoc_pairs.csv")
    expected = [
        stats.wilcoxon(wide[a], wide[b], zero_method="pratt").pvalue
        for a, b in zip(pairs["system_a"], pairs["system_b"], strict=True)
    ]
    np.testing.assert_allclose(pairs["p_value"], expected, rtol=1e-10)
    default = [stats.wilcoxon(wide[a], wide[b]).pvalue for a, b in combinations(wide.columns, 2)]
    assert not np.allclose(sorted(expected), sorted(default))  # zeros: the choice matters here
    summary = json.loads((out / "friedman.json").read_text())
    assert summary["posthoc"]["zero_method"] == "pratt"


def test_significance_refuses_a_zero_method_for_the_rank_tests(table, tmp_path, capsys):
    path, _ = table
    argv = ["significance", str(path), "--zero-method", "pratt", "--out", str(tmp_path / "o")]
    code, _, err = run(argv, capsys)
    assert code == 2
    one_error_line(err, "significance", "--zero-method", "--posthoc wilcoxon-holm", forbidden=["="])
    code, _, err = run(["significance", str(path), "--zero-method", "drop"], capsys)
    assert code == 2
    one_error_line(err, "significance", "--zero-method", "drop")


def test_paired_passes_the_zero_method(tmp_path, capsys):
    rng = np.random.default_rng(2)
    base = np.round(rng.normal(size=40), 1)
    wide = pd.DataFrame({"x": base, "y": np.round(base + rng.normal(0.2, 0.3, 40), 1)})
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    out = tmp_path / "paired"
    argv = ["paired", str(path), "--systems-as-columns", "--zero-method", "zsplit"]
    code, _, err = run([*argv, "--n-resamples", "20", "--no-figures", "--out", str(out)], capsys)
    assert code == 0, err
    assert json.loads((out / "summary.json").read_text())["parameters"]["zero_method"] == "zsplit"
    pairs = pd.read_csv(out / "pairs.csv")
    expected = stats.wilcoxon(wide["x"], wide["y"], zero_method="zsplit").pvalue
    assert pairs["wilcoxon_p"][0] == pytest.approx(expected, rel=1e-10)


def test_report_refuses_a_zero_method_without_a_wilcoxon_test(table, tmp_path, capsys):
    path, _ = table
    for extra in (
        [],
        ["--significance"],
        ["--significance", "--posthoc", "conover"],
        ["--power"],  # the paired t-test
        ["--power", "--power-test", "sign"],
    ):
        argv = ["report", str(path), *extra, "--zero-method", "pratt", "--out", str(tmp_path / "r")]
        code, _, err = run(argv, capsys)
        assert code == 2, extra
        one_error_line(
            err,
            "report",
            "--zero-method",
            "--posthoc wilcoxon-holm",
            "--paired",
            "--power --power-test wilcoxon",
        )
        assert not (tmp_path / "r").exists()


@pytest.mark.long
def test_report_states_the_zero_method(table, tmp_path, capsys):
    path, _ = table
    out = tmp_path / "rep"
    argv = ["report", str(path), "--significance", "--posthoc", "wilcoxon-holm"]
    code, printed, err = run([*argv, "--zero-method", "pratt", "--out", str(out)], capsys)
    assert code == 0, err
    assert "Pratt's method [pratt1959]: scipy.stats.wilcoxon, zero_method='pratt')" in printed
    page = (out / "report.html").read_text()
    assert "Requested post-hoc test, Wilcoxon&#39;s signed-rank test" in page


POWER = ["power", "--systems", "3", "--instances", "25", "--phi", "0.4", "--round", "0"]


def test_power_passes_the_zero_method(tmp_path, capsys):
    """The CLI's numbers are rs.power's with the same zero method (itself checked against
    scipy replicate by replicate in tests/planning/test_power_zero_method.py)."""
    import rankstats as rs

    out = tmp_path / "power"
    argv = [*POWER, "--tests", "wilcoxon", "--zero-method", "zsplit", "--n-replications", "100"]
    code, printed, err = run([*argv, "--seed", "5", "--out", str(out)], capsys)
    assert code == 0, err
    assert "with the ranks of zero differences split" in printed
    design = rs.BenchmarkDesign(n_systems=3, n_instances=25, phi=0.4, round_to=0)
    kwargs = dict(tests="wilcoxon", n_replications=100, seed=5, progress=False)
    expected = rs.power(design, zero_method="zsplit", **kwargs).pairs
    pairs = pd.read_csv(out / "pairs.csv")
    np.testing.assert_allclose(pairs["power"], expected["power"], rtol=1e-12)
    dropped = rs.power(design, **kwargs).pairs
    assert not np.allclose(pairs["power"], dropped["power"])  # the option reached the engine


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--tests", "wilcoxon", "--zero-method", "drop"], ["--zero-method", "drop"]),
        (["--tests", "t", "--zero-method", "pratt"], ["--zero-method", "--tests wilcoxon"]),
        (["--zero-method", "pratt"], ["--zero-method", "--tests wilcoxon"]),
        (["--models", "3", "--zero-method", "pratt"], ["--zero-method", "Wilcoxon"]),
    ],
)
def test_power_refuses_a_bad_zero_method(extra, needles, tmp_path, capsys):
    out = tmp_path / "power"
    code, _, err = run(["power", *extra, "--n-replications", "10", "--out", str(out)], capsys)
    assert code == 2, err
    one_error_line(err, "power", *needles, forbidden=["zero_method"])
    assert not out.exists()

"""``rankstats significance``: Friedman, post-hoc, CD diagram, rank sets and the Bayesian
signed-rank test from the command line; printed numbers checked against independent paths."""

from __future__ import annotations

import importlib
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.cli import main
from rankstats.cli import significance as command

FILES = (
    "friedman.json",
    "average_ranks.csv",
    "posthoc_pairs.csv",
    "cd_diagram.png",
    "cd_diagram.pdf",
    "cd_table.tex",
    "rank_sets.csv",
    "bayes_signed_rank.csv",
)


def _code(argv: list[str]) -> int:
    """The exit code of ``rankstats ARGV``, whether argparse or the command refused it."""
    try:
        return main(argv)
    except SystemExit as done:
        return int(done.code)


def _chi2(printed: str) -> float:
    return float(re.search(r"χ²_F = ([0-9.e+-]+)", printed).group(1))


def _pairs_equal(written: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert written.columns.tolist() == expected.columns.tolist()
    assert written["system_a"].astype(str).tolist() == expected["system_a"].tolist()
    assert written["system_b"].astype(str).tolist() == expected["system_b"].tolist()
    assert written["significant"].tolist() == expected["significant"].tolist()
    for column in ("mean_rank_a", "statistic", "p_value", "p_adjusted", "cliffs_delta"):
        np.testing.assert_allclose(written[column], expected[column], rtol=1e-12, atol=1e-15)


@pytest.mark.long
def test_glue_writes_every_file_and_the_numbers_match(tmp_path, capsys):
    out = tmp_path / "sig"
    argv = ["significance", "--dataset", "glue", "--rope", "0.5", "--signed-rank-draws", "2000"]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for name in FILES:
        assert (out / name).stat().st_size > 0, name
    assert (out / "cd_diagram.png").read_bytes()[:4] == b"\x89PNG"
    tex = (out / "cd_table.tex").read_text()  # a table, or a longtable for many systems
    assert r"\begin{table}" in tex or r"\begin{longtable}" in tex

    # Friedman's χ² from an independent path: the wide table, ranked by scipy.
    scores = rs.load_dataset("glue")
    wide = scores.to_wide()  # systems × tasks, higher = better
    assert not wide.isna().to_numpy().any()
    expected = stats.friedmanchisquare(*wide.to_numpy())
    assert _chi2(printed) == pytest.approx(expected.statistic, rel=1e-3)
    summary = json.loads((out / "friedman.json").read_text())
    assert summary["friedman"]["chi2"] == pytest.approx(expected.statistic, rel=1e-12)
    assert summary["friedman"]["p_value"] == pytest.approx(expected.pvalue, rel=1e-9)
    assert summary["data"]["n_blocks"] == 14 and summary["data"]["n_systems"] == 105
    assert summary["friedman"]["significant"] is True

    # The pairs are those of rs.posthoc on the same data.
    ph = rs.posthoc(scores, method="nemenyi", alpha=0.05)
    _pairs_equal(pd.read_csv(out / "posthoc_pairs.csv"), ph.table)
    assert summary["posthoc"]["n_significant"] == ph.n_significant
    assert summary["posthoc"]["critical_difference"] == pytest.approx(ph.critical_difference)
    assert f"{ph.n_significant} of {ph.n_pairs} pairs significant" in printed
    assert f"CD = {ph.critical_difference:.4g}" in printed

    ranks = pd.read_csv(out / "average_ranks.csv")
    assert ranks["system"].tolist() == list(ph.mean_ranks.index)
    np.testing.assert_allclose(ranks["mean_rank"], ph.mean_ranks.to_numpy())
    assert {"group", "rank_low", "rank_high", "hoeffding_low", "hoeffding_high"} <= set(ranks)

    bayes = pd.read_csv(out / "bayes_signed_rank.csv")
    assert len(bayes) == 104  # adjacent pairs of the average-rank order
    assert bayes["system_a"].tolist() == list(ph.mean_ranks.index[:-1])
    np.testing.assert_allclose(bayes[["p_a_better", "p_rope", "p_b_better"]].sum(axis=1), 1.0)
    first = rs.bayes_signed_rank(
        scores.to_wide().T, bayes["system_a"][0], bayes["system_b"][0], rope=0.5, draws=2000
    )
    assert bayes["p_rope"][0] == pytest.approx(first.p_rope)
    assert "P(rope)" in printed


def test_conover_with_an_adjustment_and_no_rank_sets(tmp_path, capsys):
    out = tmp_path / "sig"
    argv = ["significance", "--dataset", "xtreme", "--posthoc", "conover", "--correction"]
    assert main([*argv, "bonferroni", "--alpha", "0.1", "--no-rank-sets", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    ph = rs.posthoc(rs.load_dataset("xtreme"), method="conover", correction="bonferroni", alpha=0.1)
    _pairs_equal(pd.read_csv(out / "posthoc_pairs.csv"), ph.table)
    assert not (out / "rank_sets.csv").exists()
    assert not (out / "bayes_signed_rank.csv").exists()
    assert "bonferroni-adjusted" in printed and "CD =" not in printed
    summary = json.loads((out / "friedman.json").read_text())
    assert summary["posthoc"]["critical_difference"] is None  # NaN written as null


def test_incomplete_blocks_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "sig"
    assert main(["significance", "--dataset", "xtreme_missing", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("rankstats significance: error: block 'Classification' has no score")
    assert "--missing complete-case" in err
    assert not out.exists()


def test_complete_case_reports_what_was_dropped(tmp_path, capsys):
    out = tmp_path / "sig"
    argv = ["significance", "--dataset", "xtreme_missing", "--missing", "complete-case"]
    assert main([*argv, "--marginal", "--n-resamples", "200", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "2 of 4 blocks dropped (incomplete): Classification, Question Answering" in printed
    summary = json.loads((out / "friedman.json").read_text())
    assert summary["data"]["dropped_blocks"] == ["Classification", "Question Answering"]
    assert summary["data"]["n_blocks"] == 2 and summary["data"]["n_input_blocks"] == 4
    assert summary["rank_sets"]["simultaneous"] is False
    # Nothing comparable to the Hoeffding ranges of the full table once blocks are dropped.
    assert "hoeffding_low" not in pd.read_csv(out / "average_ranks.csv")


def test_not_significant_is_said_and_files_still_written(tmp_path, capsys):
    # Every system takes every rank once: all average ranks equal, χ²_F = 0.
    rows = [(f"s{i}", f"t{t}", float((i + t) % 4)) for i in range(4) for t in range(4)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["system", "task", "score"]).to_csv(path, index=False)
    out = tmp_path / "sig"
    assert main(["significance", str(path), "--no-rank-sets", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "NOT significant at α = 0.05" in printed
    assert "no pairwise difference below may be claimed" in printed
    summary = json.loads((out / "friedman.json").read_text())
    assert summary["friedman"]["significant"] is False
    assert summary["posthoc"]["claimable"] is False
    assert (out / "posthoc_pairs.csv").exists() and (out / "cd_diagram.png").exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--alpha", "1.5"], "argument --alpha: expected a number strictly between 0 and 1"),
        (["--alpha", "0"], "argument --alpha"),
        (["--n-resamples", "99"], "argument --n-resamples: expected an integer ≥ 100"),
        (["--rope", "-0.1"], "argument --rope: expected a finite number ≥ 0"),
        (["--posthoc", "holm"], "use --posthoc wilcoxon-holm"),
        (["--posthoc", "tukey"], "expected one of nemenyi, conover, wilcoxon-holm"),
        (["--correction", "holm"], "--correction applies to --posthoc conover and wilcoxon-holm"),
        (["--min-coverage", "0.5"], "--min-coverage applies with --missing complete-case"),
        (["--hierarchical"], "--hierarchical needs --rope R"),
        (["--draws", "500"], "--draws applies with --hierarchical --rope R"),
        (["--rope", "0.1", "--rho", "0.1", "--chains", "2"], "--rho, --chains applies with"),
        (["--rope", "0.1", "--hierarchical", "--rho", "1"], "argument --rho: expected a number"),
        (["--rope", "0.1", "--hierarchical", "--draws", "10"], "argument --draws"),
    ],
)
def test_bad_arguments_refused_before_computing(tmp_path, capsys, monkeypatch, extra, needle):
    def never(*_, **__):
        raise AssertionError("the data was read")

    monkeypatch.setattr(command, "load_input", never)
    out = tmp_path / "sig"
    assert _code(["significance", "--dataset", "glue", *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("rankstats significance: error:")
    assert needle in err
    assert not out.exists()


def test_the_issue_example_with_holm_names_the_right_spelling(tmp_path, capsys):
    rows = [(f"s{i}", f"t{t}", float(i * t % 5)) for i in range(4) for t in range(6)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["system", "task", "score"]).to_csv(path, index=False)
    argv = ["significance", str(path), "--posthoc", "holm", "--alpha", "0.05", "--rope", "0.01"]
    assert _code([*argv, "--out", str(tmp_path / "sig")]) == 2
    err = capsys.readouterr().err
    assert "'holm' is a p-value adjustment, not a test" in err
    assert "--posthoc conover --correction holm" in err
    # The suggested spelling works.
    argv[argv.index("holm")] = "wilcoxon-holm"
    assert main([*argv, "--no-rank-sets", "--out", str(tmp_path / "sig")]) == 0
    assert (tmp_path / "sig" / "bayes_signed_rank.csv").exists()


# ------------------------------------------------------------------ --hierarchical
def _instance_table(tmp_path, n_tasks: int = 3, n_instances: int = 6):
    """Three systems, ``c`` far ahead, ``a`` slightly ahead of ``b``, on every instance."""
    rng = np.random.default_rng(0)
    rows = []
    for t in range(n_tasks):
        for i in range(n_instances):
            base = rng.uniform(0.5, 0.8)
            for system, shift in (("a", 0.01), ("b", 0.0), ("c", 0.2)):
                rows.append((system, f"T{t}", i, base + shift + rng.normal(0, 0.005)))
    path = tmp_path / "cv.csv"
    pd.DataFrame(rows, columns=["system", "task", "instance", "score"]).to_csv(path, index=False)
    return path


def test_hierarchical_is_wired_to_the_adjacent_pairs(tmp_path, capsys, monkeypatch):
    """The CLI part only (the model is tested in tests/significance/test_bayes_hierarchical.py): the
    pairs, the options passed, the CSV, the printed table and verdicts, the JSON summary."""
    from types import SimpleNamespace

    module = importlib.import_module("rankstats.significance.bayesian_hierarchical")

    calls = []

    def fake(scores, a, b, **kwargs):
        calls.append((a, b, kwargs))
        converged = len(calls) == 1
        table = pd.DataFrame(
            {
                "task": ["(population mean δ0)"],
                "delta_mean": [0.1],
                "delta_low": [0.0],
                "delta_high": [0.2],
            }
        )
        return SimpleNamespace(
            p_a=0.97,
            p_rope=0.02,
            p_b=0.01,
            predictive={"a": 0.61, "rope": 0.3, "b": 0.09},
            decision="a",
            n_tasks=3,
            n=18,
            dropped=pd.DataFrame({"task": []}),
            diagnostics={
                "converged": converged,
                "max_r_hat": 1.0 if converged else 1.2,
                "min_ess_bulk": 900.0,
                "divergences": 0 if converged else 3,
            },
            task_table=lambda: table,
        )

    monkeypatch.setattr(module, "bayes_hierarchical", fake)
    out = tmp_path / "sig"
    argv = [
        "significance",
        str(_instance_table(tmp_path)),
        "--by",
        "instance",
        "--rope",
        "0.005",
        "--hierarchical",
        "--rho",
        "0.2",
        "--draws",
        "300",
        "--tune",
        "400",
        "--chains",
        "2",
        "--seed",
        "7",
        "--no-rank-sets",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    ph = rs.posthoc(rs.read_scores(tmp_path / "cv.csv", instance="instance"), by="instance")
    order = list(ph.mean_ranks.index)
    assert order == ["c", "a", "b"]
    assert [(a, b) for a, b, _ in calls] == [("c", "a"), ("a", "b")]
    assert calls[0][2] == {
        "rope": 0.005,
        "rho": 0.2,
        "nuts": rs.NutsSettings(
            draws=300, tune=400, chains=2, sampler="pymc", progress=False, target_accept=0.95
        ),
        "seed": 7,
        "missing": "error",
    }
    hier = pd.read_csv(out / "hierarchical.csv")
    assert hier["system_a"].tolist() == ["c", "a"] and hier["system_b"].tolist() == ["a", "b"]
    assert hier["converged"].tolist() == [True, False]
    assert hier["decision"].tolist() == ["c", "a"]
    assert "Bayesian hierarchical test of adjacent systems" in printed
    assert "NO (R-hat 1.200, ESS 900, 3 div.)" in printed
    assert "1 of 2 hierarchical fits did NOT converge" in printed
    # The headline is baycomp's quantity; the posterior predictive one is labelled.
    assert hier["p_a_better"].tolist() == [0.97, 0.97]
    assert hier["predictive_a"].tolist() == [0.61, 0.61]
    assert "as baycomp reports it" in printed and "posterior predictive" in printed
    summary = json.loads((out / "friedman.json").read_text())
    h = summary["bayes_hierarchical"]
    assert h["all_converged"] is False and h["rho"] == 0.2 and len(h["pairs"]) == 2
    assert "baycomp" in h["probability"] and "predictive" in h["predictive"]
    assert str(out / "hierarchical.csv") in summary["files"]

    # --pair A B: that pair only, for both Bayesian tests.
    calls.clear()
    assert main([*argv[:-2], "--pair", "b", "c", "--out", str(tmp_path / "pair")]) == 0
    printed = capsys.readouterr().out
    assert [(a, b) for a, b, _ in calls] == [("b", "c")]
    assert "test of the pair given by --pair" in printed
    pair = pd.read_csv(tmp_path / "pair" / "bayes_signed_rank.csv")
    assert pair[["system_a", "system_b"]].values.tolist() == [["b", "c"]]
    # The signed-rank test of that pair equals the library's on the same blocks.
    blocks = rs.rank_blocks(rs.read_scores(tmp_path / "cv.csv", instance="instance"), "instance")
    frame = pd.DataFrame(blocks.values, columns=list(blocks.systems))
    lib = rs.bayes_signed_rank(frame, "b", "c", rope=0.005, seed=7)
    assert pair["p_b_better"].iloc[0] == pytest.approx(lib.p_b, abs=1e-12)


def test_hierarchical_needs_instances(tmp_path, capsys):
    out = tmp_path / "sig"
    argv = ["significance", "--dataset", "xtreme", "--rope", "0.5", "--hierarchical"]
    assert _code([*argv, "--no-rank-sets", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--hierarchical needs instance-level scores" in err
    assert not out.exists()


@pytest.mark.slow
def test_hierarchical_end_to_end_equals_the_library(tmp_path, capsys, monkeypatch):
    """The real model through the CLI (no fake): the CSV row of ``--pair a b`` is the result of
    ``bayes_hierarchical`` on the same scores, with the CLI's options and seed 0.

    One NUTS fit, not two: the library call the CLI makes is recorded (its inputs checked to
    be the file's scores and the options given) and the written row compared with what it
    returned; a second, identical call would return the same numbers (same data, seed and
    compiled model) at the cost of another ~35 s of graph rewriting and chain start-up. The
    chains are short (100 + 100; they need not converge: the statistics of the model are
    tested in tests/significance/test_bayes_hierarchical.py) and one pair is fitted, not every
    adjacent pair (their wiring is test_hierarchical_is_wired_to_the_adjacent_pairs)."""
    from rankstats._pymc.convergence import ConvergenceWarning

    module = importlib.import_module("rankstats.significance.bayesian_hierarchical")
    real, calls = module.bayes_hierarchical, []

    def recorded(scores, a, b, **kwargs):
        res = real(scores, a, b, **kwargs)
        calls.append((scores, a, b, kwargs, res))
        return res

    monkeypatch.setattr(module, "bayes_hierarchical", recorded)
    path = _instance_table(tmp_path)
    out = tmp_path / "sig"
    argv = [
        "significance",
        str(path),
        "--by",
        "instance",
        "--rope",
        "0.005",
        "--hierarchical",
        "--pair",
        "a",
        "b",
        "--draws",
        "100",
        "--tune",
        "100",
        "--chains",
        "2",
        "--no-rank-sets",
        "--out",
        str(out),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # 100 draws: may not converge
        assert main(argv) == 0
    hier = pd.read_csv(out / "hierarchical.csv")
    assert len(calls) == 1 and len(hier) == 1
    scores, a, b, kwargs, res = calls[0]
    assert (a, b) == ("a", "b")
    assert kwargs == {
        "rope": 0.005,
        "rho": 0.0,
        "nuts": rs.NutsSettings(
            draws=100, tune=100, chains=2, sampler="pymc", progress=False, target_accept=0.95
        ),
        "seed": 0,
        "missing": "error",
    }
    expected = rs.read_scores(path, instance="instance").data
    pd.testing.assert_frame_equal(scores.data, expected, check_categorical=False)
    row = hier.iloc[0]
    assert (row["system_a"], row["system_b"]) == ("a", "b")
    assert row["p_a_better"] == pytest.approx(res.p_a, rel=1e-9)
    assert row["p_rope"] == pytest.approx(res.p_rope, rel=1e-9)
    assert row["predictive_a"] == pytest.approx(res.predictive["a"], rel=1e-9)
    assert row["converged"] == res.converged


def test_choose_writes_autoranks_decision_from_the_same_blocks(tmp_path, capsys):
    """--choose: the decision, its checks and the chosen post-hoc pairs are those of
    rs.choose_test on the same complete blocks (normal, homoscedastic scores → ANOVA + Tukey)."""
    from rankstats.cli import main

    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        rng.normal([0.70, 0.72, 0.80, 0.81], 0.02, size=(30, 4)), columns=list("abcd")
    )
    frame.insert(0, "task", [f"t{i}" for i in range(30)])
    long = frame.melt(id_vars="task", var_name="system", value_name="score")
    path = tmp_path / "scores.csv"
    long.to_csv(path, index=False)
    out = tmp_path / "sig"
    argv = ["significance", str(path), "--choose", "--no-rank-sets", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    direct = rs.choose_test(rs.read_scores(path))
    assert direct.decision == "anova-tukey"
    record = json.loads((out / "choice.json").read_text())
    assert record["decision"] == direct.decision
    assert record["omnibus_p_value"] == pytest.approx(direct.p_value, rel=1e-12)
    assert record["normality"]["all_normal"] and record["homoscedasticity"]["test"] == "bartlett"
    pairs = pd.read_csv(out / "choice_pairs.csv")
    np.testing.assert_allclose(pairs["p_adjusted"], direct.posthoc.table["p_adjusted"])
    assert "Automatic choice (as autorank): repeated-measures ANOVA + Tukey's HSD" in printed


def test_choose_refuses_imputed_ranks(tmp_path, capsys):
    from rankstats.cli import main

    argv = ["significance", "--dataset", "xtreme_missing", "--missing", "imputed", "--choose"]
    assert main([*argv, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "--missing imputed is not available for the tests on scores" in err
    assert "use --missing error or --missing complete-case" in err and "missing=" not in err

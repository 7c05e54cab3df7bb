"""``rs.battle_report``: the report of a battle fit shows the fit's own numbers, every mark
derived from its one test of the differences, names as data, and outputs written as a whole.

The expected values are the fit's (``fit.table()``, ``fit.differences()``,
``fit.parameters()``) or computed here independently from them (the rank ranges by counting
the significant pairs), never numbers printed by the code under test.
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
import rankstats._util.atomic as atomic
from rankstats.battles.battle_fit import ELO_SCALE, BattleFit
from rankstats.errors import OutputError
from rankstats.reporting.battle_figures import difference_matrix, differences_heatmap

HOSTILE = {
    "model-000": "<script>alert(1)</script>",
    "model-001": "a\\b & 50% _x_",
    "model-002": "$x^2$ cost",
    "model-003": "=cmd|' /C calc'!A0",
    "model-004": "plain",
}


def _log(seed: int, covariates: bool) -> rs.Battles:
    frame, _ = rs.simulate_battles(n_models=5, n_battles=3000, order_effect=0.1, seed=seed)
    frame = frame.astype({"model_a": str, "model_b": str, "winner": str})
    frame = frame.replace({"model_a": HOSTILE, "model_b": HOSTILE})
    rng = np.random.default_rng(seed)
    frame["question"] = rng.integers(0, 400, len(frame))
    if not covariates:
        return rs.read_battles(frame, cluster="question")
    frame["len_a"] = rng.integers(50, 900, len(frame))
    frame["len_b"] = rng.integers(50, 900, len(frame))
    frame["bold & $"] = rng.normal(size=len(frame))
    spec = {"length": ("len_a", "len_b"), "bold & $": "bold & $"}
    return rs.read_battles(frame, cluster="question", covariates=spec)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    log = _log(1, covariates=False)
    fit = rs.fit_battles(log, n_resamples=40, seed=0)
    rep = rs.battle_report(fit, log, out=tmp_path_factory.mktemp("plain") / "report")
    return log, fit, rep


@pytest.fixture(scope="module")
def styled(tmp_path_factory):
    log = _log(2, covariates=True)
    fit = rs.fit_battles(log, n_resamples=40, seed=0)
    rep = rs.battle_report(fit, log, out=tmp_path_factory.mktemp("styled") / "report")
    return log, fit, rep


def _csv(path) -> pd.DataFrame:
    """A report CSV, with the formula guard of text cells taken off."""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]) and not frame[column].empty:
            frame[column] = frame[column].str.replace(r"^'(?=[=+\-@])", "", regex=True)
    return frame


def test_files(plain, styled):
    common = {
        "report.html",
        "leaderboard.csv",
        "leaderboard.tex",
        "differences.csv",
        "differences.tex",
        "parameters.csv",
        "references.bib",
        "methods.txt",
        "intervals.png",
        "intervals.pdf",
        "differences_heatmap.png",
        "differences_heatmap.pdf",
    }
    style = {
        "covariate_effects.csv",
        "covariate_effects.tex",
        "adjusted_ranking.csv",
        "adjusted_ranking.tex",
        "covariates.png",
        "covariates.pdf",
        "rank_change.png",
        "rank_change.pdf",
    }
    for (_, _, rep), expected in ((plain, common), (styled, common | style)):
        names = {p.name for p in rep.files}
        assert names == expected
        assert rep.files[0].name == "report.html"
        assert all(p.is_file() for p in rep.files)
    assert "style-control" not in plain[2].html.read_text()


def test_numbers_are_the_fits(plain):
    _, fit, rep = plain
    table, differences = fit.table(), fit.differences()
    pd.testing.assert_frame_equal(rep.leaderboard[table.columns], table)
    pd.testing.assert_frame_equal(rep.differences, differences)
    pd.testing.assert_frame_equal(rep.data.parameters, fit.parameters())
    written = _csv(rep.out / "leaderboard.csv")
    assert written["model"].tolist() == table["model"].tolist()
    for column in ("rating", "fisher_low", "bootstrap_high", "rank", "rank_ub", "n_battles"):
        np.testing.assert_allclose(written[column], table[column], rtol=1e-12)
    written = _csv(rep.out / "differences.csv")
    np.testing.assert_allclose(written["p_holm"], differences["p_holm"], rtol=1e-12)
    assert written["significant"].tolist() == differences["significant"].tolist()


def test_marks_are_those_of_the_one_test(plain):
    _, fit, rep = plain
    differences, board = fit.differences(), rep.leaderboard
    significant = differences[differences["significant"]]
    above = significant["model_b"].value_counts()  # models significantly above each model
    below = significant["model_a"].value_counts()
    n = len(board)
    for _, row in board.iterrows():
        assert row["rank_low"] == 1 + above.get(row["model"], 0)
        assert row["rank_high"] == n - below.get(row["model"], 0)
    order = board["model"].tolist()
    pairs = set(zip(significant["model_a"], significant["model_b"], strict=True))
    expected = [(a, b) in pairs for a, b in itertools.pairwise(order)] + [False]
    assert board["above_next"].tolist() == expected
    matrix = difference_matrix(differences, order)
    for _, row in differences.iterrows():
        value = row["difference"] if row["significant"] else 0.0
        assert matrix.loc[row["model_a"], row["model_b"]] == value
        assert matrix.loc[row["model_b"], row["model_a"]] == -value


def test_differences_are_computed_once(monkeypatch, tmp_path):
    log = _log(3, covariates=False)
    fit = rs.fit_battles(log, n_resamples=10)
    calls = []
    original = BattleFit.differences

    def counted(self, alpha=None):
        calls.append(alpha)
        return original(self, alpha)

    monkeypatch.setattr(BattleFit, "differences", counted)
    rs.battle_report(fit, log, out=tmp_path / "r", alpha=0.01)
    assert calls == [0.01]


def test_style_sections(styled):
    _, fit, rep = styled
    effects, table = rep.data.effects, fit.table()
    rows = fit.parameters().iloc[-2:]
    assert effects["covariate"].tolist() == ["length", "bold & $"]
    np.testing.assert_array_equal(effects["estimate"], rows["estimate"])
    np.testing.assert_allclose(effects["bootstrap_low_elo"], ELO_SCALE * rows["bootstrap_low"])
    np.testing.assert_allclose(effects["sd"], list(fit.info["covariate_scale"].values()))
    adjusted = rep.data.adjustment
    assert adjusted["model"].tolist() == table["model"].tolist()
    np.testing.assert_array_equal(adjusted["rank_unadjusted"], table["rank_unadjusted"])
    np.testing.assert_array_equal(adjusted["rank_change"], table["rank_unadjusted"] - table["rank"])
    page = rep.html.read_text()
    for anchor in ("covariate-effects", "adjusted-ranking", "rank-change", "covariates"):
        assert f"id='{anchor}'" in page
    methods = (rep.out / "methods.txt").read_text()
    assert "[li2024style]" in methods and "[davison1997]" in methods
    bib = (rep.out / "references.bib").read_text()
    for key in ("bradleyterry1952", "davidson1970", "agresti2002", "li2024style", "holm1979"):
        assert f"{{{key}," in bib


def test_names_stay_data(styled):
    _, fit, rep = styled
    page = rep.html.read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "bold &amp; $" in page
    latex = (rep.out / "leaderboard.tex").read_text()
    assert r"a\textbackslash{}b \& 50\% \_x\_" in latex
    assert r"\$x\textasciicircum{}2\$ cost" in latex
    assert "bold \\& \\$" in (rep.out / "covariate_effects.tex").read_text()
    raw = (rep.out / "leaderboard.csv").read_text()
    assert "'=cmd|' /C calc'!A0" in raw and "\n=cmd" not in raw and ",=cmd" not in raw
    for tex in rep.out.glob("*.tex"):  # hostile names leave the LaTeX balanced
        text = tex.read_text().replace(r"\{", "").replace(r"\}", "")
        assert text.count("{") == text.count("}"), tex.name
        assert text.count(r"\begin{") == text.count(r"\end{"), tex.name
    figure = differences_heatmap(fit.differences(), list(fit.table()["model"]), 0.05, fit.models)
    ticks = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert r"\$x^2\$ cost" in ticks  # escaped: never parsed as mathtext


def test_refuses_before_computing(plain, tmp_path):
    log, fit, _ = plain
    other = _log(4, covariates=False)
    with pytest.raises(ValueError, match="not the log of this fit"):
        rs.battle_report(fit, other, out=tmp_path / "a")
    with pytest.raises(ValueError, match="alpha"):
        rs.battle_report(fit, log, out=tmp_path / "b", alpha=1.5)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError):
        rs.battle_report(fit, log, out=tmp_path / "file")
    with pytest.raises(TypeError, match="BattleFit"):
        rs.battle_report(fit.table(), log, out=tmp_path / "c")
    with pytest.raises(TypeError, match="battle_report"):
        rs.report(fit, out=tmp_path / "d")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("kind", ["", ":oserror"])
def test_interrupted_run_keeps_the_previous_report(plain, tmp_path, monkeypatch, kind):
    log, fit, _ = plain
    out = tmp_path / "report"
    monkeypatch.delenv("RANKSTATS_FAIL_AT", raising=False)
    atomic._FAIL_COUNTS.clear()
    with pytest.raises((KeyboardInterrupt, OSError)):
        monkeypatch.setenv("RANKSTATS_FAIL_AT", f"report-file:3{kind}")
        rs.battle_report(fit, log, out=out)
    assert not out.exists() and list(tmp_path.iterdir()) == []
    monkeypatch.delenv("RANKSTATS_FAIL_AT")
    first = rs.battle_report(fit, log, out=out, title="first")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    atomic._FAIL_COUNTS.clear()
    monkeypatch.setenv("RANKSTATS_FAIL_AT", f"report-file:5{kind}")
    with pytest.raises((KeyboardInterrupt, OSError)):
        rs.battle_report(fit, log, out=out, title="second")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert "first" in first.html.read_text()
    atomic._FAIL_COUNTS.clear()


def test_unconverged_posterior_warns_loudly(plain, tmp_path):
    log, fit, _ = plain
    # A posterior of the fit's own bootstrap draws, judged not converged: the report must say
    # so wherever the posterior's numbers appear (the real sampler: the slow test below).
    problems = ["max R-hat 1.08 > 1.01 (log_worth)"]
    faked = dataclasses.replace(
        fit,
        posterior={
            "log_worth": fit.bootstrap_distribution[:, : fit.n_models],
            "log_tie": fit.bootstrap_distribution[:, fit.n_models],
            "log_order": fit.bootstrap_distribution[:, fit.n_models + 1],
        },
        info={**fit.info, "posterior_problems": problems, "sampler": "pymc"},
    )
    rep = rs.battle_report(faked, log, out=tmp_path / "r")
    page = rep.html.read_text()
    assert "id='posterior-warning'" in page and "role='alert'" in page
    assert "did not converge" in (rep.out / "methods.txt").read_text()
    assert "R-hat 1.08" in rep.methods_text
    assert "not reliable" in (rep.out / "leaderboard.tex").read_text()
    assert "posterior" in rep.summary and "did not converge" in rep.summary


def test_order_effect_and_data_summary(plain):
    log, fit, rep = plain
    page = rep.html.read_text()
    assert f"{log.n_battles} battles" in page
    assert f"{log.n_clusters} clusters" in page
    eta = fit.parameters().set_index("parameter").loc["order_effect", "estimate"]
    assert f"η = {eta:.3f}" in page and "[agresti2002]" in rep.methods_text


@pytest.mark.slow
def test_real_sampler_not_converged_is_stated(tmp_path):
    log = _log(5, covariates=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = rs.fit_battles(
            log,
            n_resamples=0,
            posterior=True,
            draws=15,
            tune=15,
            chains=2,
            sampler="pymc",
            progress=False,
        )
    assert fit.info["posterior_problems"]  # too few draws to certify convergence
    rep = rs.battle_report(fit, log, out=tmp_path / "r")
    assert "id='posterior-warning'" in rep.html.read_text()
    pd.testing.assert_frame_equal(rep.leaderboard[fit.table().columns], fit.table())


@pytest.mark.slow
def test_bundled_style_log_end_to_end(tmp_path):
    style = {
        "length": ("len_a", "len_b"),
        "headers": ("header_a", "header_b"),
        "lists": ("list_a", "list_b"),
        "bold": ("bold_a", "bold_b"),
    }
    path = rs.datasets.battles_path("arena_bench_style")
    log = rs.read_battles(path, cluster="question_id", covariates=style)
    fit = rs.fit_battles(log, order_effect=False, n_resamples=1000, seed=0)
    rep = rs.battle_report(fit, log, out=tmp_path / "r")
    pd.testing.assert_frame_equal(rep.leaderboard[fit.table().columns], fit.table())
    moved = (fit.table()["rank"] != fit.table()["rank_unadjusted"]).sum()
    assert f"{moved} of 7 models change rank" in rep.summary


def test_bias_reduced_fit_is_named_and_cited(tmp_path):
    log = _log(1, covariates=False)
    fit = rs.fit_battles(log, bias_reduction=True)
    rep = rs.battle_report(fit, log, out=tmp_path / "report")
    assert "bias-reduced" in rep.methods_text and "[firth1993]" in rep.methods_text
    assert "bootstrap" not in rep.methods_text.lower()
    assert "Firth, David" in (rep.out / "references.bib").read_text()

"""The report's rank-posterior section (``rs.report(..., models=[...])``).

The numbers of the section are checked against a plain re-count of the fit's draws (scipy's
``rankdata`` per draw, a loop), not against the function that made them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs

pytestmark = [pytest.mark.long, pytest.mark.pymc]


def _scores(names: list[str], n_tasks: int = 8, seed: int = 3) -> rs.Scores:
    rng = np.random.default_rng(seed)
    strength = np.linspace(1.0, 0.0, len(names))
    values = strength[:, None] + rng.normal(0, 0.4, (len(names), n_tasks))
    frame = pd.DataFrame(values, columns=[f"t{i}" for i in range(n_tasks)])
    frame.insert(0, "system", names)
    return rs.Scores.from_wide(frame, system="system")


@pytest.fixture(scope="module")
def report_pl(tmp_path_factory):
    names = ["a", "b<script>alert(1)</script>", r"c\textbf{x}", "d", "东京大学モデル"]
    scores = _scores(names)
    out = tmp_path_factory.mktemp("rp") / "rep"
    return rs.report(scores, out=out, models=["pl"]), out


def test_files_and_numbers_equal_a_recount_of_the_draws(report_pl):
    rep, out = report_pl
    names = {p.name for p in rep.files}
    expected = {
        "rank_posterior_pl.csv",
        "rank_posterior_pl_probabilities.csv",
        "rank_posterior_pl.png",
        "rank_posterior_pl.pdf",
        "rank_posteriors.tex",
    }
    assert expected <= names
    for path in rep.files:
        assert path.exists(), path

    fit = rep.fits[0]
    draws = np.asarray(fit.draws()[fit.variable])
    systems = list(fit.systems)
    # Independent re-count: rank each draw with scipy (1 = best), one draw at a time.
    counts = np.zeros((len(systems), len(systems)))
    for row in draws:
        ranks = stats.rankdata(-row, method="ordinal").astype(int)
        counts[np.arange(len(systems)), ranks - 1] += 1
    probs = counts / len(draws)

    summary = pd.read_csv(out / "rank_posterior_pl.csv").set_index("system")
    tidy = pd.read_csv(out / "rank_posterior_pl_probabilities.csv")
    for i, s in enumerate(systems):
        key = s if s in summary.index else "'" + s  # CSV cells are formula-safe
        np.testing.assert_allclose(summary.loc[key, "p_best"], probs[i, 0], atol=1e-12)
        np.testing.assert_allclose(
            summary.loc[key, "expected_rank"], probs[i] @ np.arange(1, len(systems) + 1)
        )
        got = tidy[tidy["system"] == key].sort_values("rank")["probability"].to_numpy()
        np.testing.assert_allclose(got, probs[i], atol=1e-12)
    matrix = tidy.pivot(index="system", columns="rank", values="probability").to_numpy()
    np.testing.assert_allclose(matrix.sum(axis=0), 1.0)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)


def test_html_and_latex_show_names_as_data(report_pl):
    rep, out = report_pl
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "id='rank-posteriors'" in page
    assert "<script>alert(1)</script>" not in page
    assert "b&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "alt='rank posterior heat map, Plackett–Luce' src='data:image/png;base64," in page
    assert "normal approximation at the optimum" in page  # a MAP fit says what its draws are
    post = rep.rank_posteriors.posteriors["pl"]
    best = post.order[0]
    row = post.summary.loc[best]
    assert f"<td>{row['expected_rank']:.2f}</td><td>{row['p_best']:.3f}</td>" in page

    tex = (out / "rank_posteriors.tex").read_text(encoding="utf-8")
    assert r"\textbf{x}" not in tex and r"c\textbackslash{}textbf\{x\}" in tex
    assert tex.count(r"\\") == len(post.order) + 1  # header + one row per system
    assert "normal approximation" in tex


def test_single_point_fit_gets_a_note_not_silence(tmp_path):
    # Complete untied rankings: the report fits Mallows by MAP, a single consensus ranking.
    scores = _scores(["a", "b", "c", "d"], n_tasks=6, seed=5)
    rep = rs.report(scores, out=tmp_path / "rep", models=["mallows"])
    assert rep.rank_posteriors is not None
    assert rep.rank_posteriors.posteriors == {}
    (note,) = rep.rank_posteriors.notes
    assert note.startswith("No rank posterior for Mallows (Kendall) (map):")
    assert "method='mcmc'" in note
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "No rank posterior for Mallows (Kendall) (map)" in page
    assert not (tmp_path / "rep" / "rank_posteriors.tex").exists()


def test_no_section_without_models(tmp_path):
    rep = rs.report(_scores(["a", "b", "c"]), out=tmp_path / "rep")
    assert rep.rank_posteriors is None
    assert "id='rank-posteriors'" not in (tmp_path / "rep" / "report.html").read_text()


@pytest.mark.filterwarnings("ignore::rankstats.errors.DataWarning")
def test_long_rank_posterior_table_breaks_across_pages(tmp_path):
    """More than 40 systems: ``rank_posteriors.tex`` is a longtable, one row per system."""
    names = [f"system {i:02d}" for i in range(45)]
    rs.report(_scores(names), out=tmp_path / "rep", models=["pl"], methods=["borda"])
    tex = (tmp_path / "rep" / "rank_posteriors.tex").read_text(encoding="utf-8")
    assert r"\begin{longtable}" in tex and r"\endhead" in tex and r"\begin{table}" not in tex
    body = tex.split("\\endlastfoot\n")[1].split(r"\end{longtable}")[0].strip().splitlines()
    assert sorted(row.split(" & ")[0] for row in body) == names
    assert len(body) == 45 and all(row.endswith(r"\\") for row in body)

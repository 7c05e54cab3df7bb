"""``rs.report(..., significance=True)``: the Friedman / post-hoc section of the report."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.reporting.significance import options

pytestmark = pytest.mark.long


def test_section_files_and_methods(tmp_path):
    scores = rs.load_dataset("xtreme")
    rep = rs.report(scores, out=tmp_path / "rep", significance=True)
    names = {p.name for p in rep.files}
    assert {"cd_diagram.png", "cd_diagram.pdf", "cd_table.tex", "posthoc_pairs.csv"} <= names
    for path in rep.files:
        assert path.exists(), path

    ph = rs.posthoc(scores, method="nemenyi", alpha=0.05)
    fr = rs.friedman(scores)
    assert rep.significance.posthoc.n_significant == ph.n_significant
    pairs = pd.read_csv(tmp_path / "rep" / "posthoc_pairs.csv")
    np.testing.assert_allclose(pairs["p_adjusted"], ph.table["p_adjusted"])
    assert (tmp_path / "rep" / "cd_table.tex").read_text().startswith(r"\begin{table}")

    page = (tmp_path / "rep" / "report.html").read_text()
    assert "id='significance'" in page
    assert "<img id='cd-diagram' alt='critical-difference diagram' src='data:image/png" in page
    assert f"χ²<sub>F</sub> = {fr.statistic:.4g}" in page
    assert page.count("<td class='name' dir='auto'>") >= 2 * len(scores.systems)
    assert "id='significance-warning'" not in page  # significant here

    text = rep.methods_text
    assert "Friedman's test [friedman1937]" in text and "[imandavenport1980]" in text
    assert "[demsar2006]" in text and "[nemenyi1963]" in text
    bib = (tmp_path / "rep" / "references.bib").read_text()
    for key in ("demsar2006", "friedman1937", "imandavenport1980", "nemenyi1963"):
        assert re.search(rf"^@\w+\{{{key},", bib, flags=re.M), key


def test_no_section_by_default(tmp_path):
    rep = rs.report(rs.load_dataset("xtreme"), out=tmp_path / "rep")
    assert rep.significance is None
    assert not (tmp_path / "rep" / "cd_diagram.png").exists()
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "id='significance'" not in page
    assert "friedman1937" not in (tmp_path / "rep" / "references.bib").read_text()


def test_incomplete_blocks_refused_before_computing(tmp_path, monkeypatch):
    from rankstats.reporting import report_data as compute

    def never(*_, **__):
        raise AssertionError("the report was computed")

    monkeypatch.setattr(compute, "compute", never)
    with pytest.raises(ValueError, match="block 'Classification' has no score"):
        rs.report(rs.load_dataset("xtreme_missing"), out=tmp_path / "rep", significance=True)
    assert not (tmp_path / "rep").exists()


def test_options_mapping_complete_case_and_names_escaped(tmp_path):
    rows = [
        ("<script>alert(1)</script>", "t1", 0.9),
        ("b & c", "t1", 0.5),
        ("d", "t1", 0.1),
        ("<script>alert(1)</script>", "t2", 0.8),
        ("b & c", "t2", 0.6),
        ("d", "t2", 0.2),
        ("<script>alert(1)</script>", "t3", 0.7),
        ("b & c", "t3", 0.4),
        ("<script>alert(1)</script>", "t4", 0.3),  # t4 incomplete: dropped
        ("d", "t4", 0.9),
    ]
    scores = rs.Scores.from_long(pd.DataFrame(rows, columns=["system", "task", "score"]))
    opts = {"method": "conover", "correction": "bonferroni", "missing": "complete-case"}
    rep = rs.report(scores, out=tmp_path / "rep", significance=opts)
    assert rep.significance.posthoc.correction == "bonferroni"
    assert list(rep.significance.friedman.dropped_blocks) == ["t3", "t4"]
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "b &amp; c" in page
    assert "2 of 4 blocks dropped (incomplete): t3, t4" in page
    assert "[conover1979]" in rep.methods_text and "Bonferroni-adjusted" in rep.methods_text


def test_not_significant_warns(tmp_path):
    # Every system takes every rank once: χ²_F = 0.
    rows = [(f"s{i}", f"t{t}", float((i + t) % 4)) for i in range(4) for t in range(4)]
    scores = rs.Scores.from_long(pd.DataFrame(rows, columns=["system", "task", "score"]))
    rep = rs.report(scores, out=tmp_path / "rep", significance=True)
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "id='significance-warning'" in page
    assert "no pairwise difference is claimed" in rep.methods_text


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ({"method": "holm"}, "significance method must be one of"),
        ({"alpha": 1.0}, "alpha must be in"),
        ({"level": "task"}, "significance= accepts"),
    ],
)
def test_bad_options_refused(tmp_path, value, needle):
    with pytest.raises(ValueError, match=needle):
        options(value)
    with pytest.raises(ValueError, match=needle):
        rs.report(rs.load_dataset("xtreme"), out=tmp_path / "rep", significance=value)
    assert not (tmp_path / "rep").exists()


def test_imputed_ranks_section_says_what_was_computed(tmp_path):
    """missing='imputed': the section and the methods sentence name the test on imputed ranks,
    how many cells were imputed, and no critical difference (there is none)."""
    scores = rs.load_dataset("xtreme_missing")
    rep = rs.report(
        scores, out=tmp_path / "rep", significance={"missing": "imputed", "correction": "holm"}
    )
    fr = rs.friedman(scores, missing="imputed")
    ph = rs.posthoc(scores, missing="imputed", correction="holm")
    assert rep.significance.posthoc.n_significant == ph.n_significant
    text = rep.methods_text
    assert "Friedman-type test on the imputed expected ranks" in text
    assert f"T = {fr.statistic:.4g}, df {fr.df}" in text
    assert f"{fr.blocks.n_imputed} of {fr.blocks.ranks.size} (block, system) cells" in text
    assert "CD =" not in text and "complete task blocks" not in text
    assert "Holm-adjusted" in text and "[himmi2023]" in text
    page = (tmp_path / "rep" / "report.html").read_text()
    assert f"T = {fr.statistic:.4g} (df {fr.df})" in page
    assert "no pair of their group differs significantly" in page
    assert "complete task blocks" not in page

"""``rs.report(..., power=True)``: "What this benchmark can detect" (issue 26)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.reporting.power_section import options

pytestmark = pytest.mark.long  # reports of several seconds each (CI runs them on both stacks)

SMALL = {"n_replications": 100}


def test_section_files_sentence_and_citation(tmp_path):
    scores = rs.load_dataset("summeval").select(tasks=["BERTScore"])
    rep = rs.report(scores, out=tmp_path / "rep", power=SMALL)
    names = {p.name for p in rep.files}
    assert {
        "power_curve.png",
        "power_curve.pdf",
        "power_curve.csv",
        "calibration_pairs.csv",
    } <= names
    found = rep.power.detectable
    # The library's own answer, recomputed: the same calibration, the same seeded simulation.
    again = rs.calibrate(scores).detectable(n_replications=100)
    assert found.step == pytest.approx(again.step)
    curve = pd.read_csv(tmp_path / "rep" / "power_curve.csv")
    np.testing.assert_allclose(curve["power"], again.curve.curve["power"])
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "id='power'" in page and "src='data:image/png" in page
    assert "detects a difference between neighbouring systems of at least" in page
    assert "[card2020]" in rep.methods_text
    bib = (tmp_path / "rep" / "references.bib").read_text()
    assert re.search(r"^@\w+\{card2020,", bib, flags=re.M)


def test_no_section_by_default_and_refusals(tmp_path):
    rep = rs.report(rs.load_dataset("xtreme"), out=tmp_path / "rep")
    assert rep.power is None and "card2020" not in rep.methods_text
    with pytest.raises(ValueError, match="rankings without scores"):
        rs.report(rs.load_rankings("salad"), out=tmp_path / "r2", power=True)
    assert not (tmp_path / "r2").exists()
    with pytest.raises(ValueError, match="power= accepts"):
        options({"tests": "t"})
    with pytest.raises(ValueError, match="power test must be one of"):
        options({"test": "bayes"})
    with pytest.raises(ValueError, match="power must be a number"):
        options({"power": 1.2})


def test_names_are_escaped_and_misfits_warned(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for k in range(60):
        base = rng.normal()
        for name, shift in (("<b>x</b>", 0.0), ("y & z", 0.3), ("w", 0.6)):
            rows.append((name, "t1", k, base + shift + rng.normal()))
            rows.append((name, "t2", k, base - 3 * shift + rng.normal()))  # t2 reversed
    scores = rs.Scores.from_long(
        pd.DataFrame(rows, columns=["system", "task", "instance", "score"]), instance="instance"
    )
    rep = rs.report(scores, out=tmp_path / "rep", power=SMALL)
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "id='power-warning'" in page  # the two tasks rank the systems oppositely
    assert len(rep.power.calibration.misfits) > 0


def test_the_report_s_zero_method_reaches_a_wilcoxon_power_section(tmp_path):
    """A binary pilot (right / wrong): most paired differences are zero, so the zero method of
    rs.report(zero_method=...) changes the simulated Wilcoxon test ("zsplit": with every
    nonzero difference ±1, "pratt" gives the p-values of "wilcox")."""
    rng = np.random.default_rng(6)
    right = (rng.uniform(size=(80, 3)) < [0.55, 0.65, 0.75]).astype(float)
    long = pd.DataFrame(
        [(f"s{j}", "t", i, right[i, j]) for i in range(80) for j in range(3)],
        columns=["system", "task", "instance", "score"],
    )
    scores = rs.Scores.from_long(long, instance="instance")
    power = {"test": "wilcoxon", "n_replications": 60}
    rep = rs.report(scores, out=tmp_path / "rep", power=power, zero_method="zsplit")
    assert rep.power.zero_method == "zsplit"
    cal = rs.calibrate(scores)
    again = cal.detectable(test="wilcoxon", n_replications=60, zero_method="zsplit")
    curve = pd.read_csv(tmp_path / "rep" / "power_curve.csv")
    np.testing.assert_allclose(curve["power"], again.curve.curve["power"])
    dropped = cal.detectable(test="wilcoxon", n_replications=60)
    assert not np.allclose(curve["power"], dropped.curve.curve["power"])
    assert "split evenly between the two signed-rank sums" in rep.methods_text
    assert "zero_method='zsplit'" in rep.methods_text
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "with the ranks of zero differences split" in page
    # Without a Wilcoxon test anywhere in the report: refused, nothing written.
    with pytest.raises(ValueError, match=re.escape("power={'test': 'wilcoxon'}")):
        rs.report(scores, out=tmp_path / "r2", power={"test": "t"}, zero_method="pratt")
    assert not (tmp_path / "r2").exists()

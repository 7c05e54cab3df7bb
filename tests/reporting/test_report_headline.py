"""The report's headline states the test the user asked for, and every count of a test shown
anywhere in the report is the number of significant rows of that test's own result (issue 45,
item 2: the headline used to state the Hoeffding count alone, "1 of 10 pairs", while the
requested Wilcoxon–Holm test found 6 of 10).

The expected counts are recomputed here: Wilcoxon–Holm from ``scipy.stats.wilcoxon`` and Holm's
step-down written out, the Hoeffding count from the rows of ``pairs.csv``, the post-hoc count from
the rows of ``posthoc_pairs.csv``.
"""

from __future__ import annotations

import html
import re
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats.reporting.report_data import ReportRequest, compute
from rankstats.reporting.significance import options, run_significance
from rankstats.reporting.summary import claims


def _scores(n_tasks: int = 15, seed: int = 0) -> rs.Scores:
    """Five systems whose accuracies differ by a few points with noise (the shape of the
    CD-diagram repository's example, built here): over 15 tasks no pair wins everywhere, so the
    Hoeffding intervals find few pairs where Wilcoxon–Holm finds several; a few equal
    accuracies give zero differences."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.6, 0.9, n_tasks)
    shift = np.array([0.06, 0.05, 0.0, -0.01, -0.08])
    values = np.round(level[:, None] + shift + rng.normal(0, 0.04, (n_tasks, 5)), 2)
    frame = pd.DataFrame(values, columns=[f"clf{j + 1}" for j in range(5)])
    frame["task"] = [f"data{i + 1}" for i in range(n_tasks)]
    long = frame.melt(id_vars="task", var_name="system", value_name="score")
    return rs.Scores.from_long(long)


def _holm(p: np.ndarray) -> np.ndarray:
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, adjusted)
    return out


def _wilcoxon_holm_count(scores: rs.Scores, zero_method: str = "wilcox") -> int:
    wide = scores.data.pivot(index="task", columns="system", values="score")
    p = [
        stats.wilcoxon(wide[a], wide[b], zero_method=zero_method).pvalue
        for a, b in combinations(wide.columns, 2)
    ]
    return int((_holm(np.array(p)) < 0.05).sum())


def _headline(scores: rs.Scores, significance: dict) -> tuple:
    data = compute(scores, ReportRequest(["borda"], by="task"))
    sig = run_significance(scores, "task", options(significance))
    text = claims(data.intervals, (), "borda", "task", False, significance=sig)
    return data, sig, text


def test_the_headline_names_the_requested_test_with_its_own_count():
    scores = _scores()
    data, sig, text = _headline(scores, {"method": "wilcoxon-holm"})
    expected = _wilcoxon_holm_count(scores)
    hoeffding = int(data.intervals.table["significant"].sum() // 2)
    assert expected != hoeffding  # the data make the two tests disagree
    lead = re.match(r"Requested post-hoc test, (.*?): (\d+) of the (\d+) pairs", text)
    assert lead is not None, text
    assert lead.group(1).startswith("Wilcoxon's signed-rank test")
    assert int(lead.group(2)) == expected == sig.posthoc.table["significant"].sum()
    assert int(lead.group(3)) == 10
    # The Hoeffding count follows under its own name, and no count stands without a name.
    counts = re.findall(r"(\d+) of the (\d+) pairs of systems differ significantly( by the)?", text)
    assert len(counts) == 2 and counts[1][2], text
    assert int(counts[1][0]) == hoeffding
    if hoeffding == 0:
        assert "no pair of systems differs significantly by them" in text


def test_without_a_significant_friedman_test_no_pair_is_claimed():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(rng.normal(size=(8, 4)), columns=list("abcd"))
    frame["task"] = [f"t{i}" for i in range(8)]
    scores = rs.Scores.from_long(frame.melt(id_vars="task", var_name="system", value_name="score"))
    _, sig, text = _headline(scores, {"method": "conover"})
    assert not sig.significant
    assert f"{sig.posthoc.n_significant} of the 6 pairs" in text
    assert "Friedman's test is not significant" in text and "none of them is claimed" in text


def _text(page: str) -> str:
    page = re.sub(r"<style.*?</style>|<img[^>]*>", "", page, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


#: Every sentence of a report that states a count of pairs, by the test it names.
_COUNTS = {
    "hoeffding": [
        r"(\d+) of the (\d+) pairs of systems differ significantly by the Hoeffding intervals",
        r"(\d+) of (\d+) pairs differ significantly by the Hoeffding intervals",
        r"(\d+) of the (\d+) pairwise differences are significant by the Hoeffding intervals",
    ],
    "posthoc": [
        r"Requested post-hoc test, Wilcoxon's signed-rank test [^:]*: (\d+) of the (\d+) pairs",
        r"by the post-hoc test, Wilcoxon's signed-rank test on every pair \(Holm-adjusted\), "
        r"(\d+) of (\d+) pairs",
        r"Wilcoxon's signed-rank test on every pair \(Holm-adjusted\)[^α]{0,250}?α = 0\.05: "
        r"(\d+) of (\d+) pairs differ significantly",
    ],
}


@pytest.mark.long
def test_every_count_in_the_report_is_that_of_its_test(tmp_path):
    scores = _scores()
    rep = rs.report(
        scores,
        out=tmp_path / "rep",
        methods=["borda"],
        significance={"method": "wilcoxon-holm"},
        zero_method="pratt",
    )
    out = tmp_path / "rep"
    pairs = pd.read_csv(out / "pairs.csv")
    posthoc = pd.read_csv(out / "posthoc_pairs.csv")
    expected = {
        "hoeffding": (int(pairs["significant"].sum() // 2), 10),
        "posthoc": (int(posthoc["significant"].sum()), 10),
    }
    assert expected["posthoc"][0] == _wilcoxon_holm_count(scores, "pratt")
    assert expected["hoeffding"][0] != expected["posthoc"][0]
    texts = {
        "summary": rep.summary,
        "page": _text((out / "report.html").read_text()),
        "methods": (out / "methods.txt").read_text(),
    }
    for where, text in texts.items():
        found = 0
        for test, patterns in _COUNTS.items():
            for pattern in patterns:
                for match in re.finditer(pattern, text):
                    found += 1
                    got = (int(match.group(1)), int(match.group(2)))
                    assert got == expected[test], (where, test, match.group(0))
        # No count of pairs stands anywhere without one of the named sentences above.
        assert len(re.findall(r"\d+ of (?:the )?\d+ pair", text)) == found, (where, text)
        assert found >= 2, where
    assert "zero_method='pratt'" in texts["methods"] and "[pratt1959]" in texts["methods"]
    assert "@article{pratt1959," in (out / "references.bib").read_text()
    assert "zero differences ranked as Pratt (1959)" in rep.summary
    assert "zero differences ranked as Pratt (1959)" in (out / "cd_table.tex").read_text()
    assert repr(rep).endswith(
        f"{expected['hoeffding'][0]} pairs significant by Hoeffding, "
        f"{expected['posthoc'][0]} by wilcoxon-holm, {len(rep.files)} files)"
    )


def test_120_systems_the_headline_states_the_nemenyi_count(tmp_path):
    # The case: 120 systems on 20 tasks; the Hoeffding intervals cannot find any pair
    # (a pair needs 26 rankings), Nemenyi finds thousands (2,585 of 7,140 on this seed). The
    # library's pieces without the files: 0.6 s.
    sim = rs.simulate.gumbel(n_systems=120, n_tasks=20, n_instances=1, phi=0.5, seed=0)
    data, sig, text = _headline(sim, {"method": "nemenyi"})
    assert data.intervals.n_significant == 0
    assert sig.posthoc.n_pairs == 7140
    n = int(sig.posthoc.table["significant"].sum())
    assert n > 1000
    assert text.startswith("Requested post-hoc test, Nemenyi's test (critical difference CD = ")
    assert f": {n} of the 7140 pairs of systems differ significantly" in text
    assert "no pair of systems differs significantly by them" in text
    assert "Hoeffding intervals (δ = 0.05, holm correction)" in text


def test_compute_reads_the_old_positional_parameters_with_a_warning():
    scores = _scores()
    new = compute(scores, ReportRequest(["borda", "mean"], delta=0.1, by="task", paired=()))
    with pytest.warns(FutureWarning, match=r"compute\(scores, ReportRequest"):
        old = compute(
            scores, ["borda", "mean"], 0.1, "holm", "imputed", "task", None, (), "map", 0, (), 0.95
        )
    pd.testing.assert_frame_equal(new.ranking, old.ranking)
    pd.testing.assert_frame_equal(new.intervals.table, old.intervals.table)
    assert new.intervals.delta == 0.1

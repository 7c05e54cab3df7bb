"""The paper-ready report: files, LaTeX that parses, numbers equal to the result object's."""

import re

import numpy as np
import pytest

import rankstats as rs
from rankstats.report import latex_escape


@pytest.fixture(scope="module")
def tac_report(tmp_path_factory):
    scores = rs.load_dataset("tac08", tasks=["ROUGE_2", "H:pyramid"])
    return rs.report(scores, out=tmp_path_factory.mktemp("rep"), delta=0.05, correction="holm")


def test_files(tac_report):
    names = {p.name for p in tac_report.files}
    assert names == {
        "report.html",
        "ranking.csv",
        "pairs.csv",
        "ranking.tex",
        "references.bib",
        "methods.txt",
        "significance_heatmap.png",
        "significance_heatmap.pdf",
    }
    for path in tac_report.files:
        assert path.stat().st_size > 0


def test_rank_range_contains_the_rank_and_agrees_with_pairs(tac_report):
    table = tac_report.ranking
    ranks = table["rank_borda"].to_numpy()
    assert (table["rank_low"] <= np.floor(ranks)).all() and (
        np.ceil(ranks) <= table["rank_high"]
    ).all()
    ci = tac_report.pairs
    first = table["system"].iloc[0]
    beaten = ci[(ci.system_a == first) & (ci.winner == first)]
    assert table["rank_high"].iloc[0] == len(table) - len(beaten)


def _balanced(tex: str) -> bool:
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]*)\}", tex):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack and tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")


def test_latex_parses_and_numbers_match(tac_report):
    tex = (tac_report.out / "ranking.tex").read_text()
    assert _balanced(tex)
    assert r"\toprule" in tex and r"\bottomrule" in tex
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    table = tac_report.ranking
    assert len(body) == len(table)
    for line, (_, row) in zip(body, table.iterrows(), strict=True):
        cells = [c.strip() for c in line.removesuffix(r"\\").split(" & ")]
        assert cells[1].startswith(latex_escape(row["system"]))
        assert (r"\dagger" in cells[1]) == bool(row["above_next"])
        numbers = cells[2:-1]
        for k, method in enumerate(("borda", "borda2", "mean")):
            assert float(numbers[2 * k]) == pytest.approx(row[f"rank_{method}"])
            assert float(numbers[2 * k + 1]) == pytest.approx(row[f"score_{method}"], abs=5e-4)
        assert cells[-1] == f"{row['rank_low']}--{row['rank_high']}"


def test_latex_escape():
    assert latex_escape("A&B_C 50% #1 {x} ~^\\") == (
        r"A\&B\_C 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{}"
    )


def test_html_is_self_contained(tac_report):
    page = tac_report.html.read_text()
    assert "<script" not in page.lower()
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:)?//", page)
    assert "data:image/png;base64," in page
    for system in tac_report.ranking["system"].head(5):
        assert f"<td class='name'>{system}</td>" in page


def test_methods_and_bibtex(tac_report):
    text = tac_report.methods_text
    assert "δ = 0.05" in text and "Holm" in text
    bib = (tac_report.out / "references.bib").read_text()
    for key in re.findall(r"\[(\w+)\]", text):
        assert f"{{{key}," in bib


def test_report_matches_aggregate(tac_report):
    scores = rs.load_dataset("tac08", tasks=["ROUGE_2", "H:pyramid"])
    borda = rs.aggregate(scores, method="borda")
    assert tac_report.ranking["system"].tolist() == borda.order
    np.testing.assert_allclose(tac_report.ranking["score_borda"], borda.table["score"])


def test_cli_report(tmp_path, capsys):
    from rankstats.cli import main

    assert main(["report", "--dataset", "xtreme_missing", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "report.html").exists()
    assert "report.html" in capsys.readouterr().out


def test_report_with_models(tmp_path):
    scores = rs.load_dataset("dialogue_tc", tasks=["BLEU", "H:overall"])
    rep = rs.report(scores, out=tmp_path, models=["pl", "bt"], delta=0.05)
    assert {"rank_pl", "rank_bt"} <= set(rep.ranking.columns)
    fit = rs.models.PlackettLuce().fit(rs.Rankings.from_scores(scores, by="instance"), method="map")
    expected = {s: i + 1.0 for i, s in enumerate(fit.order)}
    assert rep.ranking.set_index("system")["rank_pl"].to_dict() == expected
    agree = rep.comparison.agreement.set_index("method")
    assert f"Plackett–Luce: {agree.loc['pl', 'both_same']} pairs significant" in rep.methods_text
    assert "plackett1975" in (tmp_path / "references.bib").read_text()
    page = rep.html.read_text()
    assert "id='agreement'" in page and "<th>rank pl</th>" in page
    tex = (tmp_path / "ranking.tex").read_text()
    assert _balanced(tex) and "rank pl" in tex


def test_report_with_paired_section(tmp_path, capsys):
    """paired=: one section per task, equal to a separate rs.paired call (same seed), with its
    files, its sentence (counts of Holm-significant pairs per test) and the citation."""
    import pandas as pd

    from rankstats.cli import main

    sim = rs.simulate.gumbel(5, 2, 40, phi=0.4, seed=2, round_to=1)
    rep = rs.report(sim, out=tmp_path / "r", paired=["task02"], seed=3)
    direct = rs.paired(sim, task="task02", seed=3)
    pd.testing.assert_frame_equal(rep.paired["task02"].pairs, direct.pairs)
    written = pd.read_csv(tmp_path / "r" / "paired_task02_pairs.csv")
    np.testing.assert_allclose(written["sign_p_holm"], direct.pairs["sign_p_holm"], rtol=1e-12)
    counts = {t: int((direct.pairs[f"{t}_p_holm"] < 0.05).sum()) for t in ("sign", "ttest")}
    assert f"{counts['sign']} by the sign test" in rep.methods_text
    assert f"{counts['ttest']} by the paired t test" in rep.methods_text
    page = rep.html.read_text()
    assert "<h2>Paired instance-level analysis</h2>" in page and "<h3>task02</h3>" in page
    assert page.count("data:image/png;base64") == 2  # heatmap + paired matrix, inline
    assert "peyrard2021" in (tmp_path / "r" / "references.bib").read_text()
    assert (tmp_path / "r" / "paired_task02_matrix.png").exists()
    with pytest.raises(ValueError, match="unknown task"):
        rs.report(sim, out=tmp_path / "x", paired=["nope"])
    with pytest.raises(ValueError, match="instance-level"):
        rs.report(rs.simulate.gumbel(4, 3, seed=0), out=tmp_path / "y", paired=["task01"])
    path = tmp_path / "sim.csv"
    sim.to_csv(path)
    args = ["report", str(path), "--instance", "instance", "--paired", "task01", "task02"]
    assert main([*args, "--out", str(tmp_path / "cli")]) == 0
    assert "On task01 (40 instances)" in capsys.readouterr().out
    assert (tmp_path / "cli" / "paired_task01_strengths.csv").exists()

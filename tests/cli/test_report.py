"""The `rankstats report` command."""

import numpy as np
import pandas as pd
import pytest

import rankstats as rs


def test_cli_report(tmp_path, capsys):
    from rankstats.cli import main

    assert main(["report", "--dataset", "xtreme_missing", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "report.html").exists()
    assert "report.html" in capsys.readouterr().out


def test_report_with_paired_section(tmp_path, capsys):
    """paired=: one section per task, equal to a separate rs.paired call (same seed), with its
    files, its sentence (counts of Holm-significant pairs per test) and the citation."""

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

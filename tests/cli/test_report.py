"""The `rankstats report` command."""

import numpy as np
import pandas as pd
import pytest

import rankstats as rs

pytestmark = pytest.mark.long


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


@pytest.mark.pymc
def test_model_fits_are_announced_with_the_fit_estimate(capsys, monkeypatch):
    """`report --models` announces each sampled fit with the same estimate `rankstats fit`
    prints (one function, models.timing.fit_estimate); optimum fits are never announced."""
    from rankstats.cli.report import _announce_models
    from rankstats.models import timing as _timing
    from rankstats.models.mallows.model import DRAWS, TUNE

    scores = rs.load_dataset("dialogue_tc")
    monkeypatch.setattr(_timing, "ANNOUNCE_FROM", 0.0)
    _announce_models(["pl", "mallows"], "map", None, scores)
    lines = capsys.readouterr().out.splitlines()
    # dialogue_tc ranks every system in every instance, but the Mallows MAP is exact only for
    # untied rankings: its rankings have ties, so the report samples Mallows; PL is a MAP fit.
    rk = rs.Rankings.from_scores(scores, by="instance")
    expected = _timing.fit_estimate("mallows", rk, "mcmc", DRAWS, TUNE, 4)
    assert lines == [f"mallows: {expected}"]
    assert f"{rk.n_rankings} rankings × {rk.n_systems} systems" in expected
    _announce_models(["pl", "mallows"], "nuts", None, scores)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("pl: expected time: about ") and "cells" in first


def test_report_significance_flag(tmp_path, capsys):
    """`rankstats report --significance` writes the same section as rs.report(significance=True)."""
    from rankstats.cli import main

    out = tmp_path / "r"
    assert main(["report", "--dataset", "superglue", "--significance", "--out", str(out)]) == 0
    for name in ("cd_diagram.png", "cd_table.tex", "posthoc_pairs.csv"):
        assert (out / name).exists(), name
    direct = rs.posthoc(rs.load_dataset("superglue"), method="nemenyi")
    written = pd.read_csv(out / "posthoc_pairs.csv")
    assert len(written) == direct.n_pairs
    assert int(written["significant"].sum()) == direct.n_significant
    assert "Friedman" in capsys.readouterr().out


def test_report_without_significance_flag_has_no_section(tmp_path):
    from rankstats.cli import main

    assert main(["report", "--dataset", "superglue", "--out", str(tmp_path / "r")]) == 0
    assert not (tmp_path / "r" / "cd_diagram.png").exists()


def test_report_significance_options(tmp_path, capsys):
    """--posthoc / --alpha / --missing / --min-coverage reach the section: the pairs written
    equal rs.posthoc with the same options on the same complete blocks."""
    from rankstats.cli import main

    out = tmp_path / "r"
    argv = ["report", "--dataset", "xtreme_missing", "--significance", "--posthoc", "conover"]
    argv += ["--alpha", "0.1", "--missing", "complete-case", "--out", str(out)]
    assert main(argv) == 0
    direct = rs.posthoc(
        rs.load_dataset("xtreme_missing"), method="conover", alpha=0.1, missing="complete-case"
    )
    written = pd.read_csv(out / "posthoc_pairs.csv")
    np.testing.assert_allclose(written["p_adjusted"], direct.table["p_adjusted"], rtol=1e-12)
    assert int(written["significant"].sum()) == direct.n_significant
    assert "dropped" in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "pass --missing complete-case"),  # the library's advice, in the CLI's spelling
        (["--min-coverage", "0.5"], "--min-coverage applies with --missing complete-case or"),
    ],
)
def test_report_significance_errors_speak_cli(tmp_path, capsys, extra, message):
    from rankstats.cli import main

    argv = ["report", "--dataset", "xtreme_missing", "--significance", *extra]
    assert main([*argv, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert message in err and "missing='complete-case'" not in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_report_significance_options_need_the_flag(tmp_path, capsys):
    from rankstats.cli import main

    argv = ["report", "--dataset", "glue", "--posthoc", "conover", "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    assert "--posthoc: only with --significance" in capsys.readouterr().err

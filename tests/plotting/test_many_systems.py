"""100+ systems: unique abbreviations with a key, heat maps and CD diagrams whose names never
overlap, LaTeX tables that break across pages, and ``--top N`` (statistics on all systems).

The real case is open_clip's leaderboard (121 models named by ``name`` + ``pretrained``,
``../shared/data/outside/openclip_results.csv``); the synthetic one is 200 names sharing long
prefixes.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run

import rankstats as rs
from rankstats._util.text import abbreviation_key, abbreviations
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.datasets import data_path
from rankstats.plotting.names import MIN_NAME_FONT, labels
from rankstats.significance.critical_difference import cd_diagram, cd_table, group_letters
from rankstats.significance.posthoc_tests import posthoc

pytestmark = pytest.mark.long

OPENCLIP = data_path("openclip_results.csv")  # bundled: open_clip's file, byte for byte

PREFIXED = {
    "shared prefix": [
        f"a very long common prefix shared by every model {i:03d}" for i in range(200)
    ],
    "shared prefix and suffix": [
        f"prefix that is long enough to be cut_{i:03d}_and a long common suffix" for i in range(200)
    ],
    "differ in the middle only": ["x" * 40 + f"_{i % 7}" + "y" * 40 + str(i) for i in range(200)],
    "one name a prefix of others": ["checkpoint-" * 4 + "z" * k for k in range(200)],
}


def _openclip_long() -> pd.DataFrame:
    if not OPENCLIP.exists():
        pytest.skip("the shared open_clip file is not present")
    wide = pd.read_csv(OPENCLIP)
    wide["system"] = wide["name"] + " / " + wide["pretrained"]  # the two key columns, joined
    tasks = list(wide.columns[5:-1])  # after name, pretrained, params, FLOPs, the average
    long = wide[["system", *tasks]].melt(id_vars="system", var_name="task", value_name="score")
    return long.dropna()


def _scores(names: list[str], seed: int = 0) -> rs.Scores:
    rng = np.random.default_rng(seed)
    n = len(names)
    rows = [
        (s, f"t{t}", i, rng.normal(3 * k / n))
        for t in range(2)
        for i in range(20)
        for k, s in enumerate(names)
    ]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    return rs.Scores.from_long(frame, instance="instance")


# ------------------------------------------------------------------------------ abbreviations
@pytest.mark.parametrize("case", sorted(PREFIXED))
@pytest.mark.parametrize("width", [12, 28, 40])
def test_shortened_labels_are_unique_and_keyed(case, width):
    names = PREFIXED[case]
    short = abbreviations(names, width)
    assert len(set(short.values())) == len(names)
    assert all(len(label) <= width for label in short.values())
    assert all(short[n] == n for n in names if len(n) <= width)  # a name that fits is kept
    key = abbreviation_key(names, width)
    # The key maps every shortened label back to its one name.
    assert key["label"].is_unique
    assert dict(zip(key["label"], key["name"], strict=True)) == {
        v: k for k, v in short.items() if v != k
    }


def test_openclip_names_get_unique_labels():
    names = _openclip_long()["system"].unique().tolist()
    assert len(names) == 121
    drawn = labels(names)
    assert len(set(drawn)) == 121


# ------------------------------------------------------------------------------ heat map
def _tick_boxes(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    return [
        [t.get_window_extent(renderer) for t in ticks]
        for ticks in (ax.get_xticklabels(), ax.get_yticklabels())
    ], ax


@pytest.mark.parametrize("which", ["openclip", "prefixed"])
def test_heatmap_names_are_unique_legible_and_never_overlap(which):
    if which == "openclip":
        scores = rs.Scores.from_long(_openclip_long())
        rankings = rs.Rankings.from_scores(scores, by="task")
    else:
        scores = _scores(PREFIXED["shared prefix"])
        rankings = rs.Rankings.from_scores(scores, by="instance")
    test = rs.hoeffding_test(rs.pairwise(rankings))
    fig = significance_heatmap(test, block_size=1)  # the full matrix (by default: blocks > 60)
    boxes, ax = _tick_boxes(fig)
    n = len(scores.systems)
    for ticks, axis in zip(boxes, (ax.get_xticklabels(), ax.get_yticklabels()), strict=True):
        assert len(ticks) == n
        assert len({t.get_text() for t in axis}) == n  # never cut into collisions
        assert min(t.get_fontsize() for t in axis) >= MIN_NAME_FONT
        assert not any(a.overlaps(b) for a, b in itertools.pairwise(ticks))
    assert "shortened" in ax.get_title()


def test_heatmap_of_the_top_systems_keeps_the_full_statistics():
    scores = rs.load_dataset("summeval")
    test = rs.hoeffding_test(rs.pairwise(rs.Rankings.from_scores(scores, by="task")))
    full = test.matrix("distance")
    top = list(full.index[:5])
    fig = significance_heatmap(test, systems=top)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == top
    drawn = next(im for im in ax.get_images() if im.get_array().mask.sum() < 25).get_array()
    # The cells are those of the all-systems intervals (Holm over all pairs), not recomputed.
    values = full.loc[top, top].to_numpy()
    coloured = np.isfinite(values) & (values != 0)
    np.testing.assert_allclose(drawn[coloured], values[coloured])
    assert f"the best 5 of {len(full)} systems" in ax.get_title()


# ------------------------------------------------------------------------------ CD diagram
def test_cd_diagram_and_letters_fit_for_121_systems():
    res = posthoc(rs.Scores.from_long(_openclip_long()), by="task", method="nemenyi")
    fig = cd_diagram(res, top=121)  # the full diagram (by default: the best 30 named)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    names = [t for t in fig.texts if t.get_gid() == "system-name"]
    assert len({t.get_text() for t in names}) == 121
    boxes = [t.get_window_extent(renderer) for t in names]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    figure = fig.bbox
    for box in boxes:
        assert figure.x0 <= box.x0 and box.x1 <= figure.x1 + 0.5
        assert figure.y0 <= box.y0 and box.y1 <= figure.y1 + 0.5
    ax = fig.axes[0]
    bars = [line for line in ax.get_lines() if line.get_gid() == "group-bar"]
    assert len(bars) == len([g for g in res.groups() if len(g) > 1])
    for bar in bars:
        assert 1.0 <= min(bar.get_xdata()) and max(bar.get_xdata()) <= 121.0
    # Letters stay short: a run of consecutive groups is a range.
    letters = group_letters(res)
    assert max(len(v) for v in letters.values()) <= 9, max(letters.values(), key=len)


# ------------------------------------------------------------------------------ LaTeX
def _check_longtable(tex: str, n_rows: int) -> None:
    body = tex[tex.index(r"\endlastfoot") + len(r"\endlastfoot") : tex.index(r"\end{longtable}")]
    rows = [line for line in body.strip().splitlines() if line.strip()]
    assert len(rows) == n_rows
    columns = tex[tex.index(r"\begin{longtable}{") :].split("}{", 1)[1].split("}", 1)[0]
    width = len(columns.replace(" ", ""))
    assert all(row.count(" & ") == width - 1 and row.endswith(r"\\") for row in rows)
    for marker in (r"\endfirsthead", r"\endhead", r"\endfoot", r"\toprule", r"\bottomrule"):
        assert marker in tex
    assert r"\begin{table}" not in tex and r"\begin{tabular}" not in tex
    if shutil.which("pdflatex"):
        _compile(tex)


def _compile(tex: str, tmp: Path | None = None) -> None:
    import tempfile

    directory = Path(tmp or tempfile.mkdtemp())
    document = (
        "\\documentclass{article}\\usepackage[utf8]{inputenc}\\usepackage[T1]{fontenc}"
        "\\usepackage{booktabs}\\usepackage{longtable}\\begin{document}\n"
        + tex
        + "\n\\end{document}\n"
    )
    (directory / "t.tex").write_text(document)
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]


def test_cd_table_of_121_systems_is_a_longtable():
    res = posthoc(rs.Scores.from_long(_openclip_long()), by="task", method="nemenyi")
    _check_longtable(cd_table(res), 121)


def test_short_cd_table_stays_a_float():
    res = posthoc(rs.load_dataset("summeval"), by="task", method="nemenyi")
    assert r"\begin{table}" in cd_table(res) and "longtable" not in cd_table(res)


# ------------------------------------------------------------------------------ --top
_run = run


def test_rank_top_shows_n_and_computes_on_all(tmp_path, capsys):
    path = tmp_path / "openclip.csv"
    _openclip_long().to_csv(path, index=False)
    base = ["rank", str(path), "--no-figures"]
    code, _, err = _run([*base, "--out", str(tmp_path / "all")], capsys)
    assert code == 0, err
    code, out_top, err = _run([*base, "--top", "7", "--out", str(tmp_path / "top")], capsys)
    assert code == 0, err
    # The statistics are those of all systems: the files are identical.
    for name in ("ranking.csv", "pairs.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "all" / name), pd.read_csv(tmp_path / "top" / name)
        )
    ranking = pd.read_csv(tmp_path / "all" / "ranking.csv")
    printed = [s for s in ranking["system"] if s in out_top]
    assert printed == ranking["system"].tolist()[:7]
    assert "the best 7 of 121 systems" in out_top.lower() and "7260 pairs" in out_top
    summary = json.loads((tmp_path / "top" / "summary.json").read_text())
    assert summary["shown"] == {"systems": 7, "of": 121}


def test_rank_heatmap_comes_with_the_names_key(tmp_path, capsys):
    path = tmp_path / "openclip.csv"
    _openclip_long().to_csv(path, index=False)
    code, _, err = _run(["rank", str(path), "--top", "30", "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    key = pd.read_csv(tmp_path / "o" / "labels.csv")
    ranking = pd.read_csv(tmp_path / "o" / "ranking.csv")
    assert set(key["name"]) <= set(ranking["system"][:30])
    assert set(key["name"]) == {s for s in ranking["system"][:30] if len(s) > 28}
    assert key["label"].is_unique


@pytest.mark.filterwarnings("ignore::rankstats.errors.DataWarning")
def test_report_top(tmp_path):
    scores = rs.Scores.from_long(_openclip_long())
    rep = rs.report(scores, out=tmp_path / "r", top=10, methods=["borda"])
    assert len(rep.ranking) == 121 and len(pd.read_csv(tmp_path / "r" / "ranking.csv")) == 121
    tex = (tmp_path / "r" / "ranking.tex").read_text()
    assert tex.count(r"\\") == 11  # the header and 10 rows
    assert "The best 10 of 121 systems are shown" in tex
    page = (tmp_path / "r" / "report.html").read_text()
    table = page[
        page.index("<table id='ranking'>") : page.index(
            "</table>", page.index("<table id='ranking'>")
        )
    ]
    assert table.count("<tr") == 11
    assert "The best 10 of 121 systems are shown" in page
    key = pd.read_csv(tmp_path / "r" / "labels.csv")
    assert set(key["figure"]) == {"significance_heatmap"}


@pytest.mark.filterwarnings("ignore::rankstats.errors.DataWarning")
def test_report_long_ranking_table_breaks_across_pages(tmp_path):
    scores = rs.Scores.from_long(_openclip_long())
    rs.report(scores, out=tmp_path / "r", methods=["borda"])
    _check_longtable((tmp_path / "r" / "ranking.tex").read_text(), 121)


@pytest.mark.parametrize("top", [0, -1, 2.5, True])
def test_report_refuses_a_bad_top(top, tmp_path):
    with pytest.raises(ValueError, match="top must be a positive integer"):
        rs.report(rs.load_dataset("glue"), out=tmp_path / "r", top=top)
    assert not (tmp_path / "r").exists()


def test_cli_report_top_flag(tmp_path, capsys):
    code, _, err = _run(["report", "--dataset", "glue", "--top", "0"], capsys)
    assert code == 2 and "--top" in err

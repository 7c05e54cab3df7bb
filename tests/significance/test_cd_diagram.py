"""Critical-difference diagrams and their LaTeX table
(rankstats.significance.critical_difference)."""

from __future__ import annotations

import itertools
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

import rankstats as rs
from rankstats._util.latex import LONG_ROWS
from rankstats._util.text import latex_escape
from rankstats.plotting.names import label
from rankstats.plotting.saving import save_figure
from rankstats.significance.critical_difference import cd_diagram, cd_table, group_letters
from rankstats.significance.posthoc_tests import posthoc

# Demšar (2006), Table 6: AUC of four C4.5 variants on 14 data sets (tests/data/demsar2006.csv,
# shared with tests/significance/test_friedman.py), the "voting" rounding tie broken as the paper
# ranks it.
_DEMSAR = pd.read_csv(
    Path(__file__).resolve().parents[1] / "data" / "demsar2006.csv", comment="#", index_col=0
)
_DEMSAR.loc["voting", "C4.5+cf"] = 0.97501
DEMSAR_SYSTEMS = list(_DEMSAR.columns)
DEMSAR_AUC = {task: row.tolist() for task, row in _DEMSAR.iterrows()}


def demsar(systems=DEMSAR_SYSTEMS) -> rs.Scores:
    df = pd.DataFrame(DEMSAR_AUC, index=list(systems)).rename_axis("system").reset_index()
    return rs.Scores.from_wide(df)


def _lines(fig: Figure, gid: str):
    return [line for line in fig.axes[0].get_lines() if line.get_gid() == gid]


def _names(fig: Figure) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_gid() == "system-name"]


def _shown(text: Text) -> str:
    """The string matplotlib draws for a text (``\\$`` shown as ``$``; never mathtext)."""
    shown, is_math = text._preprocess_math(text.get_text())
    assert is_math is False
    return shown


def _bar_spans(fig: Figure) -> list[tuple[float, float]]:
    spans = []
    for line in _lines(fig, "group-bar"):
        x = np.asarray(line.get_xdata(), dtype=float)
        assert len(set(np.asarray(line.get_ydata(), dtype=float))) == 1  # horizontal
        spans.append((float(x.min()), float(x.max())))
    return sorted(spans)


@pytest.mark.parametrize(
    ("method", "alpha"), [("nemenyi", 0.10), ("nemenyi", 0.05), ("conover", 0.05)]
)
def test_demsar_bars_join_exactly_the_groups(method, alpha):
    res = posthoc(demsar(), method=method, alpha=alpha)
    fig = cd_diagram(res)
    groups = [g for g in res.groups() if len(g) > 1]
    if method == "nemenyi" and alpha == 0.10:  # CD = 1.12 < 3.143 − 1.964: two groups
        assert len(groups) == 2
    expected = sorted(
        (res.mean_ranks[list(g)].min(), res.mean_ranks[list(g)].max()) for g in groups
    )
    spans = _bar_spans(fig)
    assert len(spans) == len(expected)
    np.testing.assert_allclose(spans, expected, rtol=0, atol=1e-12)
    # Each bar covers exactly the systems of its group: no other average rank inside it.
    for (lo, hi), group in zip(
        spans, sorted(groups, key=lambda g: res.mean_ranks[g[0]]), strict=True
    ):
        inside = res.mean_ranks[(res.mean_ranks >= lo) & (res.mean_ranks <= hi)]
        assert set(inside.index) == set(group)
    # Stacked bars that overlap in x are never on the same row.
    bars = _lines(fig, "group-bar")
    for a, b in itertools.combinations(bars, 2):
        (a0, a1), (b0, b1) = sorted(a.get_xdata()), sorted(b.get_xdata())
        if a0 <= b1 and b0 <= a1:
            assert a.get_ydata()[0] != b.get_ydata()[0]


def test_cd_bracket_has_the_critical_difference_as_length():
    res = posthoc(demsar(), method="nemenyi", alpha=0.05)
    fig = cd_diagram(res)
    (bracket,) = _lines(fig, "cd-bracket")
    x = np.asarray(bracket.get_xdata(), dtype=float)
    assert x.max() - x.min() == pytest.approx(res.critical_difference, abs=1e-12)
    assert x.min() == 1.0
    labels = [t.get_text() for t in fig.findobj(Text) if t.get_gid() == "cd-label"]
    assert labels == ["CD = 1.25"]
    # The rank axis runs from 1 to k, best on the left.
    (axis,) = _lines(fig, "rank-axis")
    assert list(axis.get_xdata()) == [1.0, 4.0]
    # Each system's line starts on the axis at its average rank.
    starts = sorted(
        line.get_xdata()[0] for line in fig.axes[0].get_lines() if len(line.get_xdata()) == 3
    )
    np.testing.assert_allclose(starts, sorted(res.mean_ranks), atol=1e-12)


@pytest.mark.parametrize("method", ["conover", "wilcoxon-holm"])
def test_no_bracket_but_a_caption_without_a_single_cd(method):
    res = posthoc(demsar(), method=method)
    fig = cd_diagram(res)
    assert not _lines(fig, "cd-bracket")
    caption = " ".join(t.get_text() for t in fig.findobj(Text) if t.get_gid() == "caption")
    assert ("Conover" if method == "conover" else "Wilcoxon") in caption
    assert "Holm" in caption and "α = 0.05" in caption


def test_imputed_ranks_without_a_single_cd_draw_the_pairwise_groups(tmp_path):
    sim = rs.simulate.gumbel(n_systems=8, n_tasks=14, phi=0.6, missing_rate=0.3, seed=3)
    res = posthoc(sim, missing="imputed")
    assert not res.has_single_cd and res.method == "nemenyi"
    fig = cd_diagram(res)
    assert not _lines(fig, "cd-bracket")
    assert _bar_spans(fig) == [
        (res.mean_ranks[g[0]], res.mean_ranks[g[-1]]) for g in res.groups() if len(g) > 1
    ]
    caption = " ".join(t.get_text() for t in fig.findobj(Text) if t.get_gid() == "caption")
    assert "imputed" in caption and "No single critical difference" in caption
    assert "bracket is omitted" in caption
    tex = cd_table(res)
    assert "no single critical difference" in tex and "CD}" not in tex
    save_figure(fig, tmp_path / "cd")  # draws without error


def test_imputed_ranks_with_a_single_cd_keep_the_bracket():
    res = posthoc(demsar(), missing="imputed")  # complete: Σ ∝ I − J/k, one CD
    assert res.has_single_cd
    assert len(_lines(cd_diagram(res), "cd-bracket")) == 1


def test_every_name_appears_once_literally():
    hostile = ["$x$", "a_b", "系统甲 模型", "50% & {y}"]
    res = posthoc(demsar(hostile), method="nemenyi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.plotting.MissingFontWarning)
        fig = cd_diagram(res, title="hostile names")
    shown = [_shown(t) for t in _names(fig)]
    assert sorted(shown) == sorted(hostile)
    # No other text of the figure is a name.
    others = [t.get_text() for t in fig.findobj(Text) if t.get_gid() != "system-name"]
    assert not set(others) & set(hostile)


def _long_names(k: int, length: int) -> list[str]:
    rng = np.random.default_rng(0)
    words = ["model", "large", "tuned", "base", "v2", "ensemble", "lora", "distilled", "x"]
    names = []
    for i in range(k):
        text = f"S{i:02d} " + " ".join(rng.choice(words, 20))
        names.append(text[:length])
    return names


@pytest.fixture(scope="module")
def forty():
    rng = np.random.default_rng(1)
    k, n = 40, 30
    values = rng.normal(size=(n, k)) + np.linspace(0, 3, k)
    names = _long_names(k, 60)
    df = pd.DataFrame(values.T, columns=[f"b{i}" for i in range(n)])
    df.insert(0, "system", names)
    return posthoc(rs.Scores.from_wide(df), method="nemenyi")


def test_forty_long_names_do_not_overlap(forty, tmp_path):
    fig = cd_diagram(forty)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    names = _names(fig)
    assert len(names) == 40
    boxes = [t.get_window_extent(renderer) for t in names]
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    # The names stay inside the figure and off the rank axis, its ticks and the bars.
    figure_box = fig.bbox
    axis_ranks = forty.mean_ranks
    ax = fig.axes[0]
    x_best = ax.transData.transform((1.0, 0.0))[0]
    x_worst = ax.transData.transform((float(len(axis_ranks)), 0.0))[0]
    for t, box in zip(names, boxes, strict=True):
        assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1
        assert figure_box.y0 <= box.y0 and box.y1 <= figure_box.y1
        assert box.x1 < x_best or box.x0 > x_worst
        assert _shown(t).endswith("…") and len(_shown(t)) == 40  # shortened by max_name
    others = [
        t.get_window_extent(renderer)
        for t in fig.findobj(Text)
        if t.get_gid() != "system-name" and t.get_text() and t.get_visible()
    ]
    for a, b in itertools.product(boxes, others):
        assert not a.overlaps(b)
    for line in _lines(fig, "group-bar") + _lines(fig, "rank-axis"):
        extent = line.get_window_extent(renderer)
        assert not any(extent.overlaps(b) for b in boxes)
    # 40 systems need a taller figure than 4.
    small = cd_diagram(posthoc(demsar(), method="nemenyi"))
    assert fig.get_figheight() > small.get_figheight() + 2.5
    paths = save_figure(fig, tmp_path / "cd40")
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert paths[1].read_bytes().startswith(b"%PDF")


def test_width_is_respected_when_the_names_fit(forty):
    fig = cd_diagram(posthoc(demsar(), method="nemenyi"), width=7.0)
    assert fig.get_figwidth() == pytest.approx(7.0)
    fig = cd_diagram(forty, width=3.0)  # too narrow for the names: they stay whole
    assert fig.get_figwidth() > 3.0


def _parse_table(tex: str) -> dict[str, tuple[str, str]]:
    if "\\endlastfoot" in tex:
        body = tex.split("\\endlastfoot\n")[1].split("\\end{longtable}")[0]
    else:
        body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0]
    rows = {}
    for line in body.strip().splitlines():
        name, rank, letters = (c.strip() for c in line.removesuffix("\\\\").split(" & "))
        rows[name] = (rank, letters)
    return rows


def _letter_sets(letters: str) -> set[str]:
    """The group letters of a compact letter display, ranges (``c–h``) expanded."""
    from rankstats.significance.critical_difference import _letter

    alphabet = [_letter(i) for i in range(3000)]
    tokens = letters.split(",") if "," in letters else re.findall(r".–.|.", letters)
    out: set[str] = set()
    for token in tokens:
        if "–" in token:
            a, b = token.split("–")
            out.update(alphabet[alphabet.index(a) : alphabet.index(b) + 1])
        else:
            out.add(token)
    return out


@pytest.mark.parametrize(
    ("data", "method"),
    [("demsar", "nemenyi"), ("summeval", "nemenyi"), ("xtreme", "conover"), ("tac08", "nemenyi")],
)
def test_table_letters_agree_with_groups(data, method):
    scores = demsar() if data == "demsar" else rs.load_dataset(data)
    res = posthoc(scores, method=method, by="task", alpha=0.10 if data == "demsar" else 0.05)
    tex = cd_table(res)
    if len(res.mean_ranks) > LONG_ROWS:  # a longtable: the header repeats on every page
        assert (tex.count("\\toprule"), tex.count("\\midrule"), tex.count("\\bottomrule")) == (
            2,
            3,
            1,
        )
    else:
        assert tex.count("\\toprule") == tex.count("\\midrule") == tex.count("\\bottomrule") == 1
    rows = _parse_table(tex)
    escaped = {latex_escape(s): s for s in res.mean_ranks.index}
    assert set(rows) == set(escaped)
    # One number format for the column: the same number of decimals everywhere.
    decimals = {len(r.split(".")[1]) for r, _ in rows.values()}
    assert len(decimals) == 1
    (digits,) = decimals
    for name, (rank, _) in rows.items():
        value = res.mean_ranks[escaped[name]]
        assert float(rank) == pytest.approx(value, abs=0.5 * 10**-digits + 1e-12)
    # Different average ranks never print alike.
    assert len({r for r, _ in rows.values()}) == res.mean_ranks.nunique()
    groups = res.groups()
    letters = {escaped[n]: _letter_sets(lt.replace("--", "–")) for n, (_, lt) in rows.items()}
    assert letters == {s: _letter_sets(v) for s, v in group_letters(res).items()}
    for a, b in itertools.combinations(res.mean_ranks.index, 2):
        together = any(a in g and b in g for g in groups)
        assert bool(letters[a] & letters[b]) == together, (a, b)
    assert all(letters.values())  # every system has a letter
    if method == "nemenyi":
        assert f"{res.critical_difference:.2f}" in tex.split("\\label")[0]


def test_letter_ranges_mean_the_groups():
    """62 systems with overlapping Nemenyi groups: ranges ``c–h`` stand for every letter between,
    and each letter marks exactly its group."""
    from rankstats.significance.critical_difference import _letter

    res = posthoc(rs.load_dataset("tac08"), method="nemenyi", by="task")
    groups = res.groups()
    letters = group_letters(res)
    assert any("–" in v for v in letters.values())
    expanded = {s: _letter_sets(v) for s, v in letters.items()}
    for i, group in enumerate(groups):
        assert {s for s, ls in expanded.items() if _letter(i) in ls} == set(group)


def test_table_escapes_names():
    hostile = ["$x$", "a_b", "系统甲", "50% & {y}"]
    res = posthoc(demsar(hostile), method="nemenyi")
    tex = cd_table(res)
    rows = _parse_table(tex)
    assert set(rows) == {r"\$x\$", r"a\_b", "系统甲", r"50\% \& \{y\}"}
    assert "CD" in tex and "Nemenyi" in tex
    # Rounded ranks in the table match the result.
    for system, value in res.mean_ranks.items():
        rank = rows[latex_escape(system)][0]
        assert float(rank) == pytest.approx(value, abs=0.005)


def test_rejects_other_inputs():
    with pytest.raises(TypeError, match="PosthocResult"):
        cd_diagram(rs.friedman(demsar()))
    with pytest.raises(TypeError, match="PosthocResult"):
        cd_table(demsar())


def test_letters_beyond_the_alphabet():
    from rankstats.significance.critical_difference import _letter

    labels = [_letter(i) for i in range(200)]
    assert len(set(labels)) == 200
    assert labels[0] == "a" and labels[51] == "Z" and labels[52] == "aa"
    assert not any(re.search(r"[^a-zA-Z]", x) for x in labels)


def test_no_system_names_become_mathtext():
    assert label("$x$") == r"\$x\$"

"""Figures: font fallback for other scripts, legends that name the colours drawn, forest plots
that show every system."""

import warnings

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import rankstats as rs
from rankstats import plotting
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.paired_analysis import figures as plotting_paired
from rankstats.plotting.fonts import MissingFontWarning, fallback_fonts, use_fallback_fonts
from rankstats.plotting.matrices import NOT_SIGNIFICANT
from rankstats.plotting.saving import save_figure

CJK = "東京大学モデル"
HEBREW = "מודל"
ARABIC = "نموذج-عربي"
HAS_CJK_FONT = not fallback_fonts(CJK)[1]


def _glyph_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


# ---------------------------------------------------------------------------- fonts
def test_fallback_fonts_picks_an_installed_family_that_has_the_glyphs():
    families, missing = fallback_fonts(HEBREW, candidates=["No Such Font", "DejaVu Sans"])
    assert families == ["DejaVu Sans"] and not missing
    # A family without the glyphs is skipped; characters nobody has are returned.
    families, missing = fallback_fonts("\U00010000" + HEBREW, candidates=["cmr10", "DejaVu Sans"])
    assert families == ["DejaVu Sans"] and missing == {"\U00010000"}
    # Spaces, controls and format characters need no glyph.
    assert fallback_fonts(" \u200f\n") == ([], set())


def test_last_resort_font_is_never_a_fallback():
    """matplotlib ships a "Last Resort" font mapping every code point to a box."""
    families, _ = fallback_fonts(CJK + "\U00010000")
    assert not any(f.lower().startswith("last resort") for f in families)


def test_fallback_mechanism_with_a_primary_font_that_lacks_the_glyphs():
    """DejaVu Serif has no Hebrew; DejaVu Sans has: the text gets [DejaVu Serif, DejaVu Sans]
    and is drawn without a single missing-glyph warning."""
    with mpl.rc_context({"font.family": "DejaVu Serif"}):
        fig = Figure(figsize=(3, 2))
        ax = fig.add_subplot()
        ax.set_title(f"model {HEBREW}")
        ax.set_xlabel("plain")
        assert use_fallback_fonts(fig) == ["DejaVu Sans"]
        assert ax.title.get_fontfamily() == ["DejaVu Serif", "DejaVu Sans"]
        assert ax.xaxis.label.get_fontfamily() == ["DejaVu Serif"]  # untouched
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _draw(fig)
    assert not _glyph_warnings(caught)
    assert not [w for w in caught if w.category is MissingFontWarning]


@pytest.mark.skipif(HAS_CJK_FONT, reason="a CJK font is installed: nothing to warn about")
def test_missing_font_warns_once_naming_script_and_package(monkeypatch, tmp_path):
    monkeypatch.setattr(plotting.fonts, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(2):
            fig = Figure(figsize=(3, 2))
            fig.add_subplot().set_title(f"{CJK} vs {HEBREW}")
            save_figure(fig, tmp_path / f"f{k}", ("png", "pdf"))
    ours = [str(w.message) for w in caught if w.category is MissingFontWarning]
    assert len(ours) == 1, ours
    assert "CJK" in ours[0] and "東" in ours[0] and "fonts-noto-cjk" in ours[0]
    assert HEBREW[0] not in ours[0]  # DejaVu Sans draws Hebrew
    assert not _glyph_warnings(caught)  # not one matplotlib warning per glyph


@pytest.mark.skipif(not HAS_CJK_FONT, reason="no CJK font installed (apt install fonts-noto-cjk)")
def test_installed_cjk_font_is_used(monkeypatch):
    monkeypatch.setattr(plotting.fonts, "_warned", False)
    fig = Figure(figsize=(3, 2))
    fig.add_subplot().set_title(CJK)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        families = use_fallback_fonts(fig)
        _draw(fig)
    assert families and not _glyph_warnings(caught)
    assert not [w for w in caught if w.category is MissingFontWarning]


def test_report_figures_with_other_scripts(tmp_path, monkeypatch):
    """A report with CJK, Arabic and Hebrew system names: at most one font warning, and none
    of matplotlib's per-glyph ones."""
    monkeypatch.setattr(plotting.fonts, "_warned", False)
    names = [CJK, ARABIC, HEBREW, "plain"]
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(4, 6)), columns=[f"t{i}" for i in range(6)])
    wide.insert(0, "system", names)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = rs.report(rs.Scores.from_wide(wide, system="system"), out=tmp_path / "r")
    assert rep.html.exists()
    assert len([w for w in caught if w.category is MissingFontWarning]) <= int(not HAS_CJK_FONT)
    assert not _glyph_warnings(caught)


# ---------------------------------------------------------------------------- legends
def _draw(fig: Figure) -> FigureCanvasAgg:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas


def _cell_colour(fig: Figure, i: int, j: int) -> np.ndarray:
    image = np.asarray(_draw(fig).buffer_rgba())[..., :3] / 255.0
    ax = fig.axes[0]
    x, y = ax.transData.transform((j, i))
    return image[round(float(fig.bbox.height - y)), round(float(x))]


def test_heatmap_colours_are_those_its_legends_name():
    rk = rs.Rankings.from_orderings([["a", "b", "c"]] * 40 + [["b", "a", "c"]] * 20)
    ci = rs.hoeffding_test(rs.pairwise(rk), order=["a", "b", "c"])
    fig = significance_heatmap(ci)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == [
        "red: a significantly above b",
        "blue: the reverse",
        "grey: not significant",
        "white: diagonal",
    ]
    grey = _cell_colour(fig, 0, 1)  # a vs b: not significant
    assert np.allclose(grey, float(NOT_SIGNIFICANT), atol=0.02)
    red, blue, white = _cell_colour(fig, 0, 2), _cell_colour(fig, 2, 0), _cell_colour(fig, 1, 1)
    assert red[0] > red[2] + 0.2 and blue[2] > blue[0] + 0.2
    assert np.allclose(white, 1.0, atol=0.02)
    # The report's legend names the same grey.
    assert plotting.NOT_SIGNIFICANT_NAME == "grey"


def test_barely_significant_cells_are_not_grey():
    """The colour map has no near-white middle: a tiny significant distance is pale red."""
    ci = rs.hoeffding(rs.pairwise(rs.Rankings.from_orderings([["a", "b"]] * 30)))
    ci["distance"] = np.where(ci["system_a"] == "a", 1e-4, -1e-4)
    fig = significance_heatmap(ci)
    cell = _cell_colour(fig, 0, 1)
    assert cell[0] - cell[2] > 0.15


# ---------------------------------------------------------------------------- forest plots
@pytest.fixture(scope="module")
def big_fit():
    sim = rs.simulate.gumbel(105, 8, seed=0)
    return rs.models.PlackettLuce().fit(rs.Rankings.from_scores(sim), method="map")


def _ticks(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_yticklabels()]


def test_forest_plot_shows_every_system(big_fit):
    from rankstats.models.plots import forest_pages, forest_plot

    fig = forest_plot(big_fit)
    assert len(_ticks(fig)) == 105
    assert "all 105 systems" in fig.axes[0].get_title()
    cut = forest_plot(big_fit, max_systems=10)
    assert len(_ticks(cut)) == 10 and "best 10 of 105 systems" in cut.axes[0].get_title()
    pages = forest_pages(big_fit, per_page=60)
    assert len(pages) == 2
    shown = [t for page in pages for t in _ticks(page)]
    assert shown == [plotting.label(s, 36) for s in big_fit.order]
    assert "systems 61–105 of 105, page 2 of 2" in pages[1].axes[0].get_title()
    assert pages[0].axes[0].get_xlim() == pages[1].axes[0].get_xlim()
    with pytest.raises(ValueError, match="per_page"):
        forest_pages(big_fit, per_page=0)


def test_compare_forest_says_how_many_pairs_and_pages_show_all():
    rk = rs.load_rankings("sushi")
    fit = rs.models.PlackettLuce().fit(rk, method="mle")
    cmp = rs.compare(rs.pairwise(rk), [fit])
    assert "the 10 most uncertain of 45 pairs" in cmp.plot_forest(k=10).axes[0].get_title()
    assert "all 45 pairs" in cmp.plot_forest(k=None).axes[0].get_title()
    pages = cmp.plot_forest_pages(per_page=20)
    assert len(pages) == 3 and sum(len(_ticks(p)) for p in pages) == 45
    assert "page 3 of 3" in pages[2].axes[0].get_title()


def test_paired_matrix_says_what_its_marks_and_grey_cells_are():
    sc = rs.load_dataset("summeval")
    result = rs.paired(sc, task=sc.tasks[0], seed=0, n_resamples=50)
    fig = result.plot_matrix("sign")
    notes = [t.get_text() for t in fig.texts]
    alpha = result.parameters["alpha"]
    assert f"*: sign_p_holm < {alpha:g}; grey: the diagonal" in notes
    diagonal = _cell_colour(fig, 0, 0)
    assert np.allclose(diagonal, float(plotting_paired.BLANK), atol=0.02)

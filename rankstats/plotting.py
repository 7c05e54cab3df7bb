"""Matplotlib figures: pairwise significance heatmaps (and more, added by later modules).

Figures are built on an explicit ``Figure`` (no pyplot state), so they are safe in scripts,
notebooks and worker processes alike. Every system name reaches a figure through
:func:`labels` (in every figure of the package: unique abbreviations, the key
:func:`name_key`), ``$`` escaped (a name is never parsed as mathtext) and control /
bidirectional characters shown as escapes.

**Fonts.** A name may hold characters the default font (DejaVu Sans) has no glyph for — CJK,
say. Before a figure is laid out or saved, :func:`use_fallback_fonts` gives each such text a
font-family list ending with installed fonts that have the glyphs (Noto Sans CJK, WenQuanYi Zen
Hei, Source Han Sans, ..., :data:`FALLBACK_FAMILIES`); when none is installed, one
:class:`MissingFontWarning` per process names the characters, their script and the package to
install, instead of one matplotlib warning per glyph.
"""

from __future__ import annotations

import functools
import math
import unicodedata
import warnings
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure

from rankstats._text import abbreviation_key, abbreviations, mpl_text, shorten
from rankstats.confidence import HoeffdingResult, significance_matrix

#: Families tried first, in order, for characters the figure's font lacks (then any installed
#: font that has them).
FALLBACK_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "Noto Sans CJK",
    "Source Han Sans",
    "Source Han Sans JP",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
    "Noto Sans Arabic",
    "Noto Sans Hebrew",
    "Noto Sans Devanagari",
    "Noto Sans Thai",
    "DejaVu Sans",
    "Arial Unicode MS",
)

#: Debian / Ubuntu package to suggest per script (the first word of the characters' Unicode name).
_PACKAGES = {
    "CJK": "fonts-noto-cjk",
    "HIRAGANA": "fonts-noto-cjk",
    "KATAKANA": "fonts-noto-cjk",
    "HANGUL": "fonts-noto-cjk",
    "IDEOGRAPHIC": "fonts-noto-cjk",
    "FULLWIDTH": "fonts-noto-cjk",
}


class MissingFontWarning(UserWarning):
    """No installed font can draw some characters of a figure's text (they show as boxes)."""


_warned = False  # one MissingFontWarning per process


@functools.cache
def _charmap(path: str) -> frozenset[int]:
    """The code points a font file has glyphs for."""
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError):
        return frozenset()


def _drawable(char: str) -> bool:
    # Spaces, controls and zero-width / format characters need no glyph.
    return not char.isspace() and unicodedata.category(char)[0] not in "CZ"


def _installed_families() -> dict[str, list[str]]:
    """``{family: [font file, ...]}`` of every font matplotlib knows."""
    from matplotlib import font_manager

    families: dict[str, list[str]] = {}
    for entry in font_manager.fontManager.ttflist:
        # "Last Resort" fonts map every code point to a placeholder box: not a fallback.
        if not entry.name.lower().startswith("last resort"):
            families.setdefault(entry.name, []).append(entry.fname)
    return families


def fallback_fonts(
    chars: Iterable[str], candidates: Sequence[str] | None = None
) -> tuple[list[str], set[str]]:
    """Installed font families that have glyphs for ``chars``, and the characters none has.

    Parameters
    ----------
    chars : iterable of str
        Characters the figure's own font lacks.
    candidates : sequence of str, optional
        Families to try, in order (default: :data:`FALLBACK_FAMILIES`, then every other
        installed family). Families that are not installed are skipped.

    Returns
    -------
    (list of str, set of str)
        The families to append to the font list (each covers at least one character not
        covered by an earlier one), and the characters no installed font covers.
    """
    needed = {c for c in chars if _drawable(c)}
    installed = _installed_families()
    order = list(FALLBACK_FAMILIES if candidates is None else candidates)
    if candidates is None:
        order += sorted(f for f in installed if f not in FALLBACK_FAMILIES)
    chosen: list[str] = []
    for family in order:
        if not needed:
            break
        cover: set[int] = set()
        for path in installed.get(family, ()):
            cover |= _charmap(path)
        found = {c for c in needed if ord(c) in cover}
        if found:
            chosen.append(family)
            needed -= found
    return chosen, needed


def _missing_font_message(chars: set[str]) -> str:
    scripts: dict[str, list[str]] = {}
    for char in sorted(chars):
        name = unicodedata.name(char, f"U+{ord(char):04X}")
        scripts.setdefault(name.split()[0], []).append(char)
    listed = "; ".join(
        f"{script}: {' '.join(cs[:8])}{' …' if len(cs) > 8 else ''}"
        for script, cs in scripts.items()
    )
    packages = sorted({_PACKAGES.get(s, "fonts-noto-core") for s in scripts})
    return (
        f"no installed font has glyphs for some characters of the figure's text ({listed}); "
        "they are drawn as empty boxes. Install a font that has them — e.g. "
        f"`apt install {' '.join(packages)}` (Noto Sans CJK / Noto Sans Arabic, Hebrew, ...) or "
        "WenQuanYi Zen Hei / Source Han Sans — then clear matplotlib's font cache "
        "(matplotlib.get_cachedir()). Shown once per process."
    )


def use_fallback_fonts(fig: Figure, candidates: Sequence[str] | None = None) -> list[str]:
    """Give every text of ``fig`` whose characters its font lacks a font-family fallback list.

    Each text keeps its own families and gets, after them, the installed families that have the
    missing glyphs (:func:`fallback_fonts`; matplotlib ≥ 3.6 draws each character with the first
    family of the list that has it). When no installed font has some characters, one
    :class:`MissingFontWarning` per process names them, their script and the font package to
    install; matplotlib's own warning per missing glyph is not repeated.

    Returns
    -------
    list of str
        The fallback families used (empty when the figure's fonts have every glyph).
    """
    from matplotlib import font_manager
    from matplotlib.text import Text

    global _warned
    lacking: list[tuple[Text, set[str]]] = []
    for text in fig.findobj(Text):
        content = text.get_text()
        if not content or content.isascii():
            continue
        path = font_manager.findfont(text.get_fontproperties(), fallback_to_default=True)
        cover = _charmap(path)
        missing = {c for c in content if _drawable(c) and ord(c) not in cover}
        if missing:
            lacking.append((text, missing))
    if not lacking:
        return []
    families, uncovered = fallback_fonts(set().union(*(m for _, m in lacking)), candidates)
    if families:
        for text, _ in lacking:
            own = [f for f in text.get_fontfamily() if f not in families]
            text.set_fontfamily([*own, *families])
    if uncovered and not _warned:
        _warned = True
        warnings.warn(_missing_font_message(uncovered), MissingFontWarning, stacklevel=2)
    return families


@contextmanager
def fitted_fonts(fig: Figure):
    """Fallback fonts for ``fig`` (:func:`use_fallback_fonts`), then draw / save quietly: the
    characters no font has were reported once, not once per glyph."""
    use_fallback_fonts(fig)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        warnings.filterwarnings("ignore", message="Matplotlib currently does not support")
        yield


def label(name: object, width: int = 28) -> str:
    """One name as matplotlib text: cut to ``width``, shown literally. Figures draw system
    names with :func:`labels` instead, so that two long names never read the same.

    >>> label("$x^2$"), label("a" * 30, width=5)
    ('\\\\$x^2\\\\$', 'aaaa…')
    """
    return mpl_text(shorten(name, width))


#: Longest system name shown in full on a heat map's axes (longer ones get unique labels).
NAME_WIDTH = 28
#: Smallest font of a heat map's names, points: the figure grows instead of the font shrinking.
MIN_NAME_FONT = 6.0
#: The note of a figure whose names were shortened.
SHORTENED_NOTE = "… marks a shortened name; labels.csv (rs.plotting.name_key) has the full names"


def labels(names: Iterable[object], width: int = NAME_WIDTH) -> list[str]:
    """The names as matplotlib text, shortened to unique labels of at most ``width``
    characters (:func:`rankstats._text.abbreviations`: two long names never get one label).

    >>> labels(["model-alpha-one", "model-alpha-two"], width=12)
    ['model-a…-one', 'model-a…-two']
    """
    names = list(names)
    short = abbreviations(names, width)
    return [mpl_text(short[str(n)]) for n in names]


def name_key(names: Iterable[object], width: int = NAME_WIDTH) -> pd.DataFrame:
    """The key of the shortened names of a figure: columns ``label`` (as drawn) and ``name``,
    one row per shortened name (empty when every name fits). Outputs write it as
    ``labels.csv``."""
    return abbreviation_key(names, width)


def shortened_note(names: Iterable[object], width: int = NAME_WIDTH) -> str:
    """:data:`SHORTENED_NOTE` when :func:`labels` shortens some of ``names``, else ``""``: the
    line a figure adds to its title (the key is :func:`name_key` of the same names and width).

    >>> shortened_note(["a", "b"]), shortened_note(["x" * 40]) == SHORTENED_NOTE
    ('', True)
    """
    return "" if name_key(names, width).empty else SHORTENED_NOTE


def heatmap_layout(n: int) -> tuple[float, float]:
    """``(font size in points, cell side in inches)`` of an ``n × n`` heat map of names.

    The font shrinks from 9 pt with ``n`` but never below :data:`MIN_NAME_FONT`; the cells are at
    least 1.35 font sizes apart, so the names of neighbouring rows or columns never overlap and
    the figure grows with ``n`` instead (0.38 inch cells up to 20 systems, 14 inches of matrix
    near 120, about 34 inches at 300).
    """
    font = max(MIN_NAME_FONT, 9.0 - n // 20)
    cell = max(1.35 * font / 72.0, min(0.38, 14.0 / max(n, 1)))
    return font, cell


#: The colour of a pair that is not significant in the heatmaps (the legends name it).
NOT_SIGNIFICANT = "0.85"
NOT_SIGNIFICANT_NAME = "grey"


def distance_image(ax, values: np.ndarray):
    """Draw a matrix of signed distances from ½: red / blue (``RdBu_r`` without its near-white
    middle, centred at 0) where the distance is not 0, one flat grey (:data:`NOT_SIGNIFICANT`)
    where it is 0 (the interval contains ½), nothing (the white axes) where it is NaN (the
    diagonal).

    Returns
    -------
    (AxesImage, numpy.ndarray)
        The coloured image (for a colour bar) and the boolean mask of the grey cells.
    """
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap, TwoSlopeNorm

    finite = np.isfinite(values)
    limit = max(float(np.nanmax(np.abs(values))) if finite.any() else 0.0, 1e-6)
    flat = finite & (values == 0)
    ax.imshow(
        np.ma.masked_where(~flat, np.zeros_like(values)),
        cmap=ListedColormap([NOT_SIGNIFICANT]),
        interpolation="nearest",
    )
    # RdBu_r without its near-white middle: a barely significant pair is pale red or blue,
    # never mistaken for the grey of a non-significant one or the white diagonal.
    base = colormaps["RdBu_r"]
    cmap = ListedColormap(
        np.vstack([base(np.linspace(0.0, 0.38, 128)), base(np.linspace(0.62, 1.0, 128))]),
        name="RdBu_r_significant",
    )
    image = ax.imshow(
        np.ma.masked_where(~finite | flat, values),
        cmap=cmap,
        norm=TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit),
        interpolation="nearest",
    )
    return image, flat


def distance_legend(
    fig: Figure,
    image,
    values: np.ndarray,
    flat: np.ndarray,
    above: str = "row significantly above column",
    circled: str | None = None,
) -> float:
    """A legend under the figure naming exactly the colours and marks drawn by
    :func:`distance_image` (red / blue only when such cells exist); returns its height in
    inches (leave it free in ``tight_layout``)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    limit = image.norm.vmax
    red, blue = image.cmap(image.norm([limit, -limit]))
    handles = []
    if (values > 0).any():
        handles.append(Patch(color=red, label=f"red: {above}"))
    if (values < 0).any():
        handles.append(Patch(color=blue, label="blue: the reverse"))
    if flat.any():
        handles.append(
            Patch(color=NOT_SIGNIFICANT, label=f"{NOT_SIGNIFICANT_NAME}: not significant")
        )
    if circled:
        marker = {"marker": "o", "ls": "", "mfc": "none", "mec": "0.3"}
        handles.append(Line2D([], [], label=circled, **marker))
    if np.isnan(values).any():
        handles.append(Patch(facecolor="white", edgecolor="0.6", label="white: diagonal"))
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=2,
        fontsize=7,
        frameon=False,
        bbox_to_anchor=(0.5, 0.0),
    )
    return 0.22 * ((len(handles) + 1) // 2) + 0.1


def significance_heatmap(
    ci: HoeffdingResult | pd.DataFrame,
    title: str | None = None,
    annotate: bool | None = None,
    figsize: tuple[float, float] | None = None,
    systems: Sequence[object] | None = None,
) -> Figure:
    """Heatmap of the signed distance of every Hoeffding interval from ½.

    Rows and columns follow the order of the :func:`~rankstats.hoeffding` table (pass
    ``order=result.order`` there to get the ranked order).  Cell ``(a, b)`` is red when ``a`` is
    significantly above ``b`` (``low − ½``), blue when significantly below (``high − ½``), grey
    (:data:`NOT_SIGNIFICANT`) when the interval contains ½ — the colouring of Himmi et al.
    (2023, Fig. 6); the diagonal is white.  With Holm's correction a pair can be significant
    although its interval (drawn at the Bonferroni level δ/m) contains ½: such cells stay grey
    and get a circle, so the figure never shows a significant pair as a non-significant one.
    A legend under the matrix names exactly the colours and marks drawn.  Names longer than
    :data:`NAME_WIDTH` characters are drawn as unique abbreviations (:func:`labels`); the title
    then says so, and :func:`name_key` is the key.

    Parameters
    ----------
    ci : HoeffdingResult or pandas.DataFrame
        Output of :func:`rankstats.hoeffding_test` or :func:`rankstats.hoeffding`.
    title : str, optional
        Figure title (default: the δ, correction and estimand used).
    annotate : bool, optional
        Write the distances in the cells (default: when there are at most 20 systems).
    figsize : (float, float), optional
        By default the figure grows with the number of systems (:func:`heatmap_layout`): the
        names keep at least :data:`MIN_NAME_FONT` points and never overlap.
    systems : sequence, optional
        Draw only these systems, in this order (e.g. the best ``N`` of a ranking: ``--top N``);
        the intervals and their multiplicity correction stay those computed on all systems, and
        the title says how many are shown.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    matrix = significance_matrix(ci, "distance")
    total = len(matrix)
    if systems is not None:
        matrix = matrix.loc[list(systems), list(systems)]
    n = len(matrix)
    if annotate is None:
        annotate = n <= 20
    font, cell = heatmap_layout(n)
    names = labels(matrix.index)
    shortened = not name_key(matrix.index).empty
    # Names longer than the room kept for them (about 1.2 inches) widen and heighten the figure.
    margin = max(0.0, max((len(t) for t in names), default=0) * 0.62 * font / 72.0 - 1.2)
    side = max(4.0, n * cell + 2.5)
    fig = Figure(figsize=figsize or (side + margin + 1.2, side + margin + 0.6))
    ax = fig.add_subplot()
    values = matrix.to_numpy(dtype=np.float64)
    image, flat = distance_image(ax, values)
    ax.set_xticks(range(n), names, rotation=90, fontsize=font)
    ax.set_yticks(range(n), names, fontsize=font)
    ax.set_xlabel("system b")
    ax.set_ylabel("system a")
    if annotate:
        annotate_distances(ax, values)
    # Significant by the (Holm) test, but the interval drawn contains ½: distance 0, grey.
    significant = significance_matrix(ci, "significant").loc[matrix.index, matrix.columns]
    significant = significant.to_numpy(dtype=float, na_value=0.0)
    circled = (significant > 0) & (values == 0)
    rows, cols = np.nonzero(circled)
    if len(rows):
        ax.scatter(cols, rows, marker="o", s=40, facecolors="none", edgecolors="0.3", lw=0.8)
    if title is None:
        # A result's parameters are its fields; a table carries the same ones in its attrs.
        params = ci.parameters if isinstance(ci, HoeffdingResult) else ci.attrs
        title = (
            f"Hoeffding intervals for P(a above b): δ = {params.get('delta')}, "
            f"{params.get('correction')} correction, {params.get('estimand')} estimand"
        )
    if n < total:
        title += f"\nthe best {n} of {total} systems; intervals and correction over all {total}"
    if shortened:
        title += "\n" + SHORTENED_NOTE
    ax.set_title(title, fontsize=9)
    if significant.any():
        cbar = fig.colorbar(image, ax=ax, shrink=0.8)
        cbar.set_label("signed distance of the interval from ½ (significant pairs)")
    else:
        # No colour to explain: say what the blank figure means instead of a ±1e-6 colour bar.
        ax.text(
            0.5,
            0.5,
            "no pair is significant at this level\n(few rankings compare each pair:\nrank per "
            "instance, --level instance,\nwhen the data has instances)",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=9,
            bbox={"facecolor": "white", "edgecolor": "0.6"},
        )
    legend_height = distance_legend(
        fig,
        image,
        values,
        flat,
        above="a significantly above b",
        circled=(
            f"circled {NOT_SIGNIFICANT_NAME}: significant by Holm, the interval drawn "
            "(Bonferroni level) contains ½"
            if len(rows)
            else None
        ),
    )
    with fitted_fonts(fig):
        fig.tight_layout(rect=(0.0, legend_height / fig.get_figheight(), 1.0, 1.0))
    return fig


def annotate_distances(ax, values: np.ndarray) -> None:
    """Write every non-zero distance in its cell, one number format for all of them (enough
    decimals for the smallest)."""
    nonzero = np.abs(values[np.isfinite(values) & (values != 0)])
    digits = min(4, max(2, -math.floor(math.log10(nonzero.min())))) if len(nonzero) else 2
    n_rows, n_cols = values.shape
    for i in range(n_rows):
        for j in range(n_cols):
            if np.isfinite(values[i, j]) and values[i, j] != 0:
                text = f"{values[i, j]:+.{digits}f}"
                ax.text(j, i, text, ha="center", va="center", fontsize=6)


def save_figure(
    fig: Figure, path_stem: str | Path, formats: tuple[str, ...] = ("png", "pdf")
) -> list[Path]:
    """Save ``fig`` as ``<stem>.png``, ``<stem>.pdf`` ...; return the written paths."""
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        with fitted_fonts(fig):
            fig.savefig(path, dpi=150 if fmt == "png" else None, bbox_inches="tight")
        paths.append(path)
    return paths

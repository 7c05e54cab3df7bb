"""Fonts for names that the default font cannot draw.

A name may hold characters the default font (DejaVu Sans) has no glyph for — CJK, say. Before a
figure is laid out or saved, :func:`use_fallback_fonts` gives each such text a font-family list
ending with installed fonts that have the glyphs (Noto Sans CJK, WenQuanYi Zen Hei, Source Han
Sans, ..., :data:`FALLBACK_FAMILIES`); when none is installed, one :class:`MissingFontWarning` per
process names the characters, their script and the package to install, instead of one
matplotlib warning per glyph.
"""

from __future__ import annotations

import functools
import unicodedata
import warnings
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure


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

"""Names are data, never markup: escaping for every output a name can reach.

One function per output kind (LaTeX, matplotlib labels, CSV cells, terminal, file names), used by
every writer, so a system called ``$\\alpha$``, ``=HYPERLINK(...)`` or ``a\\u202eb`` is printed as
the text it is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rankstats.errors import OutputError

if TYPE_CHECKING:  # pandas is needed only to write tables
    import pandas as pd

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\n": " ",
    "\r": " ",
    "\t": " ",
}


def latex_escape(text: object) -> str:
    """Text safe inside a LaTeX document: special characters escaped, line breaks as spaces.

    >>> latex_escape("a_b & $x$ <y>|z\\nw")
    'a\\\\_b \\\\& \\\\$x\\\\$ \\\\textless{}y\\\\textgreater{}\\\\textbar{}z w'
    """
    return "".join(_LATEX_SPECIAL.get(c, c) for c in _visible(str(text)))


def mpl_text(text: object) -> str:
    """A matplotlib label shown literally: ``$`` is escaped so mathtext never parses a name.

    >>> mpl_text("$x^2$")
    '\\\\$x^2\\\\$'
    """
    return _visible(str(text)).replace("$", r"\$")


_CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """OWASP's neutralisation of a CSV cell that a spreadsheet would run as a formula.

    Text starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a leading
    apostrophe; numbers and other text are returned unchanged (a negative *number* is data).

    >>> csv_cell("=HYPERLINK(1)"), csv_cell("-x"), csv_cell(-1.5), csv_cell("gpt-4")
    ("'=HYPERLINK(1)", "'-x", -1.5, 'gpt-4')
    """
    if isinstance(value, str) and value.startswith(_CSV_TRIGGERS):
        return "'" + value
    return value


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) pass through :func:`csv_cell`."""
    import pandas as pd

    out = frame.copy()
    for column in out.columns:
        dtype = out[column].dtype
        if pd.api.types.is_object_dtype(dtype) or isinstance(
            dtype, pd.StringDtype | pd.CategoricalDtype
        ):
            out[column] = _neutralised(out[column])
    out.columns = [csv_cell(c) for c in out.columns]
    return out


def _neutralised(values: pd.Series) -> pd.Series:
    """:func:`csv_cell` of every cell, computed once per distinct value (a pairs table repeats
    N names over N² rows)."""
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(values)
    uniques = np.asarray(uniques, dtype=object)
    fixed = np.array([csv_cell(u) for u in uniques], dtype=object)
    changed = np.fromiter((f is not u for f, u in zip(fixed, uniques, strict=True)), bool)
    if not changed.any():
        return values.astype(object) if isinstance(values.dtype, pd.CategoricalDtype) else values
    cells = values.astype(object).to_numpy(copy=True)
    present = codes >= 0  # missing cells stay missing
    cells[present] = fixed[codes[present]]
    return pd.Series(cells, index=values.index, name=values.name)


def write_csv(frame: pd.DataFrame, path, **kwargs) -> None:
    """``frame.to_csv(path, index=False)`` with formula-like text cells neutralised."""
    csv_safe(frame).to_csv(path, index=kwargs.pop("index", False), **kwargs)


def _escape_controls(text: str, keep: str = "") -> str:
    """Control and bidirectional-override characters (except ``keep``) as ``\\uXXXX`` escapes."""
    if text.isprintable():
        return text
    return "".join(
        ch
        if ch.isprintable() or ch in keep
        else (f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}")
        for ch in text
    )


def _visible(text: str) -> str:
    """For documents: line breaks and tabs kept (the escapers turn them into spaces)."""
    return _escape_controls(text, keep="\n\t\r")


def terminal(text: object) -> str:
    """A name for the terminal: control characters, line breaks and bidi overrides escaped.

    >>> terminal("a\u202eb\x1b[31m")
    'a\\\\u202eb\\\\x1b[31m'
    """
    return _escape_controls(str(text))


def shorten(name: object, width: int = 28) -> str:
    """``name`` cut to at most ``width`` characters, an ellipsis marking the cut.

    Cut before any escaping, so the width counts the characters of the name itself.

    >>> shorten("abcdef", 4), shorten("abc", 4)
    ('abc…', 'abc')
    """
    text = str(name)
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def slug(name: object) -> str:
    """A file-name fragment: letters, digits, ``-`` and ``.`` kept, the rest as ``_``."""
    text = unicodedata.normalize("NFKC", str(name))
    return re.sub(r"[^\w.-]+", "_", text, flags=re.ASCII).strip("_.") or "x"


def unique_slugs(names: Iterable[object], what: str = "name") -> dict[object, str]:
    """``{name: slug}``; refuses two names whose slugs collide (``a-b`` / ``a_b`` are distinct
    names, but ``a b`` and ``a_b`` would overwrite each other's files)."""
    out: dict[object, str] = {}
    seen: dict[str, object] = {}
    for name in names:
        s = slug(name)
        if s.lower() in seen and seen[s.lower()] != name:
            raise OutputError(
                f"the {what}s {seen[s.lower()]!r} and {name!r} would be written to the same file "
                f"name {s!r}; rename one of them"
            )
        seen[s.lower()] = name
        out[name] = s
    return out


def abbreviations(names: Iterable[object], width: int = 28) -> dict[str, str]:
    """``{name: label}``: every name as text of at most ``width`` characters, the labels unique.

    A name that fits is its own label. A longer one is cut with "…" (:func:`shorten`); where
    cuts would collide — names sharing a long prefix — the label keeps the start, then the part
    from just before the end of the common prefix (``convnext_xxlarge…greg_rewind``), else the
    start and the end, else a numbered cut (``ViT-B-32 / lai…#2``). Distinct names never share
    a label; :func:`abbreviation_key` lists the shortened ones with their full names. The labels
    depend on the set of names only, not on their order: every figure of the same systems (a
    heat map in ranked order, a CD diagram by mean rank) draws each with the same label.

    >>> abbreviations(["model-alpha-one", "model-alpha-two", "m"], width=12)
    {'model-alpha-one': 'model-a…-one', 'model-alpha-two': 'model-a…-two', 'm': 'm'}
    """
    if width < 5:
        raise ValueError(f"width must be at least 5, not {width!r}")
    given = list(dict.fromkeys(str(n) for n in names))
    labels = {t: shorten(t, width) for t in sorted(given)}  # sorted: the order never matters
    for _ in range(4):  # each round resolves the collisions left by the previous rule
        groups: dict[str, list[str]] = {}
        for text, lab in labels.items():
            groups.setdefault(lab, []).append(text)
        clashes = [g for g in groups.values() if len(g) > 1]
        if not clashes:
            return {t: labels[t] for t in given}
        taken = {lab for lab, g in groups.items() if len(g) == 1}
        for group in clashes:
            cut = [t for t in group if len(t) > width]
            taken.update(labels[t] for t in group if len(t) <= width)  # a name is its label
            if not cut:
                continue
            for text, lab in _resolve(cut, width, taken).items():
                labels[text] = lab
                taken.add(lab)
    return {t: labels[t] for t in given}


def _resolve(group: list[str], width: int, taken: set[str]) -> dict[str, str]:
    """Unique labels for long names whose plain cuts collide (see :func:`abbreviations`)."""

    def ok(candidate: dict[str, str]) -> bool:
        values = list(candidate.values())
        return len(set(values)) == len(values) and not taken.intersection(values)

    first, last = min(group), max(group)  # their common prefix is the group's
    common = next(
        (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
        min(len(first), len(last)),
    )
    head = max(3, width // 4)
    middle = {}
    for t in group:
        # The start, "…", then the text from a little before the end of the common prefix
        # (cut at the end when still too long); the start takes the room left.
        tail = t[max(head, common - max(1, width // 7)) :]
        if len(tail) > width - head - 1:
            tail = tail[: width - head - 2] + "…"
        middle[t] = t[: width - 1 - len(tail)] + "…" + tail
    if ok(middle):
        return middle
    for tail in range(1, width - head):
        ends = {t: t[: width - 1 - tail] + "…" + t[-tail:] for t in group}
        if ok(ends):
            return ends
    numbered: dict[str, str] = {}
    k = 0
    for t in group:
        while True:
            k += 1
            tag = f"…#{k}"
            lab = t[: width - len(tag)] + tag
            if lab not in taken and lab not in numbered.values():
                numbered[t] = lab
                break
    return numbered


def abbreviation_key(names: Iterable[object], width: int = 28) -> pd.DataFrame:
    """The key of :func:`abbreviations`: one row per shortened name, columns ``label`` and
    ``name`` (empty when every name fits)."""
    import pandas as pd

    labels = abbreviations(names, width)
    rows = [(lab, text) for text, lab in labels.items() if lab != text]
    return pd.DataFrame(rows, columns=["label", "name"])

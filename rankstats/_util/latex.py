r"""Long LaTeX tables: a ``longtable`` that breaks across pages, with booktabs rules.

A ``table`` float holding a ``tabular`` cannot break: with 100+ systems it runs off the page.
Above :data:`LONG_ROWS` rows the writers of ``ranking.tex`` and ``cd_table.tex`` emit a
``longtable`` instead (``\usepackage{longtable}`` beside ``\usepackage{booktabs}``): the caption
and header on the first page, the header again on every following page, "continued" at the foot
of every page but the last.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Tables with more rows than this are written as a ``longtable``.
LONG_ROWS = 40

#: The first line of a long table: the packages it needs.
PACKAGES = r"% needs \usepackage{booktabs} and \usepackage{longtable}"


def longtable(
    columns: str,
    header: str,
    rows: Sequence[str],
    caption: str,
    label: str,
    size: str = "",
) -> str:
    r"""A ``longtable`` with booktabs rules, its header repeated on every page.

    Parameters
    ----------
    columns : str
        The column specification, e.g. ``"lrl"``.
    header : str
        The header row without its ``\\`` (cells joined by ``&``).
    rows : sequence of str
        The body rows, each ending with ``\\``.
    caption, label : str
        LaTeX caption (escaped by the caller) and ``\label``.
    size : str
        A font size command for the table (e.g. ``\small``), kept in a group.

    Returns
    -------
    str
        The environment, starting with a comment naming the packages it needs.

    Examples
    --------
    >>> text = longtable("lr", "System & Rank", ["a & 1 \\\\", "b & 2 \\\\"], "Ranks.", "tab:x")
    >>> text.splitlines()[2], r"\endhead" in text
    ('\\begin{longtable}{lr}', True)
    """
    width = header.count("&") + 1
    lines = [PACKAGES, "{" + size if size else "{"]
    lines += [
        rf"\begin{{longtable}}{{{columns}}}",
        rf"\caption{{{caption}}}\label{{{label}}}\\",
        r"\toprule",
        header + r" \\",
        r"\midrule",
        r"\endfirsthead",
        rf"\multicolumn{{{width}}}{{l}}{{\emph{{(continued)}}}}\\",
        r"\toprule",
        header + r" \\",
        r"\midrule",
        r"\endhead",
        r"\midrule",
        rf"\multicolumn{{{width}}}{{r}}{{\emph{{continued on the next page}}}}\\",
        r"\endfoot",
        r"\bottomrule",
        r"\endlastfoot",
        *rows,
        r"\end{longtable}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def booktabs_table(columns: str, header: str, rows: Sequence[str], caption: str, label: str) -> str:
    r"""A small booktabs table: a ``table`` float holding a ``tabular``, or, above
    :data:`LONG_ROWS` rows, a :func:`longtable` that breaks across pages (both ``\small``).

    Parameters are those of :func:`longtable`.

    Examples
    --------
    >>> text = booktabs_table("lr", "System & Rank", ["a & 1 \\\\"], "Ranks.", "tab:x")
    >>> text.splitlines()[0], r"\caption{Ranks.}" in text
    ('\\begin{table}[t]', True)
    """
    if len(rows) > LONG_ROWS:  # breaks across pages
        return longtable(columns, header, rows, caption, label, size=r"\small")
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
        header + r" \\",
        r"\midrule",
        *rows,
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"

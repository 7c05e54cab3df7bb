"""PrefLib ordinal preference files (``.soc``, ``.soi``, ``.toc``, ``.toi``; PrefLib data format
of 2022).

A file is a header of ``#`` metadata lines (``# NUMBER ALTERNATIVES: 4``,
``# ALTERNATIVE NAME 1: Branden Robinson``, ...) followed by one line per distinct order,
``count: order``: ``13: 1, {4, 3}, 2`` says that 13 voters put alternative 1 first, 4 and 3
tied second, 2 last. The four types differ in what an order may be (PrefLib's format
specification, https://www.preflib.org/format):

====  ====================================  =============================================
type  ties (``{...}`` groups of two or more)  every alternative in every order
====  ====================================  =============================================
soc   no                                    yes
soi   no                                    no
toc   yes                                   yes
toi   yes                                   no
====  ====================================  =============================================

The type is the ``# DATA TYPE`` line, else the file's suffix; they must agree. Everything the
specification requires is checked and refused with the line that breaks it: a metadata line after
the orders, an order that is not ``count: order``, a count that is not a positive integer, an
alternative number without its ``ALTERNATIVE NAME`` line or named twice, an alternative twice in
one order, ties in a strict type, a missing alternative in a complete type, and header counts
(``NUMBER ALTERNATIVES``, ``NUMBER VOTERS``, ``NUMBER UNIQUE ORDERS``) that disagree with the
body (a file cut short).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rankstats.errors import InvalidRankingsError, preview

TYPES = ("soc", "soi", "toc", "toi")
_TIES = {"soc": False, "soi": False, "toc": True, "toi": True}
_COMPLETE = {"soc": True, "soi": False, "toc": True, "toi": False}
_META = re.compile(r"#\s*([^:]*?)\s*:(.*)")
_NAME = re.compile(r"ALTERNATIVE NAME\s+(\d+)", re.IGNORECASE)
_NUMBER = r"\d{1,9}"  # an alternative's number (int64 holds it)
_ITEM = rf"\s*(?:{_NUMBER}|\{{\s*{_NUMBER}(?:\s*,\s*{_NUMBER})*\s*\}})\s*"
_ORDER = re.compile(rf"\s*(\d+)\s*:({_ITEM}(?:,{_ITEM})*)", re.ASCII)
_HEADER_COUNTS = ("NUMBER ALTERNATIVES", "NUMBER VOTERS", "NUMBER UNIQUE ORDERS")


@dataclass(frozen=True)
class PrefLibOrders:
    """The distinct orders of a PrefLib file.

    Attributes
    ----------
    data_type : str
        ``soc``, ``soi``, ``toc`` or ``toi``.
    names : tuple of str
        Alternative names, alternative ``k`` at position ``k − 1``.
    ranks : ndarray, shape (n_orders, n_alternatives)
        Mid-ranks (1 = best; tied alternatives share the mean of their places); NaN = the order
        does not list the alternative.
    counts : ndarray of int, shape (n_orders,)
        Voters who gave each order.
    lines : ndarray of int, shape (n_orders,)
        Line of each order in the file.
    metadata : dict
        The ``#`` header, keys upper case.
    """

    data_type: str
    names: tuple[str, ...]
    ranks: np.ndarray
    counts: np.ndarray
    lines: np.ndarray
    metadata: dict[str, str] = field(default_factory=dict)


def _fail(path: str, line: int, text: str) -> InvalidRankingsError:
    return InvalidRankingsError(f"{path}: line {line}: {text}")


def parse(text: str, path: str, suffix_type: str | None) -> PrefLibOrders:
    """Parse the text of a PrefLib file (``suffix_type``: the type its suffix says, if any).

    Raises
    ------
    InvalidRankingsError
        Naming the offending line.
    """
    metadata: dict[str, str] = {}
    meta_lines: dict[str, int] = {}
    names: dict[int, str] = {}
    name_lines: dict[int, int] = {}
    orders: list[tuple[int, int, str]] = []  # (line, count, the order as written)
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if orders:
                raise _fail(
                    path, number, "a '#' metadata line after the orders: the header comes first"
                )
            match = _META.fullmatch(line)
            if not match:
                continue  # a comment without "KEY: value"
            key, value = match.group(1).upper(), match.group(2).strip()
            named = _NAME.fullmatch(key)
            if named:
                k = int(named.group(1))
                if k in names:
                    raise _fail(
                        path,
                        number,
                        f"alternative {k} is named a second time (first on line {name_lines[k]})",
                    )
                names[k], name_lines[k] = value, number
            else:
                metadata[key], meta_lines[key] = value, number
            continue
        match = _ORDER.fullmatch(line)
        if not match:
            hint = ""
            if not orders and not metadata and not names and re.fullmatch(r"\d+", line):
                hint = (
                    " (this looks like the PrefLib format before 2022, which began with the "
                    "number of alternatives; convert it to the current format)"
                )
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise _fail(
                path,
                number,
                f"{shown!r} is not an order 'count: order', e.g. '3: 1,2,{{3,4}}'{hint}",
            )
        count = int(match.group(1))
        if not 1 <= count < 2**53:
            raise _fail(path, number, f"the count {count} is not a positive number of voters")
        orders.append((number, count, match.group(2)))
    data_type = _data_type(path, metadata, meta_lines, suffix_type)
    if not orders:
        raise InvalidRankingsError(f"{path}: no order line ('count: order') after the header")
    m = _number_of_alternatives(path, metadata, meta_lines, names, name_lines)
    return _orders(path, data_type, names, m, orders, metadata, meta_lines)


def _data_type(
    path: str, metadata: dict[str, str], meta_lines: dict[str, int], suffix_type: str | None
) -> str:
    declared = metadata.get("DATA TYPE", "").strip().lower() or None
    if declared is not None and declared not in TYPES:
        raise _fail(
            path,
            meta_lines["DATA TYPE"],
            f"DATA TYPE {declared!r} is not an ordinal type rankstats reads ({', '.join(TYPES)})",
        )
    if declared and suffix_type and declared != suffix_type:
        raise _fail(
            path,
            meta_lines["DATA TYPE"],
            f"DATA TYPE {declared} disagrees with .{suffix_type} (the file's suffix, or the format "
            "asked for): correct one of them",
        )
    found = declared or suffix_type
    if found is None:
        raise InvalidRankingsError(
            f"{path}: neither a '# DATA TYPE:' line nor a .soc / .soi / .toc / .toi suffix says "
            "which PrefLib type this is"
        )
    return found


def _number_of_alternatives(
    path: str,
    metadata: dict[str, str],
    meta_lines: dict[str, int],
    names: dict[int, str],
    name_lines: dict[int, int],
) -> int:
    for key in _HEADER_COUNTS:
        if key in metadata and not re.fullmatch(r"\d+", metadata[key]):
            raise _fail(path, meta_lines[key], f"{key} {metadata[key]!r} is not a whole number")
    if not names:
        raise InvalidRankingsError(
            f"{path}: no '# ALTERNATIVE NAME k: name' line: the alternatives have no names"
        )
    m = max(names)
    if "NUMBER ALTERNATIVES" in metadata:
        declared = int(metadata["NUMBER ALTERNATIVES"])
        if m > declared:
            raise _fail(
                path,
                name_lines[m],
                f"alternative {m} is named but NUMBER ALTERNATIVES is {declared} (line "
                f"{meta_lines['NUMBER ALTERNATIVES']})",
            )
        m = declared
    if 0 in names:
        raise _fail(path, name_lines[0], "alternative 0: PrefLib numbers alternatives from 1")
    if len(names) != m:
        # The first numbers without a name (a loop over the names, never over 1 .. m).
        gaps, expected = [], 1
        for k in sorted([*names, m + 1]):
            gaps += range(expected, min(k, expected + 8))
            expected = k + 1
            if len(gaps) >= 8:
                break
        raise InvalidRankingsError(
            f"{path}: {m - len(names)} alternative(s) of the {m} have no '# ALTERNATIVE NAME' "
            f"line, e.g. {preview(gaps[:8])}"
        )
    seen: dict[str, int] = {}
    for k in range(1, m + 1):
        if names[k] in seen:
            raise _fail(
                path,
                name_lines[k],
                f"alternatives {seen[names[k]]} and {k} have the same name {names[k]!r} (line "
                f"{name_lines[seen[names[k]]]}): PrefLib names are unique",
            )
        seen[names[k]] = k
    return m


def _cells(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row, alternative, group)`` of every alternative of the orders ``texts`` (validated
    ``1,{2,3},4`` strings), in reading order: one pass of NumPy over the characters. ``group``
    numbers the places (a ``{...}`` tie is one place) across all orders."""
    text = ";".join(texts) + ";"
    chars = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    digit = (chars >= ord("0")) & (chars <= ord("9"))
    start = digit.copy()
    start[1:] &= ~digit[:-1]
    alternative = np.array(re.sub(r"\D+", " ", text).split(), dtype=np.int64)
    row = np.cumsum(chars == ord(";"))[start]
    opening = chars == ord("{")
    depth = np.cumsum(opening) - np.cumsum(chars == ord("}"))
    group = np.cumsum(opening | (start & (depth == 0)))[start] - 1
    return row, alternative, group


def _orders(
    path: str,
    data_type: str,
    names: dict[int, str],
    m: int,
    orders: list[tuple[int, int, str]],
    metadata: dict[str, str],
    meta_lines: dict[str, int],
) -> PrefLibOrders:
    counts = np.array([count for _, count, _ in orders], dtype=np.int64)
    lines = np.array([number for number, _, _ in orders], dtype=np.int64)
    row, alternative, group = _cells([text for _, _, text in orders])
    n_rows = len(orders)
    size = np.bincount(group)
    listed = np.bincount(row, minlength=n_rows)
    # The first row breaking each rule (n_rows when none does), in the order they are checked.
    unknown = (alternative < 1) | (alternative > m)
    key = row * (m + 2) + np.clip(alternative, 0, m + 1)
    ordered = np.sort(key)
    twice = ordered[1:][ordered[1:] == ordered[:-1]] // (m + 2)
    tied = row[(size[group] > 1)] if not _TIES[data_type] else row[:0]
    short = np.flatnonzero(listed < m) if _COMPLETE[data_type] else row[:0]
    firsts = [int(r.min()) if len(r) else n_rows for r in (row[unknown], twice, tied, short)]
    bad = min(firsts)
    if bad < n_rows:
        _refuse_order(
            path,
            data_type,
            names,
            m,
            lines[bad],
            firsts.index(bad),
            (alternative[row == bad], group[row == bad]),
        )
    first_cell = np.concatenate([[0], np.cumsum(size)[:-1]])[group]
    row_start = np.concatenate([[0], np.cumsum(listed)[:-1]])[row]
    mid = first_cell - row_start + (size[group] + 1) / 2
    for key_name, found in (
        ("NUMBER VOTERS", int(counts.sum())),
        ("NUMBER UNIQUE ORDERS", n_rows),
    ):
        if key_name in metadata and int(metadata[key_name]) != found:
            raise _fail(
                path,
                meta_lines[key_name],
                f"{key_name} is {metadata[key_name]} but the orders below add up to {found} (a "
                "file cut short, or a header not updated)",
            )
    ranks = np.full((n_rows, m), np.nan)
    ranks[row, alternative - 1] = mid
    return PrefLibOrders(
        data_type,
        tuple(names[k] for k in range(1, m + 1)),
        ranks,
        counts,
        lines,
        metadata,
    )


def _refuse_order(
    path: str,
    data_type: str,
    names: dict[int, str],
    m: int,
    line: int,
    rule: int,
    cells: tuple[np.ndarray, np.ndarray],
) -> None:
    """The error for the order on ``line`` breaking ``rule`` (0: an unknown alternative, 1: one
    listed twice, 2: a tie in a strict type, 3: a missing one in a complete type)."""
    listed, group = (c.tolist() for c in cells)
    if rule == 0:
        unknown = sorted({k for k in listed if not 1 <= k <= m})
        text = f"alternative(s) {preview(unknown)} are not among the {m} named alternatives"
    elif rule == 1:
        twice = sorted({k for k in listed if listed.count(k) > 1})
        text = (
            f"alternative(s) {preview(f'{k} ({names[k]})' for k in twice)} appear twice in one "
            "order"
        )
    elif rule == 2:
        first = next(g for g in group if group.count(g) > 1)
        tie = [k for k, g in zip(listed, group, strict=True) if g == first]
        text = (
            f"a tie {{{','.join(map(str, tie))}}} in a .{data_type} file (strict orders): a file "
            f"with ties is .{'toc' if _COMPLETE[data_type] else 'toi'}"
        )
    else:
        present = set(listed)
        absent = [k for k in range(1, m + 1) if k not in present]
        text = (
            f"the order lists {len(listed)} of the {m} alternatives (missing "
            f"{preview(f'{k} ({names[k]})' for k in absent)}), but a .{data_type} file holds "
            f"complete orders: a file of incomplete orders is "
            f".{'soi' if data_type == 'soc' else 'toi'}"
        )
    raise _fail(path, line, text)


def suffix_type(path: str | Path, compressed: tuple[str, ...]) -> str | None:
    """``soc`` / ``soi`` / ``toc`` / ``toi`` from the suffix of ``path`` (``x.toc.gz`` too)."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in compressed:
        suffixes.pop()
    kind = suffixes[-1].lstrip(".") if suffixes else ""
    return kind if kind in TYPES else None

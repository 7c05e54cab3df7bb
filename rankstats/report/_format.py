"""Numbers and names as the report's documents show them (one formatter for every table)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rankstats._text import terminal
from rankstats.errors import preview


def number(value: float | None, digits: int = 3, missing: str = "--") -> str:
    """A table cell: integers without decimals, other values with ``digits`` decimals.

    >>> number(2.0), number(0.12345), number(float("nan")), number(1523.44, 1, missing="–")
    ('2', '0.123', '--', '1523.4')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if float(value).is_integer():
        return f"{value:.0f}" if abs(value) < 1e15 else f"{value:.{digits}g}"
    return f"{value:.{digits}f}"


def names(items: Sequence[object], limit: int = 20) -> str:
    """Names for running text: control / bidi characters visible, long lists cut with a count."""
    return preview([terminal(n) for n in items], limit)


def contradiction_sentence(method: str) -> str:
    """What a ‡ mark says (LaTeX caption and HTML legend)."""
    return (
        f"the next system is significantly above this one: the {method} order contradicts the "
        "pairwise test here"
    )

"""Numbers and names as the report's documents show them (one formatter for every table)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rankstats._util.text import terminal
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


def decimals(values: Sequence[float] | np.ndarray, kind: str = "score") -> int:
    """The one number of decimals a table column shows for all its ``values``.

    ``kind="rank"``: 0 when every rank is a whole number, else 1 (averaged ties: ``2.5``), else 2.
    ``kind="score"``: the fewest decimals (up to 3) that show every value exactly (Borda sums of
    halves: 1), else about four significant digits for the largest value, between 1 and 3
    (``3432.2`` / ``2418.5``, ``24.56``, ``0.457``). Missing values are ignored.

    >>> decimals([1, 2.5, 3], "rank"), decimals([3432.0, 2418.5]), decimals([0.4567, 0.1])
    (1, 1, 3)
    >>> decimals([3432.1734, 2418.5]), decimals([12.0, 7.0]), decimals([float("nan")])
    (1, 0, 0)
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if not len(x):
        return 0
    exact = 2 if kind == "rank" else 3
    for d in range(exact + 1):
        if np.allclose(np.round(x, d), x, rtol=0.0, atol=1e-9):
            return d
    if kind == "rank":
        return 2
    largest = float(np.max(np.abs(x)))
    return int(min(3, max(1, 3 - math.floor(math.log10(largest))))) if largest > 0 else 1


def column(
    values: Sequence[float] | np.ndarray, kind: str = "score", missing: str = "--"
) -> list[str]:
    """A table column formatted with one number of decimals (:func:`decimals`) for every cell.

    >>> column([3432.0, 2418.5]), column([1.0, 2.5, None], "rank", missing="–")
    (['3432.0', '2418.5'], ['1.0', '2.5', '–'])
    """
    x = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    d = decimals(x, kind)
    return [f"{v:.{d}f}" if np.isfinite(v) else missing for v in x]


def names(items: Sequence[object], limit: int = 20) -> str:
    """Names for running text: control / bidi characters visible, long lists cut with a count."""
    return preview([terminal(n) for n in items], limit)


def contradiction_sentence(method: str) -> str:
    """What a ‡ mark says (LaTeX caption and HTML legend)."""
    return (
        f"the next system is significantly above this one: the {method} order contradicts the "
        "pairwise test here"
    )

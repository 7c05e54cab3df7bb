"""Console tables of the CLI, drawn by rich so wide characters (CJK names) keep columns aligned.

Every printed table goes through :func:`print_table` (or :func:`print_frame` for a DataFrame,
:func:`print_matrix` for a square matrix of pairs). Names are data: each cell is a
``rich.text.Text`` built from :func:`rankstats._util.text.terminal` (control and bidi characters
escaped), so neither rich markup (``[bold]``) nor terminal escapes in a name are interpreted.
Off a terminal (a pipe, a file, CI logs) the table is plain text with no colour and is never
wrapped to 80 columns.

Numbers are formatted one way per column (:func:`format_numbers`): a column of integers is shown
as integers, any other column with one number of decimals (or, when fixed decimals would show a
non-zero value as 0, in scientific notation), so ``3432`` is never printed next to ``2418.500``.
"""

from __future__ import annotations

import math
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from rankstats._util.method_names import method_text
from rankstats._util.text import terminal

if TYPE_CHECKING:
    import pandas as pd

Justify = Literal["left", "right", "center"]

#: Columns holding names: left-aligned and cut with an ellipsis by :func:`print_frame`.
NAME_COLUMNS = ("system", "system_a", "system_b", "name", "candidate")
#: The widest a name is printed (in terminal cells) before it is cut with an ellipsis.
NAME_WIDTH = 44
#: Decimals above which a column is printed in scientific notation instead.
MAX_DECIMALS = 6
#: The narrowest names are cut to when a table would be wider than the terminal.
MIN_NAME_WIDTH = 12


def _console():
    """rich never narrows a table itself (it would cut numbers): :func:`_fit` cuts only names."""
    from rich.console import Console

    return Console(
        file=sys.stdout,
        width=10_000,
        highlight=False,
        markup=False,
        emoji=False,
        no_color=not sys.stdout.isatty(),
        soft_wrap=True,
    )


def _fit(widths: Sequence[int], limits: Mapping[int, int], separators: int) -> dict[int, int]:
    """The widths of the columns that may be cut (``limits``: column → largest width).

    Off a terminal each is its limit. On a terminal narrower than the table, the widest names are
    cut further, down to :data:`MIN_NAME_WIDTH`; numbers and marks are never cut (a table still
    too wide is wrapped by the terminal).
    """
    fitted = {k: min(widths[k], limit) for k, limit in limits.items()}
    if not sys.stdout.isatty():
        return fitted
    excess = sum(fitted.get(k, w) for k, w in enumerate(widths)) + separators
    excess -= shutil.get_terminal_size((100, 24)).columns
    for k in sorted(fitted, key=lambda k: -fitted[k]):
        cut = max(min(excess, fitted[k] - MIN_NAME_WIDTH), 0)
        fitted[k] -= cut
        excess -= cut
    return fitted


def _print(renderable: object) -> None:
    """Print through rich, without the blanks rich pads the last column with."""
    console = _console()
    with console.capture() as captured:
        console.print(renderable)
    lines = captured.get().splitlines()
    sys.stdout.write("".join(line.rstrip() + "\n" for line in lines))


def method_label(method: str) -> str:
    """The column header of an estimator, as the report writes it: its σ symbol (σ^μ, σ^l,
    σ^2l) or a short word (Kemeny, Copeland).

    >>> method_label("borda"), method_label("mean"), method_label("borda2"), method_label("kemeny")
    ('σ^l', 'σ^μ', 'σ^2l', 'Kemeny')
    """
    return method_text(method)


def _is_integer(x: float) -> bool:
    return abs(x) < 2**53 and float(x).is_integer()


def _fits(values: Sequence[float], decimals: int) -> bool:
    """Every value is exactly what ``decimals`` decimals show (ranks 4.5, scores 85.175)."""
    return all(abs(x - round(x, decimals)) <= 1e-9 * abs(x) for x in values)


def number_format(
    values: Iterable[object], *, decimals: int | None = None, digits: int = 4
) -> Callable[[object], str]:
    """One format for a column of numbers, chosen from its values.

    - ``decimals`` given: that many decimals (a column of real values printed with the table's
      fixed precision, e.g. 4 for scores, whatever its values);
    - every finite value an integer: integers (``3432``, ranks ``1 2 3``);
    - else the fewest decimals (up to the ``digits`` significant digits of the largest value)
      that show every value exactly (ranks with ties: ``1.0 4.5``), or those that give the
      largest value ``digits`` significant digits and the smallest non-zero one two;
    - scientific notation (``digits`` significant digits) when that needs more than
      :data:`MAX_DECIMALS` decimals (p-values such as ``1.344e-11``).

    Missing values (NaN, None) are shown as ``nan``, infinities as ``inf`` / ``-inf``.
    """
    finite = []
    for v in values:
        if v is None or isinstance(v, bool):
            continue
        x = float(v)  # type: ignore[arg-type]
        if math.isfinite(x):
            finite.append(x)
    if decimals is not None:
        spec = f".{decimals}f"
    elif not finite or all(_is_integer(x) for x in finite):
        spec = ".0f"
    else:
        largest = max(abs(x) for x in finite)
        smallest = min((abs(x) for x in finite if x != 0), default=largest)
        wanted = max(digits - 1 - math.floor(math.log10(largest)), 0)
        exact = next((d for d in range(1, max(wanted, 3) + 1) if _fits(finite, d)), None)
        if exact is not None:
            spec = f".{exact}f"
        else:
            wanted = max(wanted, 1 - math.floor(math.log10(smallest)))
            spec = f".{wanted}f" if wanted <= MAX_DECIMALS else f".{max(digits - 1, 0)}e"

    def show(value: object) -> str:
        if value is None:
            return "nan"
        x = float(value)  # type: ignore[arg-type]
        if not math.isfinite(x):
            return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
        return format(x, spec)

    return show


def format_numbers(
    values: Iterable[object], *, decimals: int | None = None, digits: int = 4
) -> list[str]:
    """``values`` formatted with one :func:`number_format` for the whole column."""
    values = list(values)
    show = number_format(values, decimals=decimals, digits=digits)
    return [show(v) for v in values]


def print_table(
    columns: Sequence[tuple[str, Justify]],
    rows: Iterable[Sequence[object]],
    *,
    title: str | None = None,
    max_width: dict[int, int] | None = None,
) -> None:
    """Print ``rows`` under ``columns`` (``(header, justify)`` pairs) as an aligned table.

    Cells are shown as given (format numbers before passing them, one format per column:
    :func:`format_numbers`); ``max_width`` maps a column index to the largest width (in terminal
    cells) before the text is cut with an ellipsis.
    """
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    table = Table(
        box=box.SIMPLE_HEAD,
        title=Text(terminal(title)) if title else None,
        show_edge=False,
        pad_edge=False,
        expand=False,
    )
    headers = [terminal(header) for header, _ in columns]
    body = [[terminal("" if cell is None else cell) for cell in row] for row in rows]
    widths = [
        max([cell_len(header), *(cell_len(row[k]) for row in body)])
        for k, header in enumerate(headers)
    ]
    limits = _fit(widths, max_width or {}, separators=3 * (len(columns) - 1))
    for k, (header, (_, justify)) in enumerate(zip(headers, columns, strict=True)):
        table.add_column(
            Text(header),
            justify=justify,
            no_wrap=True,
            overflow="ellipsis",
            max_width=limits.get(k),
        )
    for row in body:
        table.add_row(*(Text(cell) for cell in row))
    _print(table)


def print_columns(
    columns: Sequence[tuple[str, Justify, Sequence[object]]],
    *,
    title: str | None = None,
    max_width: dict[int, int] | None = None,
) -> None:
    """:func:`print_table` of columns given with their cells: ``(header, justify, cells)``."""
    rows = list(zip(*(cells for *_, cells in columns), strict=True))
    print_table([(h, j) for h, j, _ in columns], rows, title=title, max_width=max_width)


def print_frame(
    frame: pd.DataFrame,
    *,
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
    decimals: Mapping[str, int] | None = None,
    digits: int = 4,
    name_width: int = NAME_WIDTH,
    text_width: int | None = None,
) -> None:
    """Print a DataFrame (its columns, not its index) with :func:`print_table`.

    Numeric columns are right-aligned with one :func:`number_format` each (``decimals`` fixes a
    column's decimals); other columns are left-aligned, the names (:data:`NAME_COLUMNS`) cut at
    ``name_width`` cells and any other text at ``text_width`` cells (default: never).
    ``headers`` renames columns for the display only.
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    headers = headers or {}
    decimals = decimals or {}
    columns: list[tuple[str, Justify]] = []
    cells: list[list[str]] = []
    limits: dict[int, int] = {}
    for k, name in enumerate(frame.columns):
        series = frame[name]
        header = headers.get(name, str(name))
        if is_numeric_dtype(series) and not is_bool_dtype(series):
            columns.append((header, "right"))
            cells.append(
                format_numbers(series.tolist(), decimals=decimals.get(name), digits=digits)
            )
        else:
            columns.append((header, "left"))
            cells.append(["nan" if v is None else str(v) for v in series.tolist()])
            width = name_width if name in NAME_COLUMNS else text_width
            if width is not None:
                limits[k] = width
    print_table(columns, list(zip(*cells, strict=True)), title=title, max_width=limits)


def print_matrix(
    names: Sequence[object],
    cell: Callable[[int, int], str],
    *,
    diagonal: str = "\\",
    name_width: int = 40,
) -> None:
    """A square matrix in the order of ``names``: rows and columns numbered 1..n, the row's name
    at the right (cut at ``name_width`` cells).

    ``cell(i, j)`` is the text of row ``i``, column ``j`` (``i != j``; format the numbers of the
    matrix with one :func:`number_format`); the diagonal shows ``diagonal``.
    """
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    n = len(names)
    body = [
        [
            f"  {i + 1} ",
            *(diagonal if i == j else terminal(cell(i, j)) for j in range(n)),
            "  " + terminal(name),
        ]
        for i, name in enumerate(names)
    ]
    widths = [max(cell_len(row[k]) for row in body) for k in range(n + 2)]
    widths[1:-1] = [max(w, len(str(n))) for w in widths[1:-1]]
    limit = _fit(widths, {n + 1: name_width + 2}, separators=n + 1)[n + 1]
    table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 0, 0, 1), expand=False)
    table.add_column(Text(""), justify="right", no_wrap=True)
    for j in range(n):
        table.add_column(Text(str(j + 1)), justify="right", no_wrap=True, min_width=widths[j + 1])
    table.add_column(Text(""), justify="left", no_wrap=True, overflow="ellipsis", max_width=limit)
    for row in body:
        table.add_row(*(Text(text) for text in row))
    _print(table)

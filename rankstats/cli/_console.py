"""Console tables of the CLI, drawn by rich so wide characters (CJK names) keep columns aligned.

Every printed table goes through :func:`print_table`. Names are data: each cell is a
``rich.text.Text`` built from :func:`rankstats._text.terminal` (control and bidi characters
escaped), so neither rich markup (``[bold]``) nor terminal escapes in a name are interpreted.
Off a terminal (a pipe, a file, CI logs) the table is plain text with no colour and is never
wrapped to 80 columns.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Sequence
from typing import Literal

from rankstats._text import terminal

Justify = Literal["left", "right", "center"]


def _console():
    from rich.console import Console

    tty = sys.stdout.isatty()
    width = shutil.get_terminal_size((100, 24)).columns if tty else 10_000
    return Console(
        file=sys.stdout,
        width=width,
        highlight=False,
        markup=False,
        emoji=False,
        no_color=not tty,
        soft_wrap=not tty,
    )


def print_table(
    columns: Sequence[tuple[str, Justify]],
    rows: Iterable[Sequence[object]],
    *,
    title: str | None = None,
    max_width: dict[int, int] | None = None,
) -> None:
    """Print ``rows`` under ``columns`` (``(header, justify)`` pairs) as an aligned table.

    Cells are shown as given (format numbers before passing them, one format per column);
    ``max_width`` maps a column index to the largest width (in terminal cells) before the text is
    cut with an ellipsis.
    """
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(
        box=box.SIMPLE_HEAD,
        title=Text(terminal(title)) if title else None,
        show_edge=False,
        pad_edge=False,
        expand=False,
    )
    limits = max_width or {}
    for k, (header, justify) in enumerate(columns):
        table.add_column(
            Text(terminal(header)),
            justify=justify,
            no_wrap=True,
            overflow="ellipsis",
            max_width=limits.get(k),
        )
    for row in rows:
        table.add_row(*(Text(terminal("" if cell is None else cell)) for cell in row))
    _console().print(table)

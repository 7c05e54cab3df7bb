"""The one progress display of rankstats: a rich progress bar on stderr, with an ETA.

Every long computation (MCMC sweeps, Kemeny search, simulation partitions, robustness grids,
streamed scans, bootstraps) reports through :func:`meter`. A bar is drawn only when

- the caller asked for it (``enabled=True``; the library's ``progress=`` / ``progressbar=``
  arguments),
- stderr is a terminal (a log file or a pipe gets no bar and no carriage returns), and
- progress is not silenced (:func:`set_quiet`, the CLI's ``--quiet``, or ``RANKSTATS_QUIET=1``).

PyMC draws its own (rich) bar; :func:`show` gives the value to pass as its ``progressbar=`` so the
same three rules hold for NUTS.

rich is imported on first use, so ``import rankstats`` stays fast.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

_QUIET = False


def set_quiet(quiet: bool = True) -> None:
    """Silence (or restore) every progress display of this process."""
    global _QUIET
    _QUIET = bool(quiet)


def quiet() -> bool:
    """Whether progress is silenced (:func:`set_quiet` or ``RANKSTATS_QUIET=1``)."""
    return _QUIET or os.environ.get("RANKSTATS_QUIET", "").strip() not in ("", "0")


def show(enabled: bool = True) -> bool:
    """Whether a progress display asked for with ``enabled`` is drawn: on a terminal, not quiet."""
    if not enabled or quiet():
        return False
    stream = sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


class Meter:
    """A running progress display; :meth:`advance` it, the ``with`` block closes it.

    ``total=None``: a counter with a rate (rows read) instead of a bar with an ETA.
    """

    def __init__(self, label: str, total: float | None, unit: str, enabled: bool) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.done = 0.0
        self._bar = None
        self._task = None
        if show(enabled):
            self._start()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(file=sys.stderr)
        if self.total is None:
            columns = [
                TextColumn("{task.description}"),
                TextColumn("{task.completed:,.0f} " + self.unit),
                TimeElapsedColumn(),
            ]
        else:
            columns = [
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(self.unit),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
            ]
        self._bar = Progress(*columns, console=console, transient=False)
        self._bar.start()
        # Plain text: a label never reaches rich's markup parser.
        from rich.text import Text

        self._task = self._bar.add_task(Text(self.label), total=self.total)

    def advance(self, amount: float = 1) -> None:
        """Count ``amount`` more units done."""
        self.done += amount
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)

    def update(self, completed: float) -> None:
        """Set the number of units done."""
        self.done = completed
        if self._bar is not None:
            self._bar.update(self._task, completed=completed)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


@contextmanager
def meter(
    label: str, total: float | None = None, unit: str = "", enabled: bool = True
) -> Iterator[Meter]:
    """A progress display for ``total`` units of work (``None``: unknown, a counter).

    Closed when the block ends, also on an interrupt, so the terminal is left clean.

    >>> with meter("sweeps", total=3, enabled=False) as m:
    ...     for _ in range(3):
    ...         m.advance()
    >>> m.done
    3.0
    """
    m = Meter(label, total, unit, enabled)
    try:
        yield m
    finally:
        m.close()

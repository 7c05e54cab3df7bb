"""The one progress display of rankstats: a rich progress bar on stderr, with an ETA.

Every long computation (MCMC sweeps, Kemeny search, simulation partitions, robustness grids,
streamed scans) reports through :func:`meter`. A bar is drawn only when

- the caller asked for it (``enabled=True``; the library's ``progress=`` / ``progressbar=``
  arguments),
- stderr is a terminal (a log file or a pipe gets no bar and no carriage returns), and
- progress is not silenced (:func:`set_quiet`, the CLI's ``--quiet``, or ``RANKSTATS_QUIET=1``).

Off a terminal, :func:`set_log` (the CLI's ``--progress``) asks for plain lines instead of a bar:
one every :data:`LOG_EVERY` seconds and one at the end, without carriage returns, for a log file.
``--quiet`` wins over it.

PyMC draws its own (rich) bar; :func:`show` gives the value to pass as its ``progressbar=`` so the
same three rules hold for NUTS.

One display at a time: a meter opened while another one runs (e.g. a Kemeny search inside a
robustness grid) stays silent. The bar is closed when its ``with`` block ends, also on Ctrl-C,
so the terminal is left clean (cursor shown, last state on its own line).

rich is imported on first use, so ``import rankstats`` stays fast.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

#: Seconds between two plain progress lines off a terminal (:func:`set_log`).
LOG_EVERY = 10.0

_QUIET = False
_LOG = False
_ACTIVE: list[Meter] = []  # the meter drawing now (at most one)
_INF = float("inf")


def set_quiet(quiet: bool = True) -> None:
    """Silence (or restore) every progress display of this process."""
    global _QUIET
    _QUIET = bool(quiet)


def quiet() -> bool:
    """Whether progress is silenced (:func:`set_quiet` or ``RANKSTATS_QUIET=1``)."""
    return _QUIET or os.environ.get("RANKSTATS_QUIET", "").strip() not in ("", "0")


def set_log(log: bool = True) -> None:
    """Off a terminal, write progress as plain lines on stderr instead of nothing (the CLI's
    ``--progress``); on a terminal the bar is drawn either way. :func:`set_quiet` wins."""
    global _LOG
    _LOG = bool(log)


def settings() -> tuple[bool, bool]:
    """``(quiet, log)`` as set by :func:`set_quiet` and :func:`set_log` (to restore them)."""
    return _QUIET, _LOG


def _tty() -> bool:
    stream = sys.stderr
    try:
        return bool(getattr(stream, "isatty", lambda: False)())
    except ValueError:  # a closed stream
        return False


def show(enabled: bool = True) -> bool:
    """Whether a progress display asked for with ``enabled`` is drawn: on a terminal, not quiet,
    and no :func:`meter` drawing already (one display at a time)."""
    return bool(enabled) and not quiet() and not _ACTIVE and _tty()


def displayed(enabled: bool = True) -> bool:
    """Whether a :func:`meter` opened now with ``enabled`` would show anything (a bar, or lines
    with :func:`set_log`): a caller computes a costly ``total`` only then."""
    return _mode(enabled) is not None


def _mode(enabled: bool) -> str | None:
    """``"bar"``, ``"log"`` (plain lines off a terminal) or ``None`` (nothing)."""
    if not enabled or quiet() or _ACTIVE:
        return None
    if _tty():
        return "bar"
    return "log" if _LOG else None


def _count(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() or value >= 100 else f"{value:,.1f}"


def _per(unit: str) -> str:
    """The unit of a rate: ``rows`` for ``rows read``."""
    return unit.split()[0] if unit.strip() else "units"


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    seconds = max(0, round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Meter:
    """A running progress display; :meth:`advance` it, the ``with`` block closes it.

    ``total=None``: a counter with a rate (rows read) instead of a bar with an ETA.
    ``clock=True``: the work is measured in seconds (``total`` a time limit): the bar follows the
    elapsed time on its own, between the calls.
    """

    def __init__(
        self, label: str, total: float | None, unit: str, enabled: bool, clock: bool = False
    ) -> None:
        self.label, self.total, self.unit, self.clock = label, total, unit, clock
        self.done = 0.0
        self.text = ""
        self.start = self._logged = time.perf_counter()
        self._bar: Any = None
        self._task: Any = None
        self.mode = _mode(enabled)
        if self.mode is not None:
            _ACTIVE.append(self)
        if self.mode == "bar":
            try:
                self._start()
            except BaseException:
                self.close()
                raise

    # ------------------------------------------------------------------ drawing
    def _start(self) -> None:
        from rich.console import Console

        console = Console(file=sys.stderr, force_terminal=True, highlight=False)
        self._bar = _progress_class()(
            *_columns(self.total is None),
            console=console,
            transient=False,
            # Lines printed meanwhile (warnings) go above the bar. stdout is moved only when it
            # is a terminal too: a redirected stdout must not end up on stderr.
            redirect_stderr=True,
            redirect_stdout=bool(getattr(sys.stdout, "isatty", lambda: False)()),
        )
        self._bar.start()
        self._task = self._bar.add_task(
            self.label, total=self.total, unit=self.unit, note="", clock=self.clock
        )

    def _elapsed(self) -> float:
        return time.perf_counter() - self.start

    def _log(self, final: bool = False) -> None:
        now = time.perf_counter()
        if not final and now - self._logged < LOG_EVERY:
            return
        self._logged = now
        done = min(self._elapsed(), self.total or _INF) if self.clock else self.done
        elapsed = self._elapsed()
        parts = []
        if self.total:
            parts.append(
                f"{_count(done)}/{_count(self.total)} {self.unit} ({done / self.total:.0%})".strip()
            )
        elif not self.clock:
            rate = done / elapsed if elapsed > 0 else 0.0
            parts.append(f"{_count(done)} {self.unit}, {_count(rate)} {_per(self.unit)}/s")
        parts.append(f"{_clock(elapsed)} elapsed")
        if self.total and not final and 0 < done < self.total:
            parts.append(f"ETA {_clock(elapsed * (self.total - done) / done)}")
        if self.text:
            parts.append(self.text)
        try:
            sys.stderr.write(f"{self.label}: {', '.join(parts)}\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: progress is not worth an error
            pass

    # ------------------------------------------------------------------ the API
    def advance(self, amount: float = 1) -> None:
        """Count ``amount`` more units done."""
        self.update(self.done + amount)

    def update(self, completed: float) -> None:
        """Set the number of units done."""
        self.done = completed
        if self._bar is not None:
            self._bar.update(self._task, completed=completed)
        elif self.mode == "log":
            self._log()

    def note(self, text: str) -> None:
        """Show ``text`` (plain, never markup) after the counts, e.g. the current gap."""
        self.text = text
        if self._bar is not None:
            self._bar.update(self._task, note=text)
        elif self.mode == "log":
            self._log()

    def close(self) -> None:
        """Stop the display (idempotent); off a terminal with :func:`set_log`, a last line."""
        if self.mode is None:
            return
        try:
            if self._bar is not None:
                bar, self._bar = self._bar, None
                if self.clock:
                    bar.update(self._task, completed=min(self._elapsed(), self.total or _INF))
                bar.stop()
            elif self.mode == "log":
                self._log(final=True)
        finally:
            self.mode = None
            if self in _ACTIVE:
                _ACTIVE.remove(self)


def _columns(counter: bool) -> list[Any]:
    """Label, bar, counts, elapsed, ETA, note — rendered as plain text (names are not markup)."""
    from rich.progress import BarColumn, ProgressColumn
    from rich.table import Column
    from rich.text import Text

    class Plain(ProgressColumn):
        def __init__(self, render, shrink: bool = False) -> None:
            # One line always: the note (``shrink``) is the column rich narrows first on a
            # narrow terminal, cut with an ellipsis, never wrapped.
            super().__init__(table_column=Column(no_wrap=not shrink, overflow="ellipsis"))
            self._render = render

        def render(self, task) -> Text:
            return Text(self._render(task), no_wrap=True, overflow="ellipsis")

    def counts(task) -> str:
        unit = task.fields.get("unit", "")
        if task.total is None and task.fields.get("clock"):
            return ""  # seconds: the elapsed column says it
        if task.total is None:
            speed = task.finished_speed or task.speed
            rate = f", {_count(speed)} {_per(unit)}/s" if speed else ""
            return f"{_count(task.completed)} {unit}{rate}".strip()
        return f"{_count(task.completed)}/{_count(task.total)} {unit}".strip()

    def remaining(task) -> str:
        if task.total is None:
            return ""
        if task.finished:
            return "ETA 0:00:00"
        if task.fields.get("clock"):
            return f"ETA {_clock(task.total - task.completed)}"
        return f"ETA {_clock(task.time_remaining)}"

    columns: list[Any] = [Plain(lambda task: task.description)]
    if not counter:
        columns.append(BarColumn())
    columns += [
        Plain(counts),
        Plain(lambda task: _clock(task.finished_time if task.finished else task.elapsed)),
        Plain(remaining),
        Plain(lambda task: task.fields.get("note", ""), shrink=True),
    ]
    return columns


_PROGRESS_CLASS: Any = None


def _progress_class() -> Any:
    """rich's ``Progress``, with the tasks measured in seconds (``clock``) moved by the clock."""
    global _PROGRESS_CLASS
    if _PROGRESS_CLASS is None:
        from rich.progress import Progress

        class ClockProgress(Progress):
            def get_renderables(self):
                with self._lock:
                    for task in self._tasks.values():
                        if task.fields.get("clock") and task.started and not task.finished:
                            limit = task.total if task.total is not None else _INF
                            self.update(task.id, completed=min(task.elapsed or 0.0, limit))
                yield from super().get_renderables()

        _PROGRESS_CLASS = ClockProgress
    return _PROGRESS_CLASS


@contextmanager
def meter(
    label: str,
    total: float | None = None,
    unit: str = "",
    enabled: bool = True,
    clock: bool = False,
) -> Iterator[Meter]:
    """A progress display for ``total`` units of work (``None``: unknown, a counter).

    Closed when the block ends, also on an interrupt, so the terminal is left clean.
    ``clock=True``: the units are seconds and the display follows the elapsed time by itself
    (``total``: a time limit, or ``None``).

    >>> with meter("sweeps", total=3, enabled=False) as m:
    ...     for _ in range(3):
    ...         m.advance()
    >>> m.done
    3.0
    """
    m = Meter(label, total, unit, enabled, clock)
    try:
        yield m
    finally:
        m.close()

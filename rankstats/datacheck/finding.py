"""One finding of the data check."""

from __future__ import annotations

from dataclasses import dataclass

from rankstats._util.advice import AdviceText

#: Severities, most serious first: ``error`` (the reader refuses the table as it is),
#: ``warning`` (the analysis runs, and may mislead), ``note`` (worth knowing).
SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Finding:
    """Something in the data an analysis should not run over silently.

    Attributes
    ----------
    kind : str
        ``aggregate-column``, ``metadata-column``, ``placeholder``, ``scales``, ``missing``,
        ``few-scores``, ``name-collision``, ``uneven-instances``, ``no-order`` or ``folds``.
    severity : {"error", "warning", "note"}
        ``error``: the reader refuses the table until an option says what to do.
    subject : tuple of str
        The columns, tasks or systems concerned (all of them).
    count : int
        How many: cells, columns, systems, tasks or name groups, as the message says.
    examples : tuple of str
        Up to five examples, as printed.
    message : str
        One line: what was found, with counts and examples.
    remedy : AdviceText
        What acts on it, written once (:mod:`rankstats._util.advice`): :attr:`api` spells its
        options as Python arguments (``level='task'``), :attr:`option` as flags
        (``--level task``).
    """

    kind: str
    severity: str
    subject: tuple[str, ...]
    count: int
    examples: tuple[str, ...]
    message: str
    remedy: AdviceText

    @property
    def option(self) -> str:
        """The remedy as the command line says it (options as flags)."""
        return self.remedy.cli()

    @property
    def api(self) -> str:
        """The remedy as Python says it (options as arguments)."""
        return str(self.remedy)

    def text(self, cli: bool = True) -> str:
        """``message (what to do: option)``, in the spelling of the CLI or of Python."""
        return f"{self.message} (what to do: {self.option if cli else self.api})"

    def record(self) -> dict[str, object]:
        """A JSON-ready dict (lists for the tuples)."""
        return {
            "kind": self.kind,
            "severity": self.severity,
            "count": self.count,
            "subject": list(self.subject),
            "examples": list(self.examples),
            "message": self.message,
            "option": self.option,
            "api": self.api,
        }

"""One finding of the data check."""

from __future__ import annotations

from dataclasses import dataclass

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
    option : str
        The command-line option that acts on it.
    api : str
        The same in Python.
    """

    kind: str
    severity: str
    subject: tuple[str, ...]
    count: int
    examples: tuple[str, ...]
    message: str
    option: str
    api: str

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

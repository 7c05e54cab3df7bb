"""The exit-code convention of every subcommand and the one-line usage error.

Exit codes (the same for every subcommand):

=====  ==========================================================================
0      success
1      failure while computing (a bug or an unexpected condition; ``--debug`` shows the traceback)
2      usage or input error: a bad option, an unreadable or invalid file, an output path that
       cannot be written, an input too large for this machine
130    interrupted (Ctrl-C); no output directory is left half-written
141    the reader of the output pipe went away (``rankstats rank … | head``)
=====  ==========================================================================

Light on purpose (the standard library): ``rankstats --help`` imports it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankstats._util.atomic import check_output_dir

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the shell's code for a writer whose reader went away


class UsageError(Exception):
    """A user error found by the CLI itself (printed as one line, exit code 2)."""


def spoken(message: object) -> str:
    """The text of a library error or warning as the command line prints it: an
    :class:`~rankstats._util.advice.Advice` names its options as flags (``err.cli()``), any
    other message is printed as it is. The one translation the command line makes."""
    from rankstats._util.advice import Advice

    return message.cli() if isinstance(message, Advice) else str(message)


class Parser(argparse.ArgumentParser):
    """``argparse`` with the one-line error format of every rankstats error, and the renamed
    options of :func:`renamed` (an old spelling and its new one given together: a usage error)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        namespace, extras = super().parse_known_args(args, namespace)
        marks = vars(namespace)
        notes = []
        for key in [k for k in marks if k.startswith(_OLD)]:
            old, new = marks.pop(key)
            if marks.pop(_NEW + key[len(_OLD) :], None) is not None:
                self.error(f"give {new} or its old spelling {old}, not both")
            notes.append(
                f"rankstats: {old} is now {new} (the old spelling will be removed in the next "
                "release)"
            )
        for note in notes:  # once the command line is known to be valid
            print(note, file=sys.stderr)
        for key in [k for k in marks if k.startswith(_NEW)]:
            del marks[key]
        for action in self._actions:  # required, by either spelling
            if getattr(action, "required_renamed", False) and marks.get(action.dest) is None:
                self.error(f"the following arguments are required: {action.option_strings[0]}")
        return namespace, extras


# Marks left on the namespace while parsing (removed by Parser.parse_known_args).
_OLD, _NEW = "_renamed_old_", "_renamed_new_"


def renamed(container: Any, *flags: str, old: tuple[str, ...] = (), **kwargs: Any) -> None:
    """``container.add_argument(*flags, **kwargs)``, and each ``old`` spelling of the option
    still accepted for one release: hidden from ``--help``, a one-line note on stderr when
    used, a usage error when given with the new spelling."""
    action = container.add_argument(*flags, **kwargs)
    if not old:
        return
    if action.required:  # given by the old spelling, the new one is not "seen" by argparse
        action.required, action.required_renamed = False, True
        kwargs["required"] = False
    action.__class__ = _marking(type(action), _NEW + action.dest, flags[0], old=False)
    for spelling in old:
        alias = container.add_argument(
            spelling, **{**kwargs, "dest": action.dest, "help": argparse.SUPPRESS}
        )
        alias.default = argparse.SUPPRESS  # the new spelling's default stands
        alias.__class__ = _marking(type(alias), _OLD + action.dest, flags[0], old=True)


def _marking(base: type, mark: str, new: str, old: bool) -> type:
    """``base`` (an argparse action class) that marks the namespace when its option is used:
    the new spelling with itself, an old one with ``(old, new)`` (for the note of the rename,
    printed by :meth:`Parser.parse_known_args`)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, mark, (option_string, new) if old else option_string)
        base.__call__(self, parser, namespace, values, option_string)

    return type(base.__name__, (base,), {"__call__": __call__})


def check_out(output: Any) -> None:
    """Refuse an unusable ``--out`` directory (of a command's output options) before any
    computing."""
    if getattr(output, "out", None):
        check_output_dir(output.out)

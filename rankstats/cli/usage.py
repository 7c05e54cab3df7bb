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
    """``argparse`` with the one-line error format of every rankstats error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def check_out(args: argparse.Namespace) -> None:
    """Refuse an unusable ``--out`` directory before any computing."""
    if getattr(args, "out", None):
        check_output_dir(args.out)

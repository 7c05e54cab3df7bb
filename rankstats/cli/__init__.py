"""The ``rankstats`` command: one module per subcommand, its options apart.

Each subcommand has two modules named like it: :mod:`rankstats.cli.options.<name>` declares
``HELP``, ``EXAMPLE``, ``ARGUMENTS`` (its table of options, read by
:func:`rankstats.cli.options.shared.add`) and ``Options``, the command's frozen options object
(light: the parser of ``rankstats --help`` is built from them without numpy, pandas, SciPy or
matplotlib), and ``rankstats.cli.<name>`` defines ``run(options) -> int`` (and
optionally ``check(options)``, and ``build_options(namespace)`` when some options are derived
from others), imported only when the command runs. Only the options of the subcommand named on
the command line are built. The options object is built once, right after parsing; no function
below the parser sees the argparse namespace.

Errors follow one convention (see :mod:`rankstats.cli.usage`): a user error is one line
``rankstats <command>: error: …`` and exit code 2, a failure while computing exit code 1, an
interruption exit code 130; a library error or warning whose advice names options
(:mod:`rankstats._util.advice`) is printed with ``err.cli()``, its flags, and no message is
reworded otherwise; ``--debug`` (or ``RANKSTATS_DEBUG=1``) shows the traceback.  A reader
that closes the output pipe early (``rankstats rank … | head``) ends the command quietly with the
shell's code for SIGPIPE, 141, as ``ls | head`` does.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Iterable
from types import ModuleType

from rankstats.cli.options.shared import add
from rankstats.cli.usage import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Parser,
    UsageError,
    check_out,
    spoken,
)

#: ``--quiet``, accepted before and after the subcommand.
QUIET_HELP = (
    "no progress display, as --no-progress (by default a progress bar with an ETA is drawn on "
    "stderr when it is a terminal; also RANKSTATS_QUIET=1)"
)

#: Subcommands in the order of ``rankstats --help``.
COMMANDS = (
    "check",
    "rank",
    "significance",
    "report",
    "fit",
    "tree",
    "simulate",
    "robustness",
    "power",
    "paired",
    "datasets",
    "kemeny",
    "battles",
    "irt",
)


def _options(name: str) -> ModuleType:
    """The light module declaring a subcommand's options (``HELP``, ``EXAMPLE``, ``arguments``)."""
    return importlib.import_module(f"rankstats.cli.options.{name}")


def _command(name: str) -> ModuleType:
    """The module that runs a subcommand (``run``, optionally ``check``)."""
    return importlib.import_module(f"rankstats.cli.{name}")


def build_parser(commands: Iterable[str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser of ``rankstats``.

    Parameters
    ----------
    commands : iterable of str
        The subcommands whose options are declared (default: all). Every subcommand is listed
        with its help line either way; ``main`` declares only the options of the one it runs,
        so that no other subcommand's choices are computed.
    """
    filled = set(commands)
    parser = Parser(
        prog="rankstats",
        description="Rank systems from benchmark scores, with uncertainty. Exit codes: 0 done, "
        "1 failure while computing, 2 usage or input error, 130 interrupted, 141 output pipe "
        "closed by its reader.",
    )
    parser.add_argument(
        "--debug", action="store_true", help="show the Python traceback of an error"
    )
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMANDS:
        options = _options(name)
        child = sub.add_parser(
            name,
            help=options.HELP,
            description=options.HELP,
            epilog=f"example:\n  {options.EXAMPLE}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name not in filled:
            continue
        if hasattr(options, "ARGUMENTS"):
            add(child, options.ARGUMENTS)
        else:  # an options module declaring its own (``arguments(parser)``)
            options.arguments(child)
        child.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,
            help="show the Python traceback of an error",
        )
        child.add_argument(
            "--quiet", action="store_true", default=argparse.SUPPRESS, help=QUIET_HELP
        )
    return parser


def _build_options(namespace: argparse.Namespace, module: ModuleType) -> object:
    """The command's frozen options object: its ``build_options`` (options derived from
    others), else its ``Options`` filled from the namespace."""
    from rankstats.cli.options.groups import from_namespace

    if hasattr(module, "build_options"):
        return module.build_options(namespace)
    return from_namespace(_options(namespace.command).Options, namespace)


def _check_out(options: object) -> None:
    check_out(getattr(options, "output", None))


def _user_errors() -> tuple[type[BaseException], ...]:
    import pandas as pd

    from rankstats.errors import InvalidRankingsError, InvalidScoresError, OutputError

    return (
        UsageError,
        InvalidScoresError,
        InvalidRankingsError,
        OutputError,
        FileNotFoundError,
        NotADirectoryError,
        IsADirectoryError,
        PermissionError,
        UnicodeDecodeError,
        pd.errors.EmptyDataError,
        pd.errors.ParserError,
        ValueError,
    )


def _rescue_file(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Move a FILE swallowed by a many-valued option back to the front.

    ``rankstats rank --lower-is-better ppl scores.csv`` gives ``scores.csv`` to
    ``--lower-is-better`` (argparse options with ``nargs="+"`` take every following word). When
    no positional FILE is given and the last value of such an option is an existing file or
    directory, it is the FILE.
    """
    if len(argv) < 2 or argv[0] not in COMMANDS:
        return argv
    command = _subparser(parser, argv[0])
    if command is None:
        return argv
    nargs = {}
    for action in command._actions:
        for option in action.option_strings:
            nargs[option] = action.nargs
    rest = argv[1:]
    positional, candidates, i = [], [], 0
    while i < len(rest):
        token = rest[i]
        if token.startswith("-") and token != "-":
            name = token.split("=", 1)[0]
            n = nargs.get(name, 0)
            if "=" in token or n == 0:
                i += 1
            elif n in ("+", "*"):
                j = i + 1
                while j < len(rest) and not rest[j].startswith("-"):
                    j += 1
                if j - i > 2 or (n == "*" and j - i > 1):
                    candidates.append(j - 1)  # the last value of a many-valued option
                i = j
            else:
                i += 1 + (n if isinstance(n, int) else 1)
        else:
            positional.append(i)
            i += 1
    if positional:
        return argv
    for index in candidates:
        if os.path.exists(rest[index]):
            return [argv[0], rest[index], *rest[:index], *rest[index + 1 :]]
    return argv


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(name)
    return None


def _one_line(err: BaseException) -> str:
    """The one line of an error or warning, :func:`~rankstats.cli.usage.spoken`: a library
    message whose advice names options with its flags (``--missing complete-case``)."""
    text = spoken(err).strip() or type(err).__name__
    if isinstance(err, KeyError) and len(err.args) == 1 and isinstance(err.args[0], str):
        text = err.args[0]
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _leading_option(word: str) -> bool:
    """``word`` is ``--debug`` or ``--quiet``, or a prefix of one that argparse accepts."""
    return len(word) > 2 and any(name.startswith(word) for name in ("--debug", "--quiet"))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Options of the command itself (--debug, --quiet) may come before the subcommand, spelled
    # out or shortened as argparse allows (--qui).
    lead = 0
    while lead < len(argv) and _leading_option(argv[lead]):
        lead += 1
    parser = build_parser(argv[lead : lead + 1])
    args = parser.parse_args([*argv[:lead], *_rescue_file(argv[lead:], parser)])
    debug = args.debug or os.environ.get("RANKSTATS_DEBUG", "") not in ("", "0")
    prog = f"rankstats {args.command}"
    memory_env: str | None = os.environ.get("RANKSTATS_IGNORE_MEMORY")
    # Progress (rankstats._util.progress): --quiet silences every display; --progress (rank
    # --stream, kemeny) also writes plain lines when stderr is not a terminal. Restored on exit.
    from rankstats._util import progress as _progress

    progress_state = _progress.settings()
    shown = getattr(args, "progress", None)  # --progress / --no-progress (None: a terminal's)
    _progress.set_quiet(progress_state[0] or bool(getattr(args, "quiet", False)) or shown is False)
    _progress.set_log(progress_state[1] or shown is True)
    try:
        from rankstats.errors import DataWarning

        with warnings.catch_warnings():
            warnings.simplefilter("always", DataWarning)
            # One line per warning, on stderr, in the command's name (restored on exit).
            warnings.showwarning = lambda message, *_, **__: print(
                f"{prog}: warning: {_one_line(message)}", file=sys.stderr
            )
            try:
                if getattr(args, "ignore_memory_check", False):
                    # Restored in the finally clause (main() is also called in-process).
                    os.environ["RANKSTATS_IGNORE_MEMORY"] = "1"
                module = _command(args.command)
                options = _build_options(args, module)
                # Arguments and output paths are checked before any computing.
                getattr(module, "check", _check_out)(options)
                return module.run(options)
            except KeyboardInterrupt:
                if debug:
                    raise
                print(f"{prog}: interrupted; no output was left half-written", file=sys.stderr)
                return EXIT_INTERRUPTED
            except BrokenPipeError:
                _silence_stdout()
                return EXIT_BROKEN_PIPE
            except _user_errors() as err:
                if debug:
                    raise
                print(f"{prog}: error: {_one_line(err)}", file=sys.stderr)
                return EXIT_USAGE
            except MemoryError as err:
                if debug:
                    raise
                return _out_of_memory(err, prog, hasattr(args, "stream"))
            except Exception as err:
                if debug:
                    raise
                print(
                    f"{prog}: error: failure while computing: {type(err).__name__}: "
                    f"{_one_line(err)} (run with --debug for the traceback, and report it if "
                    "the input is valid)",
                    file=sys.stderr,
                )
                return EXIT_FAILURE
    finally:
        _progress.set_quiet(progress_state[0])
        _progress.set_log(progress_state[1])
        if memory_env is None:
            os.environ.pop("RANKSTATS_IGNORE_MEMORY", None)
        else:
            os.environ["RANKSTATS_IGNORE_MEMORY"] = memory_env


def _silence_stdout() -> None:
    """The reader (e.g. ``head``) has all it wants: no message, and no second BrokenPipeError
    when the interpreter flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout replaced (in-process)
        pass


def _out_of_memory(err: MemoryError, prog: str, streams: bool) -> int:
    """The one line of a memory error: the library's own (a ResourceError, a usage error), or
    out of memory while computing, with ``--stream`` where the command has it."""
    from rankstats.errors import ResourceError

    if isinstance(err, ResourceError):
        print(f"{prog}: error: {_one_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    stream = " or --stream" if streams else ""
    print(
        f"{prog}: error: out of memory while computing; use a smaller input{stream} "
        "(run with --debug for the traceback)",
        file=sys.stderr,
    )
    return EXIT_FAILURE


if __name__ == "__main__":
    raise SystemExit(main())

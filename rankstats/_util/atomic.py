"""Outputs that are never half-written.

A command writes its whole set of files into a temporary directory beside the target and renames
it into place only when everything is written: an interrupted or failing run leaves the previous
set untouched (or nothing), and a rerun replaces the whole set, so no stale file from an earlier
run sits next to new ones. Single files are written to a temporary name and ``os.replace``-d.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rankstats._util.advice import AdviceOutputError, Spelled, escape

#: The file a rankstats output directory carries; a non-empty directory without it is not ours
#: and is never replaced.
MARKER = ".rankstats-output"


def check_output_dir(path: str | Path, option: str = "out") -> Path:
    """Refuse, before any computing, an output directory that cannot be (re)placed.

    ``option`` is the Python parameter that names the output (the command line prints its
    flag, :func:`given`).

    Raises
    ------
    OutputError
        ``path`` is an existing file, a non-empty directory that rankstats did not write (no
        :data:`MARKER`), or its parent cannot be created or written.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise refused(option, path, " is an existing file; give a directory")
    if path.is_dir() and any(path.iterdir()) and not (path / MARKER).exists():
        raise refused(
            option,
            path,
            " is a non-empty directory that rankstats did not write; give a new or empty "
            "directory (rankstats replaces a directory only if it wrote it)",
        )
    parent = _existing_parent(path)
    if not parent.is_dir():
        raise refused(option, path, f": {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise refused(option, path, f": no permission to write in {parent}")
    _probe(path, parent, option)
    return path


def given(option: str, path: str | Path) -> tuple[str, str] | Spelled:
    """The output as the reader named it: a parameter and its value (``out='report'`` in
    Python, ``--out report`` on the command line), or a label (``the partition-function
    cache``) followed by the path."""
    if option.isidentifier():
        return option, str(path)
    return Spelled(f"{option} {path}", f"{option} {path}")


def refused(option: str, path: str | Path, why: str) -> AdviceOutputError:
    """The :class:`~rankstats.errors.OutputError` for the output ``path`` given as ``option``:
    the option and path, then ``why`` (plain text)."""
    return AdviceOutputError("{given}" + escape(why), given=given(option, path))


def check_output_file(path: str | Path, suffixes: tuple[str, ...], option: str = "out") -> Path:
    """Refuse an output file that is a directory, has an unknown extension or is unwritable."""
    path = Path(path)
    if path.is_dir():
        raise refused(option, path, " is a directory; give a file name")
    if "".join(path.suffixes[-2:]).lower() not in suffixes and path.suffix.lower() not in suffixes:
        raise refused(
            option,
            path,
            f": unknown file type {path.suffix or '(no extension)'!r}; "
            f"use one of {', '.join(suffixes)}",
        )
    parent = _existing_parent(path)
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise refused(option, path, f": cannot write in {parent}")
    _probe(path, parent, option)
    return path


def check_save_dir(path: str | Path, option: str = "save") -> Path:
    """Refuse, before any computing, a directory that files will be added to (``--save DIR``,
    which may hold other files) but that cannot be written."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise refused(option, path, " is an existing file; give a directory")
    _probe(path, path if path.is_dir() else _existing_parent(path), option)
    return path


def _existing_parent(path: Path) -> Path:
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    return parent


def _why(err: OSError) -> str:
    """The reason an output cannot be created, in words (``/proc`` answers "No such file or
    directory" for a directory that exists: say what that means)."""
    reason = err.strerror or type(err).__name__
    if err.errno in (errno.ENOENT, errno.EPERM, errno.EROFS):
        reason += " (a read-only or virtual file system, e.g. /proc or /sys, refuses new files)"
    return reason


def unwritable(path: str | Path, where: str | Path, err: OSError, option: str = "out"):
    """The :class:`~rankstats.errors.OutputError` for ``path`` (as the user gave it) when
    creating the output in ``where`` failed with ``err``: it names the path given and the
    reason, never the temporary name written first."""
    return refused(option, path, f": cannot write in {where}: {_why(err)}")


def _probe(path: Path, parent: Path, option: str) -> None:
    """Create and remove a directory in ``parent``: ``os.access`` says yes to root on read-only
    and virtual file systems, so only trying tells."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".rankstats-probe-", dir=parent))
    except OSError as err:
        raise unwritable(path, parent, err, option) from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def output_dir(path: str | Path, option: str = "out") -> Iterator[Path]:
    """Yield a temporary directory; on success it replaces ``path`` as a whole.

    The temporary directory is created next to ``path`` (same file system, so the final rename is
    atomic). On any exception, ``KeyboardInterrupt`` included, it is removed and ``path`` is left
    as it was.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> with output_dir(target) as tmp:
    ...     _ = (tmp / "a.csv").write_text("x\\n1\\n")
    >>> sorted(p.name for p in target.iterdir())
    ['.rankstats-output', 'a.csv']
    """
    given = path
    path = check_output_dir(path, option)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.partial-", dir=path.parent))
    except OSError as err:
        raise unwritable(given, path.parent, err, option) from None
    tmp.chmod(0o777 & ~_umask())  # mkdtemp makes it private; the result is an ordinary directory
    try:
        yield tmp
        (tmp / MARKER).write_text("written by rankstats; replaced as a whole by the next run\n")
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old-", dir=path.parent))
            old.rmdir()
            path.rename(old)
            tmp.rename(path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@contextlib.contextmanager
def output_file(path: str | Path, option: str = "path") -> Iterator[Path]:
    """Yield a temporary file name beside ``path``; on success it replaces ``path``."""
    given, path = path, Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(
            prefix=f".{path.name}.partial-", suffix="".join(path.suffixes), dir=path.parent
        )
    except OSError as err:
        raise unwritable(given, path.parent, err, option) from None
    os.close(fd)
    tmp = Path(name)
    tmp.chmod(0o666 & ~_umask())  # mkstemp makes it private; the result is an ordinary file
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


_FAIL_COUNTS: dict[str, int] = {}


def checkpoint(label: str) -> None:
    """Test hook between two output files: fail here when ``RANKSTATS_FAIL_AT`` asks for it.

    ``RANKSTATS_FAIL_AT="label:N"`` raises ``KeyboardInterrupt`` at the N-th call with this label
    (1-based); ``"label:N:oserror"`` raises ``OSError`` (a full disk) instead. Unset: a no-op.
    The atomicity tests use it to interrupt ``rank``, ``report`` and ``simulate --partitions``
    after some files are written.
    """
    spec = os.environ.get("RANKSTATS_FAIL_AT")
    if not spec:
        return
    parts = spec.split(":")
    if parts[0] != label:
        return
    _FAIL_COUNTS[label] = _FAIL_COUNTS.get(label, 0) + 1
    if _FAIL_COUNTS[label] == int(parts[1]):
        if len(parts) > 2 and parts[2] == "oserror":
            raise OSError(28, "No space left on device (RANKSTATS_FAIL_AT test hook)")
        raise KeyboardInterrupt

r"""Reading score files: the one parser behind :func:`rankstats.read_scores` (in memory) and
:func:`rankstats.scan_scores` (streamed). This module says what a file is (:func:`inspect`, a
:class:`Source`); the rules below are carried out by :mod:`~rankstats.io.file_bytes`
(decompression, encodings), :mod:`~rankstats.io.csv_dialect` (the delimiter),
:mod:`~rankstats.io.tables` (the Arrow read, line numbers), :mod:`~rankstats.io.cells` (keys and
score cells) and :mod:`~rankstats.io.directories` (the files of a streamed directory).

Nothing is changed or dropped silently; what cannot be read as it is written is refused with the
count, examples with their file line numbers, and the option that accepts it.

- **What a file is** comes from its bytes, not its name: gzip / bz2 / xz are decompressed
  whatever the extension (a gzip file named ``.csv`` is read), ``PAR1`` marks Parquet; a
  ``.parquet`` that is not Parquet, a zip archive, a binary file, an empty file, a directory, a
  truncated compressed stream and text that is not in the given encoding are refused.
- **Text** is UTF-8 by default (a byte-order mark is skipped; ``encoding=`` for others), with LF or
  CRLF line ends. The delimiter is ``sep=``, an Excel ``sep=;`` first line, or sniffed from the
  header and the first row among ``,``, tab, ``;`` and ``|`` (a ``.tsv`` / ``.tab`` name
  prefers tab). Duplicated column names and rows with more or fewer fields than the header are
  refused with their line numbers.
- **Every cell is read as text.** Keys (system, task, instance, the header of a wide table) stay
  text: ``007``, ``7``, ``NA``, ``None``, ``true`` and ``01`` are distinct names; a blank key is
  refused. Scores are converted by
  :func:`~rankstats.io.cells.scores_as_float`: a blank cell is "not evaluated";
  missing-value words (``NA``, ``n/a``, ``null``, ``-``, ...) are refused unless listed in
  ``na_values``; other text and infinities are refused.
- **Parquet** keys of any type become text with Arrow's cast (an integer 7 is ``"7"``, as in a
  CSV file); a score column must be numeric (or text, converted as above): a timestamp or a
  boolean column is refused.

Line numbers are physical lines of the file (1 = the header, or the ``sep=`` line before it);
Parquet rows are numbered from 1. They are computed on the error path only, by re-reading the
file with Python's ``csv`` module: the read itself is Arrow's multi-threaded CSV reader.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rankstats._util.advice import AdviceFileError, Spelled, escape
from rankstats.errors import UnreadableFileError
from rankstats.io.csv_dialect import parse_sep, sniff_delimiter
from rankstats.io.file_bytes import (
    HEAD_BYTES,
    compression_problem,
    decode_head,
    encoding_name,
    first_line,
    open_bytes,
    read_head,
)

PARQUET_SUFFIXES = (".parquet", ".pq")
TEXT_SUFFIXES = (".csv", ".tsv", ".tab", ".txt")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
_INDEX_COLUMN = re.compile(r"__index_level_\d+__")  # an unnamed pandas index stored in Parquet


@dataclass(frozen=True)
class Source:
    """A score file as inspected: its kind, columns and how to parse it (picklable, so that
    worker processes read it the same way)."""

    path: str
    kind: str  # "csv" (any delimited text) or "parquet"
    columns: tuple[str, ...]
    compression: str | None = None  # "gzip", "bz2", "xz" (from the magic bytes)
    delimiter: str = ","
    encoding: str = "utf8"  # Arrow's spelling; "utf8" skips a byte-order mark
    skip_rows: int = 0  # lines before the header (Excel's "sep=;" line)

    @property
    def name(self) -> str:
        return Path(self.path).name


# ---------------------------------------------------------------------------- inspection
def inspect(path: str | Path, sep: str | None = None, encoding: str = "utf-8") -> Source:
    """What ``path`` holds and how to read it; refuses what cannot be read, in one line.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    UnreadableFileError
        A directory, an empty / binary / zip / truncated file, a ``.parquet`` that is not
        Parquet, text that is not in ``encoding``, an empty header line, duplicated column
        names.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such score file: {path}")
    if path.is_dir():
        raise AdviceFileError(
            escape(f"{path} is a directory, not a score file: give a file, or stream the files ")
            + "of a directory with {stream}",
            stream=Spelled("rs.scan_scores", "rankstats rank DIR --stream"),
        )
    start = _first_bytes(path)
    if not start:
        raise UnreadableFileError(f"{path} is empty (0 bytes): it holds no score table")
    suffixes = [s.lower() for s in path.suffixes]
    if start[:4] == b"PAR1":
        return _inspect_parquet(path)
    if suffixes and suffixes[-1] in PARQUET_SUFFIXES:
        raise UnreadableFileError(
            f"{path} is named like a Parquet file but is not one (it does not begin with the "
            f"Parquet bytes PAR1; it looks like {_looks_like(start)}): write it again as "
            "Parquet, or name it after its content"
        )
    if start[:4] == b"PK\x03\x04":
        raise UnreadableFileError(
            f"{path} is a zip archive (an Excel .xlsx file is one): unzip it, or export the "
            "sheet as CSV"
        )
    compression = _compression(start)
    enc = encoding_name(encoding)
    head = read_head(path, compression)
    if not head.strip():
        raise UnreadableFileError(
            f"{path} is empty{' once decompressed' if compression else ''}: it holds no rows"
        )
    text = decode_head(path, head, enc, complete=len(head) < HEAD_BYTES)
    lines = re.split(r"\r\n|\r|\n", text)
    if len(head) >= HEAD_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line of the head may be cut
    skip = 0
    excel = re.fullmatch(r'"?sep=(.)"?', lines[0].strip())
    if excel:  # Excel's "sep=;" first line names the delimiter
        skip, lines = 1, lines[1:]
        sep = sep or excel.group(1)
    if not lines or not lines[0].strip():
        raise UnreadableFileError(
            f"{path}: line {skip + 1} is empty: the first line must be the header (the column "
            "names)"
        )
    header = lines[0]
    first = next((line for line in lines[1:] if line), None)
    default = "\t" if _stem_suffix(path) in (".tsv", ".tab") else ","
    delimiter = parse_sep(sep) if sep is not None else sniff_delimiter(header, first, default)
    names = next(csv.reader([header], delimiter=delimiter))
    _refuse_duplicates(path, names)
    return Source(str(path), "csv", tuple(names), compression, delimiter, enc, skip)


def read_text(path: str | Path, encoding: str = "utf-8", what: str = "rankings file") -> str:
    """The whole text of a small text file (a PrefLib file), decompressed and decoded with the
    checks of :func:`inspect`: a missing file, a directory, an empty, zip, Parquet, binary or
    truncated compressed file, and bytes that are not valid in ``encoding`` (named by byte
    offset and line) are refused. Line ends are normalised to ``\\n``.

    Raises
    ------
    FileNotFoundError, UnreadableFileError
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such {what}: {path}")
    if path.is_dir():
        raise UnreadableFileError(f"{path} is a directory, not a {what}")
    start = _first_bytes(path)
    if start[:4] in (b"PAR1", b"PK\x03\x04"):
        kind = "a Parquet file" if start[:4] == b"PAR1" else "a zip archive"
        raise UnreadableFileError(f"{path} is {kind}, not a text {what}")
    compression = _compression(start)
    enc = encoding_name(encoding)
    try:
        with open_bytes(path, compression) as fh:
            data = fh.read()
    except (OSError, EOFError) as err:
        raise UnreadableFileError(compression_problem(path, compression, err)) from None
    if not data.strip():
        raise UnreadableFileError(
            f"{path} is empty{' once decompressed' if compression else ''}: it holds no rankings"
        )
    text = decode_head(path, data, enc, complete=True)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _first_bytes(path: Path) -> bytes:
    """The first 8 bytes of ``path``, which say what it holds; an unreadable file is refused."""
    try:
        with open(path, "rb") as fh:
            return fh.read(8)
    except OSError as err:
        raise UnreadableFileError(f"cannot read {path}: {err.strerror or err}") from None


def _compression(start: bytes) -> str | None:
    """``"gzip"``, ``"bz2"`` or ``"xz"`` from a file's first bytes, else ``None``."""
    return next((name for magic, name in _MAGIC if start.startswith(magic)), None)


def _inspect_parquet(path: Path) -> Source:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as err:
        raise UnreadableFileError(
            f"{path} is not a readable Parquet file ({first_line(err)}): it may be truncated "
            "(an interrupted write); write it again"
        ) from None
    names = [n for n in schema.names if not _INDEX_COLUMN.fullmatch(n)]
    _refuse_duplicates(path, names)
    return Source(str(path), "parquet", tuple(names))


def _refuse_duplicates(path: Path, names: Sequence[str]) -> None:
    seen: dict[str, list[int]] = {}
    for k, name in enumerate(names, start=1):
        seen.setdefault(name, []).append(k)
    repeated = {n: ks for n, ks in seen.items() if len(ks) > 1}
    if repeated:
        shown = "; ".join(
            f"{n!r} (columns {', '.join(map(str, ks))})" for n, ks in list(repeated.items())[:5]
        )
        raise UnreadableFileError(
            f"{path}: duplicated column names in the header: {shown}: rename them (a reader "
            "would rename or drop one silently)"
        )


def _stem_suffix(path: Path) -> str:
    """The suffix that says the format (``.tsv`` of ``x.tsv.gz``)."""
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in COMPRESSED_SUFFIXES:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def is_score_file_name(name: str) -> bool:
    """Whether a file of a streamed directory is read, by its name: ``.parquet``, ``.pq``,
    ``.csv``, ``.tsv``, ``.tab``, ``.txt`` (the text ones optionally ``.gz``, ``.bz2``, ``.xz``)."""
    suffix = _stem_suffix(Path(name))
    if suffix in PARQUET_SUFFIXES:
        return Path(name).suffix.lower() in PARQUET_SUFFIXES
    return suffix in TEXT_SUFFIXES


def _looks_like(start: bytes) -> str:
    for magic, name in _MAGIC:
        if start.startswith(magic):
            return f"a {name} file"
    if start[:4] == b"PK\x03\x04":
        return "a zip archive"
    if b"\x00" in start:
        return "binary data"
    return "text"

r"""Reading score files: the one parser behind :func:`rankstats.read_scores` (in memory) and
:func:`rankstats.scan_scores` (streamed).

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
  refused. Scores are converted by :func:`scores_as_float`: a blank cell is "not evaluated";
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

import codecs
import contextlib
import csv
import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rankstats.errors import InvalidScoresError, UnreadableFileError, preview

#: Cell texts (case-insensitive, stripped) that mean "missing" in common exports. A score cell
#: holding one is refused unless the word is listed in ``na_values``: reading it as "not
#: evaluated" changes the ranking, so the user decides.
MISSING_WORDS = frozenset(
    {"na", "n/a", "n.a.", "nan", "null", "none", "nil", "missing", "-", "--", "?", "#n/a", "#na"}
)
#: Column names (case-insensitive, stripped) of a wide table that usually hold an aggregate of
#: the other columns: ranking one as a task would count the other tasks twice.
MANIFEST = "rankstats-manifest.json"
#: Files that ``rankstats simulate`` and the CLI write beside data files (never read as data).
SIDECARS = frozenset({"truth.json", MANIFEST, ".rankstats-output"})
PARQUET_SUFFIXES = (".parquet", ".pq")
TEXT_SUFFIXES = (".csv", ".tsv", ".tab", ".txt")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")
DELIMITERS = (",", "\t", ";", "|")
_SEP_ALIASES = {"\\t": "\t", "tab": "\t", "TAB": "\t", "comma": ",", "semicolon": ";"}
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))
_HEAD = 1 << 16  # bytes decoded up front: header, first row, encoding and binary checks
_INDEX_COLUMN = re.compile(r"__index_level_\d+__")  # an unnamed pandas index stored in Parquet
# A plain decimal number (what a score cell must hold); used on the error path only, to find
# the cells Arrow's cast refused.
_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


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
        raise UnreadableFileError(
            f"{path} is a directory, not a score file: give a file, or stream the files of a "
            "directory with rs.scan_scores (CLI: rankstats rank DIR --stream)"
        )
    try:
        with open(path, "rb") as fh:
            start = fh.read(8)
    except OSError as err:
        raise UnreadableFileError(f"cannot read {path}: {err.strerror or err}") from None
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
    compression = next((name for magic, name in _MAGIC if start.startswith(magic)), None)
    enc = _encoding_name(encoding)
    head = _read_head(path, compression)
    if not head.strip():
        raise UnreadableFileError(
            f"{path} is empty{' once decompressed' if compression else ''}: it holds no rows"
        )
    text = _decode_head(path, head, enc, complete=len(head) < _HEAD)
    lines = re.split(r"\r\n|\r|\n", text)
    if len(head) >= _HEAD and len(lines) > 1:
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
    delimiter = _delimiter(sep) if sep is not None else _sniff(header, first, default)
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
    try:
        with open(path, "rb") as fh:
            start = fh.read(8)
    except OSError as err:
        raise UnreadableFileError(f"cannot read {path}: {err.strerror or err}") from None
    if start[:4] in (b"PAR1", b"PK\x03\x04"):
        kind = "a Parquet file" if start[:4] == b"PAR1" else "a zip archive"
        raise UnreadableFileError(f"{path} is {kind}, not a text {what}")
    compression = next((name for magic, name in _MAGIC if start.startswith(magic)), None)
    enc = _encoding_name(encoding)
    try:
        with _open_bytes(path, compression) as fh:
            data = fh.read()
    except (OSError, EOFError) as err:
        raise UnreadableFileError(_compression_problem(path, compression, err)) from None
    if not data.strip():
        raise UnreadableFileError(
            f"{path} is empty{' once decompressed' if compression else ''}: it holds no rankings"
        )
    text = _decode_head(path, data, enc, complete=True)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _inspect_parquet(path: Path) -> Source:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as err:
        raise UnreadableFileError(
            f"{path} is not a readable Parquet file ({_first_line(err)}): it may be truncated "
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


def _encoding_name(encoding: str) -> str:
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r} (e.g. 'utf-8', 'latin-1')") from None
    # Arrow reads UTF-8 natively (and skips a BOM); other encodings are transcoded by Python.
    return "utf8" if name in ("utf-8", "utf-8-sig") else name


def _python_encoding(enc: str) -> str:
    return "utf-8-sig" if enc == "utf8" else enc


def _open_bytes(path: str | Path, compression: str | None) -> io.BufferedIOBase:
    import bz2
    import gzip
    import lzma

    opener = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(compression or "", open)
    return opener(path, "rb")


def _read_head(path: Path, compression: str | None) -> bytes:
    try:
        with _open_bytes(path, compression) as fh:
            return fh.read(_HEAD)
    except (OSError, EOFError) as err:
        raise UnreadableFileError(_compression_problem(path, compression, err)) from None


def _compression_problem(path: str | Path, compression: str | None, err: BaseException) -> str:
    return (
        f"{path} is a truncated or corrupt {compression or 'compressed'} file "
        f"({_first_line(err)}): download or write it again"
    )


def _decode_head(path: Path, head: bytes, enc: str, complete: bool) -> str:
    utf16 = head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    if utf16 and not enc.startswith(("utf-16", "utf_16")):
        raise UnreadableFileError(
            f"{path} is UTF-16 text (it begins with a UTF-16 byte-order mark): pass "
            "encoding='utf-16' (CLI: --encoding utf-16), or save it as UTF-8"
        )
    if b"\x00" in head and not enc.startswith(("utf-16", "utf_16", "utf-32", "utf_32")):
        raise UnreadableFileError(
            f"{path} is a binary file, neither text nor Parquet (it holds NUL bytes): give a "
            "CSV, TSV or Parquet score table"
        )
    decoder = codecs.getincrementaldecoder(_python_encoding(enc))()
    try:
        return decoder.decode(head, final=complete)
    except UnicodeDecodeError as err:
        line = head[: err.start].count(b"\n") + 1
        byte = head[err.start : err.start + 1]
        raise UnreadableFileError(_encoding_problem(path, enc, err.start, line, byte)) from None


def _encoding_problem(path: str | Path, enc: str, offset: int, line: int, byte: bytes) -> str:
    label = "UTF-8" if enc == "utf8" else enc
    shown = f" is 0x{byte[0]:02x}" if byte else ""
    return (
        f"{path} is not valid {label} text: byte {offset} (line {line}){shown}; pass the "
        "file's encoding, e.g. encoding='latin-1' (CLI: --encoding latin-1), or save the file "
        "as UTF-8"
    )


def _delimiter(sep: str) -> str:
    sep = _SEP_ALIASES.get(sep, sep)
    if len(sep) != 1:
        raise ValueError(f"sep must be one character (e.g. ',', ';', '\\t'), not {sep!r}")
    return sep


def _fields(line: str, delimiter: str) -> int:
    return len(next(csv.reader([line], delimiter=delimiter)))


def _sniff(header: str, first: str | None, default: str) -> str:
    """The delimiter among ``,`` tab ``;`` ``|`` that splits the header (and the first row into
    as many fields); the extension's default wins a tie, then the most fields."""
    counts = {d: _fields(header, d) for d in DELIMITERS}
    candidates = [d for d in DELIMITERS if counts[d] > 1]
    if not candidates:
        return default
    if first is not None:
        consistent = [d for d in candidates if _fields(first, d) == counts[d]]
        candidates = consistent or candidates
    if default in candidates:
        return default
    return max(candidates, key=lambda d: counts[d])


# ---------------------------------------------------------------------------- reading
class _BadRows:
    """Arrow's ``invalid_row_handler``: counts rows whose number of fields differs from the
    header's (skipped by Arrow, refused by :meth:`check` with their line numbers)."""

    def __init__(self) -> None:
        self.more = 0
        self.fewer = 0

    def __call__(self, row: Any) -> str:
        if row.actual_columns > row.expected_columns:
            self.more += 1
        else:
            self.fewer += 1
        return "skip"

    def check(self, source: Source) -> None:
        if not (self.more or self.fewer):
            return
        more, fewer = _ragged_lines(source)
        n = len(source.columns)
        parts = []
        if self.more:
            parts.append(
                f"{self.more} row(s) with more fields than the header's {n} at "
                f"{_lines(more, self.more)} (a value holding the separator "
                f"{source.delimiter!r} must be quoted, or the header lacks a column name)"
            )
        if self.fewer:
            parts.append(
                f"{self.fewer} row(s) with fewer fields than the header's {n} at "
                f"{_lines(fewer, self.fewer)} (write an empty field for a missing score, e.g. "
                f"a{source.delimiter}t1{source.delimiter})"
            )
        raise InvalidScoresError(f"{source.path}: " + "; ".join(parts))


def _lines(lines: list[int], count: int) -> str:
    shown = ", ".join(map(str, lines[:5])) or "?"
    return f"line(s) {shown}" + (f" and {count - 5} more" if count > 5 else "")


def _input(source: Source) -> Any:
    import pyarrow as pa

    if source.compression in ("gzip", "bz2"):
        return pa.input_stream(source.path, compression=source.compression)
    if source.compression == "xz":  # not an Arrow codec: Python's lzma
        return pa.PythonFile(_open_bytes(source.path, "xz"), mode="r")
    return pa.input_stream(source.path, compression=None)  # never guessed from the name


def _csv_options(
    source: Source, columns: Sequence[str] | None, block_size: int | None, keys: Sequence[str]
) -> dict:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    wanted = list(columns) if columns is not None else list(source.columns)
    # Keys as dictionaries of strings: few distinct names, matched once per batch.
    key = pa.dictionary(pa.int32(), pa.string())
    read = {"column_names": list(source.columns), "skip_rows": source.skip_rows + 1}
    if block_size:
        read["block_size"] = block_size
    return {
        "read_options": pacsv.ReadOptions(encoding=source.encoding, **read),
        "convert_options": pacsv.ConvertOptions(
            # Text, always: keys keep their spelling, scores go through scores_as_float.
            column_types={c: key if c in keys else pa.string() for c in wanted},
            include_columns=wanted,
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    }


def _read_failure(source: Source, err: BaseException) -> UnreadableFileError:
    """One line for an error of Arrow's CSV reader (encoding, compression, parsing)."""
    text = str(err)
    if "UTF8" in text or "UTF-8" in text or isinstance(err, UnicodeDecodeError):
        found = _find_bad_byte(source)
        if found is not None:
            return UnreadableFileError(found)
    if source.compression and (isinstance(err, OSError | EOFError) or "ompress" in text):
        return UnreadableFileError(_compression_problem(source.path, source.compression, err))
    return UnreadableFileError(
        f"{source.path} cannot be read as {_delimiter_name(source.delimiter)}-separated text: "
        f"{_first_line(err)}"
    )


def _delimiter_name(delimiter: str) -> str:
    return {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}.get(
        delimiter, repr(delimiter)
    )


def _find_bad_byte(source: Source) -> str | None:
    """Error path: the first byte that is not valid in the encoding, as a message."""
    decoder = codecs.getincrementaldecoder(_python_encoding(source.encoding))()
    position = lines = 0  # bytes and newlines before the chunk
    with _open_bytes(source.path, source.compression) as fh:
        while True:
            chunk = fh.read(1 << 20)
            held = decoder.getstate()[0]  # bytes of a character cut by the previous chunk
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as err:
                data = held + chunk  # err.start counts from here
                line = lines - held.count(b"\n") + data[: err.start].count(b"\n") + 1
                return _encoding_problem(
                    source.path,
                    source.encoding,
                    position - len(held) + err.start,
                    line,
                    data[err.start : err.start + 1],
                )
            if not chunk:
                return None
            position += len(chunk)
            lines += chunk.count(b"\n")


def read_table(
    source: Source, columns: Sequence[str] | None = None, keys: Sequence[str] = ()
) -> Any:
    """The whole file as a ``pyarrow.Table``: Parquet types as written; for text, every column
    is text (``keys``: dictionary-encoded text)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if source.kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(source.path, columns=list(columns or source.columns))
        except (pa.ArrowException, OSError) as err:
            raise UnreadableFileError(
                f"{source.path} is not a readable Parquet file ({_first_line(err)}): it may be "
                "truncated (an interrupted write); write it again"
            ) from None
    bad = _BadRows()
    options = _csv_options(source, columns, None, keys)
    try:
        table = pacsv.read_csv(
            _input(source),
            parse_options=pacsv.ParseOptions(delimiter=source.delimiter, invalid_row_handler=bad),
            **options,
        )
    except (pa.ArrowException, OSError, EOFError, UnicodeDecodeError) as err:
        raise _read_failure(source, err) from None
    bad.check(source)
    return table


def batches(
    source: Source, columns: Sequence[str], batch_rows: int, keys: Sequence[str] = ()
) -> Iterator[Any]:
    """Record batches of at most ``batch_rows`` rows, in file order (the streamed read);
    columns as in :func:`read_table`."""
    import pyarrow as pa

    if source.kind == "parquet":
        import pyarrow.dataset as ds

        dataset = ds.dataset(source.path, format="parquet")
        yield from dataset.to_batches(
            columns=list(columns), batch_size=batch_rows, batch_readahead=1, fragment_readahead=1
        )
        return
    import pyarrow.csv as pacsv

    bad = _BadRows()
    # Arrow's CSV blocks are sized in bytes: ≈ 64 bytes a row, sliced to batch_rows below.
    block = int(min(max(batch_rows * 64, 1 << 16), 1 << 28))
    options = _csv_options(source, columns, block, keys)
    try:
        reader = pacsv.open_csv(
            _input(source),
            parse_options=pacsv.ParseOptions(delimiter=source.delimiter, invalid_row_handler=bad),
            **options,
        )
        for batch in reader:
            bad.check(source)
            for start in range(0, batch.num_rows, batch_rows):
                yield batch.slice(start, batch_rows)
    except (pa.ArrowException, OSError, EOFError, UnicodeDecodeError) as err:
        raise _read_failure(source, err) from None
    bad.check(source)


@contextlib.contextmanager
def _records(source: Source) -> Iterator[Iterator[tuple[int, list[str]]]]:
    """(first line, fields) of every record after the header, as Arrow reads them (empty lines
    skipped); Python's ``csv`` module, for line numbers on the error path."""
    with _open_bytes(source.path, source.compression) as raw:
        text = io.TextIOWrapper(raw, encoding=_python_encoding(source.encoding), newline="")

        def records() -> Iterator[tuple[int, list[str]]]:
            reader = csv.reader(text, delimiter=source.delimiter)
            previous, header = 0, source.skip_rows + 1
            for record in reader:
                start, previous = previous + 1, reader.line_num
                if not record:
                    continue
                if header:
                    header -= 1
                    continue
                yield start, record

        yield records()


def _ragged_lines(source: Source) -> tuple[list[int], list[int]]:
    """Error path: line numbers of the first rows with more / fewer fields than the header."""
    n = len(source.columns)
    more: list[int] = []
    fewer: list[int] = []
    with contextlib.suppress(Exception), _records(source) as records:
        for line, record in records:
            if len(record) > n and len(more) < 5:
                more.append(line)
            elif len(record) < n and len(fewer) < 5:
                fewer.append(line)
            if len(more) >= 5 and len(fewer) >= 5:
                break
    return more, fewer


def locate(source: Source, rows: Sequence[int]) -> list[str]:
    """``"line N"`` (text) or ``"row N"`` (Parquet, from 1) of data rows given by position."""
    rows = [int(r) for r in rows]
    if source.kind == "parquet":
        return [f"row {r + 1}" for r in rows]
    wanted = set(rows)
    found: dict[int, int] = {}
    with contextlib.suppress(Exception), _records(source) as records:
        for position, (line, _record) in enumerate(records):
            if position in wanted:
                found[position] = line
                if len(found) == len(wanted):
                    break
    return [f"line {found[r]}" if r in found else f"data row {r + 1}" for r in rows]


# ---------------------------------------------------------------------------- cells
def keys_as_text(column: Any) -> Any:
    """A key column as Arrow text: strings (or dictionaries of strings) unchanged, any other
    type cast with Arrow (an integer 7 is ``"7"``, ``True`` is ``"true"``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        if pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type):
            return column
        column = pc.cast(column, kind.value_type)
        kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return column
    try:
        return pc.cast(column, pa.string())
    except pa.ArrowException as err:
        raise InvalidScoresError(
            f"a key column of type {kind} cannot be read as names ({_first_line(err)})"
        ) from None


def blank_keys(column: Any) -> np.ndarray:
    """Positions of null, empty or whitespace-only keys (a key column as text). For dictionary
    columns only the dictionaries are inspected on the way to a clean result."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    found, offset = [], 0
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            words = _numpy_bool(pc.equal(pc.utf8_trim_whitespace(chunk.dictionary), ""))
            if chunk.null_count or words.any():
                indices = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
                mask = np.isin(indices, np.flatnonzero(words)) | _numpy_bool(chunk.is_null())
                found.append(np.flatnonzero(mask) + offset)
        else:
            blank = pc.or_kleene(pc.equal(pc.utf8_trim_whitespace(chunk), ""), chunk.is_null())
            found.append(np.flatnonzero(_numpy_bool(blank)) + offset)
        offset += len(chunk)
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


def _numpy_bool(values: Any) -> np.ndarray:
    import pyarrow.compute as pc

    return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)


def score_type_problem(kind: Any) -> str | None:
    """Why an Arrow type cannot hold scores, or ``None`` (numbers, text, all-null)."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if (
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_null(kind)
        or pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
    ):
        return None
    if pa.types.is_boolean(kind):
        return "boolean (true/false), not numbers; convert it to 0/1 if that is meant"
    return f"of type {kind}, not numbers"


@dataclass
class BadCells(Exception):
    """Score cells that are not numbers: positions in the column and their text."""

    rows: np.ndarray
    values: list[str] = field(default_factory=list)


def scores_as_float(column: Any, na_values: Sequence[str] | None = None) -> tuple[np.ndarray, int]:
    """Float scores of an Arrow column (NaN = not evaluated) and the number of cells read as
    missing because they hold one of ``na_values``.

    Numbers: nulls are missing. Text: stripped; empty = missing; a word of ``na_values``
    (exact, after stripping) = missing; anything else must be a plain decimal number. Missing-value
    words not in ``na_values``, other text and infinities raise :class:`BadCells`.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        column = pc.cast(column, kind.value_type)
        kind = column.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        values = np.asarray(
            pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64
        )
        infinite = np.isinf(values)
        if infinite.any():
            rows = np.flatnonzero(infinite)
            raise BadCells(rows, [repr(float(v)) for v in values[rows]])
        return values, 0
    try:  # fast path: every cell a number (or null); no empty cell, word or space
        values = np.asarray(
            pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64
        )
    except pa.ArrowInvalid:
        values = None
    if values is not None and not np.isinf(values).any():
        if not np.isnan(values).any() or np.isnan(values).sum() == column.null_count:
            return values, 0
    text = pc.utf8_trim_whitespace(column)
    drop = pc.or_kleene(pc.is_null(text), pc.equal(text, ""))
    n_na = 0
    if na_values:
        words = pa.array(sorted({str(w).strip() for w in na_values}), pa.string())
        na = pc.is_in(text, value_set=words)
        n_na = int(pc.sum(na).as_py() or 0)
        drop = pc.or_kleene(drop, na)
    cleaned = pc.if_else(drop, pa.scalar(None, pa.string()), text)
    try:
        numbers = pc.cast(cleaned, pa.float64())
    except pa.ArrowInvalid:
        numbers = None
    if numbers is not None:
        values = np.asarray(numbers.to_numpy(zero_copy_only=False), dtype=np.float64)
        # Arrow reads "nan", "inf", "Infinity" as numbers: they are words here.
        odd = ~np.isfinite(values) & ~_numpy_bool(pc.is_null(numbers))
        if not odd.any():
            return values, n_na
    else:  # error path: which cells are not plain numbers
        number = _numpy_bool(pc.match_substring_regex(cleaned, _NUMBER))
        odd = ~number & ~_numpy_bool(pc.is_null(cleaned))
        if not odd.any():  # Arrow refused a plain number: let its message speak
            pc.cast(cleaned, pa.float64())
    rows = np.flatnonzero(odd)
    raw = text.take(pa.array(rows)).to_pylist()
    raise BadCells(rows, [str(v) for v in raw])


def check_keys(source: Source, column: Any, key: str, offset: int = 0) -> None:
    """Refuse null, empty or blank keys of a text column, naming their lines (``offset``: rows
    of the file before this batch)."""
    blank = blank_keys(column)
    if len(blank):
        lines = ", ".join(locate(source, blank[:5] + offset))
        more = f", ... ({len(blank) - 5} more)" if len(blank) > 5 else ""
        raise InvalidScoresError(
            f"{source.path}: {len(blank)} row(s) with an empty {key!r} key ({lines}{more}): "
            f"every row needs a {key} name"
        )


def score_column(
    source: Source,
    column: Any,
    name: str,
    na_values: Sequence[str] | None,
    offset: int = 0,
    where: Callable[[np.ndarray], list[str]] | None = None,
    choose: str = "; choose the score column with score= (CLI: --score)",
) -> tuple[np.ndarray, int]:
    """:func:`scores_as_float` of a file's column, with the errors of both readers: a type that
    cannot hold scores, and bad cells named by their lines (``offset``: rows of the file before
    this batch; ``where`` overrides the naming, e.g. to add the system of a wide table)."""
    problem = score_type_problem(column.type)
    if problem:
        raise InvalidScoresError(f"{source.path}: column {name!r} is {problem}{choose}")
    try:
        return scores_as_float(column, na_values)
    except BadCells as bad:
        if where is None:

            def where(rows: np.ndarray) -> list[str]:
                return locate(source, rows + offset)

        hint = choose if "tasks=" in choose else ""
        raise InvalidScoresError(
            f"{source.path}: {cells_message(bad, name, where, hint)}"
        ) from None


def cell_kind(value: str) -> str:
    """``"missing"`` (a missing-value word), ``"infinite"`` or ``"text"``."""
    word = value.strip().casefold()
    if word in MISSING_WORDS:
        return "missing"
    if word.lstrip("+-") in ("inf", "infinity"):
        return "infinite"
    return "text"


def cells_message(
    bad: BadCells, column: str, where: Callable[[np.ndarray], list[str]], hint: str = ""
) -> str:
    """One line per kind of bad cell (missing-value words, text, infinities): count, up to five
    examples named by ``where`` (e.g. file lines), what to do."""
    kinds = np.array([cell_kind(v) for v in bad.values])
    parts = []
    for kind in ("missing", "text", "infinite"):
        picked = np.flatnonzero(kinds == kind)
        if not len(picked):
            continue
        labels = where(bad.rows[picked[:5]])
        examples = ", ".join(
            f"{label}: {bad.values[k]!r}" for label, k in zip(labels, picked[:5], strict=True)
        )
        if len(picked) > 5:
            examples += f", ... ({len(picked) - 5} more)"
        n = len(picked)
        if kind == "missing":
            words = list(dict.fromkeys(bad.values[k].strip() for k in picked))
            parts.append(
                f"{n} score cell(s) of column {column!r} hold missing-value words, refused by "
                f"default ({examples}); to read them as 'not evaluated' pass "
                f"na_values={words!r} (CLI: --na-values {' '.join(words)}), or leave the cells "
                "empty"
            )
        elif kind == "text":
            parts.append(
                f"{n} non-numeric score(s) in column {column!r} ({examples}): scores must be "
                f"plain numbers with a decimal point{hint}"
            )
        else:
            parts.append(
                f"{n} infinite score(s) in column {column!r} ({examples}): use an empty cell "
                "for 'not evaluated'"
            )
    return "; ".join(parts)


def na_warning(path: str, count: int, na_values: Sequence[str]) -> str:
    """The text of the DataWarning for score cells read as missing through ``na_values``."""
    return (
        f"{path}: read {count} score cell(s) holding {preview(sorted(set(na_values)))} as "
        "missing (not evaluated), as na_values asks"
    )


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


# ---------------------------------------------------------------------------- directories
def directory_files(directory: Path) -> tuple[list[Path], int | None]:
    """The score files of a streamed directory and the row count its manifest promises.

    Read: ``.parquet``, ``.pq``, ``.csv``, ``.tsv``, ``.tab``, ``.txt`` (the text ones also
    ``.gz`` / ``.bz2`` / ``.xz``) at any depth. Ignored: names starting with ``.`` or ``_`` (as
    Arrow's datasets: ``_SUCCESS``, ``_metadata``), the sidecars ``truth.json``,
    ``*.truth.json``, ``rankstats-manifest.json``, ``.rankstats-output``. Any other file is
    refused by name (it would otherwise be skipped silently). A ``rankstats simulate`` output
    (``truth.json``) must carry the ``rankstats-manifest.json`` that simulate writes last, and
    the files must be those it lists.
    """
    data, other = [], []
    for found in sorted(directory.rglob("*")):
        relative = found.relative_to(directory)
        if any(part.startswith((".", "_")) for part in relative.parts) or found.is_dir():
            continue
        if found.name in SIDECARS or found.name.endswith(".truth.json"):
            continue
        (data if is_score_file_name(found.name) else other).append(found)
    if other:
        names = [f.relative_to(directory).as_posix() for f in other]
        raise UnreadableFileError(
            f"{directory} holds {len(other)} file(s) that are not score tables and would be "
            f"skipped: {preview(names, 5)}; move them out, or pass the score files themselves "
            "(.parquet, .pq, .csv, .tsv, .tab, .txt, optionally .gz / .bz2 / .xz)"
        )
    rows = _check_manifest(directory, data)
    if not data:
        raise FileNotFoundError(
            f"no score file (.parquet, .pq, .csv, .tsv, .tab, .txt) in directory {directory}"
        )
    return data, rows


def _check_manifest(directory: Path, data: list[Path]) -> int | None:
    manifest = directory / MANIFEST
    incomplete = f"{directory} is an incomplete rankstats simulate output (interrupted?)"
    if not manifest.exists():
        if (directory / "truth.json").exists():
            raise UnreadableFileError(
                f"{incomplete}: it has truth.json but not {MANIFEST}, which simulate writes "
                "last; run the simulation again"
            )
        return None
    try:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        listed = [str(f) for f in meta["files"]]
        complete = meta.get("complete") is True
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UnreadableFileError(
            f"{incomplete}: {MANIFEST} is unreadable ({_first_line(err)}); run the simulation again"
        ) from None
    if not complete:
        raise UnreadableFileError(f"{incomplete}: {MANIFEST} does not say complete: true")
    names = {f.relative_to(directory).as_posix() for f in data}
    absent = [f for f in listed if f not in names]
    if absent:
        raise UnreadableFileError(
            f"{incomplete}: {len(absent)} file(s) listed in {MANIFEST} are missing: "
            f"{preview(absent, 5)}; run the simulation again"
        )
    extra = sorted(names - set(listed))
    if extra:
        raise UnreadableFileError(
            f"{directory} holds {len(extra)} data file(s) not listed in its {MANIFEST}: "
            f"{preview(extra, 5)} (left by another run, or an incomplete rankstats simulate "
            "output (interrupted?)); remove them, or simulate into an empty directory"
        )
    rows = meta.get("rows")
    return int(rows) if isinstance(rows, int) else None


def read_score_columns(
    path: str | Path,
    sep: str | None = None,
    encoding: str = "utf-8",
    na_values: Sequence[str] | None = None,
) -> Any:
    """Every column of a file as scores: the layout of paired files (pairformance), one row per
    instance and one column per system.

    The same rules as :func:`rankstats.read_scores`: unreadable files, duplicated columns and
    ragged rows are refused; a blank cell is missing; missing-value words are refused unless
    listed in ``na_values`` (then a ``DataWarning`` counts them); other text is refused with its
    line numbers.

    Returns
    -------
    pandas.DataFrame
        Float columns named as in the file (NaN = not evaluated).
    """
    import warnings

    import pandas as pd

    from rankstats.errors import DataWarning

    source = inspect(path, sep, encoding)
    table = read_table(source)
    columns, n_na = {}, 0
    for name in table.column_names:
        values, count = score_column(source, table.column(name), name, na_values, choose="")
        columns[name] = values
        n_na += count
    if n_na:
        warnings.warn(na_warning(source.path, n_na, na_values or ()), DataWarning, stacklevel=2)
    return pd.DataFrame(columns)

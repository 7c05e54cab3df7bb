"""A score file read as an Arrow table (whole, or in record batches for the streamed read), and
the file lines of its rows for messages.

Text files are read by Arrow's multi-threaded CSV reader with every column as text (keys as
dictionaries of strings). Rows with more or fewer fields than the header are refused with their
line numbers; the line numbers are computed on the error path only, by re-reading the file with
Python's ``csv`` module. Parquet rows are numbered from 1.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
from collections.abc import Iterator, Sequence
from typing import Any

from rankstats.errors import InvalidScoresError, UnreadableFileError
from rankstats.io.csv_dialect import delimiter_name
from rankstats.io.file_bytes import (
    compression_problem,
    encoding_problem,
    first_line,
    open_bytes,
    python_encoding,
)
from rankstats.io.sources import Source


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
        return pa.PythonFile(open_bytes(source.path, "xz"), mode="r")
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
            return found
    if source.compression and (isinstance(err, OSError | EOFError) or "ompress" in text):
        return UnreadableFileError(compression_problem(source.path, source.compression, err))
    return UnreadableFileError(
        f"{source.path} cannot be read as {delimiter_name(source.delimiter)}-separated text: "
        f"{first_line(err)}"
    )


def _find_bad_byte(source: Source) -> UnreadableFileError | None:
    """Error path: the first byte that is not valid in the encoding, as an error."""
    decoder = codecs.getincrementaldecoder(python_encoding(source.encoding))()
    position = lines = 0  # bytes and newlines before the chunk
    with open_bytes(source.path, source.compression) as fh:
        while True:
            chunk = fh.read(1 << 20)
            held = decoder.getstate()[0]  # bytes of a character cut by the previous chunk
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as err:
                data = held + chunk  # err.start counts from here
                line = lines - held.count(b"\n") + data[: err.start].count(b"\n") + 1
                return encoding_problem(
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
                f"{source.path} is not a readable Parquet file ({first_line(err)}): it may be "
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
    with open_bytes(source.path, source.compression) as raw:
        text = io.TextIOWrapper(raw, encoding=python_encoding(source.encoding), newline="")

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

"""The bytes of a file as text: decompression, decoding, and the one-line messages for what
cannot be read (a truncated compressed stream, bytes that are not valid in the encoding).

Text is UTF-8 by default (Arrow's ``utf8``, which skips a byte-order mark); another encoding is
transcoded by Python. Compression (gzip, bz2, xz) comes from the magic bytes, never the name.
"""

from __future__ import annotations

import codecs
import io
from pathlib import Path

from rankstats._util.advice import AdviceFileError, escape
from rankstats.errors import UnreadableFileError

HEAD_BYTES = 1 << 16  # bytes decoded up front: header, first row, encoding and binary checks


def encoding_name(encoding: str) -> str:
    """Arrow's name of ``encoding`` (``"utf8"`` for UTF-8 with or without a BOM); an unknown
    encoding is refused."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r} (e.g. 'utf-8', 'latin-1')") from None
    # Arrow reads UTF-8 natively (and skips a BOM); other encodings are transcoded by Python.
    return "utf8" if name in ("utf-8", "utf-8-sig") else name


def python_encoding(enc: str) -> str:
    """Python's codec for an Arrow encoding name (UTF-8 skipping a byte-order mark)."""
    return "utf-8-sig" if enc == "utf8" else enc


def open_bytes(path: str | Path, compression: str | None) -> io.BufferedIOBase:
    """The file's bytes, decompressed (``compression``: ``"gzip"``, ``"bz2"``, ``"xz"`` or
    ``None``)."""
    import bz2
    import gzip
    import lzma

    opener = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(compression or "", open)
    return opener(path, "rb")


def read_head(path: Path, compression: str | None) -> bytes:
    """The first :data:`HEAD_BYTES` bytes, decompressed; a truncated stream is refused."""
    try:
        with open_bytes(path, compression) as fh:
            return fh.read(HEAD_BYTES)
    except (OSError, EOFError) as err:
        raise UnreadableFileError(compression_problem(path, compression, err)) from None


def compression_problem(path: str | Path, compression: str | None, err: BaseException) -> str:
    """The message for a compressed file that cannot be decompressed."""
    return (
        f"{path} is a truncated or corrupt {compression or 'compressed'} file "
        f"({first_line(err)}): download or write it again"
    )


def decode_head(path: Path, head: bytes, enc: str, complete: bool) -> str:
    """``head`` as text; UTF-16 without ``encoding=``, NUL bytes (binary data) and bytes that
    are not valid in ``enc`` are refused (``complete``: ``head`` is the whole file)."""
    utf16 = head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    if utf16 and not enc.startswith(("utf-16", "utf_16")):
        raise AdviceFileError(
            escape(f"{path} is UTF-16 text (it begins with a UTF-16 byte-order mark): pass ")
            + "{encoding}, or save it as UTF-8",
            encoding="utf-16",
        )
    if b"\x00" in head and not enc.startswith(("utf-16", "utf_16", "utf-32", "utf_32")):
        raise UnreadableFileError(
            f"{path} is a binary file, neither text nor Parquet (it holds NUL bytes): give a "
            "CSV, TSV or Parquet score table"
        )
    decoder = codecs.getincrementaldecoder(python_encoding(enc))()
    try:
        return decoder.decode(head, final=complete)
    except UnicodeDecodeError as err:
        line = head[: err.start].count(b"\n") + 1
        byte = head[err.start : err.start + 1]
        raise encoding_problem(path, enc, err.start, line, byte) from None


def encoding_problem(
    path: str | Path, enc: str, offset: int, line: int, byte: bytes
) -> UnreadableFileError:
    """The error for a byte that is not valid in the encoding, at ``offset`` (``line``)."""
    label = "UTF-8" if enc == "utf8" else enc
    shown = f" is 0x{byte[0]:02x}" if byte else ""
    return AdviceFileError(
        escape(f"{path} is not valid {label} text: byte {offset} (line {line}){shown}; ")
        + "pass the file's encoding, e.g. {encoding}, or save the file as UTF-8",
        encoding="latin-1",
    )


def first_line(err: BaseException) -> str:
    """The first line of an exception's message (its type when the message is empty)."""
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]

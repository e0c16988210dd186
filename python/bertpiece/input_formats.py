"""Input files (of `bertpiece encode`, `train` and the trainers): format detection and batch readers.

Every reader yields `Batch`es of exactly `batch_size` rows (the last one may
be shorter), so batch boundaries depend only on the input and the options:
that is what makes a resumed run byte-identical to an uninterrupted one.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Iterator

from ._errors import UserError

TEXT_KINDS = ("txt", "jsonl", "parquet")
COMPRESSIONS = {"gz": "gzip", "zst": "zstd"}
CLI_EXTRA = "pip install pyarrow zstandard"  # from PyPI; bertpiece itself is not there


def need_pyarrow(what: str):
    """pyarrow, or a one-line UserError naming the extra to install."""
    try:
        import pyarrow as pa
        import pyarrow.parquet  # noqa: F401  (loads the submodule)
    except ImportError:
        raise UserError(f"{what} needs pyarrow: {CLI_EXTRA}") from None
    return pa


def need_zstandard():
    try:
        import zstandard
    except ImportError:
        raise UserError(f"reading .zst files needs the zstandard package: {CLI_EXTRA}") from None
    return zstandard


@dataclass
class Batch:
    """`texts` to encode, plus the input's other columns (`extra`, a pyarrow
    Table or None) and how many of the rows had invalid UTF-8."""
    texts: list
    extra: Any = None
    invalid_utf8: int = 0


def detect(path: str) -> tuple[str, str | None]:
    """(kind, compression) from the input's name: `corpus.txt.gz` -> ("txt", "gzip")."""
    if path == "-":
        return "txt", None
    name = os.path.basename(path).lower()
    compression = None
    stem, _, ext = name.rpartition(".")
    if ext in COMPRESSIONS:
        compression = COMPRESSIONS[ext]
        stem, _, ext = stem.rpartition(".")
    if not stem or ext not in TEXT_KINDS:
        raise UserError(f"{path}: unknown input type; expected .txt, .jsonl or .parquet "
                        "(optionally .gz or .zst compressed), or - for stdin")
    return ext, compression


class CountingReader(io.RawIOBase):
    """A raw binary stream that counts the bytes read through it (stdin progress)."""

    def __init__(self, raw):
        self.raw, self.count = raw, 0

    def readable(self):
        return True

    def readinto(self, b):
        n = self.raw.readinto(b)
        self.count += n or 0
        return n


class ZstdReader(io.RawIOBase):
    """Decompresses a .zst stream (one or more frames). Unlike zstandard's
    stream_reader, a stream cut inside a frame is an error, not a silent
    short read."""

    def __init__(self, raw, zstandard):
        self.raw = raw
        self.dctx = zstandard.ZstdDecompressor()
        self.obj = self.dctx.decompressobj()
        self.in_frame = False
        self.buf, self.pos = b"", 0

    def readable(self):
        return True

    def readinto(self, b):
        while self.pos >= len(self.buf):
            chunk = self.raw.read(1 << 20)
            if not chunk:
                if self.in_frame:
                    raise EOFError("compressed file ended before the end of its zstd frame")
                return 0
            out = []
            while chunk:
                self.in_frame = True
                out.append(self.obj.decompress(chunk))
                if not self.obj.eof:
                    break
                chunk = self.obj.unused_data  # the next frame starts here
                self.obj = self.dctx.decompressobj()
                self.in_frame = False
            self.buf, self.pos = b"".join(out), 0
        n = min(len(b), len(self.buf) - self.pos)
        b[:n] = self.buf[self.pos:self.pos + n]
        self.pos += n
        return n


class Source:
    """One input file (or stdin); `batches()` reads it once, from `skip_rows` on."""

    def __init__(self, path: str, *, field: str = "text", column: str = "text", workdir_for_temp=None,
                 want_extra: bool = True):
        self.path = path
        self.want_extra = want_extra  # pass the other fields/columns through (Parquet output only)
        self.kind, self.compression = detect(path)
        self.field, self.column = field, column
        self._raw = None
        self._counter = None
        self._schema = None  # jsonl passthrough schema (fixed by the first batch or the resume state)
        self._parquet_rows_read = 0
        if path == "-":
            self.total_bytes = None
            return
        try:
            st = os.stat(path)
            if not os.path.isfile(path):
                raise UserError(f"cannot read {path}: not a regular file")
            with open(path, "rb"):
                pass
        except OSError as e:
            raise UserError(f"cannot read {path}: {e.strerror or e}") from None
        self.total_bytes = st.st_size
        self.mtime_ns = st.st_mtime_ns
        if self.compression == "zstd":
            need_zstandard()
        if self.kind == "parquet":
            need_pyarrow("reading Parquet")
        self._temp_parquet = workdir_for_temp

    # ----------------------------------------------------------- progress
    def bytes_read(self) -> int:
        """Input bytes consumed so far (compressed bytes for .gz/.zst)."""
        if self._counter is not None:
            return self._counter.count
        if self.kind == "parquet":
            total = getattr(self, "_parquet_total_rows", 0)
            return int((self.total_bytes or 0) * self._parquet_rows_read / total) if total else 0
        if self._raw is not None and not self._raw.closed:
            try:
                return self._raw.tell()
            except (OSError, ValueError):
                return 0
        return self.total_bytes or 0

    # ------------------------------------------------------------- streams
    def _open_binary(self):
        """The decompressed input as a buffered binary stream."""
        if self.path == "-":
            self._counter = CountingReader(sys.stdin.buffer)
            return io.BufferedReader(self._counter, 1 << 20)
        self._raw = open(self.path, "rb", buffering=1 << 20)
        if self.compression == "gzip":
            return io.BufferedReader(gzip.GzipFile(fileobj=self._raw, mode="rb"), 1 << 20)
        if self.compression == "zstd":
            return io.BufferedReader(ZstdReader(self._raw, need_zstandard()), 1 << 20)
        return self._raw

    def close(self):
        if self._raw is not None:
            self._raw.close()

    # ------------------------------------------------------------- batches
    def set_schema(self, schema):
        self._schema = schema

    @property
    def schema(self):
        """The passthrough columns' Arrow schema (jsonl: known after the first batch)."""
        return self._schema

    def batches(self, batch_size: int, skip_rows: int = 0) -> Iterator[Batch]:
        if self.kind == "parquet":
            return self._parquet_batches(batch_size, skip_rows)
        return self._line_batches(batch_size, skip_rows)

    def _line_batches(self, batch_size, skip_rows):
        stream = self._open_binary()
        try:
            lines = iter(stream)  # binary line iteration splits on b"\n" only
            if skip_rows:
                skipped = sum(1 for _ in itertools.islice(lines, skip_rows))
                if skipped < skip_rows:
                    raise UserError(f"cannot resume: {self.path} has fewer rows ({skipped}) than already encoded "
                                    f"({skip_rows}); was it changed?")
            row = skip_rows
            while True:
                raw = list(itertools.islice(lines, batch_size))
                if not raw:
                    return
                texts, invalid = decode_lines(raw)
                if self.kind == "jsonl":
                    yield self._jsonl_batch(texts, invalid, row)
                else:
                    yield Batch(texts, None, invalid)
                row += len(raw)
        except UserError:
            raise
        except (OSError, EOFError, ValueError, *self._codec_errors()) as e:
            raise UserError(f"cannot read {self.path}: {e}") from None
        finally:
            stream.close()
            self.close()

    def _codec_errors(self):
        return (need_zstandard().ZstdError,) if self.compression == "zstd" else ()

    def _jsonl_batch(self, lines, invalid, row0):
        texts, others, keys = [], [], set()
        for k, line in enumerate(lines):
            try:
                record = json.loads(line)
            except ValueError as e:
                raise UserError(f"{self.path}: line {row0 + k + 1}: invalid JSON ({e})") from None
            if not isinstance(record, dict):
                raise UserError(f"{self.path}: line {row0 + k + 1}: expected a JSON object")
            if self.field not in record:
                raise UserError(f"{self.path}: line {row0 + k + 1}: no field {self.field!r} (choose one with --field)")
            text = record.pop(self.field)
            if not isinstance(text, str):
                raise UserError(f"{self.path}: line {row0 + k + 1}: field {self.field!r} is "
                                f"{type(text).__name__}, not a string")
            texts.append(text)
            others.append(record)
            keys.update(record)
        if not self.want_extra:
            return Batch(texts, None, invalid)
        pa = need_pyarrow("passing jsonl fields through")
        if self._schema is None:  # fixed by the first batch (and saved in the resume state)
            self._schema = pa.Table.from_pylist(others).schema if keys else pa.schema([])
        unknown = keys.difference(self._schema.names)
        if unknown:
            raise UserError(f"{self.path}: field {sorted(unknown)[0]!r} appears after row {row0}, but passthrough "
                            "columns are fixed by the first batch (use --batch-size or a Parquet input)")
        if len(self._schema) == 0:
            return Batch(texts, None, invalid)
        try:
            extra = pa.Table.from_pylist(others, schema=self._schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            unknown_type = [f.name for f in self._schema if pa.types.is_null(f.type)
                            and any(r.get(f.name) is not None for r in others)]
            if unknown_type:
                raise UserError(f"{self.path}: field {unknown_type[0]!r} is null in every row of the first batch, "
                                "so its type is unknown; use a larger --batch-size or a Parquet input") from None
            raise UserError(f"{self.path}: rows {row0 + 1}-{row0 + len(texts)}: a field's type differs from the "
                            f"first batch's ({e})") from None
        return Batch(texts, extra, invalid)

    def _parquet_batches(self, batch_size, skip_rows):
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.path
        if self.compression is not None:
            path = self._decompress_to_temp()
        try:
            pf = pq.ParquetFile(path)
        except (OSError, pa.ArrowException) as e:
            raise UserError(f"cannot read {self.path}: {e}") from None
        schema = pf.schema_arrow
        if self.column not in schema.names:
            raise UserError(f"{self.path}: no column {self.column!r} (columns: {', '.join(schema.names)}; "
                            "choose one with --column)")
        ctype = schema.field(self.column).type
        if not (pa.types.is_string(ctype) or pa.types.is_large_string(ctype)
                or getattr(pa.types, "is_string_view", lambda t: False)(ctype)):
            raise UserError(f"{self.path}: column {self.column!r} is {ctype}, not a string column")
        self._parquet_total_rows = pf.metadata.num_rows
        if skip_rows > pf.metadata.num_rows:
            raise UserError(f"cannot resume: {self.path} has fewer rows than already encoded; was it changed?")
        self._schema = pa.schema([f for f in schema if f.name != self.column])
        pending, have, row = [], 0, 0
        try:
            for rb in pf.iter_batches(batch_size=max(batch_size, 1024)):
                if row + rb.num_rows <= skip_rows:
                    row += rb.num_rows
                    self._parquet_rows_read = row
                    continue
                if row < skip_rows:
                    rb = rb.slice(skip_rows - row)
                    row = skip_rows
                pending.append(rb)
                have += rb.num_rows
                while have >= batch_size:
                    table = pa.Table.from_batches(pending)
                    yield self._parquet_batch(table.slice(0, batch_size), row)
                    row += batch_size
                    self._parquet_rows_read = row
                    rest = table.slice(batch_size)
                    pending, have = rest.to_batches(), rest.num_rows
            if have:
                yield self._parquet_batch(pa.Table.from_batches(pending), row)
                self._parquet_rows_read = row + have
        except (OSError, pa.ArrowException) as e:
            raise UserError(f"cannot read {self.path}: {e}") from None

    def _parquet_batch(self, table, row0):
        col = table.column(self.column)
        if col.null_count:
            first = next(k for k, v in enumerate(col.is_null().to_pylist()) if v)
            raise UserError(f"{self.path}: row {row0 + first + 1}: column {self.column!r} is null")
        extra = table.drop_columns([self.column]) if table.num_columns > 1 and self.want_extra else None
        return Batch(col.to_pylist(), extra, 0)

    def _decompress_to_temp(self):
        """Parquet needs random access: a compressed .parquet.gz/.zst is
        decompressed once into the run's work directory."""
        import shutil

        target = os.path.join(self._temp_parquet, "input.parquet")
        stream = self._open_binary()
        try:
            with open(target, "wb") as out:
                shutil.copyfileobj(stream, out, 1 << 20)
        except (OSError, EOFError, *self._codec_errors()) as e:
            if isinstance(e, OSError) and e.filename == target:
                raise
            raise UserError(f"cannot read {self.path}: {e}") from None
        finally:
            stream.close()
            self.close()
        self._raw = None
        return target


def decode_lines(raw: list) -> tuple[list, int]:
    """Lines without their one trailing "\\n" or "\\r\\n", decoded as UTF-8;
    invalid bytes are dropped (Google's `convert_to_unicode`) and counted."""
    texts, invalid = [], 0
    for line in raw:
        if line.endswith(b"\n"):
            line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
        try:
            texts.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            texts.append(line.decode("utf-8", "ignore"))
            invalid += 1
    return texts, invalid

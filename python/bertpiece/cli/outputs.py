"""Output side of `bertpiece encode`: Parquet, .npy and .bin/.idx writers.

All writers work inside a work directory next to the output and move the
finished files into place in `finalize()`, the main OUTPUT file last (so
OUTPUT existing means the run completed). `checkpoint()` makes everything
written so far durable and returns the small dict the resume state records;
a writer built with that dict continues exactly where the checkpoint was.
"""

from __future__ import annotations

import os
import shutil
import struct
from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------- .bin/.idx
IDX_MAGIC = b"BPIECEIX"
IDX_VERSION = 1
IDX_HEADER = struct.Struct("<8sIIQQQ24x")  # magic, version, itemsize, n_rows, n_tokens, flags -> 64 bytes
IDX_HAS_SOURCE_ROW = 1
BIN_DTYPES: dict[int, np.dtype] = {2: np.dtype("<u2"), 4: np.dtype("<i4")}

# ----------------------------------------------------------------------- .npy
NPY_HEADER_BYTES = 128  # fixed, so the final shape can be written over the placeholder


@dataclass
class EncodedRows:
    """One encoded batch: `ids` int32, batch-local `row_splits` int64 (n+1),
    `offsets` int32 (n_tokens, 2) or None; with overflow windows, `source_row`
    int64 (n, input row numbers) and `batch_row` (n, rows of the batch)."""
    ids: np.ndarray
    row_splits: np.ndarray
    offsets: np.ndarray | None = None
    source_row: np.ndarray | None = None
    batch_row: np.ndarray | None = None

    def __len__(self):
        return len(self.row_splits) - 1


def sibling(output: str, suffix: str) -> str:
    """`out.npy` + "row_splits" -> `out.row_splits.npy`; `out.bin` + "idx" -> `out.idx`."""
    stem, ext = os.path.splitext(output)
    return f"{stem}.{suffix}{ext}" if ext == ".npy" else f"{stem}.{suffix}"


def output_files(output: str, fmt: str, with_source_row: bool) -> list:
    """Every file the run creates, the main output last."""
    if fmt == "npy":
        extra = [sibling(output, "row_splits")] + ([sibling(output, "source_row")] if with_source_row else [])
        return extra + [output]
    if fmt == "bin":
        return [sibling(output, "idx"), output]
    return [output]


def _fsync(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def npy_header(dtype: np.dtype, n: int) -> bytes:
    """A version 1.0 .npy header of exactly NPY_HEADER_BYTES bytes for a 1-D array."""
    desc = f"{{'descr': '{dtype.str}', 'fortran_order': False, 'shape': ({n},), }}"
    body_len = NPY_HEADER_BYTES - 10
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", body_len) + desc.ljust(body_len - 1).encode("latin1") + b"\n"


class _AppendFile:
    """A binary file appended to, truncated back to `size` on resume."""

    def __init__(self, path, size, header=b""):
        if size is None:
            self.f = open(path, "wb")
            try:
                self.f.write(header)
            except BaseException:
                self.f.close()
                raise
        else:
            self.f = open(path, "r+b")
            self.f.truncate(size)
            self.f.seek(size)

    def write(self, array):
        self.f.write(memoryview(np.ascontiguousarray(array)).cast("B"))

    def sync(self):
        self.f.flush()
        os.fsync(self.f.fileno())
        return self.f.tell()

    def close(self):
        self.f.close()


class FlatWriter:
    """.npy (ids + `.row_splits.npy` [+ `.source_row.npy`]) or .bin + .idx:
    written straight into work-directory files, headers completed at the end."""

    def __init__(self, workdir, output, fmt, *, with_source_row, bin_itemsize=4, state=None):
        self.workdir, self.output, self.fmt = workdir, output, fmt
        self.with_source_row = with_source_row
        self.dtype = np.dtype("<i4") if fmt == "npy" else BIN_DTYPES[bin_itemsize]
        state = state or {}
        self.n_rows, self.n_tokens = state.get("n_rows", 0), state.get("n_tokens", 0)
        resume = bool(state)
        head = NPY_HEADER_BYTES if fmt == "npy" else 0
        hdr = (lambda dt: npy_header(dt, 0)) if fmt == "npy" else (lambda dt: b"")
        self.ids = self.splits = self.source = None
        try:
            self.ids = _AppendFile(self._path("ids"), head + self.n_tokens * self.dtype.itemsize if resume else None,
                                   hdr(self.dtype))
            self.splits = _AppendFile(self._path("row_splits"), head + 8 * (self.n_rows + 1) if resume else None,
                                      hdr(np.dtype("<i8")))
            if not resume:
                self.splits.write(np.zeros(1, "<i8"))
            if with_source_row:
                self.source = _AppendFile(self._path("source_row"), head + 8 * self.n_rows if resume else None,
                                          hdr(np.dtype("<i8")))
        except BaseException:
            self.close()
            raise

    def _path(self, name):
        return os.path.join(self.workdir, f"{name}.{'npy' if self.fmt == 'npy' else 'raw'}")

    def write(self, rows: EncodedRows, extra=None):
        ids = rows.ids
        if self.dtype != ids.dtype:
            ids = ids.astype(self.dtype)
        self.ids.write(ids)
        self.splits.write(rows.row_splits[1:] + self.n_tokens)
        if self.source is not None:
            assert rows.source_row is not None, "overflow rows carry their source row"
            self.source.write(rows.source_row.astype("<i8", copy=False))
        self.n_rows += len(rows)
        self.n_tokens += len(rows.ids)

    def checkpoint(self) -> dict:
        for f in (self.ids, self.splits, self.source):
            if f is not None:
                f.sync()
        return {"n_rows": self.n_rows, "n_tokens": self.n_tokens}

    def close(self):
        for f in (self.ids, self.splits, self.source):
            if f is not None:
                f.close()

    def finalize(self):
        self.checkpoint()
        self.close()
        if self.fmt == "npy":
            for name, dtype, n in (("ids", self.dtype, self.n_tokens), ("row_splits", np.dtype("<i8"), self.n_rows + 1),
                                   ("source_row", np.dtype("<i8"), self.n_rows)):
                if name == "source_row" and not self.with_source_row:
                    continue
                with open(self._path(name), "r+b") as f:
                    f.write(npy_header(dtype, n))
                    os.fsync(f.fileno())
            moves = [(self._path("row_splits"), sibling(self.output, "row_splits"))]
            if self.with_source_row:
                moves.append((self._path("source_row"), sibling(self.output, "source_row")))
            moves.append((self._path("ids"), self.output))
        else:
            idx = os.path.join(self.workdir, "index.idx")
            with open(idx, "wb") as out:
                out.write(IDX_HEADER.pack(IDX_MAGIC, IDX_VERSION, self.dtype.itemsize, self.n_rows, self.n_tokens,
                                          IDX_HAS_SOURCE_ROW if self.with_source_row else 0))
                for name in ("row_splits", "source_row") if self.with_source_row else ("row_splits",):
                    with open(self._path(name), "rb") as src:
                        shutil.copyfileobj(src, out, 1 << 20)
                out.flush()
                os.fsync(out.fileno())
            moves = [(idx, sibling(self.output, "idx")), (self._path("ids"), self.output)]
        for src, dst in moves:
            os.replace(src, dst)


class ParquetPartsWriter:
    """Parquet: each checkpoint interval goes to an Arrow IPC part file in the
    work directory; `finalize()` streams the parts, one row group per encoded
    batch, into OUTPUT. Parts make resuming possible (a Parquet file cannot
    be appended to) and keep the final file independent of interruptions."""

    def __init__(self, workdir, output, *, columns, state=None):
        import pyarrow as pa

        self.pa = pa
        self.workdir, self.output, self.columns = workdir, output, columns
        self.parts = (state or {}).get("parts", 0)
        for name in os.listdir(workdir):  # parts written after the last checkpoint
            if name.startswith("part-") and int(name[5:11]) >= self.parts:
                os.remove(os.path.join(workdir, name))
        self.current = None
        self.current_path = None

    def _part(self, k):
        return os.path.join(self.workdir, f"part-{k:06d}.arrow")

    def to_table(self, rows: EncodedRows, extra):
        pa = self.pa
        offsets = _arrow(pa, rows.row_splits.astype("<i4"), pa.int32())
        cols = {"input_ids": pa.ListArray.from_arrays(offsets, _arrow(pa, rows.ids, pa.int32()))}
        if "attention_mask" in self.columns:
            cols["attention_mask"] = pa.ListArray.from_arrays(offsets, _arrow(pa, np.ones(len(rows.ids), "i1"),
                                                                              pa.int8()))
        if "token_type_ids" in self.columns:
            cols["token_type_ids"] = pa.ListArray.from_arrays(offsets, _arrow(pa, np.zeros(len(rows.ids), "i1"),
                                                                              pa.int8()))
        if "offset_mapping" in self.columns:
            assert rows.offsets is not None, "offsets were asked for"
            pairs = pa.FixedSizeListArray.from_arrays(_arrow(pa, rows.offsets.reshape(-1), pa.int32()), 2)
            cols["offset_mapping"] = pa.ListArray.from_arrays(offsets, pairs)
        if rows.source_row is not None:
            cols["source_row"] = _arrow(pa, rows.source_row, pa.int64())
        if extra is not None:
            if rows.batch_row is not None:  # overflow windows repeat their source row's columns
                extra = extra.take(_arrow(pa, rows.batch_row, pa.int64()))
            for name, col in zip(extra.column_names, extra.columns):
                if name in cols:
                    from . import UserError

                    raise UserError(f"input column {name!r} clashes with an output column of the same name")
                cols[name] = col.combine_chunks() if hasattr(col, "combine_chunks") else col
        return pa.Table.from_arrays(list(cols.values()), names=list(cols))

    def write(self, rows: EncodedRows, extra=None):
        table = self.to_table(rows, extra)
        if self.current is None:
            self.current_path = self._part(self.parts)
            self.current = self.pa.ipc.new_stream(self.current_path, table.schema)
        self.current.write_table(table.combine_chunks())  # one record batch -> one row group

    def checkpoint(self) -> dict:
        if self.current is not None:
            self.current.close()
            _fsync(self.current_path)
            self.current = None
            self.parts += 1
        return {"parts": self.parts}

    def close(self):
        if self.current is not None:
            self.current.close()
            self.current = None

    def finalize(self, empty_schema=None):
        import pyarrow.parquet as pq

        self.checkpoint()
        target = os.path.join(self.workdir, "output.parquet")
        writer = None
        try:
            for k in range(self.parts):
                with self.pa.ipc.open_stream(self._part(k)) as reader:
                    if writer is None:
                        writer = pq.ParquetWriter(target, reader.schema)
                    for rb in reader:
                        writer.write_batch(rb)
            if writer is None:  # empty input: a valid file with the columns and no rows
                writer = pq.ParquetWriter(target, empty_schema)
        finally:
            if writer is not None:
                writer.close()
        _fsync(target)
        os.replace(target, self.output)


def _arrow(pa, array: np.ndarray, type_):
    """A NumPy array as an Arrow array, zero-copy (`pa.array` would import pandas)."""
    array = np.ascontiguousarray(array, dtype=type_.to_pandas_dtype())
    return pa.Array.from_buffers(type_, len(array), [None, pa.py_buffer(array)])


def read_bin(path: str):
    """Reads a `bertpiece encode` .bin output: `(ids, row_splits)`.

    `ids` is a read-only memory map (uint16 or int32, as stored); row `i` is
    `ids[row_splits[i]:row_splits[i + 1]]`. The index is `OUTPUT` with the
    extension replaced by `.idx`.
    """
    index = read_bin_index(path)
    return index["ids"], index["row_splits"]


def read_bin_index(path: str) -> dict:
    """Everything in a .bin/.idx pair: ids, row_splits, source_row (or None), dtype."""
    idx = sibling(os.fspath(path), "idx")
    with open(idx, "rb") as f:
        head = f.read(IDX_HEADER.size)
        if len(head) < IDX_HEADER.size:
            raise ValueError(f"{idx}: truncated index header")
        magic, version, itemsize, n_rows, n_tokens, flags = IDX_HEADER.unpack(head)
        if magic != IDX_MAGIC:
            raise ValueError(f"{idx}: not a bertpiece index (bad magic {magic!r})")
        if version != IDX_VERSION or itemsize not in BIN_DTYPES:
            raise ValueError(f"{idx}: unsupported index version {version} / item size {itemsize}")
        row_splits = np.fromfile(f, dtype="<i8", count=n_rows + 1)
        source_row = np.fromfile(f, dtype="<i8", count=n_rows) if flags & IDX_HAS_SOURCE_ROW else None
    dtype = BIN_DTYPES[itemsize]
    size = os.path.getsize(path)
    if size != n_tokens * itemsize or len(row_splits) != n_rows + 1:
        raise ValueError(f"{path}: size {size} does not match its index ({n_tokens} tokens of {itemsize} bytes)")
    ids = np.memmap(path, dtype=dtype, mode="r", shape=(int(n_tokens),)) if n_tokens else np.zeros(0, dtype=dtype)
    return {"ids": ids, "row_splits": row_splits, "source_row": source_row, "dtype": dtype}

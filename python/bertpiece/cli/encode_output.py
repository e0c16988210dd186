"""`bertpiece encode`'s output: the writer for the chosen format, the resume point saved every few batches,
and the finished output moved into place (Parquet assembled from its parts). encode.py's loop calls these."""

from __future__ import annotations

import base64
import os

import numpy as np

from .outputs import EncodedRows


def _make_writer(args, fmt, tok, work, overflow, writer_state):
    from .outputs import FlatWriter, ParquetPartsWriter

    if fmt == "parquet":
        columns = ["input_ids"] + [name for flag, name in ((args.attention_mask, "attention_mask"),
                                                            (args.token_type_ids, "token_type_ids"),
                                                            (args.offsets, "offset_mapping")) if flag]
        return ParquetPartsWriter(work.path, args.output, columns=columns, state=writer_state)
    itemsize = 2 if max(tok.get_vocab().values()) < 1 << 16 else 4
    return FlatWriter(work.path, args.output, fmt, with_source_row=overflow, bin_itemsize=itemsize,
                      state=writer_state)


def _finalize(args, fmt, source, writer, overflow):
    """Moves the finished output into place (Parquet: assembled from the parts first)."""
    if fmt == "parquet":
        empty = EncodedRows(np.zeros(0, np.int32), np.zeros(1, np.int64),
                            np.zeros((0, 2), np.int32) if args.offsets else None,
                            np.zeros(0, np.int64) if overflow else None, np.zeros(0, np.int64) if overflow else None)
        schema = source.schema
        extra = schema.empty_table() if schema is not None and len(schema) else None
        writer.finalize(empty_schema=writer.to_table(empty, extra).schema)
    else:
        writer.finalize()
    _remove_stale_siblings(args, fmt, overflow)


def _checkpoint(work, writer, counters, source, fingerprint):
    from dataclasses import asdict

    schema = source.schema  # jsonl passthrough types, fixed by the first batch: needed to resume mid-file
    encoded = base64.b64encode(schema.serialize().to_pybytes()).decode() if schema is not None else None
    work.save_state({"fingerprint": fingerprint, "counters": asdict(counters), "writer": writer.checkpoint(),
                     "schema": encoded, "input_bytes": source.bytes_read()})


def _remove_stale_siblings(args, fmt, overflow):
    """With --overwrite, a .source_row.npy left by an earlier overflow run would
    no longer match the new output."""
    from .outputs import sibling

    if fmt == "npy" and not overflow and args.overwrite:
        stale = sibling(args.output, "source_row")
        if os.path.lexists(stale):
            os.remove(stale)

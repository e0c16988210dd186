"""`bertpiece encode`'s batches: one batch of texts encoded into rows (BertTokenizer's bulk call, or the
overflow windows with --stride), truncation of the rows, and the reader thread that decodes the input a few
batches ahead. encode.py's loop calls these."""

from __future__ import annotations

import itertools
import queue
import threading

import numpy as np

from . import encode_pipeline
from .outputs import EncodedRows


def encode_rows(tok, texts, *, special=True, max_length=None, stride=None, offsets=False, threads=None, row0=0):
    """One batch of texts -> (EncodedRows, Counters). Ids equal
    `tok(texts, add_special_tokens=special, truncation=..., max_length=...)`;
    with `stride`, the `return_overflowing_tokens=True` windows."""
    from ..terminal.progress import Counters

    if isinstance(tok, encode_pipeline.Tokenizer):  # --tokenizer
        return encode_pipeline.encode_rows(tok, texts, special=special, max_length=max_length, stride=stride,
                                           offsets=offsets, threads=threads, row0=row0)
    c = Counters(rows_in=len(texts))
    if stride is not None:  # overflow windows: the general (slower) path
        enc = tok(texts, add_special_tokens=special, truncation=True, max_length=max_length, stride=stride,
                  return_overflowing_tokens=True, return_offsets_mapping=offsets,
                  return_token_type_ids=False, return_attention_mask=False)
        ids_rows = enc["input_ids"]
        mapping = np.asarray(enc["overflow_to_sample_mapping"], dtype=np.int64)
        splits = np.zeros(len(ids_rows) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, ids_rows), np.int64, len(ids_rows)), out=splits[1:])
        ids = np.fromiter(itertools.chain.from_iterable(ids_rows), np.int32, int(splits[-1]))
        offs = None
        if offsets:
            offs = np.asarray(list(itertools.chain.from_iterable(enc["offset_mapping"])), np.int32).reshape(-1, 2)
        c.truncated_rows = int(np.count_nonzero(np.bincount(mapping, minlength=len(texts)) > 1))
        rows = EncodedRows(ids, splits, offs, source_row=mapping + row0, batch_row=mapping)
    else:
        eb = tok.encode_batch(texts, add_special_tokens=special, return_offsets=offsets, num_threads=threads)
        rows = EncodedRows(eb.ids, eb.row_splits, eb.offsets)
        if max_length is not None:
            rows, c.truncated_rows = _truncate(rows, max_length, tok.sep_token_id if special else None)
    c.rows_out = len(rows)
    c.tokens = len(rows.ids)
    c.content_tokens = c.tokens - (2 * c.rows_out if special else 0)
    c.unk_tokens = int(np.count_nonzero(rows.ids == tok.unk_token_id)) if tok.unk_token_id is not None else 0
    return rows, c


def _truncate(rows, max_length, sep_id):
    """Right truncation to `max_length` tokens, vectorized: a truncated row keeps
    its first max_length - 1 tokens and ends with [SEP] (when special tokens
    are added), like transformers' `truncation=True`. Returns (rows, count)."""
    lengths = np.diff(rows.row_splits)
    over = lengths > max_length
    n_over = int(np.count_nonzero(over))
    if not n_over:
        return rows, 0
    new_len = np.minimum(lengths, max_length)
    splits = np.zeros_like(rows.row_splits)
    np.cumsum(new_len, out=splits[1:])
    take = np.arange(splits[-1], dtype=np.int64) + np.repeat(rows.row_splits[:-1] - splits[:-1], new_len)
    ids = rows.ids[take]
    offs = rows.offsets[take] if rows.offsets is not None else None
    if sep_id is not None:
        last = splits[1:][over] - 1
        ids[last] = sep_id
        if offs is not None:
            offs[last] = 0
    return EncodedRows(ids, splits, offs), n_over


def _prefetch(iterator, depth=2):
    """Runs `iterator` (reading and decoding input) in a thread, `depth` batches
    ahead, so reading overlaps encoding and writing. Errors re-raise here."""
    q = queue.Queue(depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for x in iterator:
                if not put(("item", x)):
                    return
            put(("end", None))
        except BaseException as e:  # noqa: BLE001  (handed to the consumer)
            put(("error", e))

    threading.Thread(target=work, daemon=True, name="bertpiece-reader").start()
    try:
        while True:
            kind, x = q.get()
            if kind == "item":
                yield x
            elif kind == "end":
                return
            else:
                raise x
    finally:
        stop.set()

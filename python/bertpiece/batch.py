"""`BertTokenizer.encode_batch`: a batch of texts to ids on all cores, as NumPy
arrays (ragged: all rows back to back plus row splits), with no Python object
per token."""

from __future__ import annotations

import os
import sys

THREADS_ENV = "BERTPIECE_NUM_THREADS"


class EncodedBatch:
    """Ragged batch: row `i` is `ids[row_splits[i]:row_splits[i + 1]]`.

    `ids` is int32 (1-D), `row_splits` int64 (length `len(batch) + 1`), and
    `offsets` (when asked) int32 of shape `(len(ids), 2)`: `(start, end)` in
    code points of the row's text; special tokens get `(0, 0)`.
    """

    __slots__ = ("ids", "row_splits", "offsets")

    def __init__(self, ids, row_splits, offsets=None):
        self.ids, self.row_splits, self.offsets = ids, row_splits, offsets

    def __len__(self):
        return len(self.row_splits) - 1

    def __getitem__(self, i):
        """The ids of row `i` (a view into `ids`)."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"row {i} out of range for a batch of {len(self)}")
        i %= len(self)
        return self.ids[self.row_splits[i]:self.row_splits[i + 1]]

    def tolist(self):
        """The rows as lists of ints (what `tokenizer(texts)["input_ids"]` holds)."""
        return [self[i].tolist() for i in range(len(self))]

    def __repr__(self):
        return f"EncodedBatch(rows={len(self)}, ids={len(self.ids)}, offsets={self.offsets is not None})"


def _arrow_chunks(texts):
    """Zero-copy view of a pyarrow string array (or chunked array) for the core:
    one `(data address, data size, offsets address, offset width, first row,
    rows)` tuple per chunk. None if `texts` is not a pyarrow array."""
    chunks = getattr(texts, "chunks", None)
    if chunks is None:
        if not hasattr(texts, "buffers") or not hasattr(texts, "type"):
            return None
        chunks = [texts]
    import pyarrow as pa

    out, row = [], 0
    for chunk in chunks:
        if pa.types.is_string(chunk.type):
            width = 4
        elif pa.types.is_large_string(chunk.type):
            width = 8
        else:
            raise TypeError(f"texts must be a pyarrow string array, not {chunk.type}")
        if chunk.null_count:
            k = row + chunk.is_null().index(True).as_py()
            raise TypeError(f"texts[{k}] must be str, not None (a null in the pyarrow array)")
        _, offsets, data = chunk.buffers()
        n = len(chunk)
        if n and offsets.size < (chunk.offset + n + 1) * width:
            raise ValueError("malformed pyarrow string array: offsets buffer too small")
        out.append((data.address if data is not None else 0, data.size if data is not None else 0,
                    offsets.address if offsets is not None else 0, width, chunk.offset, n))
        row += n
    return out


def _texts(texts):
    """A list-like of str: lists, tuples, NumPy string arrays, pyarrow string arrays."""
    if hasattr(texts, "to_pylist"):  # pyarrow Array / ChunkedArray (only when not read in place)
        return texts.to_pylist()
    np = sys.modules.get("numpy")  # (not imported: texts cannot be an array)
    if np is not None and isinstance(texts, np.ndarray):
        if texts.ndim != 1:
            raise ValueError(f"texts must be a 1-D array, got shape {texts.shape}")
        return texts if texts.dtype.kind == "U" else list(texts)
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of str, not a single str (wrap it in a list)")
    if not hasattr(texts, "__getitem__"):
        # (a generator or iterator: its rows holding added tokens are taken again afterwards)
        return list(texts)
    return texts


class SurrogateError(UnicodeError, TypeError, ValueError):
    """A text holding a lone surrogate (not valid Unicode): HF tokenizers
    refuses such text with a TypeError; this names the row and position."""


def first_surrogate(texts):
    """`(index, position, character)` of the first lone surrogate in `texts`, or None."""
    for k, text in enumerate(texts):
        if isinstance(text, str) and not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                return k, exc.start, text[exc.start]
    return None


def surrogate_error(texts, where="texts", start=0):
    """The SurrogateError for the first text in `texts` holding a lone surrogate
    (`texts` being `where[start:]`: the error names its index there)."""
    found = first_surrogate(texts)
    if found is None:
        return None
    k, position, char = found
    return SurrogateError(f"{where}[{start + k}] holds a lone surrogate (U+{ord(char):04X} at "
                          f"position {position}), which is not valid Unicode text")


def core_texts(texts):
    """`(texts, arrow)` arguments for the core's batch methods: pyarrow string
    arrays are read in place, anything else goes through `_texts`."""
    arrow = _arrow_chunks(texts)
    if arrow is not None:
        return (), arrow
    return _texts(texts), None


def _num_threads(num_threads):
    if num_threads is None:
        value = os.environ.get(THREADS_ENV)
        if value:
            try:
                num_threads = int(value)
            except ValueError:
                raise ValueError(f"{THREADS_ENV}={value!r} is not an integer") from None
    if num_threads is not None and (isinstance(num_threads, bool) or not isinstance(num_threads, int)):
        raise TypeError(f"num_threads must be an int, not {type(num_threads).__name__}")
    return num_threads


def encode_batch(tokenizer, texts, *, add_special_tokens=True, max_length=None, truncation=False,
                 return_offsets=False, num_threads=None):
    """See `BertTokenizer.encode_batch`."""
    import numpy as np  # (on first use: `import bertpiece` alone does not load NumPy)
    arrow_source = texts
    texts, arrow = core_texts(texts)
    num_threads = _num_threads(num_threads)
    if truncation and max_length is None and tokenizer.model_max_length < int(1e20):
        max_length = tokenizer.model_max_length
    limit = max_length if truncation else None
    if limit is not None and getattr(tokenizer, "truncation_side", "right") == "left":
        # the core keeps a row's first tokens; __call__ keeps the last ones on this side
        rows = arrow_source.to_pylist() if arrow is not None else list(texts)
        return _from_call(tokenizer, rows, add_special_tokens, limit, return_offsets)
    special = tokenizer._cls_sep_ids() if add_special_tokens else None
    if limit is not None and add_special_tokens and limit < 2:
        raise ValueError(f"max_length={limit} is smaller than the 2 special tokens added to each sequence; "
                         "use a larger max_length or add_special_tokens=False")
    try:
        ids, splits, offsets, redo, _, _ = tokenizer._core.encode_batch(
            texts, special=special, max_length=limit, return_offsets=return_offsets, num_threads=num_threads,
            arrow=arrow, added=list(tokenizer._added))
    except UnicodeEncodeError:
        error = surrogate_error(texts)
        if error is None:
            raise
        raise error from None
    # The core's arrays become NumPy arrays without a copy.
    batch = EncodedBatch(np.asarray(ids), np.asarray(splits), np.asarray(offsets) if offsets is not None else None)
    # Texts holding added/special tokens ("[MASK]" in the text) take the
    # general path, which matches those tokens in the raw text first.
    if redo:
        if arrow is not None:
            texts = arrow_source.to_pylist()
        batch = _patch_rows(tokenizer, batch, [texts[k] for k in redo], redo, add_special_tokens,
                            max_length if truncation else None, return_offsets)
    return batch


def _from_call(tokenizer, texts, add_special_tokens, max_length, return_offsets):
    """The batch computed by `__call__` (the general path), as an EncodedBatch."""
    import numpy as np  # (on first use: `import bertpiece` alone does not load NumPy)
    empty = EncodedBatch(np.zeros(0, "<i4"), np.zeros(len(texts) + 1, "<i8"),
                         np.zeros((0, 2), "<i4") if return_offsets else None)
    return _patch_rows(tokenizer, empty, texts, range(len(texts)), add_special_tokens, max_length,
                       return_offsets) if texts else empty


def _patch_rows(tokenizer, batch, texts, rows, add_special_tokens, max_length, return_offsets):
    import numpy as np  # (on first use: `import bertpiece` alone does not load NumPy)
    enc = tokenizer(list(texts), add_special_tokens=add_special_tokens, truncation=max_length is not None,
                    max_length=max_length, return_offsets_mapping=return_offsets)
    new_ids = dict(zip(rows, enc["input_ids"]))
    new_offsets = dict(zip(rows, enc["offset_mapping"])) if return_offsets else {}
    ids, offsets, splits = [], [], [0]
    for i in range(len(batch)):
        a, b = batch.row_splits[i], batch.row_splits[i + 1]
        ids.append(np.asarray(new_ids[i], dtype="<i4") if i in new_ids else batch.ids[a:b])
        if return_offsets:
            offsets.append(np.asarray(new_offsets[i], dtype="<i4").reshape(-1, 2) if i in new_offsets
                           else batch.offsets[a:b])
        splits.append(splits[-1] + len(ids[-1]))
    return EncodedBatch(np.concatenate(ids).astype("<i4", copy=False), np.asarray(splits, dtype="<i8"),
                        np.concatenate(offsets).astype("<i4", copy=False) if return_offsets else None)

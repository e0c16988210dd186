"""Apache Arrow in and out: tokenize a string column into a `list<int32>` column.

`encode_arrow` runs `BertTokenizer.encode_batch` (all cores, no GIL; it reads
the Arrow string buffers in place) and wraps its flat NumPy `ids` and
`row_splits` as an Arrow list array, with no Python object per row or token. Needs `pyarrow` (`pip install pyarrow`).

Null strings are refused: a `ValueError` names the first null row (a null is
"no text", which a model input cannot express; fill it first, e.g.
`pyarrow.compute.fill_null(column, "")`).
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError("bertpiece.arrow needs pyarrow: pip install pyarrow") from None

from .batch import EncodedBatch

__all__ = ["encode_arrow", "to_arrow"]

_INT32_MAX = 2**31 - 1

ArrowTexts = Union[pa.Array, pa.ChunkedArray, pa.Table]


def _is_string_type(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _list_array(values: np.ndarray, row_splits: np.ndarray) -> Union[pa.ListArray, pa.LargeListArray]:
    """Rows `values[row_splits[i]:row_splits[i+1]]` as an Arrow list array
    (zero-copy for the values; `large_list` only past 2**31 - 1 values)."""
    if len(values) > _INT32_MAX:
        return pa.LargeListArray.from_arrays(pa.array(row_splits, pa.int64()), pa.array(values))
    return pa.ListArray.from_arrays(pa.array(row_splits.astype(np.int32), pa.int32()), pa.array(values))


def to_arrow(encoded_batch: EncodedBatch) -> Union[pa.ListArray, pa.LargeListArray]:
    """An `EncodedBatch` (from `BertTokenizer.encode_batch`) as an Arrow
    `list<int32>` array, one list of ids per row (`large_list<int32>` if the
    batch holds more than 2**31 - 1 ids)."""
    if not isinstance(encoded_batch, EncodedBatch):
        raise TypeError(f"to_arrow expects a bertpiece.EncodedBatch (from BertTokenizer.encode_batch), "
                        f"got {type(encoded_batch).__name__}")
    return _list_array(encoded_batch.ids, encoded_batch.row_splits)


def _string_column(texts, column: Optional[str]) -> Union[pa.Array, pa.ChunkedArray]:
    """The strings to encode, type- and null-checked."""
    if isinstance(texts, pa.Table):
        if column is None:
            raise ValueError("encode_arrow: a pyarrow.Table needs column=<name of the text column>; "
                             f"the table has columns {texts.column_names}")
        if column not in texts.column_names:
            raise KeyError(f"encode_arrow: no column {column!r} in the table (columns: {texts.column_names})")
        texts = texts.column(column)
        where = f"column {column!r}"
    elif isinstance(texts, (pa.Array, pa.ChunkedArray)):
        if column is not None:
            raise ValueError("encode_arrow: column= is only for a pyarrow.Table input")
        where = "input"
    else:
        raise TypeError(f"encode_arrow expects a pyarrow Array, ChunkedArray or Table, got {type(texts).__name__}")
    if not _is_string_type(texts.type):
        raise TypeError(f"encode_arrow: {where} has type {texts.type}; expected string or large_string")
    if texts.null_count:
        first = int(pc.index(pc.is_null(texts), True).as_py())
        raise ValueError(f"encode_arrow: {where} has {texts.null_count} null value(s), the first at row {first}; "
                         "fill them first (e.g. pyarrow.compute.fill_null(texts, ''))")
    return texts


def encode_arrow(tokenizer, texts: ArrowTexts, *, column: Optional[str] = None, add_special_tokens: bool = True,
                 max_length: Optional[int] = None, truncation: Optional[bool] = None, return_attention_mask: bool = False,
                 return_token_type_ids: bool = False, num_threads: Optional[int] = None) -> pa.Table:
    """Encodes an Arrow string column with a `bertpiece.BertTokenizer`, or a
    `bertpiece.Tokenizer` (any tokenizer.json: rows equal its `encode_batch`
    ids; `truncation=None` applies its own truncation, see
    `Tokenizer.encode_batch_arrays`; no `token_type_ids`).

    `texts` is a `pa.Array` / `pa.ChunkedArray` of `string` or `large_string`
    (sliced arrays are fine), or a `pa.Table` with `column=` naming the text
    column; a table's other columns are passed through unchanged and the new
    columns appended. Returns a `pa.Table` with `input_ids` (`list<int32>`,
    rows equal to `tokenizer(texts, add_special_tokens=..., truncation=...,
    max_length=...)["input_ids"]`) and, when asked, `attention_mask` and
    `token_type_ids` (`list<int8>`, all ones / all zeros: single sequences,
    no padding).

    Raises TypeError for a non-string column, KeyError for a missing column,
    ValueError for null values (naming the first null row) or an output
    column name the table already has.
    """
    if return_token_type_ids and hasattr(tokenizer, "encode_batch_arrays"):
        raise ValueError("encode_arrow: return_token_type_ids is not available for a bertpiece.Tokenizer "
                         "(its post-processor decides the type ids); use its encode_batch")
    if not hasattr(tokenizer, "encode_batch"):
        raise TypeError(f"encode_arrow needs a bertpiece.BertTokenizer (with encode_batch), "
                        f"got {type(tokenizer).__name__}")
    strings = _string_column(texts, column)
    names = ["input_ids"] + (["attention_mask"] if return_attention_mask else []) + \
        (["token_type_ids"] if return_token_type_ids else [])
    if isinstance(texts, pa.Table):
        clash = [n for n in names if n in texts.column_names]
        if clash:
            raise ValueError(f"encode_arrow: the table already has column(s) {clash}; drop or rename them first")
    if pa.types.is_string_view(strings.type):
        strings = strings.cast(pa.large_string())  # encode_batch reads string / large_string buffers in place
    # encode_batch reads the Arrow string buffers directly: no Python str per row.
    # A bertpiece.Tokenizer (any tokenizer.json) has its bulk path under another name.
    encode = getattr(tokenizer, "encode_batch_arrays", tokenizer.encode_batch)
    batch = encode(strings, add_special_tokens=add_special_tokens, max_length=max_length, truncation=truncation,
                   num_threads=num_threads)
    n = len(batch.ids)
    columns = [_list_array(batch.ids, batch.row_splits)]
    if return_attention_mask:
        columns.append(_list_array(np.ones(n, dtype=np.int8), batch.row_splits))
    if return_token_type_ids:
        columns.append(_list_array(np.zeros(n, dtype=np.int8), batch.row_splits))
    if isinstance(texts, pa.Table):
        out = texts
        for name, col in zip(names, columns):
            out = out.append_column(name, col)
        return out
    return pa.table(dict(zip(names, columns)))

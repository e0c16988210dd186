"""`BertTokenizer.__call__` on a batch of single texts or of pairs through the
core's batch path: all texts encoded on all cores without the GIL, padded by
the core into NumPy arrays, and no Python object per token unless lists are
asked for.

The general path (`BertTokenizer._call_fast`) stays the definition: this
module only takes the cases whose output it computes the same way, returns
None for the rest, and hands rows holding added/special tokens back to the
general path. Token-level metadata (`tokens()`, `word_ids()`, ...) is
computed per row on first use, by the general path.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import _core
from ..batch import _num_threads, core_texts, surrogate_error
from .encoding import BatchEncoding
from .epochs import frozen

_int_rows = _core.int_rows
_new = _core.new_instance  # `object.__new__(cls)`, without the cost of calling it

# Options the batch path reproduces; anything else takes the general path.
_TRUNCATIONS = ("do_not_truncate", "longest_first", "only_first")
_PAIR_TRUNCATIONS = ("do_not_truncate", "longest_first", "only_first", "only_second")


def call_batch(tok, items, *, add_special_tokens, padding_strategy, truncation_strategy, max_length,
               pad_to_multiple_of, padding_side, return_tensors, return_token_type_ids, return_attention_mask,
               return_overflowing_tokens, return_special_tokens_mask, return_offsets_mapping, return_length,
               split_special):
    """The BatchEncoding for `items` (all `(text, None)`, or all `(text, pair)`), or None when the batch
    path does not apply."""
    if not items or not tok.do_basic_tokenize or return_overflowing_tokens or tok.truncation_side != "right":
        return None
    pairs = [b for _, b in items]
    if all(b is None for b in pairs):
        pairs = None
        if truncation_strategy not in _TRUNCATIONS:
            return None
    elif (any(b is None for b in pairs) or truncation_strategy not in _PAIR_TRUNCATIONS
          or return_offsets_mapping or return_special_tokens_mask):
        return None  # the general path computes these for pairs
    texts = [a for a, _ in items]
    special = (tok._special_id("cls_token"), tok._special_id("sep_token")) if add_special_tokens else None
    if special is not None and None in special:
        return None
    limit = max_length if truncation_strategy != "do_not_truncate" else None
    padded = padding_strategy != "do_not_pad"
    args, arrow = core_texts(texts)
    common = dict(special=special, max_length=limit, return_offsets=return_offsets_mapping,
                  num_threads=_num_threads(None), arrow=arrow, added=list(tok._added), pairs=pairs,
                  pair_truncation=truncation_strategy if limit is not None else "longest_first")
    if padded:
        pad_to = max_length if padding_strategy == "max_length" else None
        try:
            width, ids, mask, offsets, lengths, redo, type_ids, too_short = tok._core.encode_padded(
                args, pad_to=pad_to, pad_to_multiple_of=pad_to_multiple_of or None, pad_id=tok._special_id("pad_token"),
                padding_left=padding_side == "left", pad_type_id=tok.pad_token_type_id, **common)
        except UnicodeEncodeError:
            return _surrogates(tok, items)
        if too_short:
            return None  # a pair the strategy cannot cut: the general path says what happens
        n = len(texts)
        ids, mask, lengths = np.asarray(ids), np.asarray(mask), np.asarray(lengths)
        offsets = np.asarray(offsets) if offsets is not None else None
        type_ids = np.asarray(type_ids) if type_ids is not None else None
        if pad_to is not None and int(lengths.max(initial=0)) > pad_to:
            return None  # a row longer than max_length stays longer in transformers: the general path says how
        special_mask = _special_mask_padded(mask, lengths, add_special_tokens, padding_side) \
            if return_special_tokens_mask else None
        if redo:
            ids, mask, offsets, type_ids = (a.copy() if a is not None else None for a in (ids, mask, offsets, type_ids))
            lengths = lengths.copy()
            if not _redo_padded(tok, items, redo, ids, mask, offsets, type_ids, special_mask, lengths,
                                add_special_tokens, truncation_strategy, max_length, padding_side, split_special):
                return None
            if pad_to is None:
                # The core padded to its own longest row; a redone row (an added
                # token is one token, not several) may have been that row.
                target = int(lengths.max(initial=0))
                if pad_to_multiple_of and target % pad_to_multiple_of:
                    target += pad_to_multiple_of - target % pad_to_multiple_of
                if target < width:
                    cols = slice(width - target, width) if padding_side == "left" else slice(0, target)
                    ids, mask, offsets, type_ids, special_mask = (
                        a[:, cols] if a is not None else None for a in (ids, mask, offsets, type_ids, special_mask))
                    width = target
        data = {"input_ids": ids}
        if return_token_type_ids is not False:
            if type_ids is None:
                type_ids = (np.zeros(mask.shape, mask.dtype) if tok.pad_token_type_id == 0
                            else np.where(mask == 1, 0, tok.pad_token_type_id).astype("<i8"))
            data["token_type_ids"] = type_ids
        if return_attention_mask is not False:
            data["attention_mask"] = mask
        if special_mask is not None:
            data["special_tokens_mask"] = special_mask
        if offsets is not None:
            data["offset_mapping"] = offsets
        if return_length:
            data["length"] = np.full(n, width, dtype="<i8")
        rows = _LazyRows(tok, tok._epoch, texts, pairs, add_special_tokens, truncation_strategy, max_length,
                         padding_side, width, split_special)
        return _finish(data, rows, return_tensors)
    try:
        ids, splits, offsets, redo, type_ids, too_short = tok._core.encode_batch(args, **common)
    except UnicodeEncodeError:
        return _surrogates(tok, items)
    if too_short:
        return None
    return _as_lists(tok, items, ids, splits, offsets, type_ids, redo, add_special_tokens, truncation_strategy,
                         max_length, padding_side, split_special, return_token_type_ids, return_attention_mask,
                         return_special_tokens_mask, return_length, return_tensors)


def _row_lists(array):
    """An integer array's rows as lists (`array.tolist()`; offsets as lists of
    `(start, end)` tuples), made by the core out of the cyclic garbage
    collector's sight: its passes over millions of new row lists took two
    thirds of `tok(texts)`, and pausing it (`gc.disable()`) is process-wide."""
    if array.ndim == 1:
        return array.tolist()
    rows, width = array.shape[0], int(np.prod(array.shape[1:]))
    return _int_rows(np.ascontiguousarray(array, dtype="<i8").tobytes(),
                     range(0, rows * width + 1, width) if width else [0] * (rows + 1), array.ndim == 3)


def _as_lists(tok, items, ids, splits, offsets, type_ids, redo, add_special_tokens, truncation_strategy, max_length,
              padding_side, split_special, return_token_type_ids, return_attention_mask, return_special_tokens_mask,
              return_length, return_tensors):
    """The unpadded batch as lists: one flat list made in C, then sliced per row
    (a NumPy view per row costs more than the slice)."""
    bounds = np.asarray(splits).tolist()
    # (row lists made by the core, untracked: see _row_lists)
    rows_ids = _int_rows(np.asarray(ids, dtype="<i8").tobytes(), bounds)
    rows_types = _int_rows(np.asarray(type_ids, dtype="<i8").tobytes() if type_ids is not None
                           else bytes(8 * bounds[-1]), bounds)
    rows_offs = None
    if offsets is not None:
        rows_offs = _int_rows(np.asarray(offsets, dtype="<i8").tobytes(), [2 * b for b in bounds], True)
    rows_special = [([1] + [0] * (len(r) - 2) + [1]) if add_special_tokens else [0] * len(r) for r in rows_ids] \
        if return_special_tokens_mask else None
    for k, enc in zip(redo, _general(tok, [items[k] for k in redo], add_special_tokens, truncation_strategy,
                                     max_length, split_special)):
        rows_ids[k], rows_types[k] = enc[0], enc[3]
        if rows_offs is not None:
            rows_offs[k] = enc[1]
        if rows_special is not None:
            rows_special[k] = enc[2]
    data = {"input_ids": rows_ids}
    if return_token_type_ids is not False:
        data["token_type_ids"] = rows_types
    if return_attention_mask is not False:
        lengths = [len(r) for r in rows_ids]
        data["attention_mask"] = _int_rows(np.ones(sum(lengths), "<i8").tobytes(), [0, *itertools.accumulate(lengths)])
    if rows_special is not None:
        data["special_tokens_mask"] = rows_special
    if rows_offs is not None:
        data["offset_mapping"] = rows_offs
    if return_length:
        data["length"] = [len(r) for r in rows_ids]
    pairs = [b for _, b in items] if items[0][1] is not None else None
    rows = _LazyRows(tok, tok._epoch, [a for a, _ in items], pairs, add_special_tokens, truncation_strategy,
                     max_length, padding_side, None, split_special)
    return BatchEncoding(data, rows, tensor_type=return_tensors)


def _surrogates(tok, items):
    """A lone surrogate in some text: HF tokenizers refuses it (raised here with
    the row named); Google's and the legacy tokenizer drop it, as the general
    path does (None: take it, also for any other encoding failure)."""
    if tok.reference != "tokenizers":
        return None
    error = surrogate_error([a for a, _ in items], "text") or surrogate_error([b for _, b in items], "text_pair")
    if error is None:
        return None
    raise error


def _finish(data, rows, return_tensors):
    """NumPy columns as the caller asked: arrays, torch tensors, or lists."""
    tensor_type = getattr(return_tensors, "value", return_tensors)
    if tensor_type == "np":
        return BatchEncoding(data, rows)
    if tensor_type is None:
        return BatchEncoding({key: _row_lists(value) for key, value in data.items()}, rows)
    return BatchEncoding(data, rows, tensor_type=return_tensors)


def _special_mask_padded(mask, lengths, add_special_tokens, padding_side):
    """transformers' special_tokens_mask: 1 for padding and for [CLS]/[SEP] around each row."""
    special = 1 - mask
    if add_special_tokens and len(lengths):
        rows = np.arange(len(lengths))
        width = mask.shape[1]
        first = width - lengths if padding_side == "left" else np.zeros_like(lengths)
        special[rows, first] = 1
        special[rows, first + lengths - 1] = 1
    return special


def _general(tok, items, add_special_tokens, truncation_strategy, max_length, split_special):
    """(ids, offsets, special tokens mask, token type ids) of each `(text, pair or None)` item by the
    general path, unpadded."""
    pairs = any(b is not None for _, b in items)
    enc = tok._call_fast(True, list(items), add_special_tokens=add_special_tokens,
                         padding_strategy="do_not_pad", truncation_strategy=truncation_strategy,
                         max_length=max_length, stride=0, is_split_into_words=False, pad_to_multiple_of=None,
                         padding_side="right", return_tensors=None, return_token_type_ids=True,
                         return_attention_mask=False, return_overflowing_tokens=False,
                         return_special_tokens_mask=not pairs, return_offsets_mapping=not pairs,
                         return_length=False, split_special=split_special, pad_to=-1)
    n = len(items)
    return list(zip(enc["input_ids"], enc.get("offset_mapping", [None] * n),
                    enc.get("special_tokens_mask", [None] * n), enc["token_type_ids"]))


def _redo_padded(tok, items, redo, ids, mask, offsets, type_ids, special_mask, lengths, add_special_tokens,
                 truncation_strategy, max_length, padding_side, split_special):
    """Rows with added tokens, by the general path, written into the padded arrays
    (and their lengths into `lengths`). False when one no longer fits the width
    (the caller then takes the general path)."""
    width = ids.shape[1]
    redone = _general(tok, [items[k] for k in redo], add_special_tokens, truncation_strategy, max_length,
                      split_special)
    if any(len(r[0]) > width for r in redone):
        return False
    for k, (row, offs, special, types) in zip(redo, redone):
        n = lengths[k] = len(row)
        cells = slice(width - n, width) if padding_side == "left" else slice(0, n)
        ids[k, :] = tok._special_id("pad_token")
        ids[k, cells] = row
        mask[k, :] = 0
        mask[k, cells] = 1
        if type_ids is not None:
            type_ids[k, :] = tok.pad_token_type_id
            type_ids[k, cells] = types
        if special_mask is not None:
            special_mask[k, :] = 1
            special_mask[k, cells] = special
        if offsets is not None:
            offsets[k] = 0
            if n:
                offsets[k, cells] = offs
    return True


def _served_rows(tok, epoch, texts, add_special_tokens, truncation_strategy, max_length, padding_side, width):
    """`_LazyRows(tok, epoch, texts, None, ..., width, False)` for single texts, without a call of
    `__init__` (the serving paths make one a call: this takes about 0.15 µs less)."""
    rows = _new(_LazyRows)
    rows._tok, rows._epoch, rows._texts, rows._pairs, rows._cache, rows._width = tok, epoch, texts, None, None, width
    rows._opts = (add_special_tokens, truncation_strategy, max_length, padding_side, False)
    return rows


class _LazyRows:
    """`BatchEncoding`'s per-row metadata (tokens, word ids, sequence ids,
    offsets), computed by the general path when a row is first asked for,
    from the tokenizer as it was at the call."""

    __slots__ = ("_tok", "_epoch", "_texts", "_pairs", "_cache", "_opts", "_width")

    def __init__(self, tok, epoch, texts, pairs, add_special_tokens, truncation_strategy, max_length, padding_side,
                 width, split_special):
        # `epoch`: the tokenizer's at the call (epochs.py), whatever changes it later
        self._tok, self._epoch, self._texts, self._pairs, self._cache = tok, epoch, texts, pairs, None
        self._opts = (add_special_tokens, truncation_strategy, max_length, padding_side, split_special)
        self._width = width

    def __len__(self):
        return len(self._texts)

    def __getitem__(self, i):
        if not -len(self) <= i < len(self):
            raise IndexError(f"batch index {i} out of range for a batch of {len(self)}")
        i %= len(self)
        if self._cache is None:
            self._cache = {}
        if i not in self._cache:
            add_special_tokens, truncation_strategy, max_length, padding_side, split_special = self._opts
            item = (self._texts[i], self._pairs[i] if self._pairs is not None else None)
            enc = frozen(self._tok, self._epoch)._call_fast(
                True, [item], add_special_tokens=add_special_tokens,
                padding_strategy="max_length" if self._width is not None else "do_not_pad",
                truncation_strategy=truncation_strategy, max_length=max_length, stride=0,
                is_split_into_words=False, pad_to_multiple_of=None, padding_side=padding_side,
                return_tensors=None, return_token_type_ids=False, return_attention_mask=False,
                return_overflowing_tokens=False, return_special_tokens_mask=False, return_offsets_mapping=False,
                return_length=False, split_special=split_special,
                pad_to=self._width if self._width is not None else -1)
            self._cache[i] = enc._rows[0]
        return self._cache[i]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __reduce__(self):  # a pickled BatchEncoding carries plain rows, not the tokenizer
        return list, (list(self),)


class _RowsMadeOnFirstUse:
    """Row metadata that a subclass's `_all()` makes on first use (the rows,
    indexable); pickled as the plain rows, not the tokenizer."""

    __slots__ = ()

    def __getitem__(self, i):
        return self._all()[i]

    def __iter__(self):
        return iter(self._all())

    def __reduce__(self):  # a pickled BatchEncoding carries plain rows, not the tokenizer
        return list, (list(self._all()),)


class _OneTextRows(_RowsMadeOnFirstUse):
    """The `_LazyRows` of one text (`tok(text)`), made with three stores per call:
    `made` is the tokenizer's epoch and the rows' options, one tuple per change of
    the tokenizer (`ServingState.one_made`); the `_LazyRows` is made on first use."""

    __slots__ = ("_tok", "_made", "_text", "_rows")

    def _all(self):
        try:
            return self._rows
        except AttributeError:
            rows = self._rows = _new(_LazyRows)
            rows._tok, (rows._epoch, rows._opts) = self._tok, self._made
            rows._texts, rows._pairs, rows._cache, rows._width = [self._text], None, None, None
            return rows

    def __len__(self):
        return 1

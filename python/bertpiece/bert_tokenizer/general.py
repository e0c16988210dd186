"""The general path of `__call__` in the tokenizers and google modes: one
input at a time through the core's offsets, HF tokenizers' truncation
(overflow windows, stride) and padding, and the token metadata behind
`BatchEncoding`'s alignment methods. Exact for every option; `batch_call.py`
and `serving.py` take the common cases faster and fall back here."""

from __future__ import annotations

from ..batch import SurrogateError, surrogate_error
from .batch_call import call_batch
from .encoding import BatchEncoding, _Row
from .row_encoding import RowGroup, overflow_tree, pad_row, token_strings
from .truncation import _hf_truncate

_MAX_PADDED_CELLS = 2**31  # Python list cells of one padded call (16 GiB of pointers): refused up front


def _padding_too_large(padding_strategy, max_length, pad_to_multiple_of, rows):
    """The MemoryError for padding `rows` rows wider than can be allocated, or None.
    Every row is at least this wide once padded, so it is known before encoding."""
    if padding_strategy == "do_not_pad":
        return None
    width = max(max_length if padding_strategy == "max_length" and max_length else 0, pad_to_multiple_of or 0)
    if width * rows * 3 <= _MAX_PADDED_CELLS:
        return None
    what = "pad_to_multiple_of" if (pad_to_multiple_of or 0) >= width else "max_length"
    return MemoryError(f"padding {rows} row(s) to {width} tokens ({what}={width}) would need {width * rows * 3} "
                       f"cells for input ids, masks and type ids; use a smaller {what}")


def _surrogate_in(items):
    """The SurrogateError naming the first row (and word, for pre-tokenized
    input) of `items` with a lone surrogate."""
    for k, item in enumerate(items):
        for where, seq in zip(("text", "text_pair"), item):
            if isinstance(seq, str):
                error = surrogate_error([seq], where, start=k)
                if error is not None:
                    return error
            elif seq is not None:
                error = surrogate_error(seq, f"{where}[{k}]")
                if error is not None:
                    return error
    return SurrogateError("a text holds a lone surrogate, which is not valid Unicode text")


class _LazyTokens:
    """A row's token strings, looked up when `tokens()` first asks (most calls never do),
    in the tokenizer as it was at the call (`epoch`, epochs.py)."""

    __slots__ = ("tok", "epoch", "ids", "strings", "tokens")

    def __init__(self, tok, epoch, ids, strings=None):
        self.tok, self.epoch, self.ids, self.strings, self.tokens = tok, epoch, ids, strings, None

    def __iter__(self):
        if self.tokens is None:
            self.tokens = token_strings(self.tok, self.epoch, self.ids, self.strings)
            self.tok = self.epoch = None
        return iter(self.tokens)

    def __reduce__(self):  # a pickled BatchEncoding carries the strings, not the tokenizer
        return list, (list(self),)


class GeneralPath:
    """`_call_fast`: the tokenizers/google-mode rows of a call."""

    # -------------------------------------------------- tokenizers-mode path
    def _call_fast(self, batched, items, *, add_special_tokens, padding_strategy, truncation_strategy, max_length,
                   stride, is_split_into_words, pad_to_multiple_of, padding_side, return_tensors,
                   return_token_type_ids, return_attention_mask, return_overflowing_tokens,
                   return_special_tokens_mask, return_offsets_mapping, return_length, split_special, pad_to=None):
        # (a stride with truncation: HF's panic when the stride fills a cut window is this path's ValueError)
        if batched and not is_split_into_words and pad_to is None and (
                stride == 0 or truncation_strategy == "do_not_truncate"):
            # Batches of single texts: the core's batch path (all cores, NumPy, no object per token).
            out = call_batch(self, items, add_special_tokens=add_special_tokens, padding_strategy=padding_strategy,
                             truncation_strategy=truncation_strategy, max_length=max_length,
                             pad_to_multiple_of=pad_to_multiple_of, padding_side=padding_side,
                             return_tensors=return_tensors, return_token_type_ids=return_token_type_ids,
                             return_attention_mask=return_attention_mask,
                             return_overflowing_tokens=return_overflowing_tokens,
                             return_special_tokens_mask=return_special_tokens_mask,
                             return_offsets_mapping=return_offsets_mapping, return_length=return_length,
                             split_special=split_special)
            if out is not None:
                return out
        cls_id, sep_id = self._cls_sep_ids() if add_special_tokens else (None, None)  # (refused before encoding)
        epoch = self.__dict__.get("_epoch")  # the state this call's tokens() describe
        # (split_special is passed down, never set on the tokenizer: calls may run on many threads)
        try:
            encoded = [(self._encode_one(a, is_split_into_words, split_special),
                        self._encode_one(b, is_split_into_words, split_special) if b is not None else None)
                       for a, b in items]
        except SurrogateError:  # raised for one string: say which row (and word) of the call
            raise _surrogate_in(items) from None
        all_rows = []  # per input: list of rows (ids, type_ids, special, offsets, words, seq_ids)
        groups = []  # per input: all its rows, returned or not (row_encoding.RowGroup)
        for a, b in encoded:
            n_added = (2 if b is None else 3) if add_special_tokens else 0
            if truncation_strategy != "do_not_truncate" and max_length is not None:
                limit = max_length - n_added
                if limit < 0:  # tokenizers: usize underflow, no truncation happens
                    a_w, b_w = [a], ([b] if b is not None else None)
                else:
                    a_w, b_w = _hf_truncate(a, b, limit, truncation_strategy, stride, self.truncation_side)
            else:
                a_w, b_w = [a], ([b] if b is not None else None)
            if b_w is None:
                combos = [(x, None) for x in a_w]
            else:
                combos = [(a_w[0], b_w[0])]
                for x in a_w[1:]:
                    combos.append((x, b_w[0]))
                    combos.extend((x, y) for y in b_w[1:])
                combos.extend((a_w[0], y) for y in b_w[1:])
            rows = []
            for x, y in combos:
                # whole-list operations, not a Python call per token (long documents)
                if add_special_tokens:
                    ids = [cls_id, *x.ids, sep_id]
                    special, offs = [1, *[0] * len(x), 1], [(0, 0), *x.offsets, (0, 0)]
                    words, seqs = [None, *x.words, None], [None, *[0] * len(x), None]
                else:
                    ids, special, offs, words, seqs = list(x.ids), [0] * len(x), list(x.offsets), list(x.words), \
                        [0] * len(x)
                strings = None  # token strings that are not the vocabulary's (lstrip/rstrip added tokens)
                if x.strings is not None or (y is not None and y.strings is not None):
                    strings = [None] * int(add_special_tokens) + (x.strings or [None] * len(x)) + \
                        [None] * int(add_special_tokens)
                    if y is not None:
                        strings += (y.strings or [None] * len(y)) + [None] * int(add_special_tokens)
                types = [0] * len(ids)
                if y is not None:
                    tail = [sep_id] if add_special_tokens else []
                    ids += [*y.ids, *tail]
                    types += [1] * (len(y) + len(tail))
                    special += [*[0] * len(y), *[1] * len(tail)]
                    offs += [*y.offsets, *[(0, 0)] * len(tail)]
                    words += [*y.words, *[None] * len(tail)]
                    seqs += [*[1] * len(y), *[None] * len(tail)]
                rows.append([ids, types, special, offs, words, seqs, [1] * len(ids), strings])
            # every window stays in the input's RowGroup: HF's `encodings` hold them as `overflowing`
            groups.append(RowGroup(self, epoch, rows,
                                   overflow_tree(len(a_w), None if b_w is None else len(b_w)), 1 if b is None else 2))
            all_rows.append(rows if return_overflowing_tokens else rows[:1])
        if padding_strategy != "do_not_pad":
            # tokenizers' pad_encodings: the target comes from the main rows; overflow rows pad to it too
            if pad_to is not None:  # the batch path's lazy rows: the width the batch was padded to
                target = pad_to
            elif padding_strategy == "max_length":
                target = max_length
            else:
                target = max((len(r[0][0]) for r in all_rows), default=0)
            if pad_to_multiple_of and target % pad_to_multiple_of:
                target += pad_to_multiple_of - target % pad_to_multiple_of
            fills = (self._special_id("pad_token"), self.pad_token_type_id, 1, (0, 0), None, None, 0, None)
            cells = target * len(fills) * sum(map(len, all_rows))
            if cells > _MAX_PADDED_CELLS:  # checked before allocating, as the core's padded path does
                what = "max_length" if padding_strategy == "max_length" else "pad_to_multiple_of"
                raise MemoryError(f"padding to {target} tokens ({what}={max_length if what == 'max_length' else pad_to_multiple_of}) "
                                  f"would need {cells} list cells; use a smaller {what}")
            try:
                for rows, group in zip(all_rows, groups):
                    for r in rows:
                        pad_row(r, target, fills, padding_side)
                    if len(group.rows) > len(rows):  # windows not returned: padded if `encodings` asks
                        group.pending = (len(rows), target, fills, padding_side)
            except MemoryError:
                raise MemoryError(f"not enough memory to pad rows to {target} tokens (max_length={max_length}, "
                                  f"pad_to_multiple_of={pad_to_multiple_of})") from None
        columns = [("input_ids", 0, True), ("token_type_ids", 1, return_token_type_ids is not False),
                   ("attention_mask", 6, return_attention_mask is not False),
                   ("special_tokens_mask", 2, return_special_tokens_mask),
                   ("offset_mapping", 3, return_offsets_mapping)]
        data = {name: [] for name, _, wanted in columns if wanted}
        if return_length:
            data["length"] = []
        meta, mapping = [], []
        for k, (rows, group) in enumerate(zip(all_rows, groups)):
            for pos, r in enumerate(rows):
                for name, col, wanted in columns:
                    if wanted:
                        data[name].append(r[col])
                if return_length:
                    data["length"].append(len(r[0]))
                meta.append(_Row(_LazyTokens(self, epoch, r[0], r[7]), r[4], r[5], r[3], group, pos))
                mapping.append(k)
        if return_overflowing_tokens:
            data["overflow_to_sample_mapping"] = mapping
        out = BatchEncoding(data, meta, tensor_type=return_tensors)
        if not batched and return_tensors is None and not return_overflowing_tokens:
            out = BatchEncoding({k: (v[0] if v and isinstance(v[0], list) else v) for k, v in out.data.items()}, meta)
        return out


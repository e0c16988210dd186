"""`BertTokenizer.__call__`'s serving case for one long text cut into windows
(`tok(text, truncation=..., max_length=..., stride=..., return_overflowing_tokens=True)`),
on serving.py's state and plans (split from serving.py by size)."""

from __future__ import annotations

from .. import _core
from .batch_call import _RowsMadeOnFirstUse
from .encoding import BatchEncoding
from .epochs import frozen
from .serving import _new, plan, state, usable
from .truncation import _hf_truncate

_encode_to_windows = _core.encode_to_windows


class _Span:
    """A sequence of `n` tokens that `_hf_truncate` cuts into windows, as `(start, stop)` ranges."""

    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def window(self, start, stop):
        return start, stop


def windows(tok, text, add_special_tokens, truncation, max_length, stride, verbose):
    """`tok(text, truncation=..., max_length=..., stride=..., return_overflowing_tokens=True)`
    for one text, as lists: the core's ids cut into HF's windows (`_hf_truncate`,
    the general path's own definition) by the core (long-document chunking for
    QA and retrieval)."""
    if not usable(tok):
        return None
    st = state(tok)
    found = plan(tok, st, False, truncation, max_length, stride, None, 1)
    if found is None:
        return None
    _, truncation_strategy, max_length, _ = found
    if truncation_strategy == "do_not_truncate" or max_length is None:
        return None
    if add_special_tokens is not True and add_special_tokens is not False:
        return None  # (the general path reads any other value as the reference does)
    if add_special_tokens and (st.cls is None or st.sep is None) or st.matcher.search(text):
        return None
    limit = max_length - (2 if add_special_tokens else 0)
    side = tok.truncation_side

    def ranges(n):
        wins, _ = _hf_truncate(_Span(n), None, limit, truncation_strategy, stride, side)
        return [w if type(w) is tuple else (0, n) for w in wins]  # (the whole text: the _Span itself)

    try:
        out = _encode_to_windows(tok._core, text, ranges, st.cls if add_special_tokens else None,
                                 st.sep if add_special_tokens else None)
    except ValueError:
        return None  # HF's refusal of these windows, raised by the general path
    if out is None:
        return None  # a lone surrogate
    rows, types, mask = out
    data = {"input_ids": rows, "token_type_ids": types, "attention_mask": mask,
            "overflow_to_sample_mapping": [0] * len(rows)}
    call = dict(add_special_tokens=add_special_tokens, padding_strategy="do_not_pad",
                truncation_strategy=truncation_strategy, max_length=max_length, stride=stride,
                is_split_into_words=False, pad_to_multiple_of=None, padding_side=tok.padding_side,
                return_tensors=None, return_token_type_ids=False, return_attention_mask=False,
                return_overflowing_tokens=True, return_special_tokens_mask=False, return_offsets_mapping=False,
                return_length=False, split_special=False)
    out = _new(BatchEncoding)  # (`BatchEncoding._of`, without its frame)
    out.data, out._rows = data, _RowsOfOneCall(tok, st.epoch, [(text, None)], call, len(rows))
    return out


class _RowsOfOneCall(_RowsMadeOnFirstUse):
    """`BatchEncoding`'s row metadata, computed for all rows at once by the
    general path on first use (overflow windows of one text)."""

    __slots__ = ("_tok", "_epoch", "_items", "_call", "_n", "_rows")

    def __init__(self, tok, epoch, items, call, n):
        self._tok, self._epoch, self._items, self._call, self._n, self._rows = tok, epoch, items, call, n, None

    def _all(self):
        if self._rows is None:  # the tokenizer as it was at the call (epochs.py)
            self._rows = frozen(self._tok, self._epoch)._call_fast(False, self._items, **self._call)._rows
        return self._rows

    def __len__(self):
        return self._n

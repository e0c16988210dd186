"""transformers' `BatchEncoding`: the model inputs of a call, plus per-row
token/word/character alignment."""

from __future__ import annotations

import collections
import sys
from typing import NamedTuple

from .row_encoding import Encoding


class CharSpan(NamedTuple):
    start: int
    end: int


class TokenSpan(NamedTuple):
    start: int
    end: int


def _span_classes():
    """transformers' TokenSpan and CharSpan once transformers is imported (what its users
    isinstance-check against), else the same-shaped tuples here: `import bertpiece` never
    imports transformers."""
    base = sys.modules.get("transformers.tokenization_utils_base")
    return (base.TokenSpan, base.CharSpan) if base is not None else (TokenSpan, CharSpan)


def _in_sequence(row, sequence_index):
    """A predicate on a token's sequence id: `sequence_index`'s tokens, or, when the row has no such
    sequence (a single text asked for sequence 1), every token, as HF tokenizers' Encoding."""
    n = row.group.n_sequences if row.group is not None else \
        max((s for s in row.seq_ids if s is not None), default=-1) + 1
    return (lambda seq: True) if sequence_index >= n else (lambda seq: seq == sequence_index)


class _Row:
    """Per-row metadata that transformers keeps in tokenizers' Encoding."""

    # group, pos: the input's rows (row_encoding.RowGroup) and this row's place in them, for `encodings`
    __slots__ = ("tokens", "words", "seq_ids", "offsets", "group", "pos")

    def __init__(self, tokens, words, seq_ids, offsets, group=None, pos=0):
        self.tokens, self.words, self.seq_ids, self.offsets = tokens, words, seq_ids, offsets
        self.group, self.pos = group, pos


class BatchEncoding(collections.UserDict):
    """The output of `BertTokenizer.__call__`: a dict of model inputs plus
    token/word/character alignment (in "tokenizers" and "google" modes)."""

    def __init__(self, data=None, rows=None, tensor_type=None, prepend_batch_axis=False):
        self.data = dict(data) if data else {}  # (UserDict.__init__'s per-key update costs µs per call)
        self._rows = rows
        if tensor_type is not None:
            self.convert_to_tensors(tensor_type, prepend_batch_axis)

    @classmethod
    def _of(cls, data, rows):
        """A BatchEncoding that takes `data` (a new dict) as it is: the serving paths."""
        out = cls.__new__(cls)
        out.data, out._rows = data, rows
        return out

    def __getitem__(self, key):
        """transformers': a key's value; an integer, a row's `Encoding` (a slice, a list of them); without
        encodings (legacy mode) a slice subsets every value."""
        if isinstance(key, str):
            return self.data[key]
        if self._rows is not None:
            if isinstance(key, slice):
                return self.encodings[key]
            row = self._rows[key]
            return Encoding(row.group, row.pos)
        if isinstance(key, slice):
            return {name: value[key] for name, value in self.data.items()}
        raise KeyError("Invalid key. Only three types of key are available: (1) string, (2) integers for backend "
                       "Encoding, and (3) slices for data subsetting.")

    # dict-like access: enc.input_ids
    def __getattr__(self, item):
        if item.startswith("_") or item == "data":
            raise AttributeError(item)
        try:
            return self.data[item]
        except KeyError:
            raise AttributeError(item) from None

    def __getstate__(self):
        return {"data": self.data, "_rows": self._rows}

    def __setstate__(self, state):
        self.data = state["data"]
        self._rows = state["_rows"]

    @property
    def is_fast(self):
        return self._rows is not None

    @property
    def encodings(self):
        """One HF tokenizers-like `Encoding` per row (overflow windows included), as transformers'
        tokenizers-backed BatchEncoding; None in reference="transformers" mode, as for its Python tokenizers."""
        if self._rows is None:
            return None
        return [Encoding(row.group, row.pos) for row in self._rows]

    @property
    def n_sequences(self):
        """transformers': the first row's `Encoding.n_sequences` (2 for a pair, even one cut to nothing)."""
        if not self._rows:
            return None
        return self._rows[0].group.n_sequences

    def _row(self, i, method="word_ids"):
        if self._rows is None:
            raise ValueError(f"{method}() is not available when using Python based tokenizers "
                             "(bertpiece: reference='transformers' has no alignment, like BertTokenizerLegacy; "
                             "use reference='tokenizers')")
        return self._rows[i]

    @staticmethod
    def _at(values, t):
        """values[t] for a token index (negative counts from the end); None outside the row, as transformers."""
        if -len(values) <= t < len(values):
            return values[t]
        return None

    def tokens(self, batch_index=0):
        return list(self._row(batch_index, "tokens").tokens)

    def word_ids(self, batch_index=0):
        return list(self._row(batch_index).words)

    def words(self, batch_index=0):
        return self.word_ids(batch_index)

    def sequence_ids(self, batch_index=0):
        return list(self._row(batch_index, "sequence_ids").seq_ids)

    def _two(self, a, b):
        return (0, a) if b is None else (a, b)

    def token_to_sequence(self, batch_or_token_index, token_index=None):
        b, t = self._two(batch_or_token_index, token_index)
        return self._at(self._row(b, "token_to_sequence").seq_ids, t)

    def token_to_word(self, batch_or_token_index, token_index=None):
        b, t = self._two(batch_or_token_index, token_index)
        return self._at(self._row(b, "token_to_word").words, t)

    def token_to_chars(self, batch_or_token_index, token_index=None):
        b, t = self._two(batch_or_token_index, token_index)
        row = self._row(b, "token_to_chars")
        if self._at(row.words, t) is None:  # special and padding tokens have no characters; nor has no token
            return None
        return _span_classes()[1](*row.offsets[t])

    def char_to_token(self, batch_or_char_index, char_index=None, sequence_index=0):
        b, c = self._two(batch_or_char_index, char_index)
        row = self._row(b, "char_to_token")
        wanted = _in_sequence(row, sequence_index)
        for i, ((s, e), seq) in enumerate(zip(row.offsets, row.seq_ids)):
            if wanted(seq) and s <= c < e:
                return i
        return None

    def word_to_tokens(self, batch_or_word_index, word_index=None, sequence_index=0):
        b, w = self._two(batch_or_word_index, word_index)
        row = self._row(b, "word_to_tokens")
        wanted = _in_sequence(row, sequence_index)
        idx = [i for i, (wd, seq) in enumerate(zip(row.words, row.seq_ids)) if wd == w and wanted(seq)]
        return _span_classes()[0](idx[0], idx[-1] + 1) if idx else None

    def word_to_chars(self, batch_or_word_index, word_index=None, sequence_index=0):
        span = self.word_to_tokens(batch_or_word_index, word_index, sequence_index)
        if span is None:
            return None
        b = batch_or_word_index if word_index is not None else 0
        row = self._row(b, "word_to_chars")
        return _span_classes()[1](row.offsets[span.start][0], row.offsets[span.end - 1][1])

    def char_to_word(self, batch_or_char_index, char_index=None, sequence_index=0):
        t = self.char_to_token(batch_or_char_index, char_index, sequence_index)
        if t is None:
            return None
        b = batch_or_char_index if char_index is not None else 0
        return self._row(b, "char_to_word").words[t]

    def convert_to_tensors(self, tensor_type=None, prepend_batch_axis=False):
        if tensor_type is None:
            return self
        tensor_type = getattr(tensor_type, "value", tensor_type)
        if tensor_type == "pt":
            try:
                import torch
            except ImportError:
                raise ImportError("return_tensors='pt' needs PyTorch: pip install torch") from None
            done = torch.Tensor

            def as_tensor(value):
                out = torch.tensor(value)
                # every column is integers: empty rows must not become float32 (transformers: int64)
                return out.long() if out.numel() == 0 and out.is_floating_point() else out
        elif tensor_type == "np":
            import numpy as np

            done = np.ndarray

            def as_tensor(value):
                # transformers: ragged rows become an object array of 1-D arrays
                if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple, np.ndarray)):
                    if len({len(v) for v in value}) > 1:
                        out = np.empty(len(value), dtype=object)
                        out[:] = [np.asarray(v, dtype=np.int64) if len(v) == 0 else np.asarray(v) for v in value]
                        return out
                out = np.asarray(value)
                return out.astype(np.int64) if out.size == 0 and out.dtype.kind == "f" else out  # (empty rows)
        else:
            raise ValueError(f"Unsupported return_tensors {tensor_type!r}: expected None, 'np' or 'pt'")
        for key, value in list(self.data.items()):
            if prepend_batch_axis:
                value = [value]
            elif isinstance(value, done):  # converted already (apply_chat_template converts again, as transformers)
                continue
            try:
                self.data[key] = as_tensor(value)
            except Exception as exc:
                raise ValueError(
                    f"Unable to create tensor for {key!r}, you should probably activate truncation and/or padding "
                    "with 'padding=True' 'truncation=True' to have batched tensors with the same length.") from exc
        return self

    def to(self, device):
        return self

    def __repr__(self):
        return repr(self.data)

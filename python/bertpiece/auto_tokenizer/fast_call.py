"""``FastCall``: the common ``__call__`` cases of a ``bertpiece.AutoTokenizer`` object
without transformers' per-row Python.

transformers' ``__call__`` still resolves the options (``_get_padding_truncation_strategies``:
its checks, warnings and errors); ``_encode_plus`` then sets the backend's
truncation and padding exactly as transformers' own ``_encode_plus`` does, and,
for one text or a batch of texts with no pair and no per-token extras, takes the
rows as flat arrays from the core and pads them here. Anything else, and any
case this path is unsure of, goes to transformers' own ``_encode_plus`` (the
definition). The ``encodings`` of the result are computed on first use, with the
core and settings of the call (tests/test_auto_tokenizer_fast.py checks both paths agree).
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np
from transformers.tokenization_utils_base import BatchEncoding, PaddingStrategy, TruncationStrategy

from .._core import pipeline_encode_flat
from .backend import swap_backend

_ONE_SIDED = (TruncationStrategy.DO_NOT_TRUNCATE, TruncationStrategy.LONGEST_FIRST, TruncationStrategy.ONLY_FIRST)
_SMALL = 16  # texts that one thread encodes
_NO_EXTRAS = ("return_overflowing_tokens", "return_special_tokens_mask", "return_offsets_mapping", "return_length",
              "is_split_into_words")


class LazyEncodings(BatchEncoding):
    """A BatchEncoding whose ``encodings`` (tokens, word ids, char spans) are computed on first use."""

    def __init__(self, data: dict, source: tuple, tensor_type: Any = None, prepend_batch_axis: bool = False) -> None:
        self._source = source
        super().__init__(data, None, tensor_type=tensor_type, prepend_batch_axis=prepend_batch_axis, n_sequences=1)

    @property
    def _encodings(self) -> Optional[list]:
        source = self.__dict__.get("_source")
        if source is not None:
            core, settings, texts, add_special_tokens = source
            items = [([t], None) for t in texts]
            self.__dict__["_encodings_value"] = core.encode_batch(items, False, add_special_tokens, settings)
            self.__dict__["_source"] = None
        return self.__dict__.get("_encodings_value")

    @_encodings.setter
    def _encodings(self, value: Optional[list]) -> None:
        if value is not None or "_encodings_value" not in self.__dict__:
            self.__dict__["_encodings_value"] = value


def _zero_type_ids(backend: Any) -> bool:
    """Whether one sequence's type ids are all 0 under this core (the template's, fixed per core)."""
    core = backend._core
    known = _ZERO_TYPES.get(id(core))
    if known is None or known[0] is not core:
        enc = core.encode((["a"], None), False, True, backend._settings)
        known = (core, 0 in enc.sequence_ids and not any(enc.type_ids))
        if len(_ZERO_TYPES) > 64:
            _ZERO_TYPES.clear()
        _ZERO_TYPES[id(core)] = known
    return known[1]


_ZERO_TYPES: dict = {}


class FastCall:
    """Mixed in before the folder's transformers class (see the module doc)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # transformers' constructor builds the HF backend; bertpiece's replaces it (also for
        # objects transformers makes with type(tok)(...), e.g. train_new_from_iterator's).
        super().__init__(*args, **kwargs)
        swap_backend(self)

    def __call__(self, text: Any = None, text_pair: Any = None, *args: Any, **kwargs: Any) -> Any:
        # `tok(text)` with every option at its default: transformers resolves no padding and no
        # truncation, so one encode of the core gives the whole answer (and its real Encoding).
        if type(text) is str and text_pair is None and not args and not kwargs:
            out = self._one_text(text)
            if out is not None:
                return out
        return super().__call__(text, text_pair, *args, **kwargs)

    def _one_text(self, text: str) -> Any:
        if self._in_target_context_manager or hasattr(self, "_switch_to_input_mode"):
            return None  # a class with input/target modes: transformers' own path
        backend = self._tokenizer
        settings = backend._settings
        if settings.truncation is not None or settings.padding is not None:
            self.set_truncation_and_padding(padding_strategy=PaddingStrategy.DO_NOT_PAD,
                                            truncation_strategy=TruncationStrategy.DO_NOT_TRUNCATE,
                                            max_length=None, stride=0, pad_to_multiple_of=None, padding_side=None)
            settings = backend._settings
        split = self.split_special_tokens
        if backend.encode_special_tokens != split:
            backend.encode_special_tokens = split
        try:
            enc = backend._core.encode(([text], None), False, True, settings)
        except Exception:
            return None  # transformers' path raises what it raises
        names = self.model_input_names
        data = {"input_ids": enc.ids}
        if "token_type_ids" in names:
            data["token_type_ids"] = enc.type_ids
        if "attention_mask" in names:
            data["attention_mask"] = enc.attention_mask
        if len(enc) > self.model_max_length:
            self._eventual_warn_about_too_long_sequence(data["input_ids"], None, True)
        return BatchEncoding(data, [enc])

    def _encode_plus(self, text: Any, text_pair: Any = None, add_special_tokens: bool = True,
                     padding_strategy: PaddingStrategy = PaddingStrategy.DO_NOT_PAD,
                     truncation_strategy: TruncationStrategy = TruncationStrategy.DO_NOT_TRUNCATE,
                     max_length: Optional[int] = None, stride: int = 0, pad_to_multiple_of: Optional[int] = None,
                     padding_side: Optional[str] = None, return_tensors: Any = None,
                     return_token_type_ids: Optional[bool] = None, return_attention_mask: Optional[bool] = None,
                     verbose: bool = True, split_special_tokens: Optional[bool] = None, **kwargs: Any) -> Any:
        out = None
        if text_pair is None and not any(kwargs.get(k) for k in _NO_EXTRAS) and not kwargs.get("sanitize_control_tokens"):
            out = self._fast_encode(text, add_special_tokens, padding_strategy, truncation_strategy, max_length,
                                    stride, pad_to_multiple_of, padding_side, return_tensors, return_token_type_ids,
                                    return_attention_mask, verbose, split_special_tokens)
        if out is not None:
            return out
        return super()._encode_plus(
            text, text_pair=text_pair, add_special_tokens=add_special_tokens, padding_strategy=padding_strategy,
            truncation_strategy=truncation_strategy, max_length=max_length, stride=stride,
            pad_to_multiple_of=pad_to_multiple_of, padding_side=padding_side, return_tensors=return_tensors,
            return_token_type_ids=return_token_type_ids, return_attention_mask=return_attention_mask, verbose=verbose,
            split_special_tokens=split_special_tokens, **kwargs)

    def _fast_encode(self, text, add_special_tokens, padding_strategy, truncation_strategy, max_length, stride,
                     pad_to_multiple_of, padding_side, return_tensors, return_token_type_ids, return_attention_mask,
                     verbose, split_special_tokens):
        batched = not isinstance(text, str)
        if batched:
            if not isinstance(text, (list, tuple)) or not text or not all(type(t) is str for t in text):
                return None
            texts = text if type(text) is list else list(text)
        else:
            texts = [text]
        if truncation_strategy not in _ONE_SIDED:
            return None
        if return_token_type_ids is None:
            return_token_type_ids = "token_type_ids" in self.model_input_names
        if return_attention_mask is None:
            return_attention_mask = "attention_mask" in self.model_input_names
        # The backend's state as transformers' own _encode_plus leaves it.
        self.set_truncation_and_padding(padding_strategy=padding_strategy, truncation_strategy=truncation_strategy,
                                        max_length=max_length, stride=stride, pad_to_multiple_of=pad_to_multiple_of,
                                        padding_side=padding_side)
        if split_special_tokens is None:
            split_special_tokens = self.split_special_tokens
        backend = self._tokenizer
        if backend.encode_special_tokens != split_special_tokens:
            backend.encode_special_tokens = split_special_tokens
        if return_token_type_ids and not _zero_type_ids(backend):
            return None
        core, settings = backend._core, backend._settings
        try:
            # a few texts: this thread (starting the pool's threads costs more than it saves)
            ids, splits, _, _ = pipeline_encode_flat(core, settings, texts, add_special_tokens=bool(add_special_tokens),
                                                     max_length=None, own_truncation=True, return_offsets=False,
                                                     num_threads=1 if len(texts) < _SMALL else None, arrow=None)
        except Exception:
            return None  # the general path raises what transformers raises
        ids = np.asarray(ids)
        splits = np.asarray(splits)
        lengths = splits[1:] - splits[:-1]
        longest = int(lengths.max()) if len(lengths) else 0
        if truncation_strategy is TruncationStrategy.DO_NOT_TRUNCATE and verbose and longest > self.model_max_length:
            self._eventual_warn_about_too_long_sequence([0] * longest, max_length, verbose)
        if padding_strategy is PaddingStrategy.DO_NOT_PAD:
            if return_tensors is not None and len(set(lengths.tolist())) > 1:
                return None  # ragged: transformers' own error
            width = None
        else:
            width = longest if padding_strategy is PaddingStrategy.LONGEST else max_length
            if width is None:
                return None
            if pad_to_multiple_of and width % pad_to_multiple_of:
                width += pad_to_multiple_of - width % pad_to_multiple_of
            pad_id = self.pad_token_id
            if longest > width or pad_id is None:
                return None  # a row longer than the padding (ragged, as transformers leaves it); no pad id
        data = _rows(self, ids.astype(np.int64, copy=False), splits, lengths, width, padding_side,
                     return_token_type_ids, return_attention_mask, return_tensors,
                     pad_id if width is not None else None)
        source = (core, settings, texts, bool(add_special_tokens))
        if not batched and return_tensors is None:
            data = {k: v[0] for k, v in data.items()}
        # int64 NumPy arrays already are what "np" converts to
        return LazyEncodings(data, source, tensor_type=None if return_tensors == "np" else return_tensors)


def _rows(tok, ids, splits, lengths, width, padding_side, type_ids, attention, return_tensors, pad_id):
    """input_ids (token_type_ids, attention_mask) as lists of rows or, for tensors, int64 arrays."""
    n = len(lengths)
    as_arrays = return_tensors is not None
    if width is None:
        if as_arrays:
            width = int(lengths[0]) if n else 0
            block = ids.reshape(n, width)
            data = {"input_ids": block}
            if type_ids:
                data["token_type_ids"] = np.zeros_like(block)
            if attention:
                data["attention_mask"] = np.ones_like(block)
            return data
        bounds = splits.tolist()
        flat = ids.tolist()
        rows = [flat[bounds[i]:bounds[i + 1]] for i in range(n)]
        data = {"input_ids": rows}
        if type_ids:
            data["token_type_ids"] = [[0] * len(r) for r in rows]
        if attention:
            data["attention_mask"] = [[1] * len(r) for r in rows]
        return data
    side = padding_side if padding_side is not None else tok.padding_side
    block = np.full((n, width), pad_id, dtype=np.int64)
    cols = np.arange(width)
    if side == "right":
        mask = cols[None, :] < lengths[:, None]
    else:
        mask = cols[None, :] >= (width - lengths)[:, None]
    block[mask] = ids
    data = {"input_ids": block}
    if type_ids:
        types = np.full((n, width), tok.pad_token_type_id, dtype=np.int64)
        types[mask] = 0
        data["token_type_ids"] = types
    if attention:
        data["attention_mask"] = mask.astype(np.int64)
    if not as_arrays:
        data = {k: v.tolist() for k, v in data.items()}
    return data

"""``FastCall``: the common ``__call__`` cases of a ``bertpiece.AutoTokenizer`` object
without transformers' per-call Python.

``__call__`` with one str or a list of str, no pair and the common options
(padding, truncation, max_length, stride, pad_to_multiple_of, padding_side,
return_tensors np/pt, the type-id and mask flags, add_special_tokens,
split_special_tokens, verbose) runs a plan made once per set of options and
state of the tokenizer by transformers' own option resolution
(call_plan.py). Calls that reach ``_encode_plus`` another way (``encode``,
``encode_plus``) have had their options resolved by transformers and take the
same rows from the core. Anything else, and any case these paths are unsure
of, goes to transformers' own code (the definition). The ``encodings`` of a
fast call are computed on first use (lazy_encodings.py), with the core and
settings of the call (tests/test_auto_tokenizer_fast*.py check both paths agree).
"""

from __future__ import annotations

from typing import Any, Optional

from transformers.tokenization_utils_base import PaddingStrategy, TruncationStrategy

from .backend import swap_backend
from .call_plan import _ONE_SIDED, resolved_plan, run, serve

_NO_EXTRAS = ("return_overflowing_tokens", "return_special_tokens_mask", "return_offsets_mapping", "return_length",
              "is_split_into_words", "sanitize_control_tokens")


class FastCall:
    """Mixed in before the folder's transformers class (see the module doc)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # transformers' constructor builds the HF backend; bertpiece's replaces it (also for
        # objects transformers makes with type(tok)(...), e.g. train_new_from_iterator's).
        super().__init__(*args, **kwargs)
        swap_backend(self)

    def __call__(self, text: Any = None, text_pair: Any = None, *args: Any, **kwargs: Any) -> Any:
        if text_pair is None and not args and (type(text) is str or (type(text) in (list, tuple) and text)):
            out = serve(self, text, kwargs)
            if out is not None:
                return out
        return super().__call__(text, text_pair, *args, **kwargs)

    def _encode_plus(self, text: Any, text_pair: Any = None, add_special_tokens: bool = True,
                     padding_strategy: PaddingStrategy = PaddingStrategy.DO_NOT_PAD,
                     truncation_strategy: TruncationStrategy = TruncationStrategy.DO_NOT_TRUNCATE,
                     max_length: Optional[int] = None, stride: int = 0, pad_to_multiple_of: Optional[int] = None,
                     padding_side: Optional[str] = None, return_tensors: Any = None,
                     return_token_type_ids: Optional[bool] = None, return_attention_mask: Optional[bool] = None,
                     verbose: bool = True, split_special_tokens: Optional[bool] = None, **kwargs: Any) -> Any:
        out = None
        # (a flag that is not a bool: transformers' path, where the backend's encode_batch refuses it)
        if text_pair is None and not any(kwargs.get(k) for k in _NO_EXTRAS) and (
                add_special_tokens is True or add_special_tokens is False) \
                and kwargs.get("is_split_into_words", False) is False:
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
        """`_encode_plus` with options transformers has resolved: its backend state, then the plan's rows."""
        if type(text) is not str and (type(text) not in (list, tuple) or not text):
            return None
        if truncation_strategy not in _ONE_SIDED or (return_tensors is not None and return_tensors not in ("np", "pt")):
            return None
        if max_length is not None and type(max_length) is not int:
            return None
        if padding_strategy is PaddingStrategy.MAX_LENGTH and max_length is None:
            return None  # padding to a max_length of None: transformers' path says what that does
        # The backend's state as transformers' own _encode_plus leaves it.
        self.set_truncation_and_padding(padding_strategy=padding_strategy, truncation_strategy=truncation_strategy,
                                        max_length=max_length, stride=stride, pad_to_multiple_of=pad_to_multiple_of,
                                        padding_side=padding_side)
        if split_special_tokens is None:
            split_special_tokens = self.split_special_tokens
        backend = self._tokenizer
        if backend.encode_special_tokens != split_special_tokens:
            backend.encode_special_tokens = split_special_tokens
        plan = resolved_plan(self, backend, padding_strategy, max_length, add_special_tokens, return_tensors,
                             return_token_type_ids, return_attention_mask, verbose)
        if plan is False:
            return None
        return run(self, plan, backend, backend._core, text)

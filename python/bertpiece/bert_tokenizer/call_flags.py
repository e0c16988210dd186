"""The options of a call as each reference reads them: yes/no flags and sizes.

transformers' `BertTokenizer` (tokenizers mode) hands `add_special_tokens` and
`is_split_into_words` to HF's Rust `encode_batch`, which takes a bool (or a
NumPy bool) and refuses anything else with a `TypeError`; the `return_*`
flags it reads in Python by truthiness. `BertTokenizerLegacy` reads them all by
truthiness."""

import sys

import numpy as np


class InputTypeError(TypeError, ValueError):
    """A bad input value: a TypeError (like HF tokenizers) that is also a
    ValueError (what transformers' Python tokenizer raises)."""


def check_size(name, value, allow_zero):
    """A count argument: an int (not a bool), >= 0 or > 0; ValueError naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        if hasattr(value, "__index__") and not isinstance(value, (bool, np.bool_)):
            value = value.__index__()
        else:
            raise InputTypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {value}")


def strict_bool(value):
    """`value` as HF's Rust conversion to bool takes it: a bool or NumPy bool, else its TypeError."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    shown = "'None'" if value is None else f"'{type(value).__name__}' object"
    raise TypeError(f"{shown} is not an instance of 'bool'")


def truthy(value):
    """A `return_*` flag: None stays None (the tokenizer's default), anything else its truth value."""
    return value if value is None or value is True or value is False else bool(value)


def check_hf_sizes(strategies, max_length, stride, pad_to_multiple_of, legacy):
    """tokenizers mode: HF converts the sizes it reads to 64-bit unsigned counts, so one of 2**64 or more is
    its OverflowError (bertpiece would otherwise not truncate, or refuse the padding as a MemoryError).
    Legacy mode: padding to more than sys.maxsize tokens is Python's OverflowError there."""
    padding_strategy, truncation_strategy, _ = strategies
    truncating = truncation_strategy != "do_not_truncate" and not legacy
    limit = sys.maxsize + 1 if legacy else 1 << 64
    for name, value, read in (("max_length", max_length, truncating or padding_strategy == "max_length"),
                              ("stride", stride, truncating),
                              ("pad_to_multiple_of", pad_to_multiple_of, padding_strategy != "do_not_pad")):
        if read and isinstance(value, int) and value >= limit:
            raise OverflowError(f"{name}={value} is too big to convert to a 64-bit count (int too big to convert)")

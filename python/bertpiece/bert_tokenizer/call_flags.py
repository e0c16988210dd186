"""The yes/no options of a call as each reference reads them.

transformers' `BertTokenizer` (tokenizers mode) hands `add_special_tokens` and
`is_split_into_words` to HF's Rust `encode_batch`, which takes a bool (or a
NumPy bool) and refuses anything else with a `TypeError`; the `return_*`
flags it reads in Python by truthiness. `BertTokenizerLegacy` reads them all by
truthiness."""

import numpy as np


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


def check_hf_sizes(strategies, max_length, stride, pad_to_multiple_of):
    """tokenizers mode: HF converts the sizes it reads to 64-bit unsigned counts, so one of 2**64 or more is
    its OverflowError (bertpiece would otherwise not truncate, or refuse the padding as a MemoryError)."""
    padding_strategy, truncation_strategy, _ = strategies
    truncating = truncation_strategy != "do_not_truncate"
    for name, value, read in (("max_length", max_length, truncating or padding_strategy == "max_length"),
                              ("stride", stride, truncating),
                              ("pad_to_multiple_of", pad_to_multiple_of, padding_strategy != "do_not_pad")):
        if read and isinstance(value, int) and value >= 1 << 64:
            raise OverflowError(f"{name}={value} is too big to convert to a 64-bit count (int too big to convert)")

"""Odd values of `__call__`'s options (ints and None for flags, NumPy scalars, unread sizes of any
type, sizes past 64 bits), each against the real transformers 5 `BertTokenizer` (tokenizers mode) and
`BertTokenizerLegacy` (legacy mode) on the same input: the same result, or both raise with bertpiece's
error an instance of the reference's type. Deliberate differences (docs/bert_tokenizer.md) are left out."""

import warnings

import numpy as np
import pytest

from test_call_edges import MODES, pair
from test_call_edges import outcome as columns


def outcome(fn, *args, **kwargs):
    """`columns` of a call; a list (encode's ids) or str (decode's) as it is."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (transformers' "max_length is ignored" advice, in both)
            out = fn(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001  (every failure is data here)
        return type(exc).__name__, str(exc)
    return out if isinstance(out, (list, str)) else columns(lambda: out)

TEXTS = ["hello world again", ["hello world", "a b c d e f"], ("hello", "world")]


def same(ours, theirs, text, method=None, **kwargs):
    """The reference's outcome, after checking that ours is the same."""
    call = (lambda tok: getattr(tok, method)) if method else (lambda tok: tok)
    expected, mine = outcome(call(theirs), text, **kwargs), outcome(call(ours), text, **kwargs)
    if isinstance(expected, tuple):
        assert isinstance(mine, tuple), (text, kwargs, expected, mine)
        classes = {"TypeError": TypeError, "ValueError": ValueError, "OverflowError": OverflowError}
        with pytest.raises(classes[expected[0]]), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(ours)(text, **kwargs)
    else:
        assert mine == expected, (text, kwargs)
    return expected


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("name", ["add_special_tokens", "is_split_into_words"])
@pytest.mark.parametrize("value", [2, 1, 0, -1, None, "", "yes", 8.0, np.int64(1), np.bool_(True), np.bool_(False)],
                         ids=repr)
def test_flags_that_hf_takes_as_bools_only(reference, name, value):
    """HF's Rust encode_batch takes these two as bools (NumPy's too) and raises TypeError for anything
    else, where bertpiece's tokenizers mode read them by truthiness (`add_special_tokens=2` added the
    special tokens); the legacy reference reads them by truthiness, a str with is_split_into_words
    as text (bertpiece refused it)."""
    ours, theirs = pair(reference)
    for text in TEXTS + ["hello there"]:
        same(ours, theirs, text, **{name: value})
        if name == "add_special_tokens" and isinstance(text, str):  # encode's fast path too
            same(ours, theirs, text, "encode", **{name: value})


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("value", [0, "", 1, "x", None, np.bool_(False)], ids=repr)
def test_return_flags_by_truthiness(reference, value):
    """transformers reads the return_* flags by truthiness: `return_attention_mask=0` drops the mask
    (bertpiece kept it: only False did), `return_offsets_mapping=1` or None on a batch works (the core
    refused a non-bool)."""
    ours, theirs = pair(reference)
    names = ["return_token_type_ids", "return_attention_mask", "return_special_tokens_mask", "return_length"]
    if reference == "tokenizers":
        names.append("return_offsets_mapping")
    for name in names:
        for text in TEXTS:
            for base in (dict(), dict(padding="max_length", max_length=8)):
                same(ours, theirs, text, **base, **{name: value})


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("value", [-1, 8.0, "x", True, None, 2**64], ids=repr)
def test_unread_sizes_pass(reference, value):
    """transformers reads `stride` only when truncating and `pad_to_multiple_of` only when padding
    (legacy: also whenever a max_length is given): any value passes otherwise (bertpiece refused
    a negative or non-int one up front)."""
    ours, theirs = pair(reference)
    for text in TEXTS:
        assert not isinstance(same(ours, theirs, text, stride=value), tuple)
        assert not isinstance(same(ours, theirs, text, stride=value, padding=True), tuple)
        assert not isinstance(same(ours, theirs, text, pad_to_multiple_of=value), tuple)
        if reference == "tokenizers":
            same(ours, theirs, text, pad_to_multiple_of=value, truncation=True, max_length=6)


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("value", [-1, 0, 8.0, "x", True], ids=repr)
def test_an_unread_max_length_passes(reference, value):
    """With truncation off and no max_length padding, transformers never reads `max_length`: any value
    passes (bertpiece refused it, or said it was smaller than the special tokens)."""
    ours, theirs = pair(reference)
    for text in TEXTS:
        for base in (dict(truncation=False), dict(truncation=False, padding=True)):
            assert not isinstance(same(ours, theirs, text, max_length=value, **base), tuple)


def test_legacy_padding_past_sys_maxsize_is_overflow_error():
    """BertTokenizerLegacy pads with Python lists: OverflowError (bertpiece: MemoryError)."""
    ours, theirs = pair("transformers")
    for text in TEXTS:
        assert same(ours, theirs, text, padding="max_length", max_length=2**64)[0] == "OverflowError"


@pytest.mark.parametrize("options", [dict(truncation=True, max_length=2, stride=1), dict(truncation=True, max_length=0),
                                     dict(truncation=True, max_length=1), dict(is_split_into_words=""),
                                     dict(text_pair=["a"], is_split_into_words="")], ids=str)
def test_flag_errors_come_after_hfs_own_checks(options):
    """HF checks the options (its stride window, the batch lengths) in Python before its Rust conversion
    of the flags; bertpiece's own refusal of a max_length below the special tokens comes after it."""
    ours, theirs = pair("tokenizers")
    flag = {} if "is_split_into_words" in options else dict(add_special_tokens=1)
    same(ours, theirs, ["hello world", "a b"], **flag, **options)


@pytest.mark.parametrize("options", [dict(truncation=True, max_length=2**64), dict(max_length=2**64),
                                     dict(padding="max_length", max_length=2**64),
                                     dict(truncation=True, max_length=6, stride=2**64),
                                     dict(padding=True, pad_to_multiple_of=2**64)], ids=str)
def test_sizes_past_64_bits_are_overflow_errors_in_tokenizers_mode(options):
    """HF converts a size it reads to a 64-bit count: OverflowError (bertpiece did not truncate, or
    raised MemoryError / the stride's ValueError)."""
    ours, theirs = pair("tokenizers")
    for text in TEXTS:
        assert same(ours, theirs, text, **options)[0] == "OverflowError"


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("value", [0, 1, 2, None, "", "yes", 8.0, np.int64(1), np.bool_(True)], ids=repr)
def test_decode_and_tokenize_flags(reference, value):
    """HF's Rust decode / decode_batch take `skip_special_tokens` as a bool only, and `split_special_tokens`
    (set on its Rust tokenizer when it differs from the tokenizer's) likewise: TypeError, where bertpiece
    read them by truthiness. The legacy reference reads them by truthiness."""
    ours, theirs = pair(reference)
    for ids in ([101, 7592, 102], [[101, 7592, 102], [101]], []):
        method = "batch_decode" if ids and isinstance(ids[0], list) else "decode"
        same(ours, theirs, ids, method, skip_special_tokens=value)
    same(ours, theirs, [], "batch_decode", skip_special_tokens=value)
    same(ours, theirs, "hello [SEP] world", "tokenize", split_special_tokens=value)
    same(ours, theirs, "hello [SEP] world", split_special_tokens=value)

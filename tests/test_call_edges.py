"""Edge arguments of `__call__`, each against the real transformers 5
`BertTokenizer` (tokenizers mode) and `BertTokenizerLegacy` (legacy mode):
`max_length` 0 or 1 without special tokens, the dtypes of empty rows, and
refused padding/truncation sides."""

import warnings

import numpy as np
import pytest
import torch

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
MODES = {"tokenizers": lambda: transformers.BertTokenizer(vocab=VOCAB),
         "transformers": lambda: transformers.BertTokenizerLegacy(vocab_file=VOCAB)}


def pair(reference):
    return bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference), MODES[reference]()


def outcome(tok, *args, **kwargs):
    """What a call gives: its columns (values with dtypes and shapes), or its error."""
    try:
        out = tok(*args, **kwargs)
    except BaseException as exc:  # (HF's PanicException is a BaseException)
        kind = "ValueError" if type(exc).__name__ == "PanicException" else type(exc).__name__
        return kind, str(exc)
    return {k: (v.tolist(), str(v.dtype), tuple(v.shape)) if hasattr(v, "dtype") else v for k, v in out.items()}


TEXTS = ["hello world", ["hello world", "a b c"], "", [""]]
OPTIONS = [dict(), dict(return_overflowing_tokens=True), dict(padding="max_length"),
           dict(padding=True, return_tensors="np"), dict(padding=True, return_tensors="pt")]


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("max_length,stride", [(0, 0), (0, 5), (1, 0), (1, 1), (2, 0), (2, 1), (3, 1), (3, 2)])
def test_tiny_max_length_without_special_tokens(reference, max_length, stride):
    """HF checks the stride against max_length minus the special tokens even when
    none are added (no check below them: the unsigned subtraction wraps); a
    stride that fills a window is HF's panic, here a ValueError with its message."""
    ours, theirs = pair(reference)
    for text in TEXTS:
        for options in OPTIONS:
            kwargs = dict(add_special_tokens=False, truncation=True, max_length=max_length, stride=stride, **options)
            expected = outcome(theirs, text, **kwargs)
            if isinstance(expected, tuple) and expected[0] == "AssertionError":
                continue  # legacy's pad of a batch where only some rows overflow (a documented difference)
            assert outcome(ours, text, **kwargs) == expected, (text, options)


EMPTY_CALLS = [
    (("",), dict(add_special_tokens=False, return_tensors="np")),
    (("",), dict(add_special_tokens=False, return_tensors="pt")),
    (([""] * 2,), dict(add_special_tokens=False, padding=True, return_tensors="pt")),
    (([""] * 2,), dict(add_special_tokens=False, padding=True, return_tensors="np")),
    (([""] * 2,), dict(add_special_tokens=False, return_tensors="np")),
    (("a",), dict(text_target="", add_special_tokens=False, return_tensors="np")),
    (("a",), dict(text_target="", add_special_tokens=False, return_tensors="pt")),
    (("a",), dict(text_target="", return_tensors="pt", add_special_tokens=False, padding=True)),
]


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("args,kwargs", EMPTY_CALLS)
def test_empty_rows_keep_integer_dtypes(reference, args, kwargs):
    ours, theirs = pair(reference)
    mine = outcome(ours, *args, **kwargs)
    assert mine == outcome(theirs, *args, **kwargs)
    assert all(v[1] in ("int64", "torch.int64") for v in mine.values())


@pytest.mark.parametrize("reference", sorted(MODES))
def test_a_bad_padding_side_argument_is_transformers_error(reference):
    """transformers' error and message where it raises; BertTokenizerLegacy
    ignores the value when no row needs padding, bertpiece refuses it still."""
    ours, theirs = pair(reference)
    raised = 0
    for text in ("a b", ["a", "a b"], [["a", "b"]], [["a"], ["a", "b"]]):
        kwargs = dict(padding=True, padding_side="middle", is_split_into_words=isinstance(text[0], list))
        expected, mine = outcome(theirs, text, **kwargs), outcome(ours, text, **kwargs)
        if isinstance(expected, tuple):
            raised += 1
            assert mine == expected
        else:
            assert mine[0] == "ValueError" and mine[1] == outcome(ours, ["a", "a b"], **kwargs)[1]
    assert raised >= 2


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("side", ["padding_side", "truncation_side"])
def test_a_bad_side_attribute_is_refused_when_set(reference, side):
    """transformers accepts the value and fails at the next call (BertTokenizerLegacy
    truncates on the right with a bad truncation_side): bertpiece refuses it when
    set, as its constructor does."""
    ours, theirs = pair(reference)
    setattr(theirs, side, "middle")
    call = (lambda: theirs(["a", "a b c d"], padding=True)) if side == "padding_side" else \
        (lambda: theirs("a b c d", truncation=True, max_length=4))
    if reference == "transformers" and side == "truncation_side":
        assert call()["input_ids"] == [101, 1037, 1038, 102]
    else:
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ValueError, match="side should be selected between 'right' and 'left', current value: middle"):
        setattr(ours, side, "middle")
    assert getattr(ours, side) == "right"
    with pytest.raises(ValueError, match="current value: middle"):
        bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference, **{side: "middle"})


NONE_OPTIONS = [dict(padding=None), dict(padding=None, truncation=True, max_length=3),
                dict(stride=None), dict(stride=None, padding=True, return_tensors="np"),
                dict(stride=None, truncation=True, max_length=4)]


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("options", NONE_OPTIONS, ids=str)
def test_none_options_as_transformers(reference, options):
    """`padding=None` is transformers' ValueError (it was taken as no padding); `stride=None` passes while
    nothing is truncated (it was refused). With truncation on, a None stride is tokenizers mode's TypeError
    up front; legacy reads it only when a row is cut, so there it is a TypeError too, whether or not one is."""
    ours, theirs = pair(reference)
    for text in ["hello world again", ["hello world again", "a b"], ("hello world", "again")]:
        expected = outcome(theirs, text, **options)
        if options.get("stride", 0) is None and options.get("truncation"):
            with pytest.raises(TypeError, match="stride must be an integer, got NoneType"):
                ours(text, **options)
        elif isinstance(expected, tuple):
            with pytest.raises({"ValueError": ValueError, "TypeError": TypeError}[expected[0]]):
                ours(text, **options)
        else:
            assert outcome(ours, text, **options) == expected, (text, options)


@pytest.mark.parametrize("value", [2, -1, "yes", 0, ""])
def test_add_special_tokens_any_truthiness_on_one_text(value):
    """Legacy mode takes any truthy `add_special_tokens` (transformers' Python tokenizer does); one text
    gave an IndexError for 2 and -1 (its one-text path indexed a pair of tuples by it), a list did not."""
    ours, theirs = pair("transformers")
    for text in ["hello world", ["hello world"]]:
        assert outcome(ours, text, add_special_tokens=value) == outcome(theirs, text, add_special_tokens=value)

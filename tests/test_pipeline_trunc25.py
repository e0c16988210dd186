"""Truncation and padding in bertpiece.Tokenizer against tokenizers 0.23.3: every
strategy x direction x stride x single/pair x padding option on UD lines, on
the byte-level BPE, Unigram, WordPiece and WordLevel shapes the tests build
(tests/bpe_shapes.py, tests/models_shapes.py); overflowing pieces (nested, as HF
nests them for pairs) compared whole; batches; stored settings; pickling;
bad arguments and malformed stored settings."""

import itertools
import json
import pickle

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
import bpe_shapes
import models_shapes
from bpe_shapes import ATTRS, UD_FILES, ud_lines

SHAPES = {**bpe_shapes.SHAPES, **{k: models_shapes.SHAPES[k] for k in ("t5", "xlmr", "wordpiece", "wordlevel")}}
TRUNCATIONS = [
    dict(max_length=m, stride=s, strategy=st, direction=d)
    for m, s in [(1, 0), (5, 0), (9, 2), (16, 5), (40, 0)]
    for st in ("longest_first", "only_first", "only_second")
    for d in ("right", "left")
]
PADDINGS = [None, dict(), dict(length=30, direction="left", pad_id=3, pad_type_id=2, pad_token="<p>"),
            dict(pad_to_multiple_of=8), dict(length=5, pad_to_multiple_of=4, direction="left")]


def tree(e):
    """Every attribute of an encoding and, recursively, of its overflowing pieces."""
    return {**{a: getattr(e, a) for a in ATTRS}, "overflowing": [tree(o) for o in e.overflowing]}


def outcome(f):
    """What a call gives: the encodings' trees, or the error message. Where HF
    panics (stride not below the length it cuts to), bertpiece raises
    ValueError: both map to ("stride panic",). See docs/pipeline.md."""
    try:
        r = f()
    except Exception as e:
        if isinstance(e, ValueError) and "must be strictly less than the length to truncate to" in str(e):
            return ("stride panic",)
        return ("error", str(e))
    except BaseException as e:  # pyo3's PanicException
        if type(e).__name__ == "PanicException" and "`stride` must be strictly less" in str(e):
            return ("stride panic",)
        raise
    return [tree(x) for x in r] if isinstance(r, list) else tree(r)


def configure(tok, trunc, pad):
    if trunc is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(**trunc)
    if pad is None:
        tok.no_padding()
    else:
        tok.enable_padding(**pad)


def sample_pairs(n_per_file):
    lines = [line for path in UD_FILES for line in ud_lines(path, n_per_file)] + ["", "a", "日本語 😀 x\u0301"]
    return list(zip(lines, lines[3:] + lines[:3]))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_options_match_tokenizers_on_ud_lines(shape):
    text = SHAPES[shape]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    pairs = sample_pairs(2)
    combos = list(itertools.product(TRUNCATIONS + [None], PADDINGS))
    for k, (a, b) in enumerate(pairs):
        # a different slice of the option grid for each line keeps the test short
        for trunc, pad in combos[k % 7::7]:
            configure(ours, trunc, pad)
            configure(theirs, trunc, pad)
            assert ours.truncation == theirs.truncation and ours.padding == theirs.padding
            if trunc is not None and trunc["max_length"] <= 5:
                # tiny budgets cut a pair into (pieces of a) x (pieces of b) nested overflows: keep them short
                a, b = a[:15], b[:15]
            for pair, specials in [(None, True), (b, True), (b, False), (None, False)]:
                got = outcome(lambda: ours.encode(a, pair, add_special_tokens=specials))
                want = outcome(lambda: theirs.encode(a, pair, add_special_tokens=specials))
                assert got == want, (shape, trunc, pad, a, pair, specials)


@pytest.mark.parametrize("shape", ["roberta", "wordpiece", "t5"])
def test_batches_pad_to_the_longest(shape):
    text = SHAPES[shape]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    pairs = sample_pairs(1)
    batch = [a if k % 2 else (a, b) for k, (a, b) in enumerate(pairs)]
    for trunc in [None, dict(max_length=24, stride=2), dict(max_length=20, direction="left", strategy="only_first")]:
        for pad in PADDINGS:
            for t in (ours, theirs):
                configure(t, trunc, pad)
            got = outcome(lambda: ours.encode_batch(batch))
            assert got == outcome(lambda: theirs.encode_batch(batch)), (trunc, pad)
            pre = [a.split() or ["x"] for a, _ in pairs]
            got = outcome(lambda: ours.encode_batch(pre, is_pretokenized=True))
            assert got == outcome(lambda: theirs.encode_batch(pre, is_pretokenized=True)), (trunc, pad)


def test_stride_too_long_for_the_cut_is_a_value_error_where_hf_panics():
    text = SHAPES["t5"]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    for t in (ours, theirs):
        t.enable_truncation(6, stride=2)  # accepted: 2 < 6 - 1; a pair leaves (6 - 2) / 2 = 2 a side
    long = "hello world this is a long text"
    assert tree(ours.encode(long)) == tree(theirs.encode(long))
    with pytest.raises(BaseException, match="stride") as hf:
        theirs.encode(long, long)
    assert not isinstance(hf.value, Exception)  # HF's PanicException
    with pytest.raises(ValueError, match="stride=2 must be strictly less"):
        ours.encode(long, long)


@pytest.mark.parametrize("kwargs", [
    dict(max_length=5, stride=5), dict(max_length=3, strategy="foo"), dict(max_length=3, direction="up"),
    dict(max_length=-1), dict(max_length=5, stride=-1),
])
def test_bad_truncation_arguments_raise_as_tokenizers(kwargs):
    text = SHAPES["t5"]()
    with pytest.raises(Exception) as hf:
        HFTokenizer.from_str(text).enable_truncation(**kwargs)
    with pytest.raises(type(hf.value)) as ours:
        bertpiece.Tokenizer.from_str(text).enable_truncation(**kwargs)
    if isinstance(hf.value, ValueError):
        assert str(ours.value) == str(hf.value)


@pytest.mark.parametrize("kwargs", [dict(direction="up"), dict(length=-1), dict(pad_id=-1), dict(pad_to_multiple_of=-2)])
def test_bad_padding_arguments_raise_as_tokenizers(kwargs):
    text = SHAPES["t5"]()
    with pytest.raises(Exception) as hf:
        HFTokenizer.from_str(text).enable_padding(**kwargs)
    with pytest.raises(type(hf.value)) as ours:
        bertpiece.Tokenizer.from_str(text).enable_padding(**kwargs)
    if isinstance(hf.value, ValueError):
        assert str(ours.value) == str(hf.value)


def test_huge_padding_length_is_a_memory_error_not_an_abort():
    tok = bertpiece.Tokenizer.from_str(SHAPES["t5"]())
    tok.enable_padding(length=2**62)
    with pytest.raises(MemoryError, match="padding"):
        tok.encode("a")


@pytest.mark.parametrize("shape", ["gpt2", "wordpiece"])
def test_stored_settings_load_and_encode_as_tokenizers(shape):
    hf = HFTokenizer.from_str(SHAPES[shape]())
    pairs = sample_pairs(1)
    for trunc, pad in [(dict(max_length=10, stride=3, strategy="only_first", direction="left"),
                        dict(length=14, pad_to_multiple_of=4, direction="left", pad_id=1, pad_type_id=3, pad_token="<p>")),
                       (dict(max_length=7), dict()), (None, dict(pad_to_multiple_of=3)), (dict(max_length=9), None)]:
        configure(hf, trunc, pad)
        text = hf.to_str()
        ours = bertpiece.Tokenizer.from_str(text)
        theirs = HFTokenizer.from_str(text)
        assert (ours.truncation, ours.padding) == (theirs.truncation, theirs.padding)
        for a, b in pairs:
            assert outcome(lambda: ours.encode(a, b)) == outcome(lambda: theirs.encode(a, b)), (trunc, pad, a)
        batch = [a for a, _ in pairs]
        assert outcome(lambda: ours.encode_batch(batch)) == outcome(lambda: theirs.encode_batch(batch))
        # pickling keeps the settings as they are now, not as the file had them
        ours.enable_truncation(4, direction="left")
        again = pickle.loads(pickle.dumps(ours))
        assert (again.truncation, again.padding) == (ours.truncation, ours.padding)
        ours.no_truncation()
        ours.no_padding()
        again = pickle.loads(pickle.dumps(ours))
        assert (again.truncation, again.padding) == (None, None)


@pytest.mark.parametrize("key, value, field", [
    ("truncation", {"max_length": 5, "stride": 0, "strategy": "Foo"}, "truncation.strategy"),
    ("truncation", {"max_length": -1, "stride": 0, "strategy": "OnlyFirst"}, "truncation.max_length"),
    ("truncation", {"max_length": 5, "strategy": "OnlyFirst"}, "truncation.stride"),
    ("truncation", {"max_length": 5, "stride": 0, "strategy": "OnlyFirst", "direction": "Up"}, "truncation.direction"),
    ("truncation", [5], "truncation"),
    ("padding", {"strategy": "Longest", "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
                 "pad_type_id": 0, "pad_token": "[PAD]"}, "padding.strategy"),
    ("padding", {"strategy": {"Fixed": "8"}, "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
                 "pad_type_id": 0, "pad_token": "[PAD]"}, "padding.strategy.Fixed"),
    ("padding", {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
                 "pad_type_id": 0}, "padding.pad_token"),
    ("padding", {"strategy": "BatchLongest"}, "padding.direction"),
    ("padding", {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": -4, "pad_id": 0,
                 "pad_type_id": 0, "pad_token": "[PAD]"}, "padding.pad_to_multiple_of"),
])
def test_malformed_stored_settings_are_value_errors_naming_the_field(key, value, field):
    cfg = json.loads(SHAPES["wordlevel"]())
    cfg[key] = value
    text = json.dumps(cfg)
    with pytest.raises(Exception):
        HFTokenizer.from_str(text)
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        bertpiece.Tokenizer.from_str(text)

"""The BERT fast path of the general pipeline (src/pipeline_bert.rs: a
BERT-shaped tokenizer.json's ids-only calls on the fused one-pass encoder)
against the general path of the same file (PipelineTokenizer.from_str(json,
fast_path=False)) and tokenizers 0.23.3, three-way: BERT files as transformers
5.24 saves them for the bundled vocabularies, with the BertNormalizer options,
post-processors, added tokens (in the file and added at run time) and stored
truncation varied; UD lines and edge texts; ids and offsets of
`encode_batch_arrays`, and AutoTokenizer's calls on a BERT folder against
transformers'. The shapes that must not take the path do not."""

import functools
import json
import os
import tempfile
import warnings

import numpy as np
import pytest
import transformers
from hypothesis import given, settings, strategies as st
from tokenizers import AddedToken, Tokenizer as HFTokenizer, processors

import bertpiece
from bertpiece._core import PipelineTokenizer
from bpe_shapes import UD_FILES, assert_same, ud_lines
from tiers import ud_params

VOCABS = "/work/shared/data/vocab"
BUNDLED = os.path.join(os.path.dirname(bertpiece.__file__), "vocab")

EDGE_TEXTS = [
    "", " ", "\t\n\r  \u3000\u00a0", "\x00", "a\x00b", "\x01\x7f\x85x\u200b\ufeffy\ufffd", "héllo Ünïcödé Σίσυφος",
    "e\u0301\u0302 a\u0308\u0323 \u0301x", "中文字符测试，混合English。", "日本語のテキスト", "한국어 텍스트",
    "x" * 99, "y" * 100, "z" * 101, "w" * 150 + " ok", "ab" * 60 + "!", "don't [CLS] [SEP]x [MASK]. [UNK] [PAD]",
    "[cls] [Sep] [[CLS]]", "İstanbul ǅ ﬁ ẞ", "😀 emoji 🇫🇷 ok", "a\u2028b\u2029c",
    "punct!?…—«»¿¡", "1,234.56 $%&", "tab\tsep\nline\r\nend",
]


def vocab_path(name):
    for d in (VOCABS, BUNDLED):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    pytest.skip(f"no vocabulary {name}")


@functools.lru_cache(maxsize=None)
def saved_json(vocab, **kwargs):
    """tokenizer.json as transformers 5.24 saves it for BertTokenizer(vocab=..., **kwargs)."""
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as d:
        warnings.simplefilter("ignore")
        transformers.BertTokenizer(vocab=vocab_path(vocab), **kwargs).save_pretrained(d)
        with open(os.path.join(d, "tokenizer.json"), encoding="utf-8") as f:
            return f.read()


def edited(base, **normalizer):
    d = json.loads(base)
    d["normalizer"].update(normalizer)
    return json.dumps(d)


def hf_edit(base, edit):
    tok = HFTokenizer.from_str(base)
    edit(tok)
    return tok.to_str()


UNCASED = functools.partial(saved_json, "bert-base-uncased.txt")

ADDED = [AddedToken("<new>", special=False, normalized=False), AddedToken("[X]", special=True, lstrip=True, rstrip=True),
         AddedToken("ok", special=False, normalized=False, single_word=True), AddedToken("語の", special=False, normalized=False)]
ADDED_TEXTS = ["a<new>b <new> [X] x[X]y", "ok okay ok. book", "日本語のテキスト<new>", "[CLS]<new>[SEP]"]

SHAPES = {
    "uncased": UNCASED,
    "cased": lambda: saved_json("bert-base-cased.txt", do_lower_case=False),
    "multilingual-cased": lambda: saved_json("bert-base-multilingual-cased.txt", do_lower_case=False),
    "chinese": lambda: saved_json("bert-base-chinese.txt"),
    "strip-accents-true-cased": lambda: edited(UNCASED(), lowercase=False, strip_accents=True),
    "strip-accents-false": lambda: edited(UNCASED(), strip_accents=False),
    "strip-accents-true": lambda: edited(UNCASED(), strip_accents=True),
    "no-chinese-chars": lambda: edited(UNCASED(), handle_chinese_chars=False),
    "bert-processing": lambda: hf_edit(UNCASED(), lambda t: setattr(t, "post_processor", processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101)))),
    # MPNet's shape: RobertaProcessing (trim_offsets) after a BERT normalizer and pre-tokenizer
    "mpnet-like": lambda: hf_edit(UNCASED(), lambda t: setattr(t, "post_processor", processors.RobertaProcessing(
        ("[SEP]", 102), ("[CLS]", 101), trim_offsets=True, add_prefix_space=False))),
    "no-post-processor": lambda: hf_edit(UNCASED(), lambda t: setattr(t, "post_processor", None)),
    "short-words": lambda: json.dumps({**json.loads(UNCASED()), "model": {**json.loads(UNCASED())["model"], "max_input_chars_per_word": 5}}),
    "added": lambda: hf_edit(UNCASED(), lambda t: t.add_tokens(ADDED)),
    "stored-truncation": lambda: hf_edit(UNCASED(), lambda t: t.enable_truncation(12, stride=0, direction="left")),
    "stored-padding": lambda: hf_edit(UNCASED(), lambda t: t.enable_padding(length=40)),
}
# Shapes the fused encoder does not reproduce: the general path.
NOT_FAST = {
    "no-clean-text": lambda: edited(UNCASED(), clean_text=False),
    "other-prefix": lambda: json.dumps({**json.loads(UNCASED()), "model": {**json.loads(UNCASED())["model"], "continuing_subword_prefix": "@@"}}),
    "whitespace-pre-tokenizer": lambda: json.dumps({**json.loads(UNCASED()), "pre_tokenizer": {"type": "Whitespace"}}),
    "lowercase-normalizer": lambda: json.dumps({**json.loads(UNCASED()), "normalizer": {"type": "Lowercase"}}),
    "no-normalizer": lambda: json.dumps({**json.loads(UNCASED()), "normalizer": None}),
}


@functools.lru_cache(maxsize=None)
def three(shape):
    text = {**SHAPES, **NOT_FAST}[shape]()
    fast = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, False), text)
    return fast, general, HFTokenizer.from_str(text)


def rows(batch):
    splits = batch.row_splits.tolist()
    ids = batch.ids.tolist()
    out = [ids[a:b] for a, b in zip(splits, splits[1:])]
    if batch.offsets is None:
        return out, None
    offs = [tuple(o) for o in batch.offsets.tolist()]
    return out, [offs[a:b] for a, b in zip(splits, splits[1:])]


def check(shape, texts, **kwargs):
    """encode_batch_arrays (ids and offsets) of the fast and the general path against tokenizers' encode_batch."""
    fast, general, theirs = three(shape)
    want = theirs.encode_batch(texts, add_special_tokens=kwargs.get("add_special_tokens", True))
    for offsets in (False, True):
        a = rows(fast.encode_batch_arrays(texts, return_offsets=offsets, **kwargs))
        b = rows(general.encode_batch_arrays(texts, return_offsets=offsets, **kwargs))
        assert a == b, "fast vs general"
        for i, (e, ids) in enumerate(zip(want, a[0])):
            # the arrays are not padded (a stored padding pads tokenizers' rows)
            kept = [k for k, m in enumerate(e.attention_mask) if m]
            assert ids == [e.ids[k] for k in kept], (i, texts[i])
            if offsets:
                assert a[1][i] == [e.offsets[k] for k in kept], (i, texts[i])
    return a


def test_bert_shapes_take_the_fast_path_and_the_others_do_not():
    for name, make in SHAPES.items():
        assert bertpiece.Tokenizer.from_str(make())._core.fast_path() == "bert_wordpiece", name
        assert PipelineTokenizer.from_str(make(), False).fast_path() is None, name
    for name, make in NOT_FAST.items():
        assert bertpiece.Tokenizer.from_str(make())._core.fast_path() is None, name


@pytest.mark.parametrize("shape", sorted(SHAPES) + sorted(NOT_FAST))
def test_edge_texts(shape):
    check(shape, EDGE_TEXTS + ADDED_TEXTS)


@pytest.mark.parametrize("shape", sorted(SHAPES) + sorted(NOT_FAST))
def test_without_special_tokens(shape):
    check(shape, EDGE_TEXTS + ADDED_TEXTS, add_special_tokens=False)


@pytest.mark.parametrize("path", ud_params(UD_FILES))
@pytest.mark.parametrize("shape", ["uncased", "multilingual-cased", "strip-accents-true-cased", "no-chinese-chars", "added"])
def test_ud_lines(shape, path):
    check(shape, ud_lines(path)[::2])


@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_on_ids(direction):
    """Right truncation encodes only the start of a long text (a part at a time, cut at ASCII
    whitespace): the lines of every UD file, and long texts of spaced combining marks and CJK."""
    fast, general, theirs = three("multilingual-cased")
    long = ["e\u0301 \u0301\u0323x " * 300, "中文 " * 400 + "end", "word " * 50 + "x" * 500, " \t\n" * 200 + "a b"]
    texts = EDGE_TEXTS + long + [line for path in UD_FILES for line in ud_lines(path, 30)]
    for max_length in (0, 1, 2, 3, 9, 64, 128, 1000):
        theirs.enable_truncation(max_length, direction=direction)
        try:
            want = [e.ids for e in theirs.encode_batch(texts)]
        finally:
            theirs.no_truncation()
        for tok in (fast, general):
            tok.enable_truncation(max_length, direction=direction)
            try:
                got = rows(tok.encode_batch_arrays(texts))[0]
            finally:
                tok.no_truncation()
            assert got == want, (max_length, direction)


def test_tokens_added_at_run_time():
    """Tokens added after loading: raw (normalized=False) ones stay on the fast path, normalized ones
    are matched on the normalized text by the general path; both give tokenizers' ids."""
    text = UNCASED()
    texts = EDGE_TEXTS + ADDED_TEXTS + ["Hello Wörld hello world <Raw> <raw>", "mixed WORLDS world"]
    for added in ([AddedToken("<raw>", normalized=False)], [AddedToken("World", normalized=True)],
                  [AddedToken("[MINE]", special=True)]):
        ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
        for t in (ours, theirs):
            (t.add_special_tokens if added[0].special else t.add_tokens)(added)
        got, offs = rows(ours.encode_batch_arrays(texts, return_offsets=True))
        want = theirs.encode_batch(texts)
        assert got == [e.ids for e in want] and offs == [e.offsets for e in want], added


def same_encodings(ours, general, theirs, context):
    for a, b, c in zip(ours, general, theirs, strict=True):
        assert_same(a, b, ("fast vs general", context))
        assert_same(a, c, ("fast vs tokenizers", context))
        assert [o.ids for o in a.overflowing] == [o.ids for o in c.overflowing], context
        assert [o.offsets for o in a.overflowing] == [o.offsets for o in c.overflowing], context


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_encode_and_encode_batch(shape):
    """`encode` / `encode_batch` (the whole Encoding) on the fused encoder: singles, pairs, pre-tokenized."""
    fast, general, theirs = three(shape)
    texts = EDGE_TEXTS + ADDED_TEXTS + ud_lines(UD_FILES[0], 40)
    for add in (True, False):
        same_encodings([fast.encode(t, add_special_tokens=add) for t in texts],
                       [general.encode(t, add_special_tokens=add) for t in texts],
                       [theirs.encode(t, add_special_tokens=add) for t in texts], (shape, add))
        pairs = list(zip(texts, texts[::-1]))
        same_encodings(fast.encode_batch(pairs, add_special_tokens=add), general.encode_batch(pairs, add_special_tokens=add),
                       theirs.encode_batch(pairs, add_special_tokens=add), (shape, "pairs", add))
    words = [t.split(" ") for t in texts]
    same_encodings(fast.encode_batch(words, is_pretokenized=True), general.encode_batch(words, is_pretokenized=True),
                   theirs.encode_batch(words, is_pretokenized=True), (shape, "pre-tokenized"))


@pytest.mark.parametrize("path", ud_params(UD_FILES))
def test_encode_on_ud_lines(path):
    fast, general, theirs = three("multilingual-cased")
    texts = ud_lines(path)[::3]
    same_encodings(fast.encode_batch(texts), general.encode_batch(texts), theirs.encode_batch(texts), path)


def test_encode_with_truncation_overflow_and_padding():
    fast, general, theirs = three("uncased")
    texts = EDGE_TEXTS + ud_lines(UD_FILES[0], 40)
    pairs = list(zip(texts, texts[1:]))
    for kwargs in (dict(max_length=9, stride=2), dict(max_length=16, stride=0, direction="left"),
                   dict(max_length=12, stride=3, strategy="only_first")):
        for t in (fast, general, theirs):
            t.enable_truncation(**kwargs)
            t.enable_padding(pad_id=0, pad_to_multiple_of=8)
        try:
            same_encodings(fast.encode_batch(texts), general.encode_batch(texts), theirs.encode_batch(texts), kwargs)
            if kwargs.get("strategy") != "only_first":
                same_encodings(fast.encode_batch(pairs), general.encode_batch(pairs), theirs.encode_batch(pairs), kwargs)
        finally:
            for t in (fast, general, theirs):
                t.no_truncation()
                t.no_padding()


def test_auto_tokenizer_on_a_bert_folder_takes_it(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (under pytest's temporary directory: `make test` leaves nothing in /tmp)
        transformers.BertTokenizer(vocab=vocab_path("bert-base-uncased.txt")).save_pretrained(tmp_path)
        ours = bertpiece.AutoTokenizer.from_pretrained(tmp_path)
        hf = transformers.AutoTokenizer.from_pretrained(tmp_path)
    assert ours._tokenizer._core.fast_path() == "bert_wordpiece"
    lines = ud_lines(UD_FILES[0], 300) + EDGE_TEXTS
    for b in (1, 8, 32, 256):
        texts = lines[:b]
        kw = dict(padding=True, truncation=True, max_length=128, return_tensors="np")
        a, h = ours(texts, **kw), hf(texts, **kw)
        for key in ("input_ids", "token_type_ids", "attention_mask"):
            np.testing.assert_array_equal(a[key], h[key])
    for text in lines[:50]:
        assert ours(text)["input_ids"] == hf(text)["input_ids"]
        assert ours(text, truncation=True, max_length=8)["input_ids"] == hf(text, truncation=True, max_length=8)["input_ids"]


# Chars where the fused encoder's lanes meet: ASCII words and punctuation, spaces and controls, accents
# (precomposed and combining), CJK, case pairs that change length, an added token's pieces.
FUZZ_TEXT = st.lists(st.sampled_from(list("aZ9 .,'#[]<>\t\n\x00\x7f\u00a0\u3000é\u0301ÅİΣς中語の😀ﬁ") +
                                     ["<new>", "[X]", "ok", "[CLS]", "##"]), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(FUZZ_TEXT, min_size=1, max_size=4), st.sampled_from(["uncased", "strip-accents-true-cased", "added"]))
def test_fuzzed_texts(texts, shape):
    check(shape, texts)


@settings(max_examples=200, deadline=None)
@given(st.lists(FUZZ_TEXT.map(lambda t: t * 8), min_size=1, max_size=4), st.integers(0, 40))
def test_fuzzed_texts_truncated(texts, max_length):
    fast, general, theirs = three("uncased")
    theirs.enable_truncation(max_length)
    try:
        want = [e.ids for e in theirs.encode_batch(texts)]
    finally:
        theirs.no_truncation()
    for tok in (fast, general):
        assert rows(tok.encode_batch_arrays(texts, truncation=True, max_length=max_length))[0] == want


def test_encode_special_tokens_keeps_specials_in_the_text():
    """`encode_special_tokens = True`: the specials written in the text are encoded as text, on both entries."""
    text = UNCASED()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert ours._core.fast_path() == "bert_wordpiece"
    texts = ["[CLS] a [SEP]b [MASK]", "x[PAD]y", "no specials"]
    for flag in (True, False):
        ours.encode_special_tokens = theirs.encode_special_tokens = flag
        want = theirs.encode_batch(texts)
        assert rows(ours.encode_batch_arrays(texts))[0] == [e.ids for e in want], flag
        assert [(e.ids, e.tokens, e.offsets) for e in ours.encode_batch(texts)] == [(e.ids, e.tokens, e.offsets) for e in want]

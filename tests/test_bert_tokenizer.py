"""bertpiece.BertTokenizer against the real transformers 5 tokenizers.

- reference="tokenizers" (default) against `transformers.BertTokenizer`
  (Hugging Face tokenizers) loaded from a directory holding the same vocab.txt
  and a tokenizer_config.json with the same options;
- reference="transformers" against `BertTokenizerLegacy`.

Every expectation is computed by transformers at test time. Inputs: a few
lines of each UD corpus (tests/data) x the four bundled vocabularies, then an
options grid (casing, accents, CJK, pairs, every truncation strategy with
stride and overflow, every padding mode, sides) on a smaller sample. The pairs and the comparison:
tests/bert_pairs.py; alignment, special tokens, helper methods, save / load and bad input:
tests/test_bert_tokenizer_methods.py.
"""

import sys

import pytest

from bert_pairs import (CASED, FEW_LINES, FILES, MULTI, PAIR_LINES, REFERENCES, UNCASED, VOCABS, as_plain,
                        assert_same, full_kwargs, pair_of, sample)
from bertpiece import BertTokenizer


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("bert_dirs"))


# --------------------------------------------------------------------------
# Corpus lines x vocabularies
# --------------------------------------------------------------------------

@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", sorted(VOCABS))
@pytest.mark.parametrize("filename", FILES)
def test_corpus_lines(name, filename, reference, tmp_root):
    ours, theirs = pair_of(name, reference, tmp_root)
    lines = sample(filename)
    kw = full_kwargs(reference)
    for line in lines:
        assert_same(ours, theirs, line, **kw)
    assert_same(ours, theirs, lines, padding=True, **kw)
    assert_same(ours, theirs, lines[:-1], lines[1:], padding="longest", **kw)
    for line in lines:
        assert ours.tokenize(line) == theirs.tokenize(line)
        ids = theirs(line)["input_ids"]
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == theirs.decode(ids, skip_special_tokens=skip)


OPTION_GRID = [
    dict(do_lower_case=lower, strip_accents=strip, tokenize_chinese_chars=chinese)
    for lower in (True, False) for strip in (None, True, False) for chinese in (True, False)
]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("opts", OPTION_GRID, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_options(opts, reference, tmp_root):
    ours, theirs = pair_of(MULTI, reference, tmp_root, **opts)
    kw = full_kwargs(reference)
    assert_same(ours, theirs, FEW_LINES, padding=True, **kw)
    assert_same(ours, theirs, FEW_LINES[:-1], FEW_LINES[1:], **kw)


# --------------------------------------------------------------------------
# Truncation, overflow, padding
# --------------------------------------------------------------------------

TRUNCATIONS = [True, "longest_first", "only_first", "only_second", False, "do_not_truncate"]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("pair", [False, True], ids=["single", "pair"])
@pytest.mark.parametrize("truncation", TRUNCATIONS, ids=str)
@pytest.mark.parametrize("max_length,stride", [(12, 0), (12, 3), (17, 5), (6, 2)])
def test_truncation_overflow(truncation, pair, side, reference, max_length, stride, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    ours.truncation_side = theirs.truncation_side = side
    try:
        kw = full_kwargs(reference)
        first = PAIR_LINES
        second = PAIR_LINES[::-1] if pair else None
        for overflow in (False, True):
            assert_same(ours, theirs, first, second, truncation=truncation, max_length=max_length, stride=stride,
                        return_overflowing_tokens=overflow, **kw)
            assert_same(ours, theirs, first[0], second[0] if pair else None, truncation=truncation,
                        max_length=max_length, stride=stride, return_overflowing_tokens=overflow, **kw)
    finally:
        ours.truncation_side = theirs.truncation_side = "right"


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("padding", [False, True, "longest", "max_length", "do_not_pad"], ids=str)
@pytest.mark.parametrize("multiple", [None, 8])
def test_padding(padding, padding_side, multiple, reference, tmp_root):
    ours, theirs = pair_of(CASED, reference, tmp_root)
    kw = full_kwargs(reference)
    for max_length, truncation in ((None, None), (16, True), (40, None)):
        for batch in (PAIR_LINES, PAIR_LINES[:1]):
            assert_same(ours, theirs, batch, padding=padding, padding_side=padding_side, pad_to_multiple_of=multiple,
                        max_length=max_length, truncation=truncation, **kw)
        assert_same(ours, theirs, PAIR_LINES[0], padding=padding, padding_side=padding_side,
                    pad_to_multiple_of=multiple, max_length=max_length, truncation=truncation, **kw)


@pytest.mark.parametrize("reference", REFERENCES)
def test_padding_side_attribute_and_overflow_padding(reference, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    ours.padding_side = theirs.padding_side = "left"
    try:
        kw = dict(full_kwargs(reference), truncation="only_first", max_length=10, stride=2, padding="max_length")
        if reference == "tokenizers":
            kw["return_overflowing_tokens"] = True
        assert_same(ours, theirs, PAIR_LINES, **kw)
    finally:
        ours.padding_side = theirs.padding_side = "right"


@pytest.mark.parametrize("reference", REFERENCES)
def test_tensors_and_pretokenized(reference, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    words = [line.split() for line in PAIR_LINES]
    kw = full_kwargs(reference)
    assert_same(ours, theirs, words, is_split_into_words=True, padding=True, **kw)
    assert_same(ours, theirs, words[0], words[1], is_split_into_words=True, **kw)
    assert_same(ours, theirs, PAIR_LINES, padding=True, return_tensors="np", **kw)
    assert_same(ours, theirs, PAIR_LINES[0], return_tensors="np", **kw)
    assert_same(ours, theirs, [(a, b) for a, b in zip(PAIR_LINES, PAIR_LINES[1:])], **kw)
    assert ours.encode(PAIR_LINES[0], PAIR_LINES[1]) == theirs.encode(PAIR_LINES[0], PAIR_LINES[1])
    assert as_plain(ours.encode_plus(PAIR_LINES[0])["input_ids"]) == theirs(PAIR_LINES[0])["input_ids"]
    assert ours.batch_encode_plus(PAIR_LINES)["input_ids"] == theirs(PAIR_LINES)["input_ids"]


def test_torch_missing_says_pip_install(monkeypatch):
    # torch is in the test extras: hide it (a None entry makes `import torch` raise ImportError)
    monkeypatch.setitem(sys.modules, "torch", None)
    tok = BertTokenizer.from_pretrained(UNCASED)
    for texts in ("hello", ["hello", "a b"]):
        with pytest.raises(ImportError, match="pip install torch"):
            tok(texts, return_tensors="pt")


def test_legacy_offsets_refused_like_transformers(tmp_root):
    ours, theirs = pair_of(UNCASED, "transformers", tmp_root)
    with pytest.raises(NotImplementedError):
        ours("hello", return_offsets_mapping=True)

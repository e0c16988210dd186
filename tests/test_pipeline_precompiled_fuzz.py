"""Hypothesis fuzzing of the Precompiled normalizer, three-way: bertpiece.Tokenizer
== tokenizers 0.23.3 == the oracle on texts of multi-char graphemes (combining
marks, emoji ZWJ sequences, flags, Hangul jamo, full-width forms, controls),
alone and in the XLM-R shape; the oracle's grapheme split (regex's \\X) against
unicode-segmentation's through a charsmap that marks every char; corrupted
charsmaps load and agree with HF or are a ValueError naming the field, never a
panic; malformed configs."""

import base64
import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Tokenizer as HFTokenizer, models

import bertpiece
from bertpiece import oracle_precompiled as oracle
from bpe_shapes import assert_same
from norm25_shapes import char_json, hf_chars
from precomp_shapes import charsmap, precompiled, xlmr_json

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

PIECE_LIST = [
    "e\u0301", "\u0301", "\u0308", "\u0323", "\u200d", "\ufe0f", "👨", "👩", "🏽", "🇫", "🇷", "ﬁ", "™", "①", "½", "Ａ",
    "ｶ", "ﾞ", "\u3000", "\u1100", "\u1161", "\u11a8", "한", "\r", "\n", "\t", "\x00", "\x01", "\x7f", "\u0085",
    "\u200b", "\ufeff", "क", "्", "ष", "ि", "ß", "İ", "Σ", "ﾟ", " ", "  ", "a", "Z", "1", "中", "\u2581", "\ue000",
    # chars the normalizer keeps without the grapheme walk when their neighbours allow, and ones that join them
    "の", "、", "ア", "é", "“", "\u00a0", "\u3099", "\u0600", "\u0903", "（",
]
PIECES = st.sampled_from(PIECE_LIST)
TEXT = st.lists(PIECES | st.characters(exclude_categories=("Cs",)), max_size=16).map("".join)
RULE = st.sampled_from(["nmt_nfkc", "nmt_nfkc_cf", "nfkc"])


@functools.lru_cache(maxsize=None)
def char_tokenizers(rule):
    """One tokenizer per rule whose tokens are single chars (others [UNK], each with its own offsets)."""
    text = char_json(precompiled(rule), [chr(c) for c in range(0x20, 0x3000)])
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text), oracle.Charsmap(charsmap(rule))


@SETTINGS
@given(RULE, st.lists(TEXT, min_size=1, max_size=4))
def test_precompiled_alone_on_any_text(rule, texts):
    ours, theirs, table = char_tokenizers(rule)
    for text, a, b in zip(texts, ours.encode_batch(texts), theirs.encode_batch(texts)):
        assert (a.tokens, a.offsets) == (b.tokens, b.offsets), text
        want = hf_chars(precompiled(rule), text)
        assert oracle.normalize(table, text) == (want[0], [tuple(o) for o in want[1]]), text


@functools.lru_cache(maxsize=None)
def xlmr_pair():
    text = xlmr_json("nmt_nfkc")
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)


@SETTINGS
@given(st.lists(TEXT, min_size=2, max_size=4))
def test_xlmr_shape_on_any_text(texts):
    ours, theirs = xlmr_pair()
    for text, a, b in zip(texts, ours.encode_batch(texts), theirs.encode_batch(texts)):
        assert_same(a, b, text)
    pair = (texts[0], texts[1] + "<mask>")
    assert_same(ours.encode(*pair), theirs.encode(*pair), pair)


def tokenizer_json(normalizer):
    doc = json.loads(HFTokenizer(models.BPE(vocab={"a": 0}, merges=[])).to_str())
    doc["normalizer"] = normalizer
    return json.dumps(doc)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 2000), st.integers(0, 255)), min_size=1, max_size=4), st.integers(0, 1))
def test_corrupted_charsmap_agrees_or_is_a_value_error(edits, cut):
    # Bytes of the trie's first units changed (or the file cut short): bertpiece either loads it and normalizes
    # as tokenizers does, or refuses it naming the field — never a panic or an out-of-bounds read.
    data = bytearray(charsmap("nfkc"))
    for at, byte in edits:
        data[4 + at] = byte
    if cut:
        data = data[:len(data) // 2]
    text = tokenizer_json({"type": "Precompiled", "precompiled_charsmap": base64.b64encode(bytes(data)).decode()})
    try:
        ours = bertpiece.Tokenizer.from_str(text)
    except ValueError as e:
        assert "normalizer.precompiled_charsmap: malformed sentencepiece charsmap" in str(e)
        return
    theirs = HFTokenizer.from_str(text)
    for t in ["ａｂ①ﬁ e\u0301 한국 👍🏽", "Ｈｅｌｌｏ™\x01\u3000x", "".join(chr(c) for c in range(0x20, 0x2000, 7))]:
        assert (ours.encode(t).offsets, ours.encode(t).tokens) == (theirs.encode(t).offsets, theirs.encode(t).tokens), t


@pytest.mark.parametrize("value, message", [
    (None, r"normalizer\.precompiled_charsmap: missing field"),
    (3, r"normalizer\.precompiled_charsmap: expected a string, got 3"),
    ("!!", r"normalizer\.precompiled_charsmap: not base64"),
    ("", r"normalizer\.precompiled_charsmap: malformed sentencepiece charsmap: shorter than its 4-byte trie size"),
    ("CAAAAA==", r"malformed sentencepiece charsmap: shorter than its trie size says"),
    ("AAAAAA==", r"malformed sentencepiece charsmap: its trie is empty"),
    (base64.b64encode(b"\x04\0\0\0\0\x04\0\0").decode(), r"malformed sentencepiece charsmap: trie index \d+ out of bounds"),
    (base64.b64encode(b"\x00\0\0\0\xff").decode(), r"malformed sentencepiece charsmap: its normalized strings are not valid UTF-8"),
])
def test_malformed_charsmap_is_a_value_error_naming_the_field(value, message):
    with pytest.raises(ValueError, match=message):
        bertpiece.Tokenizer.from_str(tokenizer_json({"type": "Precompiled", "precompiled_charsmap": value}))
    # tokenizers 0.23.3 fails on each too: at load (a panic) or on its first normalize (an index panic).
    with pytest.raises(BaseException):
        HFTokenizer.from_str(tokenizer_json({"type": "Precompiled", "precompiled_charsmap": value})).encode("ab")


MARKED = "".join(chr(c) for c in [*range(0x20, 0x3400), *range(0xAC00, 0xAD00), *range(0xFE00, 0xFFF0), *range(0x1F000, 0x1FB00)]
                 if not 0xD800 <= c <= 0xDFFF)


@functools.lru_cache(maxsize=None)
def marker_tokenizers():
    from tokenizers import normalizers
    from precomp_shapes import marker_charsmap

    data = marker_charsmap(MARKED + "".join(PIECE_LIST))
    normalizer = normalizers.Precompiled(data)
    text = char_json(normalizer, [MARKED])
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text), normalizer, oracle.Charsmap(data)


@SETTINGS
@given(st.lists(st.lists(PIECES | st.sampled_from(MARKED), max_size=16).map("".join), min_size=1, max_size=4))
def test_grapheme_split_of_oracle_and_bertpiece_is_the_crates(texts):
    # Every char maps to itself and "*", so the normalized text shows which graphemes HF looked up whole.
    ours, theirs, normalizer, table = marker_tokenizers()
    for text, a, b in zip(texts, ours.encode_batch(texts), theirs.encode_batch(texts)):
        assert (a.tokens, a.offsets) == (b.tokens, b.offsets), text
        want = hf_chars(normalizer, text)
        assert oracle.normalize(table, text) == (want[0], [tuple(o) for o in want[1]]), text


def test_grapheme_split_on_ud_lines():
    from tokenizers import normalizers
    from bpe_shapes import UD_FILES, ud_lines
    from precomp_shapes import marker_charsmap

    texts = [line for path in UD_FILES for line in ud_lines(path, 120)]
    data = marker_charsmap("".join(sorted({c for t in texts for c in t})))
    normalizer, table = normalizers.Precompiled(data), oracle.Charsmap(data)
    ours = bertpiece.Tokenizer.from_str(char_json(normalizer, texts))
    for text, enc in zip(texts, ours.encode_batch(texts)):
        want = hf_chars(normalizer, text)
        assert ("".join(enc.tokens), enc.offsets) == want, text
        assert oracle.normalize(table, text) == (want[0], [tuple(o) for o in want[1]]), text

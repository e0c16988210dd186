"""Hypothesis fuzzing of the normalizers and their options, three-way:
bertpiece.Tokenizer == tokenizers 0.23.3 == the oracle (on the alphabet the
oracle's Unicode data agrees with HF's on), normalized chars and each char's
original span; every code point through the table-driven normalizers; and
malformed or unsupported normalizer configs."""

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Regex, Tokenizer as HFTokenizer, models, normalizers

import bertpiece
from bertpiece import oracle_normalizers as oracle
from code_points import code_points
from norm25_shapes import assigned_in_3_2, char_json, config_of, hf_chars

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

TEXT = st.text(st.characters(exclude_categories=("Cs",)) | st.sampled_from(" \t\n\u3000e\u0301\u0323中Σİ"), max_size=24)
SMALL = st.text(st.sampled_from("ab É\u0301▁"), max_size=3)

LEAF = st.one_of(
    st.sampled_from([normalizers.NFC(), normalizers.NFD(), normalizers.NFKC(), normalizers.NFKD(), normalizers.Nmt(),
                     normalizers.Lowercase(), normalizers.StripAccents(), normalizers.ByteLevel()]),
    st.builds(normalizers.BertNormalizer, clean_text=st.booleans(), handle_chinese_chars=st.booleans(),
              strip_accents=st.sampled_from([None, True, False]), lowercase=st.booleans()),
    st.builds(normalizers.Strip, left=st.booleans(), right=st.booleans()),
    st.builds(normalizers.Prepend, SMALL.filter(bool)),  # "": refused (tokenizers panics on it)
    st.builds(normalizers.Replace, SMALL.filter(bool), SMALL),
    st.builds(normalizers.Replace, st.sampled_from([" {2,}", r"\s+", r"[ab]+", r"(a|É)\s", r"[^\s]{2}"]).map(Regex), SMALL),
)
NORMALIZER = st.one_of(LEAF, st.lists(LEAF, min_size=1, max_size=4).map(normalizers.Sequence))


def check(normalizer, texts, with_oracle):
    ours = bertpiece.Tokenizer.from_str(char_json(normalizer, texts))
    cfg = config_of(normalizer)
    for text in texts:
        want = hf_chars(normalizer, text)
        enc = ours.encode(text)
        assert ("".join(enc.tokens), enc.offsets) == want, text
        if with_oracle:
            assert oracle.normalize_str(cfg, text) == (want[0], [tuple(o) for o in want[1]]), text


@SETTINGS
@given(NORMALIZER, st.lists(TEXT, min_size=1, max_size=4))
def test_any_normalizer_on_any_text(normalizer, texts):
    check(normalizer, texts, with_oracle=False)


@SETTINGS
@given(NORMALIZER, st.lists(TEXT.map(lambda t: "".join(c for c in t if assigned_in_3_2(c))), min_size=1, max_size=4))
def test_oracle_agrees(normalizer, texts):
    check(normalizer, texts, with_oracle=True)


ALL_CODE_POINTS = "".join(map(chr, code_points(1)))


@pytest.mark.parametrize("normalizer", [
    normalizers.BertNormalizer(),
    normalizers.Sequence([normalizers.StripAccents(), normalizers.Nmt(), normalizers.Lowercase(), normalizers.Replace(Regex(r"\s+"), "_")]),
], ids=["bert", "strip_accents_nmt_lowercase_replace_space"])
def test_every_code_point_matches_tokenizers(normalizer):
    # The normalizers on bertpiece's own character tables (HF tables, regex's \s, std's lowercase); NFC & co. run
    # HF's own crate, so they are fuzzed rather than swept (a sweep costs ~10 s). Runs of 128 code points, a space inside.
    texts = [ALL_CODE_POINTS[i:i + 64] + " " + ALL_CODE_POINTS[i + 64:i + 128] for i in range(0, len(ALL_CODE_POINTS), 128)]
    text = char_json(normalizer, texts)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    for t, a, b in zip(texts, ours.encode_batch(texts), theirs.encode_batch(texts)):
        assert (a.tokens, a.offsets) == (b.tokens, b.offsets), t


def tokenizer_json(normalizer):
    doc = json.loads(HFTokenizer(models.BPE(vocab={"a": 0}, merges=[])).to_str())
    doc["normalizer"] = normalizer
    return json.dumps(doc)


@pytest.mark.parametrize("normalizer, message", [
    ({"type": "BertNormalizer", "handle_chinese_chars": True, "lowercase": True}, r"normalizer\.clean_text: missing field"),
    ({"type": "BertNormalizer", "clean_text": 1, "handle_chinese_chars": True, "lowercase": True},
     r"normalizer\.clean_text: expected true or false, got 1"),
    ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "lowercase": True, "strip_accents": "y"},
     r"normalizer\.strip_accents: expected true, false or null"),
    ({"type": "Strip", "strip_left": True}, r"normalizer\.strip_right: missing field"),
    ({"type": "Prepend"}, r"normalizer\.prepend: missing field"),
    ({"type": "Prepend", "prepend": 3}, r"normalizer\.prepend: expected a string"),
    ({"type": "Replace", "pattern": {"Foo": "a"}, "content": "x"}, r"normalizer\.pattern: expected \{\"String\""),
    ({"type": "Replace", "pattern": {"String": 1}, "content": "x"}, r"normalizer\.pattern\.String: expected a string"),
    ({"type": "Replace", "pattern": {"String": "a"}}, r"normalizer\.content: missing field"),
    ({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Strip"}]}, r"normalizer\.normalizers\[1\]\.strip_left"),
])
def test_malformed_normalizer_is_a_value_error_naming_the_field(normalizer, message):
    HFTokenizer.from_str(tokenizer_json({"type": "NFC"}))  # the rest of the file is fine
    with pytest.raises(ValueError, match=message):
        bertpiece.Tokenizer.from_str(tokenizer_json(normalizer))


@pytest.mark.parametrize("pattern, why", [
    ({"Regex": r"\n^"}, "'^' not directly followed"), ({"Regex": r"a\b"}, "word-boundary"),
    ({"Regex": "a*"}, "empty string"), ({"Regex": "(?i)a"}, "flags"), ({"Regex": "a}"}, "bare"),
    ({"Regex": "a*+"}, "repeated repetition"), ({"String": ""}, "empty pattern"), ({"Regex": "("}, "cannot parse"),
])
def test_unsupported_pattern_is_refused_naming_it(pattern, why):
    (kind, text), = pattern.items()
    with pytest.raises(NotImplementedError, match=rf"normalizer\.pattern\.{kind}: unsupported pattern {re.escape(json.dumps(text))}: .*{re.escape(why)}"):
        bertpiece.Tokenizer.from_str(tokenizer_json({"type": "Replace", "pattern": pattern, "content": "x"}))


def test_empty_prepend_is_refused():
    # tokenizers 0.23.3 panics (PanicException, a BaseException) on any edit after it.
    seq = normalizers.Sequence([normalizers.Prepend(""), normalizers.Lowercase()])
    with pytest.raises(BaseException, match="index out of bounds"):
        seq.normalize_str("ab")
    with pytest.raises(NotImplementedError, match=r"normalizer\.prepend: unsupported empty prepend"):
        bertpiece.Tokenizer.from_str(tokenizer_json({"type": "Prepend", "prepend": ""}))

"""Malformed or unsupported pre_tokenizer sections: ValueError / NotImplementedError
naming the field, where tokenizers 0.23.3 refuses the same file too (or, for the
refused components, loads what bertpiece does not implement)."""

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from pretok_shapes import bare_json
from tokenizers import pre_tokenizers


def with_pre_tokenizer(config):
    data = json.loads(bare_json(pre_tokenizers.Whitespace()))
    data["pre_tokenizer"] = config
    return json.dumps(data)


MALFORMED = [
    ({"type": "Digits"}, "pre_tokenizer.individual_digits: missing field"),
    ({"type": "Digits", "individual_digits": 1}, "pre_tokenizer.individual_digits: expected true or false"),
    ({"type": "CharDelimiterSplit", "delimiter": "ab"}, "pre_tokenizer.delimiter: expected a string of one char"),
    ({"type": "CharDelimiterSplit", "delimiter": ""}, "pre_tokenizer.delimiter: expected a string of one char"),
    ({"type": "Punctuation", "behavior": "removed"}, "pre_tokenizer.behavior: expected one of Removed"),
    ({"type": "Split", "pattern": {"String": "x"}, "behavior": "Removed"}, "pre_tokenizer.invert: missing field"),
    ({"type": "Split", "pattern": {"String": "x"}, "invert": False}, "pre_tokenizer.behavior: missing field"),
    ({"type": "Split", "pattern": "x", "behavior": "Removed", "invert": False}, "pre_tokenizer.pattern: expected an object"),
    ({"type": "Split", "pattern": {"Glob": "x"}, "behavior": "Removed", "invert": False}, "pre_tokenizer.pattern: expected {\"String\""),
    ({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "Digits"}]},
     "pre_tokenizer.pretokenizers[1].individual_digits: missing field"),
]


@pytest.mark.parametrize("config,message", MALFORMED, ids=lambda x: str(x)[:40])
def test_malformed_is_a_value_error_naming_the_field(config, message):
    text = with_pre_tokenizer(config)
    with pytest.raises(Exception):
        HFTokenizer.from_str(text)  # tokenizers refuses these files too
    with pytest.raises(ValueError) as e:
        bertpiece.Tokenizer.from_str(text)
    assert message in str(e.value)


REFUSED = [
    (pre_tokenizers.Split(__import__("tokenizers").Regex(r"\s+(?!\S)"), "removed"), "pre_tokenizer.pattern.Regex: unsupported regex"),
    (pre_tokenizers.Sequence([pre_tokenizers.Digits(), pre_tokenizers.Split(__import__("tokenizers").Regex(r"\bx"), "removed")]),
     "pre_tokenizer.pretokenizers[1].pattern.Regex: unsupported regex"),
]


@pytest.mark.parametrize("pt,message", REFUSED, ids=lambda x: str(x)[:40])
def test_unimplemented_is_not_implemented_error_naming_the_field(pt, message):
    text = bare_json(pt)
    HFTokenizer.from_str(text)  # a valid file
    with pytest.raises(NotImplementedError) as e:
        bertpiece.Tokenizer.from_str(text)
    assert message in str(e.value)


def test_sequences_nest_and_an_empty_sequence_keeps_the_text_whole():
    nested = pre_tokenizers.Sequence([pre_tokenizers.Sequence([pre_tokenizers.Digits(True)]), pre_tokenizers.Sequence([])])
    for pt in (nested, pre_tokenizers.Sequence([])):
        text = bare_json(pt)
        ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
        for s in ("ab 12 c", "", "  "):
            a, b = ours.encode(s), theirs.encode(s)
            assert (a.offsets, a.word_ids) == (b.offsets, b.word_ids), s

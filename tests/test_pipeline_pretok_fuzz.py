"""Three-way agreement for the pre-tokenizer family: bertpiece.Tokenizer ==
tokenizers 0.23.3 == bertpiece.oracle_pre_tokenizers, on every code point
(the char classes) and on hypothesis-generated texts AND pre-tokenizer
options (behaviours, invert, literals, delimiters, nested Sequences)."""

import json

import pytest
from hypothesis import given, settings, strategies as st
from tokenizers import Regex, Tokenizer as HFTokenizer, pre_tokenizers

import bertpiece
from bertpiece import oracle_pre_tokenizers as oracle
from code_points import code_points
from pretok_shapes import bare_json, pre_tokenizer_config, word_spans

# tests/code_points.py's (long runs of code points with the same properties sampled); no surrogates.
CODE_POINTS = [c for c in code_points() if c != ord("a")]

CLASS_PROBES = {
    "punctuation": pre_tokenizers.Punctuation("removed"),
    "digits": pre_tokenizers.Digits(individual_digits=True),
    "whitespace": pre_tokenizers.Whitespace(),
    "bert": pre_tokenizers.BertPreTokenizer(),
    # Split's regex classes: Oniguruma's against the regex crate's.
    "regex_letter": pre_tokenizers.Split(Regex(r"\p{L}"), "removed"),
    "regex_number": pre_tokenizers.Split(Regex(r"\p{N}"), "removed"),
    "regex_space": pre_tokenizers.Split(Regex(r"\s"), "removed"),
}


@pytest.mark.parametrize("name", sorted(CLASS_PROBES))
def test_classes_of_every_code_point_three_way(name):
    """ "a" c for each code point c: whether c is removed, isolated or joins "a"
    tells its class; ours, tokenizers' and the oracle's must agree."""
    pt = CLASS_PROBES[name]
    config = pre_tokenizer_config(pt)
    text_json = bare_json(pt)
    ours, theirs = bertpiece.Tokenizer.from_str(text_json), HFTokenizer.from_str(text_json)
    for i in range(0, len(CODE_POINTS), 40000):
        text = "".join("a" + chr(c) for c in CODE_POINTS[i:i + 40000])
        want = pt.pre_tokenize_str(text)
        assert oracle.pre_tokenize_str(config, text) == want, hex(CODE_POINTS[i])
        got = ours.encode(text)
        assert word_spans(got) == [span for _, span in want], hex(CODE_POINTS[i])
        assert got.offsets == theirs.encode(text).offsets


TEXTS = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(list(" \t\n\u00a0\u3000\u2028\u0085-_.,!?'\"()0123456789٣²ⅷ\u0301\u200d日本👍🏽\x00a b")),
    ),
    max_size=30,
)
BEHAVIOR = st.sampled_from(["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"])
SMALL = list("ab -.1é\u3000#&~\\|*")  # with chars regex::escape escapes (HF escapes the literal for Oniguruma)
LEAVES = st.one_of(
    st.just({"type": "BertPreTokenizer"}),
    st.just({"type": "Whitespace"}),
    st.just({"type": "WhitespaceSplit"}),
    BEHAVIOR.map(lambda b: {"type": "Punctuation", "behavior": b}),
    st.booleans().map(lambda d: {"type": "Digits", "individual_digits": d}),
    st.sampled_from(SMALL).map(lambda c: {"type": "CharDelimiterSplit", "delimiter": c}),
    st.builds(lambda p, b, i: {"type": "Split", "pattern": {"String": p}, "behavior": b, "invert": i},
              st.text(alphabet=SMALL, max_size=3), BEHAVIOR, st.booleans()),
)
CONFIGS = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3).map(
    lambda items: {"type": "Sequence", "pretokenizers": items}), max_leaves=5)


def _three(config, text):
    data = json.loads(bare_json(pre_tokenizers.Whitespace()))
    data["pre_tokenizer"] = config
    file_text = json.dumps(data)
    ours, theirs = bertpiece.Tokenizer.from_str(file_text), HFTokenizer.from_str(file_text)
    want = theirs.pre_tokenizer.pre_tokenize_str(text)
    assert oracle.pre_tokenize_str(config, text) == want, (config, text)
    a, b = ours.encode(text), theirs.encode(text)
    assert (a.offsets, a.word_ids, a.ids) == (b.offsets, b.word_ids, b.ids), (config, text)
    # A word without tokens (only ever the empty text left whole) has no word id.
    assert word_spans(a) == [span for word, span in want if word], (config, text)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(CONFIGS, TEXTS)
def test_fuzz_options_and_texts_three_way(config, text):
    _three(config, text)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.sampled_from(["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]),
       st.booleans(), st.text(alphabet="ab-", max_size=3), st.text(alphabet="ab-", max_size=12))
def test_fuzz_split_behaviors_on_delimiter_runs(behavior, invert, literal, text):
    """Runs of delimiters at the ends and in the middle: where the folds differ."""
    _three({"type": "Split", "pattern": {"String": literal}, "behavior": behavior, "invert": invert}, text)

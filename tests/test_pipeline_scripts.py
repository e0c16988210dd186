"""The UnicodeScripts pre-tokenizer: bertpiece == tokenizers 0.23.3 ==
bertpiece.oracle_pre_tokenizers on every code point (in blocks between
Latin and Greek neighbours, which tells Any from a script; all code points in
order, which tells where neighbouring scripts differ; one char of every
class against one of every other), on every UD line end to end (a BPE model
trained by HF behind it; pairs and a template too), and on hypothesis texts
and Sequences holding it."""

import functools
import json

import pytest
from hypothesis import given, settings, strategies as st
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, processors

import bertpiece
from bertpiece import oracle_pre_tokenizers as oracle
from bertpiece._scripts_table import SCRIPT_CLASSES
from bpe_shapes import UD_FILES, assert_same, ud_lines
from code_points import code_points
from pretok_shapes import model_json
from tiers import ud_params

CODE_POINTS = code_points()
SCRIPTS = {"type": "UnicodeScripts"}


@functools.lru_cache(maxsize=None)
def words_file(config_json):
    """An [UNK]-only WordLevel model behind the pre-tokenizer: one token per word."""
    tok = HFTokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    data = json.loads(tok.to_str())
    data["pre_tokenizer"] = json.loads(config_json)
    return json.dumps(data)


def three_way(config, text):
    file_text = words_file(json.dumps(config))
    theirs = HFTokenizer.from_str(file_text)
    want = theirs.pre_tokenizer.pre_tokenize_str(text)
    assert oracle.pre_tokenize_str(config, text) == want, text[:60]
    got = bertpiece.Tokenizer.from_str(file_text).encode(text, add_special_tokens=False).offsets
    assert got == [span for _, span in want], text[:60]


def _class_representatives():
    firsts = {}
    for a, _, k in SCRIPT_CLASSES:
        firsts.setdefault(k, chr(a))
    return list(firsts.values())


@pytest.mark.parametrize("probe", ["between", "in_order", "classes"])
def test_every_code_point_three_way(probe):
    if probe == "classes":
        reps = _class_representatives()
        assert len(reps) > 100  # HF's table has ~140 scripts: not vacuous
        texts = ["".join(r + k for k in reps) for r in reps]
    elif probe == "in_order":
        texts = ["".join(map(chr, CODE_POINTS[i:i + 200_000])) for i in range(0, len(CODE_POINTS), 200_000)]
    else:  # "a B α B a" for each block B of 16 code points: Any, Latin, Greek and other chars cut it differently
        blocks = ["".join(map(chr, CODE_POINTS[i:i + 16])) for i in range(0, len(CODE_POINTS), 16)]
        texts = ["".join("a" + b + "α" + b + "a" for b in blocks[i:i + 5000]) for i in range(0, len(blocks), 5000)]
    for text in texts:
        three_way(SCRIPTS, text)


@functools.lru_cache(maxsize=None)
def scripts_model_json():
    tok = HFTokenizer.from_str(model_json())
    tok.pre_tokenizer = pre_tokenizers.UnicodeScripts()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok.to_str()


@pytest.mark.parametrize("path", ud_params(UD_FILES), ids=lambda p: p.rsplit("-", 1)[-1][:-4])
def test_ud_lines_end_to_end(path):
    text = scripts_model_json()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = ud_lines(path, 300)
    for line, a, b in zip(lines, ours.encode_batch(lines), theirs.encode_batch(lines)):
        assert_same(a, b, line)
    pairs = list(zip(lines, lines[1:] + lines[:1]))[:50]
    for pair, a, b in zip(pairs, ours.encode_batch(pairs), theirs.encode_batch(pairs)):
        assert_same(a, b, pair)


TEXTS = st.text(alphabet=st.one_of(
    st.characters(blacklist_categories=("Cs",)),
    st.sampled_from(list(" \t\n\u00a0\u3000abαβжこカ京ー\u30fc한١2٣\u0301\u200d👍\x00.,-")),
), max_size=40)
CONFIGS = st.sampled_from([
    SCRIPTS,
    {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, SCRIPTS]},
    {"type": "Sequence", "pretokenizers": [SCRIPTS, {"type": "Digits", "individual_digits": True}]},
    {"type": "Sequence", "pretokenizers": [{"type": "Punctuation", "behavior": "Isolated"}, SCRIPTS]},
])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(CONFIGS, TEXTS)
def test_fuzz_texts_three_way(config, text):
    three_way(config, text)

"""The pre-tokenizer family of bertpiece.Tokenizer (BertPreTokenizer,
Whitespace, WhitespaceSplit, Punctuation, Digits, CharDelimiterSplit, Split
with a string pattern, Sequence) against tokenizers 0.23.3 on every UD file,
and the pure-Python oracle (bertpiece.oracle_pre_tokenizers) three ways."""

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer, pre_tokenizers

import bertpiece
from bertpiece import oracle_pre_tokenizers as oracle
from bpe_shapes import UD_FILES, assert_same, ud_lines
from pretok_shapes import PRE_TOKENIZERS, pre_tokenizer_config, tokenizer_json, word_spans

NAMES = sorted(PRE_TOKENIZERS)
ORACLE_NAMES = [n for n in NAMES if "byte_level" not in n]


def load(name, with_template=False):
    text = tokenizer_json(name, with_template)
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)


@pytest.mark.parametrize("name", NAMES)
def test_ud_files_match_tokenizers(name):
    ours, theirs = load(name)
    for path in UD_FILES:
        lines = ud_lines(path, 100)
        for line, a, b in zip(lines, ours.encode_batch(lines), theirs.encode_batch(lines)):
            assert_same(a, b, line)


@pytest.mark.parametrize("name", ["bert", "whitespace", "sequence", "split_merged_with_next"])
def test_pairs_and_pretokenized_input_match_tokenizers(name):
    ours, theirs = load(name, with_template=True)
    lines = [line for path in UD_FILES for line in ud_lines(path, 6)]
    pairs = list(zip(lines, lines[1:] + [""]))
    for add_special in (True, False):
        for p, a, b in zip(pairs, ours.encode_batch(pairs, add_special_tokens=add_special),
                           theirs.encode_batch(pairs, add_special_tokens=add_special)):
            assert_same(a, b, p)
    for line in lines:
        words = line.split(" ")
        assert_same(ours.encode(words, is_pretokenized=True), theirs.encode(words, is_pretokenized=True), words)


@pytest.mark.parametrize("name", ORACLE_NAMES)
def test_three_way_on_ud(name):
    """oracle == pre_tokenize_str (words and offsets); oracle's word spans == the
    Rust pipeline's (read from word_ids and offsets of its Encoding)."""
    pt = PRE_TOKENIZERS[name]()
    config = pre_tokenizer_config(pt)
    ours, _ = load(name)
    for path in UD_FILES:
        lines = ud_lines(path, 60)
        for line, enc in zip(lines, ours.encode_batch(lines)):
            want = pt.pre_tokenize_str(line)
            got = oracle.pre_tokenize_str(config, line)
            assert got == want, line
            assert word_spans(enc) == [span for _, span in got], line


EDGE_TEXTS = [
    "", " ", "   ", "\t\n", "a", " a ", "a  b", "3.14", "1,000,000", "x1y22z333", "٣٤ ⅷ ²³ 𝟙", "don't!?",
    "--a--", "the theathe", "a\u00a0b\u3000c\u2028d", "e\u0301 é", "👍🏽👨‍👩‍👧", "\x00\x1f\x7f", "a_b‿c", "Ⓐⓑ🄰",
    "«quoted» „x“ ¿qué?", "日本語、テスト。", "\u0600\u061c\u061d", "\u166d\u111c9",
]


@pytest.mark.parametrize("name", NAMES)
def test_edge_texts_match_tokenizers(name):
    ours, theirs = load(name)
    for text in EDGE_TEXTS:
        assert_same(ours.encode(text), theirs.encode(text), text)
        if name in ORACLE_NAMES:
            pt = PRE_TOKENIZERS[name]()
            assert oracle.pre_tokenize_str(pre_tokenizer_config(pt), text) == pt.pre_tokenize_str(text), text

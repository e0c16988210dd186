"""Normalizers of bertpiece.Tokenizer against tokenizers 0.23.3 and the oracle
(bertpiece.oracle_normalizers): alone (normalized chars and each char's
original span, through a one-char-per-token tokenizer), end to end behind
GPT-2's trained BPE on every UD file, and malformed or unsupported configs."""

import pytest
from tokenizers import Tokenizer as HFTokenizer, normalizers

import bertpiece
from bertpiece import oracle_normalizers as oracle
from bpe_shapes import UD_FILES, assert_same, ud_lines
from norm25_shapes import NORMALIZERS, assigned_in_3_2, char_json, config_of, gpt2_with, hf_chars

EDGE_TEXTS = [
    "", " ", "  a  ", "\t\n\r", "a   b", "a\u3000\u2028b\u0085", "ÉTÉ été", "e\u0301x\u0323\u0307", "Å Ω ﬁ ²",
    "İΣσς", "中文a字", "\u2b820\u2b920", "\x00\x01\x1f\x7f\u200b\ufeff\ufffd", "\u0301a", "👍🏽 👨‍👩‍👧",
    "한국어", "\u1100\u1161\u11a8", "xyz an ban", "ⅷ ① ㎏", "\ue000\U000f0000", "\u2581 a",
    "Hello World hello world HELLO  WORLD", "xÉTÉ ÉTÉ été<|endoftext|>", "a中b 中 <|endoftext|>中",
]


def check_chars(name, normalizer, texts, with_oracle):
    ours = bertpiece.Tokenizer.from_str(char_json(normalizer, texts))
    cfg = config_of(normalizer)
    for text in texts:
        want = hf_chars(normalizer, text)
        assert want[0] == normalizer.normalize_str(text)
        enc = ours.encode(text)
        assert ("".join(enc.tokens), enc.offsets) == want, (name, text)
        if with_oracle:
            assert oracle.normalize_str(cfg, text) == (want[0], [tuple(o) for o in want[1]]), (name, text)


@pytest.mark.parametrize("name", sorted(NORMALIZERS))
def test_normalizer_alone_three_way(name):
    texts = EDGE_TEXTS + [line for path in UD_FILES for line in ud_lines(path, 15)]
    check_chars(name, NORMALIZERS[name], texts, with_oracle=False)
    check_chars(name, NORMALIZERS[name], [t for t in texts if all(assigned_in_3_2(c) for c in t)], with_oracle=True)


def compare_ud(name, n_lines):
    text = gpt2_with(name)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    for path in UD_FILES:
        lines = ud_lines(path, n_lines)[::3 if n_lines is None else 1]  # "every line": every 3rd
        for line, a, b in zip(lines, ours.encode_batch(lines), theirs.encode_batch(lines)):
            assert_same(a, b, (name, line))
    for edge, a, b in zip(EDGE_TEXTS, ours.encode_batch(EDGE_TEXTS), theirs.encode_batch(EDGE_TEXTS)):
        assert_same(a, b, (name, edge))
    pairs = [(a, b) for a, b in zip(EDGE_TEXTS, EDGE_TEXTS[1:])]
    for pair, a, b in zip(pairs, ours.encode_batch(pairs), theirs.encode_batch(pairs)):
        assert_same(a, b, (name, pair))


@pytest.mark.parametrize("name", sorted(NORMALIZERS))
def test_ud_lines_behind_gpt2_bpe(name):
    compare_ud(name, 40)


def test_ud_lines_behind_gpt2_bpe_with_a_sequence():
    compare_ud("sequence", None)

"""Three-way agreement on byte-level BPE: bertpiece.Tokenizer == tokenizers
0.23.3 == the pure-Python oracle (bertpiece.oracle_bpe), on UD text, on
every code point, and on hypothesis-generated text (all Unicode categories,
whitespace runs, apostrophes, digits, emoji)."""

import functools

import pytest
from hypothesis import given, strategies as st
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, trainers

import bertpiece
from bertpiece import oracle_bpe
from bpe_shapes import SHAPES as ALL_SHAPES, UD_FILES, assert_same, gpt2_json, roberta_json, ud_lines
from code_points import code_points

SHAPES = {"gpt2": gpt2_json, "roberta": roberta_json}


def three(shape):
    text = SHAPES[shape]()
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text), oracle_bpe.ByteLevelBPE(text)


def assert_three_way(ours, theirs, oracle, text):
    a = theirs.encode(text, add_special_tokens=False)
    assert_same(ours.encode(text, add_special_tokens=False), a, text)
    assert oracle.encode(text) == (a.ids, a.tokens, a.offsets), text


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_oracle_matches_tokenizers_on_ud(shape):
    ours, theirs, oracle = three(shape)
    for path in UD_FILES:
        for line in ud_lines(path, 40):
            assert_three_way(ours, theirs, oracle, line)


def probe_text(code_points):
    """ "a" c "1" c "\\n" for each c: where the split puts c tells its class."""
    return "".join(f"a{chr(c)}1{chr(c)}\n" for c in code_points)


@functools.lru_cache(maxsize=None)
def bytes_only_json():
    """A byte-level BPE with the 256 byte tokens and a few merges: cheap to run on megabytes."""
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(["hello world 1234"], trainer)
    return tok.to_str()


def test_split_of_every_code_point_three_way():
    """Each code point c (CODE_POINTS), in "a" c "1" c "\\n": where tokenizers' GPT-2 split
    starts words is where ours does, and where the oracle's letter/number
    classes say ("a" + c is one word iff c is a letter, c + "1" + c iff a
    number). The space is left out of the class check: " 1" is one word
    whatever the classes."""
    text = probe_text(CODE_POINTS)
    starts = {s for _, (s, _) in SPLIT.pre_tokenize_str(text)}
    enc = bertpiece.Tokenizer.from_str(bytes_only_json()).encode(text)
    ours = {o[0] for k, (o, w) in enumerate(zip(enc.offsets, enc.word_ids)) if k == 0 or w != enc.word_ids[k - 1]}
    assert ours == starts
    wrong = []
    for k, c in enumerate(CODE_POINTS):
        if c == 0x20:
            continue
        hf = "L" if 5 * k + 1 not in starts else "N" if 5 * k + 2 not in starts else "other"
        mine = "L" if oracle_bpe._is_letter(chr(c)) else "N" if oracle_bpe._is_number(chr(c)) else "other"
        if hf != mine:
            wrong.append((hex(c), hf, mine))
    assert not wrong, wrong[:20]


CODE_POINTS = code_points()
SPLIT = pre_tokenizers.ByteLevel(add_prefix_space=False)


PIECES = st.sampled_from([
    " ", "  ", "   ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028", "\x0b", "\x1c", "\x85",
    "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "’s",
    "0", "12", "٣", "²", "Ⅻ", "a", "Z", "é", "e\u0301", "ß", "İ", "日本", "한국어", "ไทย", "अ", "\u200d",
    "👍", "👍🏽", "👨‍👩‍👧", "🇫🇷", "-", ".", "!!", "$", "€", "_", "\x00", "\ufffd", "\U0010ffff",
])
TEXT = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
    st.lists(PIECES, max_size=25).map("".join),
    st.lists(st.one_of(PIECES, st.text(st.characters(exclude_categories=("Cs",)), max_size=3)), max_size=20).map("".join),
)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@given(text=TEXT)
def test_fuzz_three_way(shape, text):
    ours, theirs, oracle = _cached(shape)
    assert_three_way(ours, theirs, oracle, text)
    assert ours.decode(ours.encode(text).ids) == theirs.decode(theirs.encode(text).ids)


@given(a=TEXT, b=TEXT)
def test_fuzz_pairs(a, b):
    ours, theirs, _ = _cached("roberta")
    assert_same(ours.encode(a, b), theirs.encode(a, b), (a, b))


_CACHE = {}


def _cached(shape):
    if shape not in _CACHE:
        _CACHE[shape] = three(shape)
    return _CACHE[shape]


@pytest.mark.parametrize("shape", ["modernbert", "normalized"])
@given(text=TEXT)
def test_fuzz_other_shapes(shape, text):
    """Template post-processing, NFC + Lowercase with normalized added tokens: bertpiece == tokenizers."""
    ours, theirs = _two(shape)
    assert_same(ours.encode(text), theirs.encode(text), text)
    assert ours.decode(theirs.encode(text).ids) == theirs.decode(theirs.encode(text).ids)


@functools.lru_cache(maxsize=None)
def _two(shape):
    text = ALL_SHAPES[shape]()
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)

"""Every regex class bertpiece admits in Split and Replace patterns
(src/pre_tokenizers/onig_subset.rs) matches the same code points in
bertpiece (the regex crate), tokenizers 0.23.3 (Oniguruma) and the oracle
(bertpiece.oracle_regex), over every code point but the surrogates: each
two-letter general category (one pass: a chain of Replace normalizers maps
each category to its own marker), and each other class alone (the one-letter
categories, negations, \\d \\D \\s \\S \\w \\W ., classes mixing them). Also the
measurements behind \\w's spelling and \\h's refusal."""

import re

import pytest
from tokenizers import Regex, Tokenizer as HFTokenizer, models, normalizers, pre_tokenizers

import bertpiece
from bertpiece import oracle_regex
from bertpiece.oracle_pre_tokenizers import is_word
from code_points import code_points
from test_pipeline_pretok_regex import three_way

ALL = "".join(map(chr, code_points(1)))  # U+0000 is the marker below
# Both partition the code points.
TWO_LETTER = [g for g in oracle_regex.GENERAL_CATEGORIES if len(g) == 2]
ONE_LETTER = [g for g in oracle_regex.GENERAL_CATEGORIES if len(g) == 1]
CLASSES = [
    r"\P{Lu}", r"\d", r"\D", r"\s", r"\S", ".",
    r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[^\r\n\p{L}\p{N}]", r"[\P{L}\d]", r"[^\p{Z}\p{P}a-z]",
    r"\w", r"\W", r"[^\w\-]", r"[\W]",
]


def _markers():
    """Cc chars, none White_Space: each category's marker, never matched by a later category."""
    return [chr(c) for c in [*range(0x00, 0x09), *range(0x0E, 0x20), *range(0x7F, 0x85), *range(0x86, 0xA0)]]


def _through_both(normalizer, vocab_chars, text):
    """``text`` normalized, as tokenizers' normalize_str and as bertpiece's
    tokens (a WordLevel model whose vocabulary is ``vocab_chars``, each char a word)."""
    vocab = {c: i for i, c in enumerate(vocab_chars)}
    tok = HFTokenizer(models.WordLevel({**vocab, "[UNK]": len(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    ours = bertpiece.Tokenizer.from_str(tok.to_str()).encode(text, add_special_tokens=False).tokens
    return normalizer.normalize_str(text), ours


@pytest.mark.parametrize("names", [TWO_LETTER, ONE_LETTER], ids=["two_letter", "one_letter"])
def test_general_categories_on_every_code_point_three_way(names):
    """A chain of Replaces maps each category to its marker (Cc first: its
    chars, the markers among them, all become Cc's marker)."""
    markers = _markers()[:len(names)]
    first = "Cc" if "Cc" in names else "C"
    order = [first] + [g for g in names if g != first]
    chain = normalizers.Sequence([normalizers.Replace(Regex(r"\p{%s}" % g), m) for g, m in zip(order, markers)])
    theirs, ours = _through_both(chain, markers, ALL)
    assert len(theirs) == len(ALL) and len(set(theirs)) == len(order)  # every category is met
    assert "".join(ours) == theirs
    marker_of = dict(zip(order, markers))
    oracle = "".join([marker_of[oracle_regex.general_category(c)[:len(first)]] for c in ALL])
    assert [hex(ord(ALL[i])) for i in range(len(ALL)) if oracle[i] != theirs[i]][:10] == []


def _unmatched_runs(normalized):
    return [m.span() for m in re.finditer("[^\x00]+", normalized)]


def matched_by_tokenizers(pattern, text=ALL):
    """The code points of ``text`` ``pattern`` matches (U+0000 as the marker)."""
    out = normalizers.Replace(Regex(pattern), "\x00").normalize_str(text)
    assert len(out) == len(text)
    return {ord(c) for c, o in zip(text, out) if o == "\x00"}


@pytest.mark.parametrize("pattern", CLASSES)
def test_class_on_every_code_point_three_way(pattern):
    """Each char the class matches becomes U+0000 in tokenizers and the oracle;
    bertpiece's Split(pattern, "removed") keeps the stretches of the others
    (an [UNK]-only WordLevel model: one token per stretch)."""
    theirs = normalizers.Replace(Regex(pattern), "\x00").normalize_str(ALL)
    assert "\x00" in theirs and theirs.strip("\x00")  # the class splits the code points: not vacuous
    tok = HFTokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(pattern), "removed")
    ours = bertpiece.Tokenizer.from_str(tok.to_str()).encode(ALL, add_special_tokens=False).offsets
    assert ours == _unmatched_runs(theirs)
    assert oracle_regex.compiled(pattern).sub("\x00", ALL) == theirs


def test_word_class_differs_from_the_regex_crate_s_as_measured():
    """Oniguruma's \\w holds ¹ ² ³ ¼ ½ ¾ and not U+200C U+200D, the regex crate's
    (Alphabetic, M, Nd, Pc, Join_Control) the other way round; inside brackets
    Oniguruma's holds neither ¹ ² ³ ¼ ½ ¾ nor the joiners. bertpiece spells \\w
    as Oniguruma's (CLASSES above compare it on every code point). \\h is
    a hex digit to Oniguruma, and refused."""
    word = matched_by_tokenizers(r"\w")
    regex_crate = {ord(c) for c in ALL if is_word(c)}
    assert sorted(word - regex_crate) == [0xB2, 0xB3, 0xB9, 0xBC, 0xBD, 0xBE]
    assert sorted(regex_crate - word) == [0x200C, 0x200D]
    assert matched_by_tokenizers(r"[\w]") == regex_crate - {0x200C, 0x200D}
    assert matched_by_tokenizers(r"\h") == set(map(ord, "0123456789abcdefABCDEF"))
    tok = HFTokenizer(models.BPE(vocab={"[UNK]": 0}, merges=[], unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"\h"), "removed")
    with pytest.raises(NotImplementedError, match="unsupported regex"):
        bertpiece.Tokenizer.from_str(tok.to_str())


@pytest.mark.parametrize("pattern", [r"\p{%s}" % g for g in oracle_regex.GENERAL_CATEGORIES] + CLASSES)
def test_nul_the_marker_above_three_way(pattern):
    """U+0000, left out of ALL as the marker, through a Split of each class."""
    three_way({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}, ["a\x00b", "\x00"])

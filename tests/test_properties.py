"""Property tests: random Unicode text and random vocabularies, Rust core vs
oracle (and the real Google WordpieceTokenizer). Example count:
BERTPIECE_HYPOTHESIS_EXAMPLES."""

from functools import lru_cache

from hypothesis import given, strategies as st

import bertpiece
from bertpiece import oracle
from google_reference import load_google

# Characters that exercise every branch: case context (sigma, dotted I), marks
# and ordering, CJK and its range edges, punctuation, every kind of space,
# controls, surrogates, noncharacters, private use.
SPECIAL = ("Σσς" "İIıi" "\u0301\u0323\u0345\u0307" "中\u2b820\u2b81f\U0002B920" "!\"#.,;¿“”‧"
           " \t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u2028\u2029\u3000" "\x00\x7f\u200b\u200d\ufeff\ufffd"
           "\ud800\udfff\ufdd0\ue000" "AÉéÅﬁ가각ᄀ\u1161\u11a8")
any_char = st.characters(blacklist_categories=())  # includes Cs (lone surrogates)
texts = st.text(st.one_of(any_char, st.sampled_from(SPECIAL), st.sampled_from("abcXYZ")), max_size=60)

options = st.fixed_dictionaries({
    "do_lower_case": st.booleans(),
    "strip_accents": st.sampled_from([None, True, False]),
    "tokenize_chinese_chars": st.booleans(),
    "do_split_on_punc": st.booleans(),
    "reference": st.sampled_from(oracle.REFERENCES),
})


@given(texts, options, st.lists(texts, max_size=3))
def test_basic_tokenizer_equals_oracle(text, opts, never_split):
    # Use real whitespace tokens of the text as never_split entries too.
    never_split = never_split + text.split()[:2]
    rust = bertpiece.BasicTokenizer(never_split=never_split, **opts)
    orac = oracle.BasicTokenizer(never_split=never_split, **opts)
    assert rust.tokenize(text) == orac.tokenize(text)


@lru_cache(maxsize=None)
def pair(reference, lower):
    path = bertpiece.vocab_path("bert-base-multilingual-cased")
    return (bertpiece.FullTokenizer(path, lower, reference=reference),
            oracle.FullTokenizer(path, lower, reference=reference))


@given(texts, st.sampled_from(oracle.REFERENCES), st.booleans())
def test_full_tokenizer_equals_oracle(text, reference, lower):
    rust, orac = pair(reference, lower)
    want = orac.tokenize(text)
    assert rust.tokenize(text) == want
    assert rust.encode(text) == orac.convert_tokens_to_ids(want)


pieces = st.text(st.sampled_from("abé中Σ#"), min_size=0, max_size=4)
vocabs = st.lists(st.one_of(pieces, pieces.map(lambda p: "##" + p)), min_size=0, max_size=25)
words = st.lists(st.text(st.sampled_from("abé中Σ#"), min_size=1, max_size=12), max_size=5).map(" ".join)


@given(vocabs, words, st.integers(min_value=-1, max_value=14))
def test_wordpiece_equals_oracle_and_google(tokens, text, max_chars):
    vocab = {t: i for i, t in enumerate(["[UNK]"] + tokens)}
    want = load_google().WordpieceTokenizer(vocab, max_input_chars_per_word=max_chars).tokenize(text)
    assert oracle.WordpieceTokenizer(vocab, max_input_chars_per_word=max_chars).tokenize(text) == want
    assert bertpiece.WordpieceTokenizer(vocab, max_input_chars_per_word=max_chars).tokenize(text) == want

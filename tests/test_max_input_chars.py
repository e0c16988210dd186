"""`max_input_chars_per_word` at its edges, against the references: 0 and
below make every word [UNK] in Google's module and transformers (their
`len(chars) > max`) and 0 does in HF tokenizers, so bertpiece does the same;
a value past 64 bits is no limit in effect (Google's and transformers' Python
ints), never PyO3's bare OverflowError; HF tokenizers refuses a negative
count, and so does bertpiece with reference="tokenizers" (a ValueError naming
it)."""

import pytest
import transformers
from tokenizers import Tokenizer
from tokenizers.models import WordPiece
from tokenizers.pre_tokenizers import BertPreTokenizer

import bertpiece
from google_reference import load_google, vocab_path

google = load_google()
VOCAB = vocab_path("bert-base-uncased")
TEXT = "hello unaffable a Straße xyzzyx"
EDGES = [0, -1, -2**70, 1, 5, 2**31, 2**63 - 1, 2**63, 2**64, 10**30]


def google_tokens(m):
    tok = google.FullTokenizer(VOCAB)
    tok.wordpiece_tokenizer.max_input_chars_per_word = m
    return tok.tokenize(TEXT)


def transformers_tokens(m):
    tok = transformers.BertTokenizerLegacy(vocab_file=VOCAB)
    tok.wordpiece_tokenizer.max_input_chars_per_word = m
    return tok.tokenize(TEXT)


@pytest.mark.parametrize("m", EDGES)
def test_google_reference(m):
    want = google_tokens(m)
    assert bertpiece.FullTokenizer(VOCAB, max_input_chars_per_word=m).tokenize(TEXT) == want
    wordpiece = bertpiece.WordpieceTokenizer(bertpiece.load_vocab(VOCAB), max_input_chars_per_word=m)
    theirs = google.WordpieceTokenizer(google.load_vocab(VOCAB), max_input_chars_per_word=m)
    assert wordpiece.tokenize("hello unaffable a xyzzyx") == theirs.tokenize("hello unaffable a xyzzyx")
    if m <= 0:
        assert set(want) == {"[UNK]"}


@pytest.mark.parametrize("m", EDGES)
def test_transformers_reference(m):
    want = transformers_tokens(m)
    assert bertpiece.FullTokenizer(VOCAB, reference="transformers", max_input_chars_per_word=m).tokenize(TEXT) == want


@pytest.mark.parametrize("m", EDGES)
def test_tokenizers_reference(m):
    try:
        hf = Tokenizer(WordPiece.from_file(VOCAB, max_input_chars_per_word=m))
    except OverflowError:
        if m < 0:  # HF: "can't convert negative int to unsigned"
            with pytest.raises(ValueError, match=r"max_input_chars_per_word must be >= 0 .*got -"):
                bertpiece.FullTokenizer(VOCAB, reference="tokenizers", max_input_chars_per_word=m)
            with pytest.raises(ValueError, match="max_input_chars_per_word"):
                bertpiece.BertTokenizer(vocab=VOCAB, max_input_chars_per_word=m)
            return
        # Past 64 bits HF's conversion fails; bertpiece takes it as no limit (docs/bert_tokenizer.md).
        hf = Tokenizer(WordPiece.from_file(VOCAB, max_input_chars_per_word=2**64 - 1))
    hf.pre_tokenizer = BertPreTokenizer()
    text = TEXT.lower().replace("ß", "ss")  # the normalizer aside: WordPiece only
    want = hf.encode(text).tokens
    assert bertpiece.FullTokenizer(VOCAB, reference="tokenizers", max_input_chars_per_word=m).tokenize(text) == want
    assert bertpiece.BertTokenizer(vocab=VOCAB, max_input_chars_per_word=m).tokenize(text) == want


@pytest.mark.parametrize("bad", [1.5, "10", None])
def test_not_an_int_is_a_type_error_naming_it(bad):
    if bad is not None:
        with pytest.raises(TypeError, match="max_input_chars_per_word must be an int or None"):
            bertpiece.FullTokenizer(VOCAB, max_input_chars_per_word=bad)
    with pytest.raises(TypeError, match="max_input_chars_per_word must be an int"):
        bertpiece.WordpieceTokenizer(bertpiece.load_vocab(VOCAB), max_input_chars_per_word=bad)


def test_training_takes_a_huge_limit_as_no_limit_and_refuses_zero():
    texts = ["hello world unaffable", "a long wooooooooooooooooooooord"]
    want = bertpiece.train_wordpiece(texts, vocab_size=120, max_input_chars_per_word=2**62)
    for m in (2**63, 2**64, 10**30):
        assert bertpiece.train_wordpiece(texts, vocab_size=120, max_input_chars_per_word=m) == want
    for m in (0, -1, -2**70):
        with pytest.raises(ValueError, match="max_input_chars_per_word must be positive"):
            bertpiece.train_wordpiece(texts, vocab_size=120, max_input_chars_per_word=m)

"""BatchEncoding's alignment methods at their edges, against transformers'
BertTokenizer: a sequence_index the row does not have (HF answers over the whole
row), and the span classes (transformers' own TokenSpan / CharSpan). Both found
by the stateful machine (tests/fuzz)."""

import pytest
import transformers
from transformers.tokenization_utils_base import CharSpan, TokenSpan

import bertpiece

VOCAB = bertpiece.vocab_path("bert-base-uncased")


@pytest.fixture(scope="module")
def pair():
    return transformers.BertTokenizer(vocab=VOCAB), bertpiece.BertTokenizer(vocab=VOCAB)


@pytest.mark.parametrize("text", ["hello world", "naïve café!", "a b c d"])
@pytest.mark.parametrize("sequence_index", [0, 1])
def test_single_text_any_sequence_index(pair, text, sequence_index):
    hf, bp = (t(text) for t in pair)
    for w in range(5):
        assert bp.word_to_tokens(0, w, sequence_index=sequence_index) == \
            hf.word_to_tokens(0, w, sequence_index=sequence_index), w
    for c in range(len(text) + 1):
        assert bp.char_to_token(0, c, sequence_index=sequence_index) == \
            hf.char_to_token(0, c, sequence_index=sequence_index), c
        assert bp.char_to_word(0, c, sequence_index=sequence_index) == \
            hf.char_to_word(0, c, sequence_index=sequence_index), c


def test_span_classes_are_transformers(pair):
    hf, bp = (t("hello world", "good day") for t in pair)
    assert type(bp.word_to_tokens(0, 1, sequence_index=1)) is TokenSpan
    assert type(bp.word_to_chars(0, 1, sequence_index=1)) is CharSpan
    assert type(bp.token_to_chars(0, 1)) is CharSpan
    assert bp.word_to_chars(0, 1, sequence_index=1) == hf.word_to_chars(0, 1, sequence_index=1)

"""A lone surrogate in a batch on the general path (pairs with offsets,
pre-tokenized input, overflow windows): transformers' BertTokenizer refuses
it with a TypeError; bertpiece's SurrogateError (also a TypeError) names the
row that holds it, and the word for pre-tokenized input."""

import warnings

import pytest

import bertpiece
from bertpiece.batch import SurrogateError

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

VOCAB = bertpiece.vocab_path("bert-base-uncased")
BAD = "x\ud800y"
CASES = [
    ((["ok", "fine", BAD],), dict(return_overflowing_tokens=True, truncation=True, max_length=5), "text[2]"),
    ((["ok", "ok2"], ["ok", BAD]), dict(return_offsets_mapping=True), "text_pair[1]"),
    (([BAD, "ok2"], ["ok", "b"]), dict(return_special_tokens_mask=True), "text[0]"),
    (([["ok"], ["a", "b", BAD]],), dict(is_split_into_words=True), "text[1][2]"),
    ((["a", "b", "c", BAD],), dict(stride=1, truncation=True, max_length=5, return_overflowing_tokens=True),
     "text[3]"),
]


@pytest.mark.parametrize("args,kwargs,where", CASES)
def test_the_error_names_the_row(args, kwargs, where):
    with pytest.raises(TypeError):
        transformers.BertTokenizer(vocab=VOCAB)(*args, **kwargs)
    with pytest.raises(SurrogateError) as caught:
        bertpiece.BertTokenizer(vocab_file=VOCAB)(*args, **kwargs)
    assert str(caught.value).startswith(f"{where} holds a lone surrogate (U+D800 at position 1)")

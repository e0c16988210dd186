"""Padding a batch whose rows hold special or added tokens (issue 15).

`tok(["[MASK]"], padding=True)` must give transformers' `[[101, 103, 102]]`,
not `[[101, 103, 102, 0, 0]]`: the padded length is the longest row *as
encoded* (the special token one id), whether or not that row is the longest,
with `return_length`, pairs, `pad_to_multiple_of`, left padding and
`return_tensors` None / "np". Compared key by key with transformers'
`BertTokenizer` (reference="tokenizers") and `BertTokenizerLegacy`
(reference="transformers") at test time.
"""

import warnings

import numpy as np
import pytest

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy  # noqa: E402

transformers.logging.set_verbosity_error()

MODEL = "bert-base-uncased"
ADDED = "[NEW_SPECIAL]"


def reference_tokenizer(reference):
    vocab = bertpiece.vocab_path(MODEL)
    theirs = transformers.BertTokenizer(vocab) if reference == "tokenizers" else BertTokenizerLegacy(vocab)
    ours = bertpiece.BertTokenizer.from_pretrained(MODEL, reference=reference)
    for tok in (theirs, ours):
        tok.add_special_tokens({"additional_special_tokens": [ADDED]})
        tok.add_tokens(["xyzzyplugh"])
    return ours, theirs


@pytest.fixture(scope="module", params=["tokenizers", "transformers"])
def pair(request):
    return reference_tokenizer(request.param)


BATCHES = {
    "mask alone": ["[MASK]"],
    "mask, same length as the other row": ["[MASK]", "hello"],
    "special row is the longest": ["hello world [MASK]", "hi"],
    "special row is not the longest": ["[MASK] [SEP] x", "a b c d e f"],
    "several specials in one row": ["[CLS][SEP][MASK][PAD][UNK]", "one two"],
    "added special token": [f"{ADDED} a", "b"],
    "added special token, other row longer": [f"{ADDED}", "a b c d e f g"],
    "added plain token": ["xyzzyplugh xyzzyplugh", "a b c"],
    "special tokens only, no text rows": ["[MASK]", "[SEP] [SEP]", "[UNK]"],
    "long word beside a special row": ["[MASK]", "antidisestablishmentarianism"],
}
PAIRS_OF_TEXTS = [(["[MASK] a", "b"], ["c", "[SEP] d e f"]), (["[MASK]"], ["x y z"])]
OPTIONS = [
    dict(padding=True),
    dict(padding=True, return_length=True),
    dict(padding="longest", return_tensors="np"),
    dict(padding=True, return_length=True, return_tensors="np"),
    dict(padding=True, pad_to_multiple_of=4, return_length=True),
    dict(padding=True, padding_side="left", return_length=True),
    dict(padding=True, return_special_tokens_mask=True, return_token_type_ids=True),
    dict(padding=True, add_special_tokens=False, return_length=True),
]


def assert_same(ours, theirs, what):
    assert sorted(ours.keys()) == sorted(theirs.keys()), what
    for key in theirs:
        a, b = ours[key], theirs[key]
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray), (what, key)
            assert a.shape == b.shape and a.dtype == b.dtype, (what, key, a.shape, b.shape, a.dtype, b.dtype)
            np.testing.assert_array_equal(a, b, err_msg=f"{what} {key}")
        else:
            assert a == b, (what, key, a, b)


@pytest.mark.parametrize("batch", list(BATCHES), ids=list(BATCHES))
@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_batch_padding_with_special_tokens(pair, batch, options):
    ours, theirs = pair
    texts = BATCHES[batch]
    assert_same(ours(texts, **options), theirs(texts, **options), (batch, options))


@pytest.mark.parametrize("texts,pairs", PAIRS_OF_TEXTS)
@pytest.mark.parametrize("options", OPTIONS[:4], ids=[str(o) for o in OPTIONS[:4]])
def test_pair_padding_with_special_tokens(pair, texts, pairs, options):
    ours, theirs = pair
    assert_same(ours(texts, pairs, **options), theirs(texts, pairs, **options), (texts, pairs, options))


def test_issue_example():
    """The issue's own example, on both references."""
    for reference in ("tokenizers", "transformers"):
        ours, theirs = reference_tokenizer(reference)
        assert theirs(["[MASK]"], padding=True)["input_ids"] == [[101, 103, 102]]
        assert ours(["[MASK]"], padding=True)["input_ids"] == [[101, 103, 102]], reference

"""`decode`, `batch_decode` and `convert_ids_to_tokens` take integer ids only
(ints, bools, NumPy integers and integer arrays, integer torch tensors) and
refuse anything else with a TypeError naming it, where transformers' own
exception type (when it raises) is also matched; transformers'
`convert_ids_to_tokens` and `BertTokenizerLegacy` cut a float id to an int
silently, which bertpiece refuses (a documented difference)."""

import warnings

import numpy as np
import pytest
import torch

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
MODES = {"tokenizers": lambda: transformers.BertTokenizer(vocab=VOCAB),
         "transformers": lambda: transformers.BertTokenizerLegacy(vocab_file=VOCAB)}
METHODS = ["decode", "batch_decode", "convert_ids_to_tokens"]
GOOD = {
    "decode": [[101, 2023], np.array([101, 2023]), torch.tensor([101, 2023]), np.int64(2023), [np.int32(5)],
               torch.tensor(7), [True], [[101, 102]], (101, 2023)],
    "batch_decode": [[[101, 2023]], np.array([[101, 2023]]), torch.tensor([[101, 2023]]), [101, 2023]],
    "convert_ids_to_tokens": [[101, 2023], np.array([101, 2023]), torch.tensor([101, 2023]), [np.int32(5)], 2023,
                              [True]],
}
BAD = {
    "decode": [[1.5, 2], [101.0], ["a"], [None], 3.7, "x", None, np.array([1.5]), torch.tensor([101.0])],
    "batch_decode": [[[101.0, 2023]], [["a"]], [[None]], np.array([[1.5]]), torch.tensor([[101.0]]), [1.5]],
    "convert_ids_to_tokens": [[1.5, 2], [101.0], ["a"], [None], [[101, 102]], "x", np.array([1.5]),
                              torch.tensor([101.0]), [[101], 102]],
}


def outcome(call):
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 (the outcome is compared)
        return exc


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("method", METHODS)
def test_integer_ids_decode_as_transformers(reference, method):
    ours, theirs = bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference), MODES[reference]()
    for ids in GOOD[method]:
        assert getattr(ours, method)(ids) == getattr(theirs, method)(ids), repr(ids)


@pytest.mark.parametrize("reference", sorted(MODES))
@pytest.mark.parametrize("method", METHODS)
def test_non_integer_ids_are_refused(reference, method):
    ours, theirs = bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference), MODES[reference]()
    for ids in BAD[method]:
        with pytest.raises(TypeError) as caught:
            getattr(ours, method)(ids)
        assert "token id" in str(caught.value), repr(ids)  # a message that says what was wrong
        real = outcome(lambda: getattr(theirs, method)(ids))
        if isinstance(real, Exception):
            assert isinstance(caught.value, type(real)), (repr(ids), real)

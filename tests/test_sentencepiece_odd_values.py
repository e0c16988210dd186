"""Odd argument values of bertpiece.SentencePieceProcessor.encode against sentencepiece's own processor
on the same model: what sentencepiece's pybind11 conversions refuse (a str as a flag, a float or a
number past a C int as nbest_size / num_threads, a str as alpha) is a TypeError here too, and what
they take (ints, floats and NumPy scalars as flags, None) gives the same ids and pieces."""

import numpy as np
import pytest
import sentencepiece as spm

import bertpiece
from spm_models import model

VALUES = [None, 0, 1, 2, -1, 8.0, "", "true", np.int64(3), np.bool_(True), 2**64]


def pair():
    proto = model("unigram")
    theirs = spm.SentencePieceProcessor()
    theirs.LoadFromSerializedProto(proto)
    return bertpiece.SentencePieceProcessor(model_proto=proto), theirs


def outcome(fn):
    try:
        return fn()
    except TypeError as exc:
        return "TypeError", type(exc).__name__
    except Exception as exc:  # noqa: BLE001  (every failure is data here)
        return "other", type(exc).__name__, str(exc)


@pytest.mark.parametrize("name", ["add_bos", "add_eos", "reverse", "emit_unk_piece", "nbest_size", "alpha",
                                  "num_threads"])
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_encode_argument_types_as_sentencepiece(name, value):
    ours, theirs = pair()
    for text in ("hello world", ["hello world", "a b"]):
        for out_type in (int, str):
            kwargs = {name: value, "out_type": out_type}
            expected = outcome(lambda: theirs.encode(text, **kwargs))
            assert outcome(lambda: ours.encode(text, **kwargs)) == expected, (text, kwargs)

"""Odd flag values on bertpiece.AutoTokenizer objects (transformers' classes over bertpiece's backend)
against transformers.AutoTokenizer on the same RoBERTa-, XLM-R- and T5-shaped folders: HF's backend
takes `add_special_tokens` / `is_split_into_words` as bools only (TypeError for 1, 0, None), while
bertpiece's serving path read them by truthiness; `split_special_tokens=np.True_` works there (the
backend's setter refused a NumPy bool)."""

import warnings

import numpy as np
import pytest

import bertpiece
from auto_shapes import folder

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()


def outcome(tok, text, **kwargs):
    try:
        out = tok(text, **kwargs)
    except TypeError:
        return "TypeError"
    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in out.items()}


@pytest.mark.parametrize("shape", ["roberta", "xlmr", "t5"])
def test_odd_flags_as_transformers(shape):
    ours = bertpiece.AutoTokenizer.from_pretrained(folder(shape))
    theirs = transformers.AutoTokenizer.from_pretrained(folder(shape))
    for name, values in (("add_special_tokens", [1, 0, None, "", np.int64(1), np.bool_(True)]),
                         ("is_split_into_words", [0, None, ""]),
                         ("split_special_tokens", [np.bool_(True), np.bool_(False), 1, ""])):
        for value in values:
            for text in ("hello world", ["hello world", "a b"]):
                for base in ({}, {"padding": True, "return_tensors": "np"}):
                    kwargs = {name: value, **base}
                    assert outcome(ours, text, **kwargs) == outcome(theirs, text, **kwargs), (text, kwargs)

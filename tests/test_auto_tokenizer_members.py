"""The public members of bertpiece.AutoTokenizer's objects against transformers.AutoTokenizer's on
the same folders: the same names (they are transformers' own classes), and the backend's, which is
a bertpiece.Tokenizer, against tokenizers 0.23.3's Tokenizer: the six it lacks are the ones
docs/auto-tokenizer.md lists (none of them is called by transformers' own methods)."""

import os

import pytest

from auto_shapes import SHAPES, SPM_SHAPES, folder

pytest.importorskip("transformers")

BACKEND_MISSING = {"encode_batch_fast", "post_process", "async_encode", "async_encode_batch",
                   "async_encode_batch_fast", "async_decode_batch"}


def public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


@pytest.mark.parametrize("shape", ["bert", *SHAPES, *SPM_SHAPES])
def test_same_public_members_as_transformers_autotokenizer(shape):
    import transformers

    import bertpiece

    ref = transformers.AutoTokenizer.from_pretrained(folder(shape))
    ours = bertpiece.AutoTokenizer.from_pretrained(folder(shape))
    assert public(ours) == public(ref)
    for name in ("prepare_for_model", "truncate_sequences"):  # transformers 5.24's TokenizersBackend has neither
        assert not hasattr(ref, name) and not hasattr(ours, name)
    assert public(ref.backend_tokenizer) - public(ours.backend_tokenizer) == BACKEND_MISSING
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "auto-tokenizer.md"), encoding="utf-8") as f:
        doc = f.read()
    assert all(f"`{name}`" in doc for name in BACKEND_MISSING)

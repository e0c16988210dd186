"""Odd values of bertpiece.Tokenizer's bool arguments against tokenizers.Tokenizer 0.23.3 on the
same tokenizer.json: tokenizers (PyO3) takes a bool or a NumPy bool and refuses anything else
(1, None, "") with a TypeError; bertpiece read them by truthiness (`encode(text, add_special_tokens=1)`
added the special tokens, `decode(ids, skip_special_tokens=0)` kept them). AddedToken flags take
NumPy bools there (bertpiece refused them under NumPy 2)."""

import warnings

import numpy as np
import pytest
import tokenizers

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

JSON = transformers.BertTokenizer(vocab=bertpiece.vocab_path("bert-base-uncased")).backend_tokenizer.to_str()
VALUES = [1, 0, 2, None, "", "yes", 8.0, np.int64(1), np.bool_(True), np.bool_(False), True, False]


def outcome(fn):
    try:
        out = fn()
    except TypeError:
        return "TypeError"
    if isinstance(out, list) and out and hasattr(out[0], "ids"):
        return [(e.ids, e.type_ids, e.offsets) for e in out]
    return (out.ids, out.type_ids, out.offsets) if hasattr(out, "ids") else out


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_bool_arguments_as_tokenizers(value):
    ours, theirs = bertpiece.Tokenizer.from_str(JSON), tokenizers.Tokenizer.from_str(JSON)
    calls = [lambda t: t.encode("hello world", add_special_tokens=value),
             lambda t: t.encode("hello world", is_pretokenized=value),
             lambda t: t.encode("hello world", "again", add_special_tokens=value),
             lambda t: t.encode_batch(["hello world", "a b"], add_special_tokens=value),
             lambda t: t.encode_batch(["hello world", "a b"], is_pretokenized=value),
             lambda t: t.decode([101, 7592, 102], skip_special_tokens=value),
             lambda t: t.decode_batch([[101, 7592, 102]], skip_special_tokens=value),
             lambda t: t.get_vocab_size(value),
             lambda t: sorted(t.get_vocab(value).items())]
    for k, call in enumerate(calls):
        assert outcome(lambda: call(ours)) == outcome(lambda: call(theirs)), k


def test_decode_refuses_a_str():
    """`decode("")` is tokenizers' TypeError (bertpiece decoded the empty list of its characters)."""
    for lib in (bertpiece, tokenizers):
        with pytest.raises(TypeError):
            lib.Tokenizer.from_str(JSON).decode("")


@pytest.mark.parametrize("flag", ["single_word", "lstrip", "rstrip", "normalized", "special"])
@pytest.mark.parametrize("value", [np.bool_(True), np.bool_(False), 1, None], ids=repr)
def test_added_token_flags_take_numpy_bools(flag, value):
    made = []
    for lib in (bertpiece, tokenizers):
        tok = lib.Tokenizer.from_str(JSON)
        made.append(outcome(lambda: (tok.add_tokens([lib.AddedToken("qzx", **{flag: value})]),
                                     tok.encode("a qzx b").ids)))
    assert made[0] == made[1]

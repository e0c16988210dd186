"""bertpiece's tokenizers and google modes are `transformers.TokenizersBackend`
objects, as transformers' BertTokenizer is (transformers' code and tests branch
on it); the transformers mode is not, as BertTokenizerLegacy is not. The base is
only a mark: bertpiece's methods, and PreTrainedTokenizerBase's, stay the ones used."""

from __future__ import annotations

import copy
import pickle

import pytest

import bertpiece

transformers = pytest.importorskip("transformers")
from transformers import PreTrainedTokenizerBase, TokenizersBackend  # noqa: E402

PATH = bertpiece.vocab_path("bert-base-uncased")
MODES = {"tokenizers": transformers.BertTokenizer(vocab=PATH),
         "google": transformers.BertTokenizer(vocab=PATH),  # (the tokenizers-mode API over Google's tokens)
         "transformers": transformers.BertTokenizerLegacy(vocab_file=PATH)}


@pytest.mark.parametrize("reference", MODES)
def test_tokenizers_backend_as_the_reference_class(reference):
    tok = bertpiece.BertTokenizer(PATH, reference=reference)
    assert isinstance(tok, TokenizersBackend) == isinstance(MODES[reference], TokenizersBackend)
    assert isinstance(tok, bertpiece.BertTokenizer) and isinstance(tok, PreTrainedTokenizerBase)
    assert type(tok).__name__ == "BertTokenizer"
    from_pretrained = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased", reference=reference)
    assert isinstance(from_pretrained, TokenizersBackend) == (reference != "transformers")


@pytest.mark.parametrize("reference", MODES)
def test_pickled_and_copied_objects_keep_their_class(reference):
    tok = bertpiece.BertTokenizer(PATH, reference=reference)
    for other in (pickle.loads(pickle.dumps(tok)), copy.deepcopy(tok), copy.copy(tok)):
        assert type(other) is type(tok)
        assert other("Hello world")["input_ids"] == tok("Hello world")["input_ids"]
    assert pickle.dumps(pickle.loads(pickle.dumps(tok))) == pickle.dumps(tok)


def test_bertpiece_methods_win_over_tokenizers_backend():
    tok = bertpiece.BertTokenizer(PATH)
    mro = type(tok).__mro__
    assert mro.index(TokenizersBackend) > mro.index(bertpiece.bert_tokenizer.core.BertTokenizer)
    # what TokenizersBackend adds over PreTrainedTokenizerBase reads its HF tokenizers object: not here,
    # but for what reads no such object and is taken as it is (`can_save_slow_tokenizer`: the vocab file's name)
    taken = {"can_save_slow_tokenizer"}
    for name in vars(TokenizersBackend):
        if name.startswith("__"):
            continue
        ours = getattr(type(tok), name, None)
        if name in taken:
            assert ours is getattr(TokenizersBackend, name), name
            continue
        assert ours is not getattr(TokenizersBackend, name, object()) or \
            getattr(PreTrainedTokenizerBase, name, None) is ours, name
    assert not hasattr(tok, "_tokenizer")
    assert len(tok) == 30522 and tok.backend == "tokenizers" and tok.is_fast
    assert tok.convert_ids_to_tokens(tok("Hello")["input_ids"]) == ["[CLS]", "hello", "[SEP]"]


def test_subclasses_keep_their_own_class():
    class Mine(bertpiece.BertTokenizer):
        def marker(self):
            return "mine"

    tok = Mine(PATH)
    assert isinstance(tok, Mine) and isinstance(tok, TokenizersBackend) and tok.marker() == "mine"
    assert not isinstance(Mine(PATH, reference="transformers"), TokenizersBackend)
    assert type(type(tok)(PATH, reference="transformers")).__mro__[0] is Mine

"""`split_special_tokens=True` in legacy mode, and `sanitize_control_tokens`
(transformers 5.24's `apply_chat_template` passes it to `__call__`), against
transformers' BertTokenizer and BertTokenizerLegacy.

transformers' legacy `tokenize(..., split_special_tokens=True)` matches no added
token and runs `_tokenize` on the whole text, whose BasicTokenizer still keeps
the special tokens whole (`never_split=all_special_tokens`); bertpiece used to
split the special tokens into pieces and still match non-special added ones.
"""

import random

import pytest
import transformers
from transformers import AddedToken

import bertpiece
from google_reference import data_files, read_lines

VOCAB = bertpiece.vocab_path("bert-base-uncased")
EXTRAS = ("[SEP]", "[MASK]", "newtok", "<sp>", "<x1>", "[foo]", "a[SEP]b", "[CLS]", "[UNK]")


def _pair(**kw):
    hf = transformers.BertTokenizerLegacy(vocab_file=VOCAB, **kw)
    bp = bertpiece.BertTokenizer(vocab=VOCAB, reference="transformers", **kw)
    for t in (hf, bp):
        t.add_tokens(["newtok", AddedToken("<sp>", special=True)])
        t.add_special_tokens({"additional_special_tokens": ["<x1>"]})
    return hf, bp


@pytest.mark.parametrize("kw", [{}, {"never_split": ["[foo]", "hello"]}, {"do_basic_tokenize": False},
                                {"do_lower_case": False}], ids=repr)
def test_legacy_split_special_tokens_as_transformers(kw):
    hf, bp = _pair(**kw)
    rnd = random.Random(7)
    lines = [line for path in data_files()[:3] for line in read_lines(path)[:40]]
    for text in lines:
        words = text.split()
        for extra in rnd.sample(EXTRAS, 4):
            words.insert(rnd.randrange(len(words) + 1), extra)
        text = " ".join(words)
        for split in (True, False):
            assert bp.tokenize(text, split_special_tokens=split) == hf.tokenize(text, split_special_tokens=split)
            assert bp(text, split_special_tokens=split)["input_ids"] == \
                hf(text, split_special_tokens=split)["input_ids"], (split, text)


def test_legacy_split_special_tokens_set_at_construction():
    hf, bp = _pair(split_special_tokens=True)
    text = "a [SEP] b [MASK] newtok <x1>"
    assert bp.tokenize(text) == hf.tokenize(text)
    assert bp(text)["input_ids"] == hf(text)["input_ids"]


TEMPLATE = "{% for m in messages %}[CLS] {{ m['role'] }}: {{ m['content'] }} [SEP]\n{% endfor %}"
MESSAGES = [{"role": "user", "content": "Hello [SEP] world [MASK] x"},
            {"role": "assistant", "content": "Fine [CLS] ok"}]


def _outcome(tok, **kw):
    try:
        out = tok.apply_chat_template(MESSAGES, chat_template=TEMPLATE, **kw)
    except Exception as e:  # the same refusal as transformers, or the test fails
        return type(e).__name__, str(e)
    if hasattr(out, "items"):
        return {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in out.items()}
    return out


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
@pytest.mark.parametrize("kw", [{}, {"return_dict": True}, {"return_dict": True, "return_tensors": "np"},
                                {"truncation": True, "max_length": 7, "return_dict": True},
                                {"padding": "max_length", "max_length": 40, "return_dict": True}], ids=repr)
@pytest.mark.parametrize("sanitize", [False, True])
def test_apply_chat_template_sanitize_control_tokens(reference, kw, sanitize):
    hf = transformers.BertTokenizer(vocab=VOCAB) if reference == "tokenizers" else \
        transformers.BertTokenizerLegacy(vocab_file=VOCAB)
    bp = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased", reference=reference)
    assert _outcome(bp, sanitize_control_tokens=sanitize, **kw) == _outcome(hf, sanitize_control_tokens=sanitize, **kw)


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
def test_encode_without_added_tokens(reference):
    hf = transformers.BertTokenizer(vocab=VOCAB) if reference == "tokenizers" else \
        transformers.BertTokenizerLegacy(vocab_file=VOCAB)
    bp = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased", reference=reference)
    for t in (hf, bp):
        t.add_tokens(["newtok"])
    for text in ("Hi [SEP] there [unused1] newtok", "\n[CLS] x", "naïve [MASK]"):
        try:
            want = hf._encode_without_added_tokens(text)
        except Exception as e:
            with pytest.raises(type(e)):
                bp._encode_without_added_tokens(text)
            continue
        assert bp._encode_without_added_tokens(text) == want

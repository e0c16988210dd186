"""Long documents with offsets (issue 18): `BertTokenizer(doc, return_offsets_mapping=True)`
and chunking with `stride` / `return_overflowing_tokens` against transformers 5's
`BertTokenizer` (HF tokenizers), on the UD sentences of all 12 languages joined
into documents of many ASCII-whitespace chunks, so the offsets path passes
between its ASCII lane and the general path many times per text and word
indices and code-point offsets keep counting across chunks. Every expectation
is computed by transformers at test time."""

import json
import os
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bertpiece
from bertpiece import BertTokenizer
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402  (a test dependency: never skipped)
transformers.logging.set_verbosity_error()

FILES = data_files()
LINES = {f: [line for line in read_lines(f) if line.strip()] for f in FILES}
# (vocabulary, options): the default uncased model, a cased multilingual one
# without accent stripping, and an uncased one that keeps accents.
CONFIGS = [("bert-base-uncased", {}), ("bert-base-multilingual-cased", {}),
           ("bert-base-multilingual-cased", {"do_lower_case": True, "strip_accents": False})]
_PAIRS = {}


def pair(tmp_path_factory, k):
    """(bertpiece, transformers) tokenizers with the same vocabulary and options."""
    if k not in _PAIRS:
        name, opts = CONFIGS[k]
        opts = {"do_lower_case": bertpiece.PRETRAINED[name].do_lower_case, **opts}
        path = str(tmp_path_factory.mktemp(f"offsets-docs-{k}"))
        with open(bertpiece.vocab_path(name), "rb") as src, open(os.path.join(path, "vocab.txt"), "wb") as dst:
            dst.write(src.read())
        with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
            json.dump({"tokenizer_class": "BertTokenizer", **opts}, f)
        _PAIRS[k] = (BertTokenizer(bertpiece.vocab_path(name), **opts), transformers.BertTokenizer.from_pretrained(path))
    return _PAIRS[k]


def assert_same_encoding(ours, theirs, doc, **kwargs):
    got, want = ours(doc, **kwargs), theirs(doc, **kwargs)
    assert list(got.keys()) == list(want.keys())
    for key in want:
        assert got[key] == want[key], key
    rows = len(want["input_ids"]) if kwargs.get("return_overflowing_tokens") else 1
    for i in range(rows):
        assert got.word_ids(i) == want.word_ids(i)


@pytest.mark.parametrize("k", range(len(CONFIGS)))
@pytest.mark.parametrize("filename", FILES)
def test_a_whole_corpus_as_one_document(tmp_path_factory, filename, k):
    ours, theirs = pair(tmp_path_factory, k)
    doc = "\n".join(LINES[filename][:400])
    assert_same_encoding(ours, theirs, doc, return_offsets_mapping=True)
    assert_same_encoding(ours, theirs, doc, max_length=128, stride=32, truncation=True,
                         return_overflowing_tokens=True, return_offsets_mapping=True)


# Sentences from any of the 12 languages, joined by any ASCII whitespace.
sentences = st.lists(st.tuples(st.sampled_from(FILES), st.integers(0, 10**6), st.sampled_from(["\n", " ", "\t", "  ", "\r\n", ""])),
                     min_size=1, max_size=40)


@settings(max_examples=min(settings.default.max_examples, 60))
@given(sentences, st.integers(0, len(CONFIGS) - 1))
def test_documents_of_mixed_languages(tmp_path_factory, picks, k):
    ours, theirs = pair(tmp_path_factory, k)
    doc = "".join(LINES[f][i % len(LINES[f])] + sep for f, i, sep in picks)
    assert_same_encoding(ours, theirs, doc, return_offsets_mapping=True)
    assert_same_encoding(ours, theirs, doc, max_length=64, stride=16, truncation=True,
                         return_overflowing_tokens=True, return_offsets_mapping=True)

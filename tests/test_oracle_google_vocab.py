"""load_vocab of the oracle (reference="google" and "transformers") against the REAL Google BERT code
(bert-tensorflow 1.0.4) and transformers' `load_vocab`, on the bundled vocabularies and crafted files."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import google_reference as gr  # noqa: E402

google = gr.load_google()
oracle = gr.load_oracle()

VOCABS = gr.VOCABS  # vocab name -> do_lower_case the model was trained with


# --------------------------------------------------------------------------
# load_vocab
# --------------------------------------------------------------------------

@pytest.mark.parametrize("vocab", list(VOCABS))
def test_load_vocab_real_files(vocab):
    path = gr.vocab_path(vocab)
    expected = google.load_vocab(path)
    got = oracle.load_vocab(path, reference="google")
    assert list(got.items()) == list(expected.items())


CRAFTED_VOCABS = {
    "duplicates": "[PAD]\n[UNK]\na\nb\na\nc\nb\n",
    "blank_lines": "[UNK]\n\n\na\n\n",
    "crlf": "[UNK]\r\na\r\n##b\r\n",
    "lone_cr": "[UNK]\ra\rb\n",
    "spaces_tabs": "  [UNK]  \n\ta\t\n \t ##b \t\nc d\n",
    "u2028_inside": "[UNK]\na\u2028b\n",
    "u2028_alone": "[UNK]\n\u2028\nx\n",
    "u2029_u0085": "[UNK]\n\u2029a\u0085\n\u0085\n",
    "nbsp": "[UNK]\n\u00a0a\u00a0\na\n",
    "no_final_newline": "[UNK]\na\nlast",
    "only_newlines": "\n\n\n",
    "empty": "",
    "bom": "\ufeff[UNK]\na\n",
}


@pytest.mark.parametrize("name", list(CRAFTED_VOCABS))
def test_load_vocab_crafted(name, tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(CRAFTED_VOCABS[name].encode("utf-8"))
    expected = google.load_vocab(str(path))
    got = oracle.load_vocab(str(path), reference="google")
    assert list(got.items()) == list(expected.items())


@pytest.mark.parametrize("name", list(CRAFTED_VOCABS))
def test_load_vocab_crafted_transformers(name, tmp_path):
    from transformers.models.bert.tokenization_bert_legacy import load_vocab

    path = tmp_path / "vocab.txt"
    path.write_bytes(CRAFTED_VOCABS[name].encode("utf-8"))
    got = oracle.load_vocab(str(path), reference="transformers")
    assert list(got.items()) == list(load_vocab(str(path)).items())


def test_load_vocab_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"[UNK]\n\xff\xfe\n")
    with pytest.raises(ValueError):
        google.load_vocab(str(bad))
    with pytest.raises(ValueError, match="bad.txt"):
        oracle.load_vocab(str(bad))
    missing = str(tmp_path / "missing.txt")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        oracle.load_vocab(missing)
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        oracle.load_vocab(missing, reference="transformers")
    with pytest.raises(ValueError, match="google, transformers"):
        oracle.load_vocab(gr.vocab_path("bert-base-uncased"), reference="bogus")

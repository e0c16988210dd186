"""Real multilingual text (tests/data, UD treebanks) with reference="transformers":
the Rust FullTokenizer equals the oracle exactly, for the four bundled
vocabularies. (reference="google" is checked in test_oracle_google.py, where
Rust, the oracle and the real Google code run on the same lines.)"""

import functools

import pytest

import bertpiece
from bertpiece import oracle
from google_reference import data_files, read_lines
from tiers import ud_params

VOCABS = {name: entry.do_lower_case for name, entry in bertpiece.PRETRAINED.items()}


@functools.lru_cache(maxsize=None)  # made once per process: 12 corpus files share each vocabulary's
def pair(name, reference):
    path = bertpiece.vocab_path(name)
    return (bertpiece.FullTokenizer(path, VOCABS[name], reference=reference),
            oracle.FullTokenizer(path, VOCABS[name], reference=reference))


@pytest.mark.parametrize("filename", ud_params(data_files()))
@pytest.mark.parametrize("name", VOCABS)
def test_rust_equals_oracle_on_real_text(name, filename, reference="transformers"):
    rust, orac = pair(name, reference)
    # Every 3rd line: test_transformers_legacy.py runs every line (under two of the four vocabularies) against the
    # real transformers code, and test_codepoints.py every code point.
    for line in read_lines(filename)[::3]:
        want = orac.tokenize(line)
        assert rust.tokenize(line) == want, line
        assert rust.encode(line) == orac.convert_tokens_to_ids(want), line


@pytest.mark.parametrize("name", VOCABS)
@pytest.mark.parametrize("reference", oracle.REFERENCES)
def test_vocab_loading_equals_oracle(reference, name):
    path = bertpiece.vocab_path(name)
    want = oracle.load_vocab(path, reference)
    assert bertpiece.load_vocab(path, reference) == want
    assert list(bertpiece.load_vocab(path, reference).items()) == list(want.items())
    tok = bertpiece.FullTokenizer(path, reference=reference)
    assert list(tok.vocab.items()) == list(want.items())
    assert tok.inv_vocab == {v: k for k, v in want.items()}

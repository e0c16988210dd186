"""reference="transformers" against the real transformers slow tokenizer
(transformers 5 `tokenization_bert_legacy`: BasicTokenizer, WordpieceTokenizer,
load_vocab, and BertTokenizerLegacy's never_split bypass of WordPiece).
Lines that differ only because this interpreter's stdlib Unicode data is
another version are accepted when they contain a code point whose data differs."""

import functools
import itertools

import pytest

import bertpiece
from bertpiece import oracle
from google_reference import data_files, explained_by_unicode_version, read_lines
from tiers import ud_params

from transformers.models.bert import tokenization_bert_legacy as legacy  # noqa: E402

VOCABS = {name: entry.do_lower_case for name, entry in bertpiece.PRETRAINED.items()}


@functools.lru_cache(maxsize=None)  # made once per process: 12 corpus files share each vocabulary's
def legacy_full(path, lower, never_split=()):
    """BertTokenizerLegacy._tokenize without the added-token trie (special tokens are issue 3)."""
    basic = legacy.BasicTokenizer(do_lower_case=lower, never_split=never_split)
    wordpiece = legacy.WordpieceTokenizer(vocab=legacy.load_vocab(path), unk_token="[UNK]")

    def tokenize(text):
        out = []
        for token in basic.tokenize(text):
            out.extend([token] if token in basic.never_split else wordpiece.tokenize(token))
        return out
    return tokenize


def check_lines(lines, ours, theirs):
    unexplained, explained = [], 0
    for line in lines:
        got, want = ours(line), theirs(line)
        if got != want:
            if explained_by_unicode_version(line):
                explained += 1
            else:
                unexplained.append((line, got, want))
    assert not unexplained, unexplained[:3]
    assert explained <= len(lines) // 100, f"{explained} lines differ by Unicode version"


@pytest.mark.parametrize("filename", ud_params(data_files()))
@pytest.mark.parametrize("name", VOCABS)
def test_full_tokenizer_equals_transformers_legacy(name, filename):
    path = bertpiece.vocab_path(name)
    ours = bertpiece.FullTokenizer(path, VOCABS[name], reference="transformers")
    # Every 4th line, the vocabularies taking turns: each line under one of the four, lowercasing and cased
    # alternately.
    check_lines(read_lines(filename)[list(VOCABS).index(name)::4], ours.tokenize, legacy_full(path, VOCABS[name]))


OPTIONS = [dict(do_lower_case=lower, strip_accents=strip, tokenize_chinese_chars=cjk, do_split_on_punc=punc)
           for lower, strip, cjk, punc in itertools.product((True, False), (None, True, False), (True, False), (True, False))]


@pytest.mark.parametrize("filename", ["ud-vi.txt", "ud-zh.txt", "ud-el.txt", "ud-fr.txt"])
@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: "-".join(f"{k[:5]}={v}" for k, v in o.items()))
def test_basic_tokenizer_options_equal_transformers_legacy(opts, filename):
    never_split = ["[UNK]", "[unk]", "!", "l'"]
    lines = read_lines(filename)[:300] + ["[UNK] [unk] HELLO! [CLS] l'eau L'EAU"]
    ours = bertpiece.BasicTokenizer(reference="transformers", never_split=never_split, **opts)
    orac = oracle.BasicTokenizer(reference="transformers", never_split=never_split, **opts)
    theirs = legacy.BasicTokenizer(never_split=never_split, **opts)
    check_lines(lines, ours.tokenize, theirs.tokenize)
    check_lines(lines, orac.tokenize, theirs.tokenize)
    extra = ["hello", "x"]
    check_lines(lines[-1:], lambda t: ours.tokenize(t, never_split=extra), lambda t: theirs.tokenize(t, never_split=extra))


def test_never_split_bypasses_wordpiece_like_bert_tokenizer_legacy():
    path = bertpiece.vocab_path("bert-base-uncased")
    never_split = ["[UNK]", "qqqzzz", "!"]
    text = "[UNK] QQQZZZ qqqzzz hello! x!y"
    want = legacy_full(path, True, tuple(never_split))(text)
    assert bertpiece.FullTokenizer(path, reference="transformers", never_split=never_split).tokenize(text) == want
    assert oracle.FullTokenizer(path, reference="transformers", never_split=never_split).tokenize(text) == want


VOCAB_FILES = {
    "crlf": b"[UNK]\r\na\r\nb \r\n",
    "cr only": b"[UNK]\ra\rb",
    "duplicates": b"[UNK]\na\nb\na\n\n\n",
    "spaces": b" [UNK]\n\ta\t\nb  \n",
    "line separator": "[UNK]\n\u2028\nx\u2028y\n\u0085\n".encode(),
    "no final newline": b"[UNK]\nlast",
    "bom": b"\xef\xbb\xbf[UNK]\na\n",
}


@pytest.mark.parametrize("name", VOCAB_FILES)
def test_load_vocab_equals_transformers(tmp_path, name):
    path = tmp_path / "vocab.txt"
    path.write_bytes(VOCAB_FILES[name])
    want = legacy.load_vocab(str(path))
    assert list(bertpiece.load_vocab(path, "transformers").items()) == list(want.items())
    assert list(oracle.load_vocab(path, "transformers").items()) == list(want.items())


@pytest.mark.parametrize("name", VOCABS)
def test_bundled_vocab_loads_like_transformers(name):
    want = legacy.load_vocab(bertpiece.vocab_path(name))
    assert list(bertpiece.load_vocab(bertpiece.vocab_path(name), "transformers").items()) == list(want.items())


@pytest.mark.parametrize("text", ["a" * 100, "a" * 101, "\ud800x \ue000 \ufdd0 e\u0301", "ΟΔΟΣ İ", "\x00\x85\u2028 x", ""])
def test_adversarial_equals_transformers(text):
    path = bertpiece.vocab_path("bert-base-uncased")
    want = legacy_full(path, True)(text)
    assert bertpiece.FullTokenizer(path, reference="transformers").tokenize(text) == want

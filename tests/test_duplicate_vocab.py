"""A vocab.txt with duplicate tokens: which id a duplicated token gets, what
the shadowed ids convert to, len()/vocab_size/get_vocab and decode, per
reference mode against the real libraries. Measured: transformers'
`BertTokenizer(vocab=path)` and `BertTokenizerLegacy` keep the last line's id
(the earlier ids convert to None / "[UNK]"); Google's bert-tensorflow 1.0.4
`load_vocab` keeps the first and numbers the distinct tokens 0, 1, 2, ..."""

import warnings

import pytest

import bertpiece
from google_reference import load_google

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
google = load_google()
VOCABS = {
    "words": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\nhello\n##s\nworld\nfoo\n",
    "special": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n[UNK]\n##s\n[SEP]\nfoo\n[PAD]\n",
    "last": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nfoo\nfoo\n",
    "first": "hello\n[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n##s\n",
    "blank lines": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n\n##s\n\nfoo\n",
}
TEXT = "hello world hellos foo"


def observed(tok):
    out = {}
    for name, get in [("ids", lambda: tok(TEXT)["input_ids"]),
                      ("pair", lambda: tok("hello", "foo", padding="max_length", max_length=8)["input_ids"]),
                      ("ids_to_tokens", lambda: tok.convert_ids_to_tokens(list(range(12)))),
                      ("tokens_to_ids", lambda: tok.convert_tokens_to_ids(["hello", "foo", "[UNK]", "[PAD]", "", "##s"])),
                      ("len", lambda: len(tok)), ("vocab_size", lambda: tok.vocab_size),
                      ("vocab", lambda: sorted(tok.get_vocab().items())), ("decode", lambda: tok.decode(list(range(11)))),
                      ("special_ids", lambda: (tok.pad_token_id, tok.unk_token_id, tok.sep_token_id, tok.cls_token_id))]:
        try:
            out[name] = get()
        except Exception as exc:  # noqa: BLE001 (compared)
            out[name] = type(exc).__name__
    return out


@pytest.mark.parametrize("name", sorted(VOCABS))
def test_duplicates_as_transformers(tmp_path, name):
    path = tmp_path / "vocab.txt"
    path.write_text(VOCABS[name], encoding="utf-8")
    pairs = [("tokenizers", transformers.BertTokenizer(vocab=str(path)), transformers.BertTokenizer.from_pretrained),
             ("transformers", transformers.BertTokenizerLegacy(vocab_file=str(path)),
              transformers.BertTokenizerLegacy.from_pretrained)]
    for reference, theirs, their_loader in pairs:
        assert observed(bertpiece.BertTokenizer(vocab_file=path, reference=reference)) == observed(theirs)
        assert observed(bertpiece.BertTokenizer.from_pretrained(tmp_path, reference=reference)) == \
            observed(their_loader(str(tmp_path)))


@pytest.mark.parametrize("name", sorted(VOCABS))
def test_duplicates_as_google(tmp_path, name):
    path = tmp_path / "vocab.txt"
    path.write_text(VOCABS[name], encoding="utf-8")
    theirs = google.FullTokenizer(str(path), do_lower_case=True)
    ours = bertpiece.BertTokenizer(vocab_file=path, reference="google")
    assert ours(TEXT, add_special_tokens=False)["input_ids"] == theirs.convert_tokens_to_ids(theirs.tokenize(TEXT))
    assert len(ours) == ours.vocab_size == len(theirs.vocab)
    for i in range(12):
        want = theirs.inv_vocab.get(i)  # (Google's convert_ids_to_tokens: KeyError outside it)
        assert ours.convert_ids_to_tokens(i) == want
    full = bertpiece.FullTokenizer(str(path), do_lower_case=True, reference="google")
    assert full.vocab == theirs.vocab and full.inv_vocab == theirs.inv_vocab

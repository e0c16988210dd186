"""An added token whose normalized form is empty (U+0301 under BERT's accent stripping, NUL, U+200B or U+FFFD
under its cleaning) against tokenizers 0.23.3: HF's automaton then matches the empty string at every byte the
other tokens leave, so the normalized text is cut into bytes (each ASCII char its own word: `It is` ->
`i` `t` `i` `s`), and a multi-byte char in it panics ("AddedVocabulary bad split"). bertpiece ignored the empty
pattern and encoded the text whole (found by benches/parity_sequences.py; docs/parity-sweep.md); it now cuts as
HF does, and raises ValueError where HF panics (docs/pipeline.md's deliberate differences)."""

import pytest
from tokenizers import AddedToken as HFAddedToken
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import columns
from serialize_shapes import small_bert_json

ASCII = ["It is true.", "hello world hello", "a  b", "", " ", "Hello WORLD, [CLS] x [SEP] y", "ete\u0301 x",
         "hello[MASK]x", "tab\tand\nnewline", "x\x00y"]
ADDED = [["\u0301"], ["\x00"], ["\u0301", "hello"], ["hello", "\x00", "\u200b"], ["\ufffd", "wor"]]


def pair(added):
    text = small_bert_json()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert ours.add_tokens(added) == theirs.add_tokens(added)
    return ours, theirs


def rows(batch):
    s = batch.row_splits
    return [(batch.ids[s[i]:s[i + 1]].tolist(), [tuple(p) for p in batch.offsets[s[i]:s[i + 1]].tolist()])
            for i in range(len(batch))]


@pytest.mark.parametrize("added", ADDED, ids=repr)
def test_ascii_text_is_cut_into_chars_as_tokenizers_cuts_it(added):
    ours, theirs = pair(added)
    want = theirs.encode_batch(ASCII)
    assert want[0].tokens == ["[CLS]", "i", "t", "i", "s", "t", "r", "u", "e", ".", "[SEP]"]  # HF's cut
    for text, w in zip(ASCII, want):
        assert columns(ours.encode(text)) == columns(w), text
    for g, w in zip(ours.encode_batch(ASCII), want):
        assert columns(g) == columns(w)
    for threads in (1, 2):
        assert rows(ours.encode_batch_arrays(ASCII, return_offsets=True, num_threads=threads)) == \
            [(w.ids, w.offsets) for w in want]


@pytest.mark.parametrize("text", ["日本", "ß x", "Ωmega"])  # (non-ASCII after normalization)
def test_a_multibyte_char_is_a_value_error_where_tokenizers_panics(text):
    ours, theirs = pair(["\x00"])
    with pytest.raises(BaseException, match="bad split"):  # pyo3_runtime.PanicException
        theirs.encode(text)
    for call in (ours.encode, lambda t: ours.encode_batch([t]), lambda t: ours.encode_batch_arrays([t])):
        with pytest.raises(ValueError, match="normalizes to an empty string"):
            call(text)


def test_a_special_empty_token_under_encode_special_tokens_cuts_nothing():
    token = HFAddedToken("\u0301", special=True, normalized=True)
    ours, theirs = pair([token])
    ours.encode_special_tokens, theirs.encode_special_tokens = True, True
    for text in ASCII + ["été", "日本"]:
        assert columns(ours.encode(text)) == columns(theirs.encode(text)), text


@pytest.mark.parametrize("flag", ["rstrip", "lstrip", "single_word"])
def test_an_empty_form_with_strip_or_single_word_is_refused(flag):
    ours, _ = pair([HFAddedToken("\u0301", **{flag: True})])
    with pytest.raises(NotImplementedError, match="normalizes to an empty string"):
        ours.encode("It is")

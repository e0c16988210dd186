"""bertpiece.Tokenizer (the general pipeline, byte-level BPE slice) against
tokenizers 0.23.3 on real-shaped tokenizer.json files trained with HF's own
trainer: every UD file, pairs, pre-tokenized input, added tokens, decoding,
the vocabulary API."""

import pytest
from tokenizers import AddedToken, Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import SHAPES, UD_FILES, assert_same, roberta_json, ud_lines
from tiers import ud_params


def load(shape):
    text = SHAPES[shape]()
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("path", ud_params(UD_FILES), ids=lambda p: p.rsplit("-", 1)[-1][:-4])
def test_ud_file_matches_tokenizers(shape, path):
    ours, theirs = load(shape)
    lines = ud_lines(path, 200)
    for add_special in (True, False):
        got = ours.encode_batch(lines, add_special_tokens=add_special)
        want = theirs.encode_batch(lines, add_special_tokens=add_special)
        for line, a, b in zip(lines, got, want):
            assert_same(a, b, line)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_pairs_match_tokenizers(shape):
    ours, theirs = load(shape)
    lines = [line for path in UD_FILES for line in ud_lines(path, 12)]
    pairs = list(zip(lines, lines[1:] + [""]))
    for add_special in (True, False):
        for (a, b), x, y in zip(pairs, ours.encode_batch(pairs, add_special_tokens=add_special),
                                theirs.encode_batch(pairs, add_special_tokens=add_special)):
            assert_same(x, y, (a, b))
        a, b = pairs[3]
        assert_same(ours.encode(a, b, add_special_tokens=add_special), theirs.encode(a, b, add_special_tokens=add_special), (a, b))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_pretokenized_input_matches_tokenizers(shape):
    ours, theirs = load(shape)
    for line in [line for path in UD_FILES for line in ud_lines(path, 5)]:
        words = line.split(" ")
        assert_same(ours.encode(words, is_pretokenized=True), theirs.encode(words, is_pretokenized=True), words)
        pair = (words, words[::-1])
        assert_same(ours.encode_batch([pair], is_pretokenized=True)[0],
                    theirs.encode_batch([pair], is_pretokenized=True)[0], pair)


EDGE_TEXTS = [
    "", " ", "   ", "\t\n", "a", " a", "  a", "a  ", "a   b", "a\t\tb", "a \n b", "don't", "DON'T", "it's 'll 've",
    "'s's", "x'", "123 4567", "١٢٣ ٤", "ⅷ²", "€100", "👍🏽 👨‍👩‍👧", "e\u0301 é", "İΣσς", "\u00a0\u3000a", "\u2028x",
    "<s>", "a<mask>b", "a <mask> b", "a   <mask>", "<mask><mask>", "</s> x <pad>", "<unk>x", "<|endoftext|>hi",
    "Hello World hello world HELLO WORLD", "ÉTÉ été xÉTÉ ÉTÉx", "[CLS] [SEP]", "\ufeff", "\x00\x1f\x7f",
]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_edge_texts_match_tokenizers(shape):
    ours, theirs = load(shape)
    for text in EDGE_TEXTS:
        for add_special in (True, False):
            assert_same(ours.encode(text, add_special_tokens=add_special),
                        theirs.encode(text, add_special_tokens=add_special), text)


ADDED = [
    AddedToken("<m>", lstrip=True, rstrip=True, normalized=False, special=True),
    AddedToken("<m>x", normalized=False),
    AddedToken("word", single_word=True, normalized=False),
    AddedToken("ll", single_word=False, normalized=True),
    AddedToken(" spaced ", normalized=False),
    AddedToken("der", normalized=True, rstrip=True),
    AddedToken("日本", normalized=False, lstrip=True),
]
ADDED_TEXTS = [
    "a <m> b", "a<m>xb", "a  <m>  b <m>x", "word words sword word.", "all will ll", " spaced  spaced ", "der oder der  x",
    "日本語 の 日本", "<m><m>x<m>", "x word", "word",
]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_added_token_flags_match_tokenizers(shape):
    theirs = HFTokenizer.from_str(SHAPES[shape]())
    theirs.add_tokens(ADDED)
    ours = bertpiece.Tokenizer.from_str(theirs.to_str())
    texts = ADDED_TEXTS + [line for path in UD_FILES for line in ud_lines(path, 4)]
    for text in texts:
        assert_same(ours.encode(text), theirs.encode(text), text)
    for a, b in zip(ours.encode_batch(texts), theirs.encode_batch(texts)):
        assert ours.decode(a.ids, skip_special_tokens=False) == theirs.decode(b.ids, skip_special_tokens=False)
        assert ours.decode(a.ids) == theirs.decode(b.ids)
    assert ours.get_vocab() == theirs.get_vocab()
    assert ours.get_vocab_size() == theirs.get_vocab_size()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_decode_and_vocabulary_match_tokenizers(shape):
    ours, theirs = load(shape)
    lines = [line for path in UD_FILES for line in ud_lines(path, 20)]
    batch = [e.ids for e in theirs.encode_batch(lines)]
    for skip in (True, False):
        assert ours.decode_batch(batch, skip_special_tokens=skip) == theirs.decode_batch(batch, skip_special_tokens=skip)
        for ids in batch[:20]:
            assert ours.decode(ids, skip_special_tokens=skip) == theirs.decode(ids, skip_special_tokens=skip)
    # partial characters decode to U+FFFD as in tokenizers
    ids = theirs.encode("日本").ids
    assert ours.decode(ids[:1]) == theirs.decode(ids[:1])
    for with_added in (True, False):
        assert ours.get_vocab(with_added) == theirs.get_vocab(with_added)
        assert ours.get_vocab_size(with_added) == theirs.get_vocab_size(with_added)
    vocab = theirs.get_vocab()
    for token in list(vocab)[:300] + ["not-a-token", ""]:
        assert ours.token_to_id(token) == theirs.token_to_id(token)
    for i in list(range(-1, len(vocab) + 3)):
        if i >= 0:
            assert ours.id_to_token(i) == theirs.id_to_token(i)
    for is_pair in (False, True):
        assert ours.num_special_tokens_to_add(is_pair) == theirs.num_special_tokens_to_add(is_pair)


def test_other_methods_are_refused_not_ignored():
    # truncation and padding are implemented: tests/test_pipeline_trunc25.py;
    # to_str, save, add_tokens, from_pretrained: tests/test_pipeline_serialize25*.py
    ours = bertpiece.Tokenizer.from_str(roberta_json())
    assert ours.truncation is None and ours.padding is None
    with pytest.raises(NotImplementedError, match="post_process"):
        ours.post_process
    assert not hasattr(ours, "post_process")
    for name in ("async_encode", "encode_batch_fast"):
        with pytest.raises(AttributeError, match=name):
            getattr(ours, name)
    # a name tokenizers.Tokenizer has not either: its AttributeError
    theirs = HFTokenizer.from_str(roberta_json())
    for t in (ours, theirs):
        with pytest.raises(AttributeError, match="no_such_member"):
            t.no_such_member


def test_pickles_and_copies():
    import copy
    import pickle

    ours, theirs = load("roberta")
    for clone in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)):
        assert isinstance(clone, bertpiece.Tokenizer)
        assert_same(clone.encode("a <mask> pickled"), theirs.encode("a <mask> pickled"), "pickled")


def test_from_file_and_bad_arguments(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(roberta_json(), encoding="utf-8")
    ours, theirs = bertpiece.Tokenizer.from_file(str(path)), HFTokenizer.from_file(str(path))
    assert_same(ours.encode("Hello there <mask>!"), theirs.encode("Hello there <mask>!"), "from_file")
    with pytest.raises(TypeError, match="sequence"):
        ours.encode(12)
    with pytest.raises(TypeError, match="is_pretokenized"):
        ours.encode("text", is_pretokenized=True)
    with pytest.raises(TypeError, match="input"):
        ours.encode_batch("text")
    with pytest.raises(FileNotFoundError):
        bertpiece.Tokenizer.from_file(str(tmp_path / "missing.json"))

"""`encode_batch`'s `Encoding` objects, made on the calling thread while other threads still
encode (runs of texts handed over in order): in input order and equal to tokenizers 0.23.3's
on 1 and 2 threads, with and without padding, for single texts and pairs."""

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import UD_FILES, assert_same, gpt2_json, roberta_json, ud_lines


@pytest.fixture(scope="module")
def pair():
    return bertpiece.Tokenizer.from_str(roberta_json()), HFTokenizer.from_str(roberta_json())


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
def test_batch_order_and_values_equal_tokenizers(pair, threads, padded):
    ours, theirs = pair
    # more texts than the jobs they are dealt in (16 a thread): runs handed over out of turn would show
    lines = ud_lines(UD_FILES[0])[:700]
    if padded:
        ours.enable_padding(pad_id=1, pad_token="<pad>")
        theirs.enable_padding(pad_id=1, pad_token="<pad>")
    try:
        got = ours._core.encode_batch_texts(lines, True, ours._settings, num_threads=threads)
        want = theirs.encode_batch(lines)
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, lines[k])
        pairs = list(zip(lines[::2], lines[1::2]))
        got = ours._core.encode_batch([([a], [b]) for a, b in pairs], False, True, ours._settings, num_threads=threads)
        for (a, b), g, w in zip(pairs, got, theirs.encode_batch(pairs)):
            assert_same(g, w, (a, b))
    finally:
        ours.no_padding()
        theirs.no_padding()


def test_batch_of_one_and_of_none():
    ours, theirs = bertpiece.Tokenizer.from_str(gpt2_json()), HFTokenizer.from_str(gpt2_json())
    assert ours.encode_batch([]) == []
    (got,) = ours.encode_batch(["Hello there"])
    assert_same(got, theirs.encode("Hello there"), "Hello there")

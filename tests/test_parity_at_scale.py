"""The fast paths at a scale that fills and restarts every word cache on one thread (slow tier): 300,000 random
words of 1-40 chars in eleven scripts (tests/scale_texts.py; more distinct words than the byte-level, Unigram,
BERT and sentencepiece caches hold), against tokenizers 0.23.3 (tokenizer.json files) and sentencepiece (.model
files), bulk at 1 and 2 threads with and without offsets, encode_batch and the per-text encode. The big runs of
benches/parity_sweep.py (docs/parity-sweep.md: whole corpora, 1,000,000 words, files no one here trained) found
nothing here; this keeps a part of them in CI."""

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import gpt2_json, roberta_json
from models_shapes import t5_json
from precomp_shapes import xlmr_json
from scale_texts import edge_lines, synthetic_lines
from serialize_shapes import bert_json

pytestmark = pytest.mark.slow

SHAPES = {"gpt2": gpt2_json, "roberta": roberta_json, "t5": t5_json, "precomp-xlmr": xlmr_json, "bert": bert_json}
WORDS = 300_000


@pytest.fixture(scope="module")
def lines():
    return synthetic_lines(WORDS) + [x for x in edge_lines() if len(x) < 300_000]


def first_difference(lines, batch, want_ids, want_offsets):
    """None, or the first row whose ids (or offsets) differ, with its text's start."""
    for i in range(len(lines)):
        a, b = batch.row_splits[i], batch.row_splits[i + 1]
        if batch.ids[a:b].tolist() != want_ids[i]:
            return i, lines[i][:60], "ids"
        if batch.offsets is not None and [tuple(p) for p in batch.offsets[a:b].tolist()] != want_offsets[i]:
            return i, lines[i][:60], "offsets"
    return None


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_synthetic_words_past_every_cache(shape, lines):
    text = SHAPES[shape]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert ours._core.fast_path() is not None
    encs = theirs.encode_batch(lines)
    want_ids, want_offsets = [e.ids for e in encs], [e.offsets for e in encs]
    for threads in (1, 2, 1):
        for offsets in (False, True):
            got = ours.encode_batch_arrays(lines, num_threads=threads, return_offsets=offsets)
            assert first_difference(lines, got, want_ids, want_offsets) is None, (threads, offsets)
    assert [e.ids for e in ours.encode_batch(lines)] == want_ids
    for i in range(0, len(lines), 97):
        assert (ours.encode(lines[i]).ids, ours.encode(lines[i]).offsets) == (want_ids[i], want_offsets[i])


def test_bert_tokenizer_bulk_past_its_word_memo(lines):
    ours = bertpiece.BertTokenizer(bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    theirs = HFTokenizer.from_str(bert_json())
    encs = theirs.encode_batch(lines)
    want_ids, want_offsets = [e.ids for e in encs], [e.offsets for e in encs]
    for threads in (1, 2):
        got = ours.encode_batch(lines, num_threads=threads, return_offsets=True)
        assert first_difference(lines, got, want_ids, want_offsets) is None, threads


@pytest.mark.parametrize("name", ["unigram", "bpe"])
def test_sentencepiece_past_its_word_cache(name, lines):
    from spm_models import pair

    theirs, ours = pair(name)
    short = [x for x in lines if len(x) < 20_000]  # (long texts: docs/sentencepiece.md's open difference)
    assert ours.encode(short) == theirs.encode(short)
    assert ours.encode(short[::-1], num_threads=2) == theirs.encode(short[::-1])

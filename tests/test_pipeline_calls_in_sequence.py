"""bertpiece.Tokenizer in sequences of calls against tokenizers 0.23.3 doing the same calls: an Encoding made
BEFORE a settings change (add_tokens, add_special_tokens, truncation, padding, encode_special_tokens) and read
AFTER it is the encoding made then (the ids-only rows make their other columns when first read:
src/python/pipeline_rows.rs); two tokenizers interleaved on one thread (the fast paths' per-thread word
caches); encode, encode_batch and the bulk call on one object; a call that raises mid-batch then a normal one;
threads sharing one tokenizer. Found nothing on the code of 2fd131e (docs/parity-sweep.md); kept so the lazy
columns and the thread-local caches stay tied to the tokenizer an encoding was made by."""

import concurrent.futures
import copy
import pickle

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import UD_FILES, columns, gpt2_json, roberta_json, ud_lines
from models_shapes import t5_json, xlmr_json
from serialize_shapes import small_bert_json

SHAPES = {"gpt2": gpt2_json, "roberta": roberta_json, "xlmr": xlmr_json, "t5": t5_json, "bert": small_bert_json}
TEXTS = ["Hello world, this is the test of a hello tokenizer.", "", "  a  b  ", "日本語のテキスト and more",
         "world world test"] + [line for path in UD_FILES[:3] for line in ud_lines(path, 5)]

CHANGES = {
    "add_tokens": lambda t: t.add_tokens(["hello", "test", "world"]),
    "add_special_tokens": lambda t: t.add_special_tokens(["world", "this"]),
    "enable_truncation": lambda t: t.enable_truncation(4, stride=1),
    "enable_truncation left": lambda t: t.enable_truncation(3, direction="left", strategy="only_first"),
    "enable_padding": lambda t: t.enable_padding(length=40, pad_id=1),
    "no_truncation after one": lambda t: (t.enable_truncation(2), t.no_truncation()),
    "encode_special_tokens": lambda t: setattr(t, "encode_special_tokens", True),
}
MAKE = {
    "encode": lambda t: [t.encode(s) for s in TEXTS],
    "encode_batch": lambda t: t.encode_batch(TEXTS),
    "encode no specials": lambda t: [t.encode(s, add_special_tokens=False) for s in TEXTS],
}


def pair(shape):
    text = SHAPES[shape]()
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)


def overflow_columns(enc):
    return [columns(o) for o in enc.overflowing]


@pytest.mark.parametrize("make", list(MAKE))
@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_encoding_made_before_a_change_is_read_as_made(shape, change, make):
    ours, theirs = pair(shape)
    got, want = MAKE[make](ours), MAKE[make](theirs)
    first = [e.ids for e in got]  # the ids read before the change, the other columns after it
    CHANGES[change](ours), CHANGES[change](theirs)
    for text, ids, g, w in zip(TEXTS, first, got, want):
        assert ids == w.ids, (text, change)
        assert columns(g) == columns(w), (text, change)
        assert overflow_columns(g) == overflow_columns(w), (text, change)
    # and the encodings made after it are the new settings'
    for text, g, w in zip(TEXTS, MAKE[make](ours), MAKE[make](theirs)):
        assert columns(g) == columns(w), (text, change, "after")


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_encoding_read_after_its_tokenizer_was_pickled_copied_and_changed(shape):
    ours, theirs = pair(shape)
    got, want = ours.encode_batch(TEXTS), theirs.encode_batch(TEXTS)
    for how in (lambda t: pickle.loads(pickle.dumps(t)), copy.deepcopy):
        ours, theirs = how(ours), how(theirs)
        ours.add_tokens(["the"]), theirs.add_tokens(["the"])
        ours.enable_truncation(3), theirs.enable_truncation(3)
    for g, w in zip(got, want):
        assert columns(pickle.loads(pickle.dumps(g))) == columns(w)
    assert [columns(e) for e in ours.encode_batch(TEXTS)] == [columns(e) for e in theirs.encode_batch(TEXTS)]


def bulk_ids(tok, texts, threads):
    b = tok.encode_batch_arrays(texts, num_threads=threads, return_offsets=True)
    return [(b.ids[b.row_splits[i]:b.row_splits[i + 1]].tolist(),
             [tuple(p) for p in b.offsets[b.row_splits[i]:b.row_splits[i + 1]].tolist()]) for i in range(len(b))]


def test_tokenizers_interleaved_on_one_thread_and_every_call_on_one_object():
    # each fast path's per-thread word cache belongs to one tokenizer at a time: calls alternating between
    # files of every shape (two of the same shape among them) on one thread, each call checked
    pairs = [pair(shape) for shape in sorted(SHAPES)] + [pair("gpt2")]
    lines = [line for path in UD_FILES for line in ud_lines(path, 40)]
    want = [[(e.ids, e.offsets) for e in theirs.encode_batch(lines)] for _, theirs in pairs]
    for round_ in range(2):
        for k, (ours, _) in enumerate(pairs):
            order = lines if round_ == 0 else lines[::-1]
            expect = want[k] if round_ == 0 else want[k][::-1]
            assert bulk_ids(ours, order, 1) == expect, (k, round_)
            assert [(e.ids, e.offsets) for e in ours.encode_batch(order)] == expect
            assert [(ours.encode(s).ids, ours.encode(s).offsets) for s in order[:30]] == expect[:30]
            assert bulk_ids(ours, order, 2) == expect


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_call_that_raises_mid_batch_then_a_normal_call(shape):
    ours, theirs = pair(shape)
    lines = [line for path in UD_FILES for line in ud_lines(path, 20)]
    want = [(e.ids, e.offsets) for e in theirs.encode_batch(lines)]
    for bad in (lines[:50] + [42] + lines[50:], lines[:50] + ["x\ud800y"] + lines[50:]):
        for call in (ours.encode_batch, ours.encode_batch_arrays):
            with pytest.raises((TypeError, ValueError)):
                call(bad)
            assert bulk_ids(ours, lines, 1) == want
            assert [(e.ids, e.offsets) for e in ours.encode_batch(lines)] == want


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_threads_sharing_one_tokenizer(shape):
    ours, theirs = pair(shape)
    lines = [line for path in UD_FILES for line in ud_lines(path, 30)]
    want = [(e.ids, e.offsets) for e in theirs.encode_batch(lines)]

    def run(k):
        order = lines[k:] + lines[:k]  # each thread its own order: the caches fill differently
        return [(e.ids, e.offsets) for e in (ours.encode(s) for s in order)], bulk_ids(ours, order, 1)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for k, (one, bulk) in zip(range(0, 400, 100), pool.map(run, range(0, 400, 100))):
            assert one == want[k:] + want[:k]
            assert bulk == want[k:] + want[:k]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_per_text_call_after_long_declined_and_bad_texts(shape):
    # encode(text) makes its ids in a per-thread scratch vector (src/python/pipeline_rows.rs, `one_row`),
    # given back after a text of more than 65,536 ids: each text's ids its own, whatever came before
    ours, theirs = pair(shape)
    lines = [line for path in UD_FILES for line in ud_lines(path, 10)]
    long = " ".join(lines * (400_000 // len(" ".join(lines)) + 1))
    texts = [lines[0], long, lines[1], "", "a <mask> b", lines[2], long[:70_000], lines[3]]
    want = [theirs.encode(s).ids for s in texts]
    assert len(want[1]) > 65_536
    for _ in range(2):
        got = []
        for s in texts:
            with pytest.raises(TypeError):
                ours.encode(42)
            got.append(ours.encode(s).ids)
        assert got == want

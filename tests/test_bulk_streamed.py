"""The one-thread bulk call with its texts read a chunk at a time
(src/batch_stream.rs, src/python/batch_fed.rs): a list or tuple of more
than 256 strs on one thread is read 256 rows at a time, each chunk encoded
at once and its references given back. Its rows are tokenizers 0.23.3's and
those of the usual reading (everything read first: an iterator takes it); a
batch it cannot read that way (an item not a str, a str subclass, lone
surrogates, in any chunk) is read as before, naming the first bad item
(those tests, and calls from several Python threads at once, run on both
readers in tests/test_bulk_fed.py)."""

import os
import threading
import time

import numpy as np
import pytest
from tokenizers import BertWordPieceTokenizer

import bertpiece
from bulk_reading import LINES, VOCAB, rows


@pytest.fixture(scope="module")
def tok():
    return bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")


def core(tok, data, **kw):
    """The core's arrays and flagged rows for `data` (an iterator: read first, item by item)."""
    ids, splits, offsets, redo, _, _ = tok._core.encode_batch(
        data, special=tok._cls_sep_ids(), num_threads=1, added=list(tok._added), **kw)
    return [np.asarray(ids), np.asarray(splits), None if offsets is None else np.asarray(offsets), list(redo)]


def same_core(tok, data, **kw):
    a, b = core(tok, data, **kw), core(tok, iter(data), **kw)
    return all(x is None and y is None or np.array_equal(x, y) for x, y in zip(a, b))


def same(a, b):
    return np.array_equal(a.ids, b.ids) and np.array_equal(a.row_splits, b.row_splits) and (
        a.offsets is None and b.offsets is None or np.array_equal(a.offsets, b.offsets))


@pytest.mark.parametrize("n", [257, 512, 1_000, len(LINES)])
def test_streamed_rows_are_the_references_and_the_rows_read_first(tok, n):
    assert len(LINES) > 2_000
    texts = LINES[:n]
    ref = BertWordPieceTokenizer(os.path.join(VOCAB, "bert-base-uncased.txt"), lowercase=True)
    expected = [e.ids for e in ref.encode_batch(texts)]
    for data in (texts, tuple(texts)):
        streamed = tok.encode_batch(data, num_threads=1)
        assert [r.tolist() for r in rows(streamed)] == expected
        assert same(streamed, tok.encode_batch(data, num_threads=2))
        # the core's rows and flagged rows, streamed and read first
        assert same_core(tok, data)
        assert same_core(tok, data, return_offsets=True)
        assert same_core(tok, data, max_length=20)
    ref.enable_truncation(max_length=32)
    cut = [e.ids for e in ref.encode_batch(texts)]
    os.environ["BERTPIECE_NUM_THREADS"] = "1"
    try:
        padded = tok(texts, padding=True, truncation=True, max_length=32, return_tensors="np")["input_ids"]
    finally:
        del os.environ["BERTPIECE_NUM_THREADS"]
    assert [row[:len(c)].tolist() + [int(x) for x in row[len(c):] if x] for row, c in zip(padded, cut)] == cut


def test_an_iterator_of_texts_holding_added_tokens(tok):
    # (the rows holding "[SEP]" are encoded again from the texts, which an iterator no longer has)
    texts = LINES[:600]
    assert any("[SEP]" in t for t in texts)
    assert same(tok.encode_batch(t for t in texts), tok.encode_batch(texts))
    assert same(tok.encode_batch(iter(texts[:5]), num_threads=1), tok.encode_batch(texts[:5], num_threads=1))


def test_a_list_another_thread_changes_during_the_call(tok):
    # The GIL is released between chunks: another thread may replace, append or remove items meanwhile.
    # Each row is then the encoding of a str the list held at that index during the call (the one there
    # when its chunk was read); a list grown shorter is read again the usual way. Never a crash, never a
    # row from freed memory (each str is held by a reference while it is encoded).
    base = [line for line in LINES[:4_000] if "[SEP]" not in line]
    swaps = [f"Completely different words here, replacing row {k}." for k in range(len(base))]
    alone = [r.tolist() for r in rows(tok.encode_batch(base + swaps, num_threads=1))]
    by_text = dict(zip(base + swaps, alone))
    for mode in ("replace", "shrink", "grow"):
        texts = list(base)
        stop = threading.Event()

        def mutate():
            k = 0
            while not stop.is_set():
                k = (k + 97) % len(base)
                if mode == "replace":
                    texts[k] = swaps[k]
                elif mode == "shrink" and len(texts) > 300:
                    del texts[-7:]
                elif mode == "grow" and len(texts) < 2 * len(base):
                    texts.append(base[k])
                time.sleep(0)  # (let the encoding thread run: the list stays of a size to check)

        worker = threading.Thread(target=mutate)
        worker.start()
        try:
            for _ in range(10):
                got = rows(tok.encode_batch(texts, num_threads=1))
                assert mode != "grow" or len(base) <= len(got) <= 2 * len(base)
                assert mode != "shrink" or len(got) <= len(base)
                for k, r in enumerate(got):
                    if k < len(base):
                        assert r.tolist() in (by_text[base[k]], by_text[swaps[k]]), (mode, k)
                    else:  # (appended: one of the base rows)
                        assert r.tolist() in alone[: len(base)], (mode, k)
        finally:
            stop.set()
            worker.join()

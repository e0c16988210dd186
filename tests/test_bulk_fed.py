"""The bulk call with its texts read while the pool's workers encode
(src/batch_fed.rs, src/python/batch_fed.rs): a list or tuple of at least
256 strs a thread is read block by block, the second thread starting on its
run as soon as its first block is read. Its rows are tokenizers 0.23.3's and
the rows the same call gives read first (one thread); a batch it cannot
read that way (an item not a str, a str subclass, lone surrogates) is read
as before, naming the first bad item whichever block is read first. The
tests of bad items, subclasses and calls from several Python threads run
on the one-thread reader by chunks too (tests/test_bulk_streamed.py)."""

import os
import threading

import numpy as np
import pytest
from tokenizers import BertWordPieceTokenizer

import bertpiece
from bulk_reading import LINES, VOCAB, rows


@pytest.fixture(scope="module")
def tok():
    return bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")


@pytest.mark.parametrize("n", [512, 513, 2_000, len(LINES)])
def test_fed_rows_are_the_references_and_the_rows_read_first(tok, n):
    assert len(LINES) > 2_000
    texts = LINES[:n]
    ref = BertWordPieceTokenizer(os.path.join(VOCAB, "bert-base-uncased.txt"), lowercase=True)
    expected = [e.ids for e in ref.encode_batch(texts)]
    for data in (texts, tuple(texts)):
        fed = tok.encode_batch(data, num_threads=2)
        assert [r.tolist() for r in rows(fed)] == expected
        first = tok.encode_batch(data, num_threads=1)
        assert np.array_equal(fed.ids, first.ids) and np.array_equal(fed.row_splits, first.row_splits)
    ref.enable_truncation(max_length=32)
    cut = [e.ids for e in ref.encode_batch(texts)]
    padded = tok(texts, padding=True, truncation=True, max_length=32, return_tensors="np")["input_ids"]
    assert [row[:len(c)].tolist() + [int(x) for x in row[len(c):] if x] for row, c in zip(padded, cut)] == cut


# Both readers of a list or tuple: the fed one (2 threads: block by block while the pool's workers encode)
# and the streamed one (1 thread: a chunk of 256 rows at a time, tests/test_bulk_streamed.py).
READERS = pytest.mark.parametrize("threads", [1, 2], ids=["streamed", "fed"])


@READERS
def test_the_first_bad_item_is_named_whichever_block_is_read_first(tok, threads):
    # Fed: the second thread's run (the batch's second half) is read first, so a bad item there must not
    # hide one earlier in the batch. Streamed: both past the first chunk (chunks were encoded before).
    texts = list(LINES[:4_000])
    texts[3_500], texts[700] = 7, b"bytes"
    with pytest.raises(TypeError, match=r"texts\[700\] must be str, not bytes"):
        tok.encode_batch(texts, num_threads=threads)
    texts[700] = LINES[700]
    with pytest.raises(TypeError, match=r"texts\[3500\] must be str, not int"):
        tok.encode_batch(texts, num_threads=threads)


def same(a, b):
    return np.array_equal(a.ids, b.ids) and np.array_equal(a.row_splits, b.row_splits)


@READERS
def test_subclasses_and_surrogates_are_read_as_before(tok, threads):
    class Text(str):
        def encode(self, *args, **kwargs):  # Python code, run only by the usual reading
            return str(self).encode(*args, **kwargs)

    texts = list(LINES[:3_000])
    texts[2_900], texts[600] = Text("Hello there, world"), Text(LINES[600])
    # (an iterator is read the usual way: everything first, item by item)
    assert same(tok.encode_batch(texts, num_threads=threads), tok.encode_batch(iter([str(t) for t in texts]), num_threads=1))
    google = bertpiece._core.FullTokenizer(os.path.join(VOCAB, "bert-base-uncased.txt"), reference="google")
    texts[2_500] = "caf\udce9 ok"
    read = google.encode_batch(texts, num_threads=threads)
    first = google.encode_batch(iter(texts), num_threads=1)
    assert all(np.array_equal(a, b) for a, b in zip(read[:2], first[:2]))


@READERS
def test_python_threads_calling_at_once_get_their_own_rows(tok, threads):
    expected = tok.encode_batch(iter(LINES), num_threads=1)
    got, errors = [], []

    def call(k):
        try:
            data = LINES if k % 2 else tuple(LINES)
            for _ in range(3):
                got.append(tok.encode_batch(data, num_threads=threads))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    workers = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=300)
    assert not errors and len(got) == 12
    assert all(same(b, expected) for b in got)

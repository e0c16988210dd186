"""The bulk call with its texts read while the pool's workers encode
(src/batch_fed.rs, src/python/batch_fed.rs): a list or tuple of at least
256 strs a thread is read block by block, the second thread starting on its
run as soon as its first block is read. Its rows are tokenizers 0.23.3's and
the rows the same call gives read first (one thread); a batch it cannot
read that way (an item not a str, a str subclass, lone surrogates) is read
as before, naming the first bad item whichever block is read first."""

import os
import threading

import numpy as np
import pytest
from tokenizers import BertWordPieceTokenizer

import bertpiece
from google_reference import data_files, read_lines

VOCAB = os.path.join(os.path.dirname(bertpiece.__file__), "vocab")
LINES = [line for f in data_files() for line in read_lines(f)[::7]]
LINES = [line + " [SEP] y" if k % 131 == 3 else line for k, line in enumerate(LINES)]


@pytest.fixture(scope="module")
def tok():
    return bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")


def rows(batch):
    return np.split(batch.ids, batch.row_splits[1:-1])


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


def test_the_first_bad_item_is_named_whichever_block_is_read_first(tok):
    # The second thread's run (the batch's second half) is read first: a bad
    # item there must not hide one earlier in the batch.
    texts = list(LINES[:4_000])
    texts[3_500], texts[10] = 7, b"bytes"
    with pytest.raises(TypeError, match=r"texts\[10\] must be str, not bytes"):
        tok.encode_batch(texts, num_threads=2)
    texts[10] = LINES[10]
    with pytest.raises(TypeError, match=r"texts\[3500\] must be str, not int"):
        tok.encode_batch(texts, num_threads=2)


def test_subclasses_and_surrogates_are_read_as_before(tok):
    class Text(str):
        def encode(self, *args, **kwargs):  # Python code, run only by the usual reading
            return str(self).encode(*args, **kwargs)

    texts = list(LINES[:3_000])
    texts[2_900], texts[5] = Text("Hello there, world"), Text(LINES[5])
    fed = tok.encode_batch(texts, num_threads=2)
    plain = tok.encode_batch([str(t) for t in texts], num_threads=1)
    assert np.array_equal(fed.ids, plain.ids) and np.array_equal(fed.row_splits, plain.row_splits)
    google = bertpiece._core.FullTokenizer(os.path.join(VOCAB, "bert-base-uncased.txt"), reference="google")
    texts[2_500] = "caf\udce9 ok"
    two = google.encode_batch(texts, num_threads=2)
    one = google.encode_batch(texts, num_threads=1)
    assert all(np.array_equal(a, b) for a, b in zip(two[:2], one[:2]))


def test_python_threads_calling_at_once_get_their_own_rows(tok):
    expected = tok.encode_batch(LINES, num_threads=1)
    got, errors = [], []

    def call(k):
        try:
            data = LINES if k % 2 else tuple(LINES)
            for _ in range(3):
                got.append(tok.encode_batch(data, num_threads=2))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors and len(got) == 12
    assert all(np.array_equal(b.ids, expected.ids) and np.array_equal(b.row_splits, expected.row_splits) for b in got)

"""BertTokenizer.encode_batch: the parallel NumPy path gives exactly the rows of
the transformers-style __call__ on each text alone (the general path, itself
tested against transformers), from every accepted input type (pyarrow read in
place), from many threads at once, and after fork()."""

import gc
import os
import pickle
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

import bertpiece
from google_reference import data_files, errors_in_threads, read_lines

LINES = [line for f in data_files() for line in read_lines(f)[::40]] + [
    "", "   ", "Héllo [MASK] world [SEP]", "a" * 150, "\u2028x\u00a0y", "ΟΔΟΣ İstanbul 中文"]


@pytest.fixture(scope="module", params=["tokenizers", "transformers"])
def tok(request):
    return bertpiece.BertTokenizer.from_pretrained("bert-base-multilingual-cased", reference=request.param)


def one_by_one(tok, texts, **kwargs):
    """Each text alone: the general path (a batch of one text does not take the batch path)."""
    return [tok(t, **kwargs)["input_ids"] for t in texts]


def test_rows_equal_call(tok):
    assert tok.encode_batch(LINES).tolist() == one_by_one(tok, LINES)
    assert tok.encode_batch(LINES, add_special_tokens=False).tolist() == one_by_one(tok, LINES, add_special_tokens=False)
    for max_length in (2, 7, 32):
        want = one_by_one(tok, LINES, truncation=True, max_length=max_length)
        assert tok.encode_batch(LINES, truncation=True, max_length=max_length).tolist() == want


@pytest.mark.parametrize("name", list(bertpiece.PRETRAINED))
def test_offsets_equal_offset_mapping(name):
    tok = bertpiece.BertTokenizer.from_pretrained(name)
    batch = tok.encode_batch(LINES, return_offsets=True, truncation=True, max_length=64)
    enc = tok(LINES, return_offsets_mapping=True, truncation=True, max_length=64)
    assert batch.tolist() == enc["input_ids"]
    assert [tuple(o) for o in batch.offsets.tolist()] == [tuple(o) for row in enc["offset_mapping"] for o in row]
    assert batch.ids.dtype == np.int32 and batch.row_splits.dtype == np.int64 and batch.offsets.shape == (len(batch.ids), 2)


def test_input_types(tok):
    want = tok.encode_batch(LINES).tolist()
    for texts in (tuple(LINES), np.array(LINES), np.array(LINES, dtype=object), pa.array(LINES),
                  pa.chunked_array([LINES[:3], LINES[3:]]), pa.array(LINES, type=pa.large_string()),
                  pa.chunked_array([pa.array(LINES[:5], pa.large_string()), pa.array(LINES[5:], pa.large_string())])):
        assert tok.encode_batch(texts).tolist() == want, type(texts)
    # Slices of Arrow arrays start inside the buffers (a non-zero offset): read in place all the same.
    sliced = pa.array(["skip me"] + LINES + ["and me"]).slice(1, len(LINES))
    assert tok.encode_batch(sliced).tolist() == want
    assert tok.encode_batch(pa.array(LINES)[4:9]).tolist() == want[4:9]
    assert tok.encode_batch(pa.array([], pa.string())).tolist() == []


def test_arrow_bad_input(tok):
    with pytest.raises(TypeError, match=r"texts\[2\] must be str, not None"):
        tok.encode_batch(pa.array(["a", "b", None]))
    with pytest.raises(TypeError, match=r"texts\[3\] must be str, not None"):
        tok.encode_batch(pa.chunked_array([["a", "b"], ["c", None]]))
    with pytest.raises(TypeError, match="pyarrow string array, not int64"):
        tok.encode_batch(pa.array([1, 2]))


def test_bad_input(tok, monkeypatch):
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, not int"):
        tok.encode_batch(["a", 1])
    with pytest.raises(TypeError, match=r"texts\[0\] must be str, not NoneType"):
        tok.encode_batch(np.array([None, "a"], dtype=object))
    with pytest.raises(TypeError, match="single str"):
        tok.encode_batch("hello")
    for n in (0, -3):
        with pytest.raises(ValueError, match="num_threads must be a positive integer"):
            tok.encode_batch(["a"], num_threads=n)
    monkeypatch.setenv("BERTPIECE_NUM_THREADS", "0")
    with pytest.raises(ValueError, match="num_threads"):
        tok.encode_batch(["a"])
    monkeypatch.setenv("BERTPIECE_NUM_THREADS", "1")
    assert tok.encode_batch(["a b"]).tolist() == tok(["a b"])["input_ids"]
    empty = tok.encode_batch([], return_offsets=tok.reference != "transformers")
    assert len(empty) == 0 and empty.ids.shape == (0,) and empty.ids.dtype == np.int32
    assert empty.row_splits.tolist() == [0]


def test_arrays_are_the_cores_memory_handed_over():
    # The arrays are the core's buffers adopted by NumPy (no copy): they outlive
    # the batch and the tokenizer, are writable, pickle, and are freed with the
    # last array that uses them.
    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    want = tok(LINES, return_offsets_mapping=True)
    batch = tok.encode_batch(LINES, return_offsets=True)
    ids, splits, offsets = batch.ids, batch.row_splits, batch.offsets
    del batch, tok
    gc.collect()
    assert [ids[splits[i]:splits[i + 1]].tolist() for i in range(len(LINES))] == want["input_ids"]
    assert [tuple(o) for o in offsets.tolist()] == [tuple(o) for row in want["offset_mapping"] for o in row]
    assert ids.flags.writeable and ids.flags.c_contiguous and offsets.shape == (len(ids), 2)
    assert (pickle.loads(pickle.dumps(ids)) == ids).all()
    ids[:] = 0
    assert not ids.any()


def test_arrays_are_freed():
    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    texts = LINES * 50  # about 2 MB of ids a batch

    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    for _ in range(5):
        tok.encode_batch(texts)
    before = rss_mb()
    for _ in range(30):  # a leak of them all would be 60 MB
        batch = tok.encode_batch(texts)
        tok(texts[:500], padding=True, return_tensors="np")
    del batch
    gc.collect()
    assert rss_mb() - before < 30, "30 batches' arrays were not freed"


def test_one_tokenizer_from_eight_threads(tok):
    want = tok.encode_batch(LINES).tolist()
    results = []

    def work():
        for n in (1, 2, None):
            results.append(tok.encode_batch(LINES, num_threads=n).tolist() == want)

    errors = errors_in_threads(work)
    assert not errors and len(results) == 24 and all(results)


FORK_SCRIPT = """
import os, sys, bertpiece
tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
texts = ["hello world %d" % i for i in range(2000)]
want = tok.encode_batch(texts, num_threads=2).tolist()
pid = os.fork()
if pid == 0:
    ok = tok.encode_batch(texts, num_threads=2).tolist() == want
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_fork_after_parallel_encoding_does_not_deadlock():
    # a fresh interpreter: the thread pools' own fork handling is the point, not tests/preloaded.py's
    r = subprocess.run([sys.executable, "-c", FORK_SCRIPT], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr

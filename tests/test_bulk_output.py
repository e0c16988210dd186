"""The bulk calls' output assembled from the threads' blocks (src/run_output.rs:
each thread's blocks taken in order in one buffer, the first buffer the output,
blocks taken from another thread's run alone): batches large enough to be
split between two threads give exactly tokenizers 0.23.3's rows (ids, offsets,
pairs' type ids, truncation) and the rows of one thread, with rows holding
added tokens in every block; calls of different sizes and tokenizers in turn,
and calls that fail, leave nothing behind for the next call."""

import os

import numpy as np
import pytest
from tokenizers import BertWordPieceTokenizer
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
import bpe_shapes
import models_shapes
from google_reference import data_files, read_lines

VOCAB = os.path.join(os.path.dirname(bertpiece.__file__), "vocab")
# ~1 MB of UD lines (two threads split anything over 32 kB), a "[MASK]" every
# 97 lines so flagged rows fall in many blocks of both threads' runs.
LINES = [line for f in data_files() for line in read_lines(f)[::3]]
LINES = [line + " [MASK] x" if k % 97 == 5 else line for k, line in enumerate(LINES)]


def theirs(name):
    return BertWordPieceTokenizer(os.path.join(VOCAB, f"{name}.txt"), lowercase=name.endswith("uncased"),
                                  strip_accents=None if name.endswith("uncased") else False)


def flat(encodings, field):
    return [x for e in encodings for x in getattr(e, field)]


def assert_rows(batch, encodings):
    assert np.diff(batch.row_splits).tolist() == [len(e.ids) for e in encodings]
    assert batch.ids.tolist() == flat(encodings, "ids")
    if batch.offsets is not None:
        assert [tuple(o) for o in batch.offsets.tolist()] == flat(encodings, "offsets")


@pytest.mark.parametrize("name", ["bert-base-uncased", "bert-base-multilingual-cased"])
def test_two_threads_give_the_references_rows(name):
    assert sum(len(line.encode()) for line in LINES) > 1 << 20
    tok, ref = bertpiece.BertTokenizer.from_pretrained(name), theirs(name)
    assert_rows(tok.encode_batch(LINES, return_offsets=True, num_threads=2), ref.encode_batch(LINES))
    ids_only = tok.encode_batch(LINES, num_threads=2)
    assert ids_only.offsets is None
    assert_rows(ids_only, ref.encode_batch(LINES))
    ref.enable_truncation(max_length=24)
    assert_rows(tok.encode_batch(LINES, truncation=True, max_length=24, num_threads=2), ref.encode_batch(LINES))


def test_pairs_on_two_threads_give_the_references_rows_and_type_ids():
    core, ref = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")._core, theirs("bert-base-uncased")
    firsts, seconds = LINES[::2], LINES[1::2][:len(LINES[::2])]
    firsts = firsts[:len(seconds)]
    ref.enable_truncation(max_length=40)
    want = ref.encode_batch(list(zip(firsts, seconds)))
    for threads in (1, 2):
        ids, splits, _, flagged, types, too_short = core.encode_batch(
            firsts, special=(101, 102), max_length=40, num_threads=threads, pairs=seconds, added=["[MASK]"])
        rows = [k for k, (a, b) in enumerate(zip(firsts, seconds)) if "[MASK]" in a or "[MASK]" in b]
        assert list(flagged) == rows and not too_short
        # flagged rows are the caller's to redo (the general path); the others are the reference's
        keep = np.ones(len(firsts), bool)
        keep[rows] = False
        got = np.split(np.asarray(ids), np.asarray(splits)[1:-1])
        got_types = np.split(np.asarray(types), np.asarray(splits)[1:-1])
        for k in np.flatnonzero(keep):
            assert got[k].tolist() == want[k].ids and got_types[k].tolist() == want[k].type_ids, k


def digest(batch):
    return batch.ids.tobytes(), batch.row_splits.tobytes(), None if batch.offsets is None else batch.offsets.tobytes()


def test_calls_in_turn_leave_nothing_behind():
    uncased, cased = (bertpiece.BertTokenizer.from_pretrained(n) for n in ("bert-base-uncased", "bert-base-multilingual-cased"))
    small = LINES[:7]
    want = {(t, n, o): digest(t.encode_batch(texts, return_offsets=o, num_threads=1))
            for t in (uncased, cased) for n, texts in (("big", LINES), ("small", small)) for o in (False, True)}
    # big, small, big; the two tokenizers in turn; a call failing on its last text in between
    for _ in range(2):
        for t in (uncased, cased, uncased):
            for n, texts in (("big", LINES), ("small", small), ("big", LINES)):
                for o in (True, False):
                    assert digest(t.encode_batch(texts, return_offsets=o, num_threads=2)) == want[t, n, o]
                with pytest.raises(TypeError):
                    t.encode_batch(LINES + [3], num_threads=2)


def test_general_pipeline_calls_in_turn_leave_nothing_behind():
    # bertpiece.Tokenizer.encode_batch_arrays (src/pipeline_batch.rs): blocks of 256 rows, many per thread
    toks = {name: (bertpiece.Tokenizer.from_str(make()), HFTokenizer.from_str(make()))
            for name, make in (("gpt2", bpe_shapes.SHAPES["gpt2"]), ("unigram", models_shapes.SHAPES["t5"]))}
    small = LINES[:3]
    for name, (ours, ref) in toks.items():
        assert_rows(ours.encode_batch_arrays(LINES, return_offsets=True, num_threads=2), ref.encode_batch(LINES))
    want = {(name, n, o): digest(ours.encode_batch_arrays(texts, return_offsets=o, num_threads=1))
            for name, (ours, _) in toks.items() for n, texts in (("big", LINES), ("small", small)) for o in (False, True)}
    for name in ("gpt2", "unigram", "gpt2"):
        ours = toks[name][0]
        for n, texts in (("big", LINES), ("small", small), ("big", LINES)):
            for o in (True, False):
                assert digest(ours.encode_batch_arrays(texts, return_offsets=o, num_threads=2)) == want[name, n, o]
            with pytest.raises(TypeError):
                ours.encode_batch_arrays(LINES + [3], num_threads=2)

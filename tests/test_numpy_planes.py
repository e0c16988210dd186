"""`_core.encode_padded_planes` (src/python/numpy_planes.rs, serving_padded.rs): the padded block's
three planes as NumPy arrays made through NumPy's C API, which the padded serving
call returns. They must be the arrays `numpy.asarray(block)[k]` made before (values,
dtype, shape, strides, flags), keep the core's memory alive on their own, and hold
exactly one reference each to it (no leak)."""

import gc
import sys

import numpy as np
import pytest

import bertpiece
from google_reference import data_files, read_lines

TEXTS = [line for f in data_files() for line in read_lines(f)[::300]] + ["", "a", "x " * 300]
_core = bertpiece._core
PLAN = _core.PaddedPlan((101, 102), 128)


@pytest.fixture(scope="module")
def tok():
    return bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"))


def both(tok, texts, *args):
    """(planes, the block path's views) of one batch; `args` after the texts as both functions take them."""
    width, planes, redo, longest = _core.encode_padded_planes(tok._core, texts, _core.PaddedPlan(*args[:8]), *args[8:])
    width2, block, redo2, longest2 = _core.encode_padded_block(tok._core, texts, *args)
    assert (width, redo, longest) == (width2, redo2, longest2)
    block = np.asarray(block)
    return planes, [block[k] for k in range(3)]


CASES = [  # special, max_length, pad_to, pad_to_multiple_of, pad_id, padding_left, pad_type_id, added, num_threads
    ((101, 102), 128, None, None, 0, False, 0, None, None),
    ((101, 102), 16, 16, None, 0, False, 0, None, 1),
    (None, None, None, 8, 3, True, 1, None, 1),
    ((101, 102), 5, None, 3, 0, True, 2, None, 2),
]


@pytest.mark.parametrize("args", CASES)
@pytest.mark.parametrize("texts", [TEXTS, TEXTS[:1], [""], ["[SEP] and [CLS]", "plain"], []])
def test_the_planes_are_the_blocks_views(tok, texts, args):
    added = bertpiece.bert_tokenizer.serving.state(tok).added
    args = args[:7] + (added,) + args[8:]
    got, want = both(tok, texts, *args)
    for g, w in zip(got, want):
        assert type(g) is np.ndarray
        assert g.dtype == w.dtype == np.dtype("int64") and g.dtype.num == w.dtype.num
        assert g.shape == w.shape and g.strides == w.strides
        assert str(g.flags) == str(w.flags)  # C-contiguous, writeable, aligned, not owning the data
        assert np.array_equal(g, w)


def test_the_planes_keep_the_memory_alive_and_hold_one_reference_each(tok):
    ids, types, mask = _core.encode_padded_planes(tok._core, TEXTS, PLAN)[1]
    want = [a.copy() for a in (ids, types, mask)]
    owner = ids.base
    shared = types.base is owner and mask.base is owner
    held = sys.getrefcount(owner)  # the three arrays, `owner`, getrefcount's argument
    del owner, types, mask
    gc.collect()
    assert shared and held == 4 + 1
    _ = [np.ones(1 << 16) for _ in range(50)], [_core.encode_padded_planes(tok._core, TEXTS, PLAN)
                                                 for _ in range(5)]  # reuse of freed memory would show
    held = sys.getrefcount(ids.base)  # `ids`, getrefcount's argument
    assert held == 1 + 1 and type(ids.base).__name__ == "Array"
    assert np.array_equal(ids, want[0])
    ids[0, 0] = 7  # writeable, as the views were
    assert ids[0, 0] == 7


def test_the_padded_call_returns_them(tok):
    out = tok(TEXTS[:8], padding=True, truncation=True, max_length=128, return_tensors="np")
    assert type(out["input_ids"].base).__name__ == "Array"
    want = tok._core.encode_padded(TEXTS[:8], special=(101, 102), max_length=128, pad_to=None, pad_id=0)
    assert np.array_equal(out["input_ids"], np.asarray(want[1]))


def test_a_plan_refuses_bad_sizes_as_the_block_call_does():
    for kwargs, error in [(dict(max_length=-1), ValueError), (dict(pad_to="8"), TypeError),
                          (dict(pad_to_multiple_of=2**70), OverflowError)]:
        with pytest.raises(error):
            _core.PaddedPlan((101, 102), **kwargs)


def test_blocks_given_back_and_reused_never_change_arrays_still_held(tok):
    """Padded blocks go back to the core's pool (block_pool.rs) when their arrays are gone, and a
    later call takes them: arrays still held keep their values, whatever calls come after, and a
    reused block holds exactly what a fresh one does (its old values zeroed, its padding 0)."""
    batches = [(TEXTS * 8)[k:k + 256] for k in range(0, 200, 40)]  # 256 rows: blocks of 128 kB and more
    fresh = [[a.copy() for a in _core.encode_padded_planes(tok._core, b, PLAN)[1]] for b in batches]
    assert all(3 * a[0].nbytes >= 128 << 10 for a in fresh)
    held = []
    for turn in range(4):
        got = [_core.encode_padded_planes(tok._core, b, PLAN)[1] for b in batches[::-1]][::-1]
        for planes, want in zip(got, fresh):
            assert all(np.array_equal(g, w) for g, w in zip(planes, want))
            planes[0][:] = -turn - 1  # written by the caller: a reused block must be zeroed again
        held.append(got[turn % len(got)])
        del got
        gc.collect()
    for turn, planes in enumerate(held):
        assert (planes[0] == -turn - 1).all()  # untouched by the later calls
        assert all(np.array_equal(g, w) for g, w in zip(planes[1:], fresh[turn % len(fresh)][1:]))

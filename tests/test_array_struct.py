"""The core's arrays reach NumPy through `__array_struct__` (src/python/array_struct.rs),
which `numpy.asarray` reads before `__array_interface__`: the same array (values,
dtype, shape, strides, writeable), kept alive by NumPy after the core's object is
dropped, for every element type the core hands out."""

import gc

import numpy as np
import pytest

import bertpiece
from google_reference import data_files, read_lines

TEXTS = [line for f in data_files() for line in read_lines(f)[::300]] + ["", "a", "x " * 300]


class _ByInterface:
    """Only `__array_interface__`: how NumPy read the core's arrays before."""

    def __init__(self, array):
        self.__array_interface__ = array.__array_interface__
        self.keep = array


@pytest.fixture(scope="module")
def tok():
    return bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"))


def arrays(tok):
    """Fresh core arrays of each element type: int64 3-D blocks, int32 ids, int64 row splits, int32 offset pairs."""
    _, block, _, _ = bertpiece._core.encode_padded_block(tok._core, TEXTS, (101, 102), 128, None, 8, 0, True, 0,
                                                        None, 1)
    ids, splits, offsets, _, _, _ = tok._core.encode_batch(TEXTS, return_offsets=True)
    empty_ids, empty_splits, _, _, _, _ = tok._core.encode_batch([])
    return [block, ids, splits, offsets, empty_ids, empty_splits]


def test_the_struct_gives_the_interfaces_array(tok):
    for made, again in zip(arrays(tok), arrays(tok)):
        got, want = np.asarray(made), np.asarray(_ByInterface(again))
        assert type(made.__array_struct__).__name__ == "PyCapsule"
        assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
        assert got.flags.c_contiguous and got.flags.writeable and got.flags.aligned
        assert np.array_equal(got, want)


def test_numpy_keeps_the_memory_alive(tok):
    made = arrays(tok)
    got = [np.asarray(a) for a in made]
    want = [np.array(np.asarray(_ByInterface(a))) for a in arrays(tok)]  # copies
    del made
    gc.collect()
    _ = [np.ones(1 << 16) for _ in range(50)], arrays(tok)  # reuse of freed memory would show
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    got[0][0, 0, 0] = 7  # writeable, as before
    assert got[0][0, 0, 0] == 7

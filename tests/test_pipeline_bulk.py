"""bertpiece.Tokenizer.encode_batch_arrays (the bulk path of the general
pipeline) against tokenizers 0.23.3's encode_batch on UD lines of every language, for every
model shape the tests build (byte-level BPE, Unigram, WordPiece, WordLevel,
precompiled-charsmap Unigram), and against our own encode_batch."""

import itertools

import numpy as np
import pyarrow as pa
import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
import bpe_shapes
import models_shapes
import precomp_shapes
from bpe_shapes import UD_FILES, ud_lines
from tiers import ud_file_tiers

SHAPES = {**{f"bpe-{k}": v for k, v in bpe_shapes.SHAPES.items()},
          **{f"models-{k}": v for k, v in models_shapes.SHAPES.items()},
          "precomp-xlmr": precomp_shapes.xlmr_json, "precomp-t5": precomp_shapes.t5_json}
EXTRA = ["", " ", "  a  b  ", "▁x", "日本語のテキスト", "x\u0301y", "\x00z", "😀 emoji 👍🏽", "\t\n tab", "<mask> <s>x</s>"]


def all_lines(files=UD_FILES):
    """Every 3rd line of every UD file (of `files`)."""
    return [line for path in files for line in ud_lines(path)[::3]] + EXTRA


def rows(batch):
    """(ids, offsets) per row of an EncodedBatch, as lists."""
    out = []
    for i in range(len(batch)):
        a, b = batch.row_splits[i], batch.row_splits[i + 1]
        offsets = [tuple(p) for p in batch.offsets[a:b].tolist()] if batch.offsets is not None else None
        out.append((batch.ids[a:b].tolist(), offsets))
    return out


def want_rows(encodings):
    return [(e.ids, list(e.offsets)) for e in encodings]


def check_arrays(batch, n_rows, offsets):
    assert batch.ids.dtype == np.int32 and batch.ids.ndim == 1
    assert batch.row_splits.dtype == np.int64 and batch.row_splits.shape == (n_rows + 1,)
    assert batch.row_splits[0] == 0 and batch.row_splits[-1] == len(batch.ids)
    if offsets:
        assert batch.offsets.dtype == np.int32 and batch.offsets.shape == (len(batch.ids), 2)
    else:
        assert batch.offsets is None


def assert_same_flat(batch, encodings, lines, context):
    """The batch's arrays equal the encodings' ids and offsets laid out back to back (the failing row named)."""
    lens = np.fromiter((len(e.ids) for e in encodings), np.int64, len(encodings))
    ids = np.fromiter(itertools.chain.from_iterable(e.ids for e in encodings), np.int64, int(lens.sum()))
    same = np.array_equal(np.diff(batch.row_splits), lens) and np.array_equal(batch.ids, ids)
    if same and batch.offsets is not None:
        offsets = np.fromiter(itertools.chain.from_iterable(itertools.chain.from_iterable(e.offsets for e in encodings)),
                              np.int64, 2 * len(ids))
        same = np.array_equal(batch.offsets.reshape(-1), offsets)
    if not same:
        for line, got, want in zip(lines, rows(batch), want_rows(encodings)):
            assert got == (want if batch.offsets is not None else (want[0], None)), (context, line)


# Every 3rd UD line for one shape of each model family; 100 lines a file for the others.
EVERY_LINE = {"bpe-roberta", "models-t5", "models-wordpiece", "models-wordlevel"}


@pytest.mark.parametrize("files", ud_file_tiers(UD_FILES))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_ud_lines_match_tokenizers_encode_batch(shape, files):
    text = SHAPES[shape]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = all_lines(files) if shape in EVERY_LINE else [line for path in files for line in ud_lines(path, 100)] + EXTRA
    got = ours.encode_batch_arrays(lines, return_offsets=True, num_threads=2)
    check_arrays(got, len(lines), True)
    assert_same_flat(got, theirs.encode_batch(lines), lines, shape)
    some = [line for path in files for line in ud_lines(path, 20)] + EXTRA
    bare = ours.encode_batch_arrays(some, add_special_tokens=False, num_threads=1)
    check_arrays(bare, len(some), False)
    assert_same_flat(bare, theirs.encode_batch(some, add_special_tokens=False), some, shape)


@pytest.mark.parametrize("shape", ["bpe-roberta", "models-t5", "models-wordpiece", "precomp-xlmr"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_is_the_tokenizers_own_or_max_length(shape, direction):
    text = SHAPES[shape]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = [line for path in UD_FILES for line in ud_lines(path, 40)] + EXTRA
    untruncated = want_rows(theirs.encode_batch(lines))
    for max_length in (0, 1, 2, 5, 17):
        theirs.enable_truncation(max_length, stride=0, direction=direction)
        ours.enable_truncation(max_length, stride=0, direction=direction)
        want = want_rows(theirs.encode_batch(lines))
        # the tokenizer's own truncation: by default and with truncation=True
        assert rows(ours.encode_batch_arrays(lines, return_offsets=True)) == want
        assert rows(ours.encode_batch_arrays(lines, truncation=True, return_offsets=True)) == want
        # truncation=False: none at all
        assert rows(ours.encode_batch_arrays(lines, truncation=False, return_offsets=True)) == untruncated
        # max_length overrides the own max_length, on the own side; stride plays no part
        theirs.enable_truncation(max_length + 3, stride=1, direction=direction)
        ours.enable_truncation(max_length + 3, stride=1, direction=direction)
        got = ours.encode_batch_arrays(lines, max_length=max_length, truncation=True, return_offsets=True)
        assert rows(got) == want
        ours.no_truncation()
        theirs.no_truncation()
    # without an own truncation, max_length cuts on the right (tokenizers' default)
    theirs.enable_truncation(7)
    want = want_rows(theirs.encode_batch(lines))
    assert rows(ours.encode_batch_arrays(lines, max_length=7, truncation=True, return_offsets=True)) == want


def test_padding_never_applies_and_agrees_with_our_encode_batch():
    text = SHAPES["bpe-gpt2"]()
    ours = bertpiece.Tokenizer.from_str(text)
    lines = [line for path in UD_FILES for line in ud_lines(path, 10)] + EXTRA
    plain = rows(ours.encode_batch_arrays(lines, return_offsets=True))
    assert plain == want_rows(ours.encode_batch(lines))
    ours.enable_padding(length=300, pad_id=0)
    assert rows(ours.encode_batch_arrays(lines, return_offsets=True)) == plain


def test_text_containers_give_the_same_rows():
    ours = bertpiece.Tokenizer.from_str(SHAPES["models-t5"]())
    lines = [line for path in UD_FILES for line in ud_lines(path, 10)] + EXTRA
    want = rows(ours.encode_batch_arrays(lines, return_offsets=True))
    assert rows(ours.encode_batch_arrays(tuple(lines), return_offsets=True)) == want
    assert rows(ours.encode_batch_arrays(np.array(lines), return_offsets=True)) == want
    for arrow in (pa.array(lines), pa.array(lines, pa.large_string()), pa.chunked_array([lines[:7], lines[7:]]),
                  pa.array([""] + lines)[1:]):
        assert rows(ours.encode_batch_arrays(arrow, return_offsets=True)) == want
    empty = ours.encode_batch_arrays([], return_offsets=True)
    check_arrays(empty, 0, True)
    assert len(empty) == 0


def test_bad_input_is_a_clear_error():
    ours = bertpiece.Tokenizer.from_str(SHAPES["models-wordlevel"]())
    with pytest.raises(TypeError, match=r"texts\[1\] must be str"):
        ours.encode_batch_arrays(["a", 3])
    with pytest.raises(TypeError, match="single str"):
        ours.encode_batch_arrays("a text")
    with pytest.raises(bertpiece.batch.SurrogateError, match=r"texts\[1\].*U\+D800"):
        ours.encode_batch_arrays(["a", "b\ud800"])
    with pytest.raises(ValueError, match="needs truncation=True"):
        ours.encode_batch_arrays(["a"], max_length=3)
    with pytest.raises(ValueError, match="needs max_length"):
        ours.encode_batch_arrays(["a"], truncation=True)
    with pytest.raises(ValueError, match=">= 0"):
        ours.encode_batch_arrays(["a"], max_length=-1, truncation=True)
    with pytest.raises(TypeError, match="truncation must be"):
        ours.encode_batch_arrays(["a"], truncation="longest_first")
    with pytest.raises(ValueError, match="num_threads"):
        ours.encode_batch_arrays(["a"], num_threads=0)
    with pytest.raises(TypeError, match="pyarrow string array"):
        ours.encode_batch_arrays(pa.array([1, 2]))


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 40])
def test_every_batch_length_reads_every_item(n):
    """Lists and tuples are read with each item's object loaded some items ahead (a cache hint only): every
    length around that distance gives tokenizers 0.23.3's ids, and a bad item anywhere is named."""
    text = bpe_shapes.SHAPES["gpt2"]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = (all_lines(UD_FILES[:2]) * 2)[:n]
    want = [(e.ids, list(e.offsets)) for e in theirs.encode_batch(lines, add_special_tokens=False)]
    for texts in (lines, tuple(lines), iter(lines)):
        assert rows(ours.encode_batch_arrays(texts, add_special_tokens=False, return_offsets=True)) == want
    for bad in {0, n // 2, n - 1} if n else ():
        broken = lines[:bad] + [None] + lines[bad + 1:]
        for texts in (broken, tuple(broken)):
            with pytest.raises(TypeError, match=rf"texts\[{bad}\] must be str, not NoneType"):
                ours.encode_batch_arrays(texts)

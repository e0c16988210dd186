"""`BertTokenizer.__call__` on batches goes through the core's batch path
(bertpiece/batch_call.py): its output must equal the real transformers 5
`BertTokenizer` (HF tokenizers) key by key, row metadata included, for every
padding and truncation mode it takes, with added/special tokens in the text
(rows handed back to the general path), and when it declines."""

import os
import pickle
import shutil
import warnings

import numpy as np
import pytest

import bertpiece
from bertpiece.bert_tokenizer import batch_call, serving
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402
transformers.logging.set_verbosity_error()

LINES = [line for f in data_files() for line in read_lines(f)[::90]] + [
    "", "Héllo [MASK] world [SEP] again", "[CLS]", "a" * 150, "x " * 70, "ΟΔΟΣ İstanbul 中文 ﬁ"]
MODEL = "bert-base-multilingual-cased"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    path = tmp_path_factory.mktemp("mbert")
    shutil.copy(bertpiece.vocab_path(MODEL), os.path.join(path, "vocab.txt"))
    theirs = transformers.BertTokenizer.from_pretrained(str(path), do_lower_case=False)
    return bertpiece.BertTokenizer.from_pretrained(MODEL), theirs


def plain(value):
    return value.tolist() if isinstance(value, np.ndarray) else value


OPTIONS = [
    dict(),
    dict(padding=True),
    dict(padding=True, padding_side="left", return_offsets_mapping=True),
    dict(padding="max_length", max_length=24, truncation=True, return_special_tokens_mask=True),
    dict(padding="longest", pad_to_multiple_of=8, return_length=True, return_special_tokens_mask=True,
         padding_side="left"),
    dict(truncation=True, max_length=10, return_offsets_mapping=True, return_special_tokens_mask=True),
    dict(add_special_tokens=False, padding=True, return_special_tokens_mask=True),
    dict(padding=True, return_tensors="np", return_offsets_mapping=True, return_length=True),
    dict(padding="max_length", max_length=40, truncation="only_first", return_tensors="np"),
]


def taken_and_kept(monkeypatch, serving_too=False):
    """Records what the batch path returned each time it was tried (None: it
    declined); with `serving_too`, also the serving path's batch call (tried first)."""
    kept = []
    real = batch_call.call_batch
    monkeypatch.setattr("bertpiece.bert_tokenizer.general.call_batch", lambda *a, **k: kept.append(real(*a, **k)) or kept[-1])
    if serving_too:
        real_serving = serving.batch
        monkeypatch.setattr(serving, "batch", lambda *a, **k: kept.append(real_serving(*a, **k)) or kept[-1])
    return kept


def assert_same_encoding(got, want, rows):
    """Key by key (type, dtype, shape, values), then the row metadata of `rows`."""
    assert list(got.keys()) == list(want.keys())
    for key in want:
        assert type(got[key]) is type(want[key]), key
        if isinstance(want[key], np.ndarray):
            assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape, key
        assert plain(got[key]) == plain(want[key]), key
    for i in rows:
        assert got.tokens(i) == want.tokens(i)
        assert got.word_ids(i) == want.word_ids(i)
        assert got.sequence_ids(i) == want.sequence_ids(i)


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_batch_path_equals_transformers(pair, opts, monkeypatch):
    ours, theirs = pair
    taken = taken_and_kept(monkeypatch, serving_too=True)
    got, want = ours(LINES, **opts), theirs(LINES, **opts)
    assert any(t is not None for t in taken), "neither the serving path nor the batch path took the batch"
    assert_same_encoding(got, want, (0, 5, len(LINES) - 5, len(LINES) - 1))


def test_rows_longer_than_max_length_without_truncation(pair):
    # transformers leaves such rows unpadded (NumPy: an object array of rows): the general path decides.
    ours, theirs = pair
    opts = dict(padding="max_length", max_length=8)
    assert ours(LINES, **opts)["input_ids"] == theirs(LINES, **opts)["input_ids"]
    got, want = ours(LINES, return_tensors="np", **opts), theirs(LINES, return_tensors="np", **opts)
    for key in want:
        assert got[key].dtype == want[key].dtype == object, key
        assert [r.tolist() for r in got[key]] == [r.tolist() for r in want[key]], key


def test_pickled_batch_encoding_keeps_its_rows(pair):
    ours, _ = pair
    enc = ours(LINES[:6], padding=True)
    back = pickle.loads(pickle.dumps(enc))
    assert back.data == enc.data
    assert [back.tokens(i) for i in range(6)] == [enc.tokens(i) for i in range(6)]


SECONDS = LINES[3:] + LINES[:3]
LONG = [line + " and then a good deal more text" * 8 for line in LINES]  # every one long enough to cut
SHORT = [" ".join(line.split()[:3])[:12] for line in SECONDS]  # at most 12 tokens
PAIR_OPTIONS = [
    dict(),
    dict(padding=True),
    dict(padding="max_length", max_length=32, truncation=True),
    dict(truncation=True, max_length=7, padding=True, return_tensors="np"),
    dict(truncation="only_first", max_length=24, padding=True),  # some first texts are too short: both refuse
    dict(truncation="longest_first", max_length=11, padding_side="left", pad_to_multiple_of=8, return_length=True),
    dict(add_special_tokens=False, truncation=True, max_length=9, padding=True, return_tensors="np"),
]
# (firsts, seconds, options) where the one-sided strategies can always cut.
ONE_SIDED = [
    ("long-short", dict(truncation="only_first", max_length=40, padding=True, return_tensors="np")),
    ("short-long", dict(truncation="only_second", max_length=40, padding="longest")),
    ("short-long", dict(truncation="only_second", max_length=30, padding="max_length", padding_side="left")),
]


CASES = [("lines", o) for o in PAIR_OPTIONS] + ONE_SIDED
DATA = {"lines": (LINES, SECONDS), "long-short": (LONG, SHORT), "short-long": (SHORT, LONG)}


@pytest.mark.parametrize("data,opts", CASES,
                         ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_batches_of_pairs_equal_transformers(pair, data, opts, monkeypatch):
    ours, theirs = pair
    firsts, seconds = DATA[data]
    kept = taken_and_kept(monkeypatch)
    try:
        want = theirs(firsts, seconds, **opts)
    except Exception as e:  # a strategy that cannot cut some pair: both must refuse
        assert "Truncation error" in str(e) and opts["truncation"] == "only_first", e
        with pytest.raises(ValueError, match="too short"):
            ours(firsts, seconds, **opts)
        return
    got = ours(firsts, seconds, **opts)
    assert kept and kept[0] is not None, "the batch path declined"
    assert_same_encoding(got, want, (0, 5, 10, len(firsts) - 4, len(firsts) - 1))


def test_pairs_with_an_uncuttable_row_take_the_general_path(pair, monkeypatch):
    # only_first cannot cut a first text shorter than what must go: the batch
    # path hands the whole batch to the general path, which refuses as HF does.
    ours, theirs = pair
    kept = taken_and_kept(monkeypatch)
    firsts, seconds = ["a b", "Hello world"], ["one two three four five six seven", "x"]
    with pytest.raises(Exception):
        theirs(firsts, seconds, truncation="only_first", max_length=8)
    with pytest.raises(ValueError, match="too short"):
        ours(firsts, seconds, truncation="only_first", max_length=8)
    assert kept == [None]


def test_the_core_refuses_pairs_of_unequal_length(pair):
    # The facade checks this first (as transformers does); the core's own check
    # is for its direct callers, which must not get a silently shortened batch.
    ours, _ = pair
    with pytest.raises(ValueError, match="3 texts but 2 text pairs"):
        ours._core.encode_padded(["a", "b", "c"], pairs=["x", "y"])
    with pytest.raises(ValueError, match="batch length of `text`"):
        ours(["a", "b", "c"], ["x", "y"])

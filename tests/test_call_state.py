"""A `BatchEncoding`'s alignment (`tokens()`, `word_ids()`, `sequence_ids()`,
offsets) describes the call that made it, as transformers 5's does (its
Encodings are computed at the call): changes of the tokenizer afterwards
(added tokens, truncation/padding side, pad token), pickling, and changes
made by another thread while the rows are computed do not reach it.
bertpiece computes those rows lazily (bert_tokenizer/epochs.py)."""

import pickle
import threading
import warnings

import numpy as np
import pytest

import bertpiece
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
UD = [line for f in data_files() if f.endswith("ud-en.txt") for line in read_lines(f)[:40] if line]


def both():
    return bertpiece.BertTokenizer(vocab_file=VOCAB), transformers.BertTokenizer(vocab=VOCAB)


def alignment(enc, rows):
    return [(enc.tokens(i), enc.word_ids(i), enc.sequence_ids(i)) for i in range(rows)]


def rows_of(real):
    return len(real.encodings)  # (transformers' Encodings, one per row)


# each: call kwargs; together they take every lazy-row kind: one text
# (serving), batches to lists and padded arrays, pairs (general), overflow windows
CALLS = [
    dict(text="hello world, wordy worlds"),
    dict(text=["hello world", "a b wordless", "world"]),
    dict(text=["hello world", "a b wordless"], padding=True, return_tensors="np"),
    dict(text=["hello world", "a b wordless"], padding="max_length", max_length=12),
    dict(text="hello world", text_pair="worldwide b"),
    dict(text=["hello world"], text_pair=["worldwide b"], padding=True),
    dict(text="hello wonderful world " * 3, truncation=True, max_length=8, stride=2,
          return_overflowing_tokens=True),
    dict(text="hello world", return_offsets_mapping=True),
    dict(text="hello world wor", truncation=True, max_length=5),
]
CHANGES = {
    "add_tokens": lambda tok: tok.add_tokens(["wor", "ld"]),
    "add_special_tokens": lambda tok: tok.add_special_tokens({"extra_special_tokens": ["world"]}),
    "truncation_side": lambda tok: setattr(tok, "truncation_side", "left"),
    "padding_side": lambda tok: setattr(tok, "padding_side", "left"),
    "pad_token": lambda tok: setattr(tok, "pad_token", "[MASK]"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_alignment_is_the_calls_after_a_change(change):
    ours, theirs = both()
    encs = [(ours(**kw), theirs(**kw)) for kw in CALLS]
    CHANGES[change](ours)
    CHANGES[change](theirs)
    for (mine, real), kw in zip(encs, CALLS):
        rows = rows_of(real)
        assert alignment(mine, rows) == alignment(real, rows), kw
        assert [mine.token_to_word(i, 1) for i in range(rows)] == [real.token_to_word(i, 1) for i in range(rows)]


def test_a_pickled_encoding_is_the_calls():
    ours, theirs = both()
    encs = [(ours(**kw), theirs(**kw)) for kw in CALLS]
    for tok in (ours, theirs):
        tok.add_tokens(["wor"])
        tok.truncation_side = "left"
    for mine, real in encs:
        assert alignment(pickle.loads(pickle.dumps(mine)), rows_of(real)) == alignment(real, rows_of(real))


def test_pickling_the_tokenizer_keeps_its_bytes_and_the_rows():
    ours, theirs = both()
    before = pickle.dumps(ours)
    mine, real = ours("hello world"), theirs("hello world")
    assert pickle.dumps(ours) == before  # the held state is no part of the pickle
    copy_ = pickle.loads(before)
    copy_.add_tokens(["wor"])
    ours.add_tokens(["wor"])
    assert pickle.loads(pickle.dumps(ours))("hello world").tokens() == copy_("hello world").tokens()
    assert mine.tokens() == real.tokens()


def test_another_thread_changing_the_tokenizer_does_not_reach_earlier_rows():
    ours, theirs = both()
    calls = [dict(text=line) for line in UD[:10]] + [dict(text=UD[:10], padding=True)] + [
        dict(text=UD[k], text_pair=UD[k + 1], truncation=True, max_length=20) for k in range(5)]
    reals = [theirs(**kw) for kw in calls]
    expected = [alignment(real, rows_of(real)) for real in reals]
    stop, started = threading.Event(), threading.Event()

    def change():
        words = iter(["the", "of", "and", "in", "to"] * 1000)
        while not stop.is_set():
            ours.add_tokens([next(words) + "x"])
            ours.truncation_side = "left"
            ours.add_tokens(["th", "e"])
            started.set()
            ours.truncation_side = "right"

    for _ in range(20):
        encs = [ours(**kw) for kw in calls]
        changer = threading.Thread(target=change)
        changer.start()
        started.wait()
        try:
            got = [alignment(e, rows_of(real)) for e, real in zip(encs, reals)]
        finally:
            stop.set()
            changer.join()
        stop.clear()
        started.clear()
        assert got == expected
        ours, _ = both()


def test_no_snapshot_without_rows_that_need_it():
    """A change freezes the tokenizer only for rows that still hold its state."""
    from bertpiece.bert_tokenizer import epochs

    ours, _ = both()
    frozen = []
    original = epochs._freeze
    epochs._freeze = lambda tok: frozen.append(1) or original(tok)
    try:
        for _ in range(3):
            ours(["hello world", "a"], padding=True)  # (dropped at once)
            ours("hello world")
            ours.padding_side = "left"
            ours.padding_side = "right"
        assert frozen == []
        held = ours("hello world")
        ours.add_tokens(["wor"])
        ours.add_tokens(["ld"])
        assert frozen == [1]
        assert held.tokens() == ["[CLS]", "hello", "world", "[SEP]"]
    finally:
        epochs._freeze = original

"""`tok(texts)` leaves the process's garbage-collector state alone: it used
to pause `gc` process-wide while building row lists (gc.disable/enable),
which re-enabled it under another thread that had disabled it. The row
lists are now made untracked by the core (src/python/lists.rs)."""

import gc
import threading
import time
import warnings

import pytest

import bertpiece
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

LINES = [line for f in data_files() if f.endswith("ud-en.txt") for line in read_lines(f)[:300]]
CALLS = [dict(), dict(padding=True), dict(padding=True, return_offsets_mapping=True), dict(return_offsets_mapping=True),
         dict(truncation=True, max_length=16), dict(padding="max_length", max_length=64, truncation=True),
         dict(return_length=True, padding=True), dict(return_special_tokens_mask=True)]


@pytest.fixture
def tok():
    return bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")


def test_list_calls_never_switch_gc(tok, monkeypatch):
    switches = []
    monkeypatch.setattr(gc, "disable", lambda: switches.append("disable"))
    monkeypatch.setattr(gc, "enable", lambda: switches.append("enable"))
    for kwargs in CALLS:
        tok(LINES[:50], **kwargs)
        tok(LINES[:50], LINES[50:100], **kwargs)
    assert switches == []


def test_a_thread_that_disabled_gc_keeps_it_disabled(tok):
    stop, seen_enabled = threading.Event(), []

    def encode():
        while not stop.is_set():
            for kwargs in CALLS:
                tok(LINES, **kwargs)

    worker = threading.Thread(target=encode)
    was_enabled = gc.isenabled()
    worker.start()
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not seen_enabled:
            gc.disable()
            for _ in range(200):
                if gc.isenabled():
                    seen_enabled.append(True)
                    break
                time.sleep(0.0005)
            gc.enable()
    finally:
        stop.set()
        worker.join()
        (gc.enable if was_enabled else gc.disable)()
    assert not seen_enabled


def test_row_lists_equal_transformers(tok):
    theirs = transformers.BertTokenizer(vocab=bertpiece.vocab_path("bert-base-uncased"))
    theirs.model_max_length = tok.model_max_length
    for kwargs in CALLS:
        mine = tok(LINES, **kwargs)
        assert dict(mine) == dict(theirs(LINES, **kwargs)), kwargs
        assert not gc.is_tracked(mine["input_ids"][0])  # (the core's untracked rows)

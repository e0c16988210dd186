"""`BertTokenizer.__call__`'s serving paths (bert_tokenizer/serving.py and
src/python/serving.rs): one text to lists, a batch to lists, a padded batch
as one NumPy block. Their output must equal the real transformers 5
`BertTokenizer` under random call options, they must be the path that took
the call, and what they remember about the tokenizer must follow every
change of it (special tokens, added tokens, model_max_length, padding side,
shallow copies)."""

import copy
import os
import random
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import bertpiece
from bertpiece.bert_tokenizer import serving, serving_windows
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()

LINES = [line for f in data_files() for line in read_lines(f)[::150]] + [
    "", "Héllo world", "x " * 70, "ΟΔΟΣ İstanbul 中文 ﬁ", "a" * 120]
CASES = int(os.environ.get("BERTPIECE_SERVING_CASES", "300"))


def make_pair(tmp_path, model="bert-base-uncased", lower=True):
    shutil.copy(bertpiece.vocab_path(model), tmp_path / "vocab.txt")
    theirs = transformers.BertTokenizer.from_pretrained(str(tmp_path), do_lower_case=lower)
    ours = bertpiece.BertTokenizer.from_pretrained(model)
    theirs.model_max_length = ours.model_max_length  # 512, as the hub's config says
    return ours, theirs


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return make_pair(tmp_path_factory.mktemp("uncased"))


def plain(value):
    if isinstance(value, np.ndarray) and value.dtype == object:  # ragged rows
        return [plain(row) for row in value]
    if isinstance(value, (np.ndarray, torch.Tensor)):
        return value.tolist()
    return value


def assert_same(got, want):
    assert list(got.keys()) == list(want.keys())
    for key in want:
        assert type(got[key]) is type(want[key]), key
        if isinstance(want[key], (np.ndarray, torch.Tensor)):
            assert got[key].dtype == want[key].dtype and tuple(got[key].shape) == tuple(want[key].shape), key
        assert plain(got[key]) == plain(want[key]), key


def served(monkeypatch):
    """What the serving paths returned each time they were tried (None: declined)."""
    seen = []
    for module, name in ((serving, "one_text"), (serving, "batch"), (serving_windows, "windows")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _real=real, **k: seen.append(_real(*a, **k)) or seen[-1])
    return seen


def random_options(rng):
    opts = {}
    if rng.random() < 0.7:
        opts["padding"] = rng.choice([True, "longest", "max_length", False])
    if rng.random() < 0.7:
        opts["truncation"] = rng.choice([True, "longest_first", "only_first", False, None])
    if rng.random() < 0.6:
        opts["max_length"] = rng.choice([2, 3, 8, 16, 40, 128])
    if rng.random() < 0.2:
        opts["pad_to_multiple_of"] = rng.choice([8, 16])
    if rng.random() < 0.6:
        opts["return_tensors"] = rng.choice(["np", "pt", None])
    if rng.random() < 0.2:
        opts["add_special_tokens"] = False
    return opts


def call(tok, text, opts):
    try:
        return tok(text, **opts), None
    except Exception as e:  # noqa: BLE001 (both must refuse alike)
        return None, type(e)


def test_random_options_equal_transformers(pair, monkeypatch):
    ours, theirs = pair
    seen = served(monkeypatch)
    rng = random.Random(18)
    taken = 0
    for case in range(CASES):
        opts = random_options(rng)
        if rng.random() < 0.3:
            text = rng.choice(LINES)
        else:
            text = rng.sample(LINES, rng.choice([1, 2, 8, 33]))
        seen.clear()
        want, want_error = call(theirs, text, opts)
        got, got_error = call(ours, text, opts)
        if want_error is not None:
            assert got_error is not None, (case, opts)
            continue
        assert got_error is None, (case, opts, got_error)
        assert_same(got, want)
        if seen and seen[-1] is not None:
            taken += 1
            for i in range(len(text) if isinstance(text, list) else 1):
                if i in (0, 1):
                    assert got.tokens(i) == want.tokens(i)
                    assert got.word_ids(i) == want.word_ids(i)
    assert taken > CASES // 3, taken  # the serving paths took most calls


@pytest.mark.parametrize("opts", [
    dict(),
    dict(truncation=True, max_length=16),
    dict(max_length=16),  # truncation implied, as transformers
    dict(padding=True, truncation=True, max_length=128, return_tensors="np"),
    dict(padding="max_length", truncation=True, max_length=32, return_tensors="pt"),
    dict(padding=True, return_tensors="np"),
    dict(padding=True, truncation=True),  # model_max_length
    dict(padding=True, pad_to_multiple_of=8),
], ids=str)
@pytest.mark.parametrize("batched", [False, True])
def test_common_calls_take_the_serving_path(pair, monkeypatch, opts, batched):
    ours, theirs = pair
    text = LINES[:7] if batched else LINES[3]
    seen = served(monkeypatch)
    got = ours(text, **opts)
    assert seen and seen[-1] is not None, "the serving path declined"
    assert_same(got, theirs(text, **opts))


def test_a_repeated_model_server_call_equals_transformers(pair, monkeypatch):
    """A padded NumPy call after one with the same max_length takes the model server's block of
    `serving.batch` (its plans made by the first call): equal to transformers and to the general
    path, its rows' metadata included; a row holding an added token is declined to the general path."""
    ours, theirs = pair
    opts = dict(padding=True, truncation=True, max_length=24, return_tensors="np")
    ours(LINES[:2], **opts)  # makes the plans
    seen = served(monkeypatch)
    for texts in [LINES[:1], LINES[1:9], LINES[9:12], LINES[-5:], ["[SEP] in a row", "plain"], LINES[2]]:
        got = ours(texts, **opts)
        assert (seen[-1] is None) == ("[SEP] in a row" in texts)
        assert_same(got, theirs(texts, **opts))
        want = general_path(ours, texts, monkeypatch, **opts)
        assert_same(got, want)
        rows = len(got["input_ids"])
        assert [got.tokens(k) for k in range(rows)] == [want.tokens(k) for k in range(rows)]
        assert [got.word_ids(k) for k in range(rows)] == [want.word_ids(k) for k in range(rows)]
    monkeypatch.undo()  # unwatched, the core sends a list's call to `serving.padded_call` (serving_call_padded.rs)
    for texts in [LINES[:1], LINES[1:9], tuple(LINES[9:12]), ["[SEP] in a row", "plain"], ["a\ud800b"]]:
        want, want_error = call(theirs, texts, opts)
        got, got_error = call(ours, texts, opts)
        assert (got_error is None) == (want_error is None), (texts, got_error, want_error)
        if want_error is None:
            assert_same(got, want)
            assert [got.tokens(k) for k in range(len(texts))] == [want.tokens(k) for k in range(len(texts))]


def general_path(tok, text, monkeypatch, **opts):
    """`tok(text, **opts)` with the serving paths declining."""
    with monkeypatch.context() as m:
        m.setattr(serving, "one_text", lambda *a, **k: None)
        m.setattr(serving, "batch", lambda *a, **k: None)
        return tok(text, **opts)


def test_one_text_gives_the_general_paths_object(pair, monkeypatch):
    """`tok(text)` (its dict made by the core, its rows made on first use) is the general
    path's BatchEncoding in every way a caller can see (its changes of the tokenizer: the test below)."""
    import pickle

    ours, theirs = pair
    for text in ["Hello, world!", "", "ΟΔΟΣ İstanbul 中文", "x " * 300]:
        for special in (True, False):
            got, want = ours(text, add_special_tokens=special), general_path(ours, text, monkeypatch,
                                                                              add_special_tokens=special)
            assert type(got) is type(want) and got.is_fast and got.n_sequences == want.n_sequences == 1
            assert_same(got, want)
            assert_same(got, theirs(text, add_special_tokens=special))
            assert got.tokens() == want.tokens() and got.word_ids() == want.word_ids()
            assert [(e.ids, e.tokens, e.offsets, e.word_ids) for e in got.encodings] == \
                [(e.ids, e.tokens, e.offsets, e.word_ids) for e in want.encodings]
            assert got[0].tokens == want[0].tokens and len(got.encodings) == 1
            for other in (pickle.loads(pickle.dumps(got)), copy.deepcopy(got)):
                assert_same(other, want)
                assert other.tokens() == want.tokens() and other.word_ids() == want.word_ids()
            assert_same(ours(text, add_special_tokens=special).to("cpu"), want)
            for tensors in ("np", "pt"):
                assert_same(ours(text, add_special_tokens=special).convert_to_tensors(tensors),
                            general_path(ours, text, monkeypatch, add_special_tokens=special).convert_to_tensors(tensors))
    seen = served(monkeypatch)
    got = ours("Hello, world!")
    assert seen and seen[-1] is not None, "the serving path declined"


def test_changes_to_the_tokenizer_are_followed(tmp_path, monkeypatch):
    ours, theirs = make_pair(tmp_path)
    texts = ["hello there world", "a longer text with several words in it", "[MASK] hi"]
    opts = dict(padding=True, truncation=True, max_length=12, return_tensors="np")
    for tok in (ours, theirs):
        tok(texts, **opts)  # fills what the serving path remembers
    # (renaming cls/sep: transformers 5 keeps the ids its post-processor was built with,
    # bertpiece uses the new ones, as BertTokenizerLegacy does: docs/bert_tokenizer.md)
    changes = [
        (lambda t: setattr(t, "pad_token", "[MASK]"), True),
        (lambda t: t.add_tokens(["there world"]), True),
        (lambda t: setattr(t, "padding_side", "left"), True),
        (lambda t: setattr(t, "model_max_length", 6), True),
        (lambda t: t.add_special_tokens({"cls_token": "[unused5]"}), False),
        (lambda t: setattr(t, "sep_token", "[unused7]"), False),
    ]
    for change, like_transformers in changes:
        change(ours)
        change(theirs)
        for o in (opts, dict(padding=True, return_tensors="np"), dict(truncation=True), {}):
            for text in (texts, texts[1]):
                got = ours(text, **o)
                assert_same(got, general_path(ours, text, monkeypatch, **o))
                if like_transformers:
                    assert_same(got, theirs(text, **o))


def test_copies_keep_their_own_special_tokens(tmp_path, monkeypatch):
    # (transformers' copy.copy shares the backend, so renaming the copy's pad
    # token renames the original's too; bertpiece copies are separate tokenizers)
    ours, _ = make_pair(tmp_path)
    texts = ["one two", "three four five six"]
    opts = dict(padding=True, return_tensors="np")
    ours(texts, **opts)
    for make_copy in (copy.copy, copy.deepcopy):
        other = make_copy(ours)
        other.pad_token = "[MASK]"
        for _ in range(2):  # alternating: each must see its own pad token
            for tok in (other, ours):
                assert_same(tok(texts, **opts), general_path(tok, texts, monkeypatch, **opts))
                assert tok(texts, **opts)["input_ids"][0, -1] == tok.pad_token_id
        assert other.pad_token_id != ours.pad_token_id


def test_ids_above_the_vocabulary_are_right(tmp_path, monkeypatch):
    # ints are cached for the vocabulary's ids; added tokens sit above it
    ours, theirs = make_pair(tmp_path)
    for tok in (ours, theirs):
        tok.add_tokens([f"newword{k}" for k in range(5)])
    text = "x newword3 y newword0"
    assert_same(ours(text), theirs(text))
    assert_same(ours([text, "plain"]), theirs([text, "plain"]))
    # one text: the core searches for the added tokens (a shared first byte, "[", or not)
    seen = served(monkeypatch)
    for added in ([], ["[X]"], ["ne@", "%x"]):
        for tok in (ours, theirs):
            tok.add_tokens(added)
        for t in (text, "a [ b ] [SEP] c", "[[MASK]", "no bracket", "ne@ne %x [X]", "nenewword1", "[", "é %"):
            seen.clear()
            assert_same(ours(t), theirs(t))
            assert ours.encode(t) == theirs.encode(t)
            assert (seen[0] is None) == any(a in t for a in ours.get_added_vocab()), t


def test_a_bad_thread_count_in_the_environment_is_named():
    code = ("import bertpiece; tok = bertpiece.BertTokenizer.from_pretrained('bert-base-uncased')\n"
            "for call in (lambda: tok(['a b'], padding=True, return_tensors='np'), lambda: tok(['a b']),"
            " lambda: tok.encode_batch(['a b'])):\n"
            "    try:\n        call()\n    except ValueError as e:\n        print(e)\n")
    env = dict(os.environ, BERTPIECE_NUM_THREADS="many")  # read at pool creation: a fresh interpreter
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines() == ["BERTPIECE_NUM_THREADS='many' is not an integer"] * 3, out.stderr


def test_lists_of_other_items_get_the_general_paths_errors(pair):
    ours, _ = pair
    with pytest.raises(TypeError, match=r"text\[1\]"):
        ours(["fine", 3], padding=True)
    with pytest.raises(TypeError, match=r"text\[0\]"):
        ours([None])


def test_long_documents_in_windows_equal_transformers(tmp_path, monkeypatch):
    # tok(doc, truncation, max_length, stride, return_overflowing_tokens): long-document chunking
    ours, theirs = make_pair(tmp_path)
    seen = served(monkeypatch)
    rng = random.Random(7)
    doc = " ".join(LINES)
    for case in range(40):
        text = doc[rng.randrange(len(doc) // 2):][:rng.choice([50, 400, 3000, 20000])]
        opts = dict(truncation=rng.choice([True, "longest_first", "only_first"]),
                    max_length=rng.choice([2, 3, 5, 16, 64, 512]), stride=rng.choice([0, 1, 2, 16, 128]),
                    return_overflowing_tokens=True)
        if rng.random() < 0.3:
            opts["add_special_tokens"] = False
        side = rng.choice(["right", "left"])
        ours.truncation_side = theirs.truncation_side = side
        seen.clear()
        want, want_error = call(theirs, text, opts)
        got, got_error = call(ours, text, opts)
        if want_error is not None:
            assert got_error is not None, (case, opts)
            continue
        assert got_error is None, (case, opts, got_error)
        assert_same(got, want)
        if opts["stride"] < opts["max_length"] - 2:
            assert seen and seen[-1] is not None, (case, opts, "the windows path declined")
        for i in (0, len(want["input_ids"]) - 1):
            assert got.tokens(i) == want.tokens(i)
            assert got.word_ids(i) == want.word_ids(i)


@pytest.mark.parametrize("model,lower", [("bert-base-uncased", True), ("bert-base-multilingual-cased", False)])
def test_one_document_with_offsets_equals_transformers(tmp_path, monkeypatch, model, lower):
    # tok(doc, return_offsets_mapping=True): the core's offsets path, lists built by the core
    ours, theirs = make_pair(tmp_path, model, lower)
    seen = served(monkeypatch)
    for f in data_files():
        doc = " \n".join(read_lines(f)[:200]) + "\t\x01 ΟΔΟΣ ﬁ 中文 \u00e9\u0301"
        for add in (True, False):
            seen.clear()
            got = ours(doc, return_offsets_mapping=True, add_special_tokens=add)
            assert seen and seen[-1] is not None, "the serving path declined"
            want = theirs(doc, return_offsets_mapping=True, add_special_tokens=add)
            assert_same(got, want)
            assert got.word_ids() == want.word_ids()


def test_a_padded_batch_gives_the_same_on_one_thread_and_on_all(pair, monkeypatch):
    # Below 128 kB of text a padded batch stays on the calling thread unless asked (serving.rs,
    # ONE_THREAD_BELOW); above, it is shared: either way the arrays are those of one thread.
    ours, _ = pair
    seen = served(monkeypatch)
    texts = LINES * (1 + (140 << 10) // sum(len(t.encode()) for t in LINES))
    opts = dict(padding=True, truncation=True, max_length=64, return_tensors="np")
    for batch in (texts[:256], texts):
        monkeypatch.delenv("BERTPIECE_NUM_THREADS", raising=False)
        got = ours(batch, **opts)
        monkeypatch.setenv("BERTPIECE_NUM_THREADS", "1")
        assert_same(got, ours(batch, **opts))
        monkeypatch.setenv("BERTPIECE_NUM_THREADS", "2")
        assert_same(got, ours(batch, **opts))
        assert all(s is not None for s in seen), "the serving path declined"

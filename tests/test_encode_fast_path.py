"""The one-text fast paths (bert_tokenizer/serving.py): `tok.encode(text)`
(`one_ids`, the ids list alone, no BatchEncoding) and `tok(text)`
(`one_text`, what it reads of the tokenizer kept in `ServingState`). Their
output must equal the real transformers 5 `BertTokenizer` and bertpiece's
general path on the same inputs under random options, they must be the path
that took the default calls, and they must follow every change of the
tokenizer's settings they read once (do_basic_tokenize, split_special_tokens,
model_max_length's warning, added tokens, special tokens)."""

import logging
import random
import warnings

import pytest

from bertpiece.bert_tokenizer import serving
from google_reference import data_files, read_lines
from test_serving_paths import LINES, assert_same, call, general_path, make_pair

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
TEXTS = LINES + [line for f in data_files() for line in read_lines(f)[7::400]] + [
    "[MASK] in the middle [SEP]", "\ud800 lone surrogate", "word [UNK] word", "  ", "a" * 200]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return make_pair(tmp_path_factory.mktemp("encode"))


def taken(monkeypatch):
    """What `one_ids` returned each time it was tried (None: declined)."""
    seen = []
    real = serving.one_ids
    monkeypatch.setattr(serving, "one_ids", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    return seen


def general_encode(tok, text, monkeypatch, **opts):
    """`tok.encode(text, **opts)` with every serving path declining."""
    with monkeypatch.context() as m:
        for name in ("one_ids", "one_text", "batch"):
            m.setattr(serving, name, lambda *a, **k: None)
        return tok.encode(text, **opts)


def encode(tok, text, opts):
    try:
        return tok.encode(text, **opts), None
    except Exception as e:  # noqa: BLE001 (both must refuse alike)
        return None, type(e)


def random_encode_options(rng):
    """Mostly the defaults (the fast path), sometimes an option that sends the call to the general path."""
    opts = {}
    if rng.random() < 0.3:
        opts["add_special_tokens"] = rng.choice([True, False])
    if rng.random() < 0.15:
        opts["truncation"] = True
        opts["max_length"] = rng.choice([3, 8, 64])
    if rng.random() < 0.1:
        opts["padding"] = "max_length"
        opts["max_length"] = 48
    if rng.random() < 0.1:
        opts["return_tensors"] = "np"
    return opts


def test_encode_equals_transformers_and_the_general_path(pair, monkeypatch):
    ours, theirs = pair
    seen = taken(monkeypatch)
    rng = random.Random(28)
    fast = 0
    for case in range(400):
        text = rng.choice(TEXTS)
        opts = random_encode_options(rng)
        seen.clear()
        want, want_error = encode(theirs, text, opts)
        got, got_error = encode(ours, text, opts)
        if want_error is not None:
            assert got_error is not None, (case, text, opts)
            continue
        assert got_error is None, (case, text, opts, got_error)
        assert type(got) is type(want) and (got.tolist() if hasattr(got, "tolist") else got) == \
            (want.tolist() if hasattr(want, "tolist") else want), (case, text, opts)
        general = general_encode(ours, text, monkeypatch, **opts)
        assert (got.tolist() if hasattr(got, "tolist") else got) == \
            (general.tolist() if hasattr(general, "tolist") else general), (case, text, opts)
        fast += bool(seen and seen[-1] is not None)
    assert fast > 200, fast  # the fast path took the default calls


@pytest.mark.parametrize("add", [True, False])
def test_default_encode_takes_the_fast_path(pair, monkeypatch, add):
    ours, theirs = pair
    seen = taken(monkeypatch)
    for text in LINES[:20]:
        seen.clear()
        assert ours.encode(text, add_special_tokens=add) == theirs.encode(text, add_special_tokens=add)
        assert seen and seen[-1] is not None, "the encode fast path declined"


def test_the_too_long_warning_is_transformers(tmp_path, caplog):
    ours, theirs = make_pair(tmp_path)
    ours.model_max_length = theirs.model_max_length = 10
    text = " ".join(LINES[:5])
    for tok in (ours, theirs):
        caplog.clear()
        transformers.logging.set_verbosity_warning()
        try:
            with caplog.at_level(logging.WARNING):
                first, second = tok.encode(text), tok.encode(text)
        finally:
            transformers.logging.set_verbosity_error()
        warned = [r.getMessage() for r in caplog.records if "longer than the specified maximum" in r.getMessage()]
        assert len(warned) == 1, (tok, warned)  # once, as transformers
        assert first == second
    assert ours.encode(text) == theirs.encode(text)


# each: a change of a setting the one-text paths read once per change of the tokenizer
CHANGES = [
    lambda t: setattr(t, "do_basic_tokenize", False),
    lambda t: setattr(t, "split_special_tokens", True),
    lambda t: t.add_tokens(["there world"]),
    lambda t: t.add_special_tokens({"cls_token": "[unused5]"}),
    lambda t: setattr(t, "sep_token", "[unused7]"),
    lambda t: setattr(t, "model_max_length", 4),
]


@pytest.mark.parametrize("change", range(len(CHANGES)))
def test_changes_to_the_tokenizer_are_followed(tmp_path, monkeypatch, change):
    ours, _ = make_pair(tmp_path)
    texts = ["hello there world", "[MASK] hi there world", "unaffable [SEP] x"]
    for text in texts:  # fills what the fast paths remember
        ours(text), ours.encode(text)
    CHANGES[change](ours)
    for text in texts:
        for add in (True, False):
            assert_same(ours(text, add_special_tokens=add),
                        general_path(ours, text, monkeypatch, add_special_tokens=add))
            assert ours.encode(text, add_special_tokens=add) == \
                general_encode(ours, text, monkeypatch, add_special_tokens=add)


def test_one_text_alignment_and_errors_equal_transformers(pair):
    ours, theirs = pair
    for text in TEXTS[::7] + ["\ud800 lone surrogate"]:
        got, got_error = call(ours, text, {})
        want, want_error = call(theirs, text, {})
        assert (got_error is None) == (want_error is None), text
        if want_error is None:
            assert_same(got, want)
            assert got.tokens() == want.tokens() and got.word_ids() == want.word_ids()


def test_tokenizers_taking_turns_on_one_thread_keep_their_own_words(tmp_path_factory):
    # the word memo is on for every one-text call and batch now: each tokenizer's words stay its own
    # (a thread parks the memos of the tokenizers it switches between)
    made = [make_pair(tmp_path_factory.mktemp(m), m, lower) for m, lower in (
        ("bert-base-uncased", True), ("bert-base-cased", False), ("bert-base-multilingual-cased", False),
        ("bert-base-chinese", False), ("bert-base-uncased", True))]
    texts = [t for t in TEXTS if "\ud800" not in t][::3]
    want = [[theirs.encode(t) for t in texts] for _, theirs in made]
    want_batch = [theirs(texts[:32], padding=True, return_tensors="np")["input_ids"].tolist() for _, theirs in made]
    for _ in range(2):
        for k, text in enumerate(texts):
            for m, (ours, _) in enumerate(made):
                assert ours.encode(text) == want[m][k], (m, text)
                assert ours(text)["input_ids"] == want[m][k], (m, text)
        for m, (ours, _) in enumerate(made):
            assert ours(texts[:32], padding=True, return_tensors="np")["input_ids"].tolist() == want_batch[m], m

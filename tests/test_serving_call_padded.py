"""The model server's padded call through `BertTokenizer.__call__` made by the core
(src/python/serving_call.rs): `tok(texts, padding=True, truncation=True, max_length=..., return_tensors="np")`
sent to `serving.batch` alone, its neighbours (other keyword sets, offsets) handed to the Python function,
each compared with that function's answer on the same tokenizer and arguments, after changes between
calls, on subclasses, copies and threads. Split from tests/test_serving_call.py (the one-text call)."""

import copy
import pickle
import sys
import threading

import pytest

import bertpiece
from bertpiece import _core
from bertpiece.bert_tokenizer import call, serving

from serving_call_support import CHANGES, GENERAL, TEXTS, VOCAB, make, outcome

# ------------------------------------------------------------------ the model server's padded call
SERVER = dict(padding=True, truncation=True, max_length=8, return_tensors="np")
PADDED_TEXTS = [["Hello, world!", "a b"], ("hello world", "x " * 40), ["naïve café"], ["", "ΟΔΟΣ İstanbul 中文 ﬁ"],
                ["hello [SEP] world", "plain"], ["a\ud800b", "b"], [], (), ["a", 5], [type("S", (str,), {})("sub")],
                type("L", (list,), {})(["a list subclass"]), "one str"]


def batch_declines(tok, *args, **kwargs):
    """`tok(*args, **kwargs)` by the Python function with every serving path declining."""
    real = serving.batch, serving.one_text
    serving.batch = serving.one_text = lambda *a, **k: None
    try:
        return outcome(GENERAL, tok, *args, **kwargs)
    finally:
        serving.batch, serving.one_text = real


def watched(f, *args, **kwargs):
    """(outcome of the call, names of the Python functions it entered)."""
    names = []
    sys.setprofile(lambda frame, event, arg: names.append(frame.f_code.co_name) if event == "call" else None)
    try:
        got = outcome(f, *args, **kwargs)
    finally:
        sys.setprofile(None)
    return got, names


def keyword_sets():
    """The server's call with its keywords in each order, names not interned, and each value varied."""
    import enum
    import itertools

    import numpy as np

    class TensorType(str, enum.Enum):  # (transformers' kind of value: a str and an Enum)
        NUMPY = "np"

    names = list(SERVER)
    for order in itertools.permutations(names):
        yield {k: SERVER[k] for k in order}
    yield {"".join(["pad", "ding"]): True, "truncation": True, "max_length": 8, "return_tensors": "np"}
    yield dict(SERVER, return_tensors="".join(["n", "p"]))  # (an equal str that is not the interned one)
    for key, values in {"padding": ["longest", "max_length", 1, False], "truncation": ["longest_first", 1, False],
                        "max_length": [True, np.int64(8), 0, 3, -1, 2**70, 8.0, None, 128, 6],
                        "return_tensors": ["pt", TensorType.NUMPY, type("S", (str,), {})("np"), None, b"np"]}.items():
        for value in values:
            yield dict(SERVER, **{key: value})
    yield dict(SERVER, pad_to_multiple_of=4)
    yield dict(SERVER, verbose=True)
    yield {k: SERVER[k] for k in names[:3]}


def test_the_server_call_goes_to_padded_call_alone():
    tok = make()
    for texts in (["Hello, world!", "a b"], ("hello world",)):
        want = batch_declines(tok, texts, **SERVER)
        assert outcome(tok, texts, **SERVER) == want  # (the first call makes the plan: `__call__`)
        got, entered = watched(tok, texts, **SERVER)
        assert got == want
        assert "padded_call" in entered and "_served" in entered and "__call__" not in entered, entered
        assert "_general_after_serving" not in entered and "batch" not in entered
    for texts in (["hello [SEP] world"], ["a\ud800b"], ["a", 5]):  # declined: the general path, once
        got, entered = watched(tok, texts, **SERVER)
        assert got == batch_declines(tok, texts, **SERVER) and got == outcome(GENERAL, tok, texts, **SERVER)
        assert entered.count("_served") == 1 and "_general_after_serving" in entered and "__call__" not in entered
    for text in ("Hello, world!", "hello [SEP] world", "a\ud800b"):  # the offsets call: one_text, else general
        want = batch_declines(tok, text, return_offsets_mapping=True)
        got, entered = watched(tok, text, return_offsets_mapping=True)
        assert got == want and "offsets_call" in entered and "__call__" not in entered
        assert entered.count("one_text") == 1 and ("_general_after_serving" in entered) == (text != "Hello, world!")


@pytest.mark.parametrize("handoff", ["auto", "vectorcall_method", "call"])
def test_the_server_call_and_its_neighbours_equal_the_python_function(handoff):
    if handoff == "vectorcall_method" and _core.serving_call_handoff() == "call":
        pytest.skip("no PyObject_VectorcallMethod found in this process")
    cls = type("Handed", (bertpiece.BertTokenizer,), {"__call__": call._core_call(GENERAL, handoff)})
    try:
        tok = cls(vocab_file=VOCAB)
        for kwargs in keyword_sets():
            for texts in PADDED_TEXTS:
                for _ in range(2):  # (the plan is made by the first call, taken by the second)
                    want = batch_declines(tok, texts, **kwargs)
                    assert outcome(tok, texts, **kwargs) == want, (texts, kwargs)
                    assert outcome(GENERAL, tok, texts, **kwargs) == want, (texts, kwargs)
        for kwargs in offsets_keyword_sets():
            for text in TEXTS + [type("S", (str,), {})("a str subclass"), 5, None, ["a list"], b"bytes"]:
                want = batch_declines(tok, text, **kwargs)
                assert outcome(tok, text, **kwargs) == want == outcome(GENERAL, tok, text, **kwargs), (text, kwargs)
    finally:
        call._core_call(GENERAL)


def offsets_keyword_sets():
    """`return_offsets_mapping=True`, its name not interned, other values, and with another keyword."""
    yield {"return_offsets_mapping": True}
    yield {"".join(["return_offsets", "_mapping"]): True}
    for value in (1, False, "yes"):  # (None on a list: the general path's TypeError, where transformers
        # takes it as False; a known difference of the general path, not of these routes)
        yield {"return_offsets_mapping": value}
    yield {"return_offsets_mapping": True, "add_special_tokens": False}
    yield {"return_offsets_mapping": True, "verbose": True}


SERVER_CHANGES = dict(CHANGES, **{
    "truncation_side": lambda t: setattr(t, "truncation_side", "left"),
    "pad_token": lambda t: setattr(t, "pad_token", "[MASK]"),
    "no pad": lambda t: setattr(t, "pad_token", None),
    "model_max_length 5": lambda t: setattr(t, "model_max_length", 5),
    "another call": lambda t: t(["a b c d e f"], padding=True, truncation=True, max_length=8, pad_to_multiple_of=4,
                                return_tensors="np"),
})


@pytest.mark.parametrize("change", SERVER_CHANGES)
def test_the_server_call_after_a_change(change):
    tok = make()
    texts = ["Hello world wor hello zzqx", "plain text only here and there", "a"]
    for _ in range(2):
        assert outcome(tok, texts, **SERVER) == batch_declines(tok, texts, **SERVER)
    SERVER_CHANGES[change](tok)
    for _ in range(3):
        assert outcome(tok, texts, **SERVER) == batch_declines(tok, texts, **SERVER), change
        for text in texts:
            got = outcome(tok, text, return_offsets_mapping=True)
            assert got == batch_declines(tok, text, return_offsets_mapping=True), change


def test_the_server_call_on_subclasses_copies_and_threads():
    seen = []

    class Watched(bertpiece.BertTokenizer):
        def _encode(self, *args, **kwargs):
            seen.append(args[0])
            return super()._encode(*args, **kwargs)

    tok = Watched(vocab_file=VOCAB)
    for texts in (["hello world"], ["hello world"], ["[SEP]"]):
        assert outcome(tok, texts, **SERVER) == batch_declines(make(), texts, **SERVER)
    assert seen == [["[SEP]"]]  # (declined by the served path: the general path, by its own `_encode`)
    base = make()
    base(["warm"], **SERVER)
    shallow = copy.copy(base)
    shallow.add_tokens(["zzqx"])
    for other in (base, shallow, copy.deepcopy(base), pickle.loads(pickle.dumps(base))):
        for _ in range(2):
            assert outcome(other, ["hello zzqx"], **SERVER) == batch_declines(other, ["hello zzqx"], **SERVER)
    bare = object.__new__(bertpiece.BertTokenizer)
    assert outcome(bare, ["hello"], **SERVER) == outcome(GENERAL, bare, ["hello"], **SERVER)
    texts = [[f"sentence number {i} with some words"] * (i % 5 + 1) for i in range(100)]
    want = [base(t, **SERVER)["input_ids"].tolist() for t in texts]
    results = [None] * 4

    def work(k):
        results[k] = [base(t, **SERVER)["input_ids"].tolist() for t in texts]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == want for r in results)

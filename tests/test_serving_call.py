"""`BertTokenizer.__call__` made by the core (src/python/serving_call.rs): `tok(text)`
(one str, nothing else) computed there as `serving.one_text` does it, every other call
handed to the Python function it replaced (`Calls._general_call`). Each case compares
the descriptor's answer with that function's on the same tokenizer and arguments
(output, or exception type and message), and the one-text path with the general path
(`serving.one_text` made to decline); the general path's equality with transformers
is tests/test_serving_paths.py's and the fuzzers'. Needs no transformers, so it runs on
every Python the package claims (3.10 has no exported `PyObject_Vectorcall`: the
hand-off there is `PyObject_VectorcallMethod`)."""

import copy
import inspect
import logging
import pickle
import pydoc
import sys
import threading

import pytest

import bertpiece
from bertpiece import _core
from bertpiece.bert_tokenizer import call, serving
from bertpiece.bert_tokenizer.batch_call import _OneTextRows
from bertpiece.bert_tokenizer.encoding import BatchEncoding

from serving_call_support import CHANGES, GENERAL, TEXTS, VOCAB, general_path, make, outcome


@pytest.fixture(scope="module")
def tok():
    return make()


# every kind of call the descriptor hands on: keywords, text as a keyword, lists, tuples, pairs,
# several positionals, non-str texts, a str subclass, no arguments, too many positionals
HANDED = [
    ((), {}),
    (("hello world",), {"add_special_tokens": False}),
    ((), {"text": "hello world"}),
    (("hello world",), {"text": "again"}),
    ((["hello world", "a b"],), {}),
    ((("hello world", "a b"),), {}),
    ((["hello world", "a b"],), {"padding": True, "truncation": True, "max_length": 8, "return_tensors": "np"}),
    (("hello world", "second text"), {}),
    (("hello world",), {"return_offsets_mapping": True}),
    (("hello wonderful world " * 3,), {"truncation": True, "max_length": 8, "stride": 2,
                                        "return_overflowing_tokens": True}),
    (("hello world",), {"verbose": False}),
    (("hello world",), {"not_an_option": 1}),
    ((5,), {}),
    ((None,), {}),
    ((b"bytes",), {}),
    ((type("S", (str,), {})("a str subclass"),), {}),
    ((["a", 5],), {}),
    (tuple(range(30)), {}),
    (("hello",) + (None,) * 21, {}),
    (("hello",) + (None,) * 22, {}),
    ((["hello world"],), {"is_split_into_words": True}),
    ((), {"text_target": "labels here"}),
    (("hello world",), {"tokenizer_kwargs": {"max_length": 3, "truncation": True}}),
]


@pytest.mark.parametrize("handoff", ["auto", "vectorcall_method", "call"])
def test_every_other_call_is_the_python_functions(handoff, monkeypatch):
    if handoff == "vectorcall_method" and _core.serving_call_handoff() == "call":
        pytest.skip("no PyObject_VectorcallMethod found in this process")
    cls = type("Handed", (bertpiece.BertTokenizer,), {"__call__": call._core_call(GENERAL, handoff)})
    try:
        tok = cls(vocab_file=VOCAB)
        for args, kwargs in HANDED:
            want = outcome(GENERAL, tok, *args, **kwargs)
            assert outcome(tok, *args, **kwargs) == want, (args, kwargs)
            assert outcome(tok.__call__, *args, **kwargs) == want, (args, kwargs)  # (bound first)
        for text in TEXTS:  # and the one-text path, in each build of the descriptor
            assert outcome(tok, text) == general_path(tok, text)
    finally:  # (the core keeps the newest descriptor's objects: the package's own again)
        call._core_call(GENERAL)


def test_the_hand_off_in_this_python():
    want = "vectorcall" if sys.version_info >= (3, 11) else "vectorcall_method"
    assert _core.serving_call_handoff() == want
    with pytest.raises(ValueError, match="hand-off"):
        call._core_call(GENERAL, "unknown")


@pytest.mark.parametrize("text", TEXTS)
def test_one_text_equals_the_general_path(tok, text):
    got = outcome(tok, text)
    assert got == general_path(tok, text)
    if got[0] == "encoding":
        out = tok(text)
        assert type(out) is BatchEncoding
        assert (type(out._rows) is _OneTextRows) == ("[SEP]" not in text)  # (an added token: the general path)
        assert out.word_ids() == tok._general_call(text, add_special_tokens=True).word_ids()
        assert pickle.loads(pickle.dumps(out)).tokens() == out.tokens()
        assert copy.deepcopy(out).tokens() == out.tokens()


def test_the_core_takes_tok_text(tok, monkeypatch):
    """The one-text call never reaches serving.py's Python (its core calls raise here), and a
    replaced `serving.one_text` (the tests' hook) is what answers."""
    tok("warm")  # (the serving state is made by the Python path, on the first call after a change)
    for name in ("_encode_to_dict", "_encode_to_list"):
        monkeypatch.setattr(serving, name, lambda *a, **k: 1 / 0)
    assert tok("hello world")["input_ids"] == [101, 7592, 2088, 102]
    with pytest.raises(ZeroDivisionError):
        tok("hello world", add_special_tokens=True)  # (a keyword: the Python path)
    monkeypatch.undo()
    seen = []
    monkeypatch.setattr(serving, "one_text", lambda *a, **k: seen.append(a) or None)
    assert tok("hello world")["input_ids"] == [101, 7592, 2088, 102] and len(seen) == 1


def test_signature_help_and_names(tok):
    assert type(call.Calls.__dict__["__call__"]).__name__ == "method_descriptor"
    assert inspect.signature(tok.__call__) == inspect.signature(GENERAL.__get__(tok))
    params = list(inspect.signature(bertpiece.BertTokenizer.__call__).parameters)
    assert params == list(inspect.signature(GENERAL).parameters)
    text = pydoc.render_doc(tok.__call__, renderer=pydoc.plaintext)
    flat = "".join(text.split())  # (3.13 puts a long signature one parameter a line)
    assert "__call__(text=None,text_pair=None," in flat and "tokenizer_kwargs=None,**kwargs)" in flat
    assert "Tokenize and prepare for the model" in text
    assert bertpiece.BertTokenizer.__call__.__qualname__ == "Calls.__call__"
    with pytest.raises(TypeError, match="got multiple values for argument 'text'"):
        tok("a", text="b")
    with pytest.raises(TypeError, match="for 'Calls' objects"):
        bertpiece.BertTokenizer.__call__(object(), "a")  # (a descriptor of Calls objects)


def test_a_tokenizer_not_made_by_init_is_the_python_functions():
    """No `_engine` (an object made without `__init__`): the core hands `tok(text)` on, and the Python
    function says what it makes of it."""
    bare = object.__new__(bertpiece.BertTokenizer)
    for args in (("hello",), (["hello"],)):
        got = outcome(bare, *args)
        assert got[0] == "error" and got == outcome(GENERAL, bare, *args)


def test_subclass_overriding_call(tok):
    seen = []

    class Watched(bertpiece.BertTokenizer):
        def __call__(self, *args, **kwargs):
            seen.append(args)
            return super().__call__(*args, **kwargs)

    mine = Watched(vocab_file=VOCAB)
    assert outcome(mine, "hello world") == outcome(tok, "hello world") and seen == [("hello world",)]
    assert outcome(mine, ["a", "b"], padding=True) == outcome(tok, ["a", "b"], padding=True)
    assert outcome(bertpiece.BertTokenizer.__call__, tok, "hi there") == outcome(tok, "hi there")


def test_too_long_warns_once_as_the_general_path(caplog):
    for path in ("core", "general"):
        tok = make(model_max_length=6)
        with caplog.at_level(logging.WARNING, logger="transformers.tokenization_utils_base"):
            caplog.clear()
            for _ in range(2):
                got = outcome(tok, "a b c d e f g") if path == "core" else general_path(tok, "a b c d e f g")
            warned = [r.getMessage() for r in caplog.records if "longer than the specified maximum" in r.getMessage()]
        assert warned == ["Token indices sequence length is longer than the specified maximum sequence length for "
                          "this model (9 > 6). Running this sequence through the model will result in indexing "
                          "errors"], path
        assert got[1][0]["input_ids"][0] == 101




@pytest.mark.parametrize("change", CHANGES)
def test_a_tokenizer_changed_between_calls(change, monkeypatch):
    tok = make()
    texts = ["Hello world wor hello zzqx", "plain text only"]
    before = [outcome(tok, text) for text in texts]
    CHANGES[change](tok)
    after = [outcome(tok, text) for text in texts]
    assert after == [general_path(tok, text) for text in texts]
    assert before != after or change in ("padding_side", "model_max_length", "do_lower_case", "split_special_tokens")
    # the state is made again by that first call; the core reads it unless the settings decline
    if change in ("split_special_tokens", "no sep"):
        assert tok._engine.serving.one is None  # (one_text declines these settings)
    else:
        monkeypatch.setattr(serving, "_encode_to_dict", lambda *a, **k: 1 / 0)
        assert outcome(tok, texts[1]) == after[1]


def test_copies_pickles_and_other_modes():
    tok = make()
    tok("warm")
    for other in (copy.copy(tok), copy.deepcopy(tok), pickle.loads(pickle.dumps(tok))):
        for text in TEXTS:
            assert outcome(other, text) == outcome(tok, text) == general_path(other, text)
    shallow = copy.copy(tok)
    shallow.add_tokens(["zzqx"])  # (shares the engine, not the tokens: its own state)
    for _ in range(2):
        assert outcome(shallow, "hello zzqx") == general_path(shallow, "hello zzqx") != outcome(tok, "hello zzqx")
        assert outcome(tok, "hello zzqx") == general_path(tok, "hello zzqx")
    for kwargs in (dict(reference="transformers"), dict(reference="google"), dict(do_basic_tokenize=False)):
        other = make(**kwargs)
        for text in TEXTS:
            assert outcome(other, text) == general_path(other, text), kwargs


def test_threads_share_one_tokenizer():
    tok = make()
    texts = [f"sentence number {i} with some words" for i in range(200)]
    want = [tok(t)["input_ids"] for t in texts]
    results, errors = [None] * 4, []

    def work(k):
        try:
            results[k] = [tok(t)["input_ids"] for t in texts]
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and all(r == want for r in results)


def test_new_instance_is_object_new():
    """`_core.new_instance(cls)`, the serving paths' `object.__new__(cls)`: the same object, no
    `__init__`, refused where `object.__new__` would not make the instance itself."""
    import abc

    out = _core.new_instance(BatchEncoding)
    assert type(out) is BatchEncoding and vars(out) == vars(object.__new__(BatchEncoding)) == {}
    rows = _core.new_instance(_OneTextRows)
    with pytest.raises(AttributeError):
        rows._tok  # noqa: B018 (no slot filled)

    class Own:
        def __new__(cls):
            return super().__new__(cls)

    class Abstract(abc.ABC):
        @abc.abstractmethod
        def f(self): ...

    for cls in (int, dict, Own):
        with pytest.raises(TypeError, match="__new__ of its own"):
            _core.new_instance(cls)
    with pytest.raises(TypeError, match="abstract"):
        _core.new_instance(Abstract)
    with pytest.raises(TypeError):
        _core.new_instance("not a type")

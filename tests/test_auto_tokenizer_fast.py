"""bertpiece.AutoTokenizer's fast per-call path (auto_tokenizer/fast_call.py) against
the general path (transformers' own code over the same bertpiece backend) and
against transformers.AutoTokenizer on the same folder, with fuzzed texts and
options (hypothesis): one text, batches, padding, truncation, tensors."""

import copy
import warnings

import numpy as np
import pytest
import torch
import transformers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bertpiece
from auto_shapes import SHAPES, folder
from bpe_shapes import UD_FILES, ud_lines

LINES = [line for path in UD_FILES for line in ud_lines(path, 3)]


@pytest.fixture(scope="module", params=SHAPES)
def three(request):
    path = folder(request.param)
    hf = transformers.AutoTokenizer.from_pretrained(path)
    ours = bertpiece.AutoTokenizer.from_pretrained(path)
    general = copy.deepcopy(ours)
    general.__class__ = type(ours)._bertpiece_base  # transformers' own methods over bertpiece's backend
    assert isinstance(general._tokenizer, bertpiece.Tokenizer)
    return hf, ours, general


def plain(value):
    """An array's values as nested lists (a ragged batch is an object array of arrays)."""
    if isinstance(value, (np.ndarray, torch.Tensor)):
        return [plain(v) for v in value] if getattr(value, "dtype", None) == object else value.tolist()
    return value


def outcome(tok, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = tok(*args, **kwargs)
        except BaseException as e:  # tokenizers panics on some strides; the type is compared
            return ("error", type(e) if isinstance(e, Exception) else Exception)
    rows = {}
    for key, value in out.items():
        if isinstance(value, (np.ndarray, torch.Tensor)):
            rows[key] = (type(value).__name__, str(value.dtype), tuple(value.shape), plain(value))
        else:
            rows[key] = value
    encodings = out.encodings
    aligned = None if encodings is None else [(e.tokens, e.word_ids, e.offsets, e.n_sequences) for e in encodings]
    return list(rows), rows, aligned


texts = st.one_of(st.sampled_from(LINES), st.text(max_size=40),
                  st.sampled_from(["<s>", "</s> a <mask>", "<pad><unk>", "x <mask>y", ""]))
options = st.fixed_dictionaries({}, optional={
    "padding": st.sampled_from([False, True, "longest", "max_length", "do_not_pad"]),
    "truncation": st.sampled_from([None, False, True, "longest_first", "only_first", "do_not_truncate"]),
    "max_length": st.integers(0, 48),
    "pad_to_multiple_of": st.sampled_from([None, 4, 8]),
    "padding_side": st.sampled_from([None, "left", "right"]),
    "return_tensors": st.sampled_from([None, "np", "pt"]),
    "return_attention_mask": st.sampled_from([None, True, False]),
    "return_token_type_ids": st.sampled_from([None, True, False]),
    "add_special_tokens": st.booleans(),
    "split_special_tokens": st.booleans(),
})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.one_of(texts, st.lists(texts, min_size=1, max_size=6)), kwargs=options)
def test_fast_path_equals_general_path_and_transformers(three, batch, kwargs):
    hf, ours, general = three
    args = (batch,)
    want = outcome(hf, args, kwargs)
    assert outcome(general, args, kwargs) == want
    assert outcome(ours, args, kwargs) == want


def test_one_text_default_call_is_exact_and_keeps_state(three):
    hf, ours, general = three
    for text in LINES[:40] + ["<s> a </s>", ""]:
        assert outcome(ours, (text,), {}) == outcome(hf, (text,), {})
    # the backend's settings after a call are the general path's (later calls and backend readers see them)
    for kwargs in ({"padding": "max_length", "max_length": 16, "truncation": True}, {}):
        ours(LINES[0], **kwargs)
        general(LINES[0], **kwargs)
        assert ours._tokenizer.truncation == general._tokenizer.truncation
        assert ours._tokenizer.padding == general._tokenizer.padding


def test_fast_path_is_taken(three, monkeypatch):
    """The serving calls do not reach transformers' per-row code (else the fast path is dead code)."""
    hf, ours, general = three

    def fail(*a, **k):
        raise AssertionError("general path taken")

    monkeypatch.setattr(type(ours)._bertpiece_base, "_convert_encoding", fail)
    ours(LINES[0])
    ours(LINES[:8], padding=True, truncation=True, max_length=32, return_tensors="np")
    ours(LINES[:8], padding="max_length", max_length=64, truncation=True)


def test_long_text_warns_as_transformers(three, caplog):
    hf, ours, general = three
    text = " ".join(LINES)
    # other test modules set transformers' verbosity to error when imported (the whole suite imports them all)
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_warning()
    try:
        _long_text_warns(hf, ours, text, caplog)
    finally:
        transformers.logging.set_verbosity(verbosity)


def _long_text_warns(hf, ours, text, caplog):
    for tok in (hf, ours):
        tok.deprecation_warnings.pop("sequence-length-is-longer-than-the-specified-maximum", None)
        saved = tok.model_max_length
        tok.model_max_length = 10
        try:
            caplog.clear()
            tok(text)
            tok([text, "a"], padding=True)
            assert "longer than the specified maximum" in caplog.text
        finally:
            tok.model_max_length = saved

"""`_core.pipeline_encode_padded_planes` (src/python/pipeline_serving.rs): bertpiece.AutoTokenizer's
padded call on the general pipeline, its block's three planes as NumPy arrays made by the core
(numpy_planes.rs, as bertpiece.BertTokenizer's padded call has them). They must be the arrays
`numpy.asarray(block)[k]` of `pipeline_encode_padded` gave before (values, dtype, shape, strides,
flags), with the same width and row lengths, and hold one reference each to the core's memory.
Also the AutoTokenizer calls a server repeats (`tok(text)`, `tok(texts, padding=True,
truncation=True, max_length=n, return_tensors="np")`), which find their plan without the options'
key (call_plan.py's `_Cache.quick`): taken, and equal to transformers after each change of state."""

import gc
import sys
import warnings

import numpy as np
import pytest
import transformers

import bertpiece
from auto_shapes import folder
from bertpiece.auto_tokenizer import call_plan
from bpe_shapes import UD_FILES, ud_lines
from test_auto_tokenizer_fast import outcome

_core = bertpiece._core
SHAPES = ("bert", "roberta", "xlmr", "mpnet")
TEXTS = ud_lines(UD_FILES[0], 40) + ["", "a", "x " * 300, "</s> a <mask> [SEP] [CLS] <pad>"]
TRUNCATION = [None, (12, 0, "longest_first", "right"), (7, 0, "longest_first", "left")]
PADDING = [  # add_special_tokens, pad_to, pad_to_multiple_of, pad_id, pad_type_id, padding_left
    (True, None, None, 0, 0, False),
    (True, 16, None, 1, 0, True),
    (False, None, 8, 3, 1, False),
    (True, 40, 3, 0, 2, True),
]


@pytest.fixture(scope="module", params=SHAPES)
def backend(request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = bertpiece.AutoTokenizer.from_pretrained(folder(request.param))
    return tok._tokenizer


def both(backend, texts, truncation, padding, num_threads=None):
    """(the planes call, the block call's views) of one batch."""
    core = backend._core
    settings = core.with_truncation(backend._settings, truncation)
    add, pad_to, multiple, pad_id, pad_type_id, left = padding
    plan = _core.PipelinePaddedPlan(settings, add, pad_to, multiple, pad_id, pad_type_id, left)
    width, planes, longest, shortest = _core.pipeline_encode_padded_planes(core, texts, plan, num_threads)
    width2, block, longest2, shortest2 = _core.pipeline_encode_padded(
        core, settings, texts, add_special_tokens=add, pad_to=pad_to, pad_to_multiple_of=multiple, pad_id=pad_id,
        pad_type_id=pad_type_id, padding_left=left, num_threads=num_threads)
    assert (width, longest, shortest) == (width2, longest2, shortest2)
    block = np.asarray(block)
    return planes, [block[k] for k in range(3)]


@pytest.mark.parametrize("truncation", TRUNCATION)
@pytest.mark.parametrize("padding", PADDING)
@pytest.mark.parametrize("texts", [TEXTS, TEXTS[:1], [""], []], ids=["ud", "one", "empty", "none"])
def test_the_planes_are_the_blocks_views(backend, texts, truncation, padding):
    got, want = both(backend, texts, truncation, padding, 1 if len(texts) < 8 else None)
    for g, w in zip(got, want):
        assert type(g) is np.ndarray
        assert g.dtype == w.dtype == np.dtype("int64") and g.dtype.num == w.dtype.num
        assert g.shape == w.shape and g.strides == w.strides
        assert str(g.flags) == str(w.flags)  # C-contiguous, writeable, aligned, not owning the data
        assert np.array_equal(g, w)


def test_the_planes_keep_the_memory_alive_and_hold_one_reference_each(backend):
    core = backend._core
    plan = _core.PipelinePaddedPlan(backend._settings, True, None, None, 0, 0, False)
    ids, types, mask = _core.pipeline_encode_padded_planes(core, TEXTS, plan)[1]
    want = ids.copy()
    owner = ids.base
    shared = types.base is owner and mask.base is owner
    held = sys.getrefcount(owner)  # the three arrays, `owner`, getrefcount's argument
    del owner, types, mask
    gc.collect()
    assert shared and held == 4 + 1
    _ = [np.ones(1 << 16) for _ in range(50)], [_core.pipeline_encode_padded_planes(core, TEXTS, plan)
                                                 for _ in range(5)]  # reuse of freed memory would show
    held = sys.getrefcount(ids.base)  # `ids`, getrefcount's argument
    assert held == 1 + 1 and type(ids.base).__name__ == "Array"
    assert np.array_equal(ids, want)


def test_a_plan_refuses_the_sizes_the_block_call_refused(backend):
    # (each refusal sends the call to transformers' path: call_plan.resolved_plan, as it did run's)
    for kwargs, error in [(dict(pad_to=-1), ValueError), (dict(pad_to="8"), TypeError),
                          (dict(pad_to_multiple_of=2**70), OverflowError)]:
        with pytest.raises((OverflowError, TypeError)):
            _core.pipeline_encode_padded(backend._core, backend._settings, TEXTS, **kwargs)
        with pytest.raises(error):
            _core.PipelinePaddedPlan(backend._settings, True, **kwargs)


SERVER = {"padding": True, "truncation": True, "max_length": 12, "return_tensors": "np"}
CHANGES = [
    ("padding_side", lambda tok: setattr(tok, "padding_side", "left")),
    ("model_max_length", lambda tok: setattr(tok, "model_max_length", 9)),
    ("add_tokens", lambda tok: tok.add_tokens(["zzq"])),
    ("pad type id", lambda tok: setattr(tok, "_pad_token_type_id", 1)),
    ("model_input_names", lambda tok: setattr(tok, "model_input_names", ["input_ids", "attention_mask"])),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_servers_repeated_calls_take_the_quick_plan_and_equal_transformers(shape, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = transformers.AutoTokenizer.from_pretrained(folder(shape))
        ours = bertpiece.AutoTokenizer.from_pretrained(folder(shape))
    texts = TEXTS[:5] + ["zzq " + TEXTS[0]]
    calls = [(texts[0], {}), (texts, SERVER), (texts[-1], {}), (texts[:1], SERVER)]
    real_run = call_plan.run
    for name, change in [("as loaded", None)] + CHANGES:
        if change is not None:
            change(hf)
            change(ours)
        monkeypatch.setattr(call_plan, "run", real_run)
        for text, kwargs in calls:  # (the first call of a state makes its plans)
            assert outcome(ours, (text,), kwargs) == outcome(hf, (text,), kwargs), (shape, name, text, kwargs)

        def fail(*args):
            raise AssertionError("a repeated call took the options' key")

        monkeypatch.setattr(call_plan, "run", fail)  # the quick plans do not reach `run`
        for text, kwargs in calls:
            assert outcome(ours, (text,), kwargs) == outcome(hf, (text,), kwargs), (shape, name, text, kwargs)

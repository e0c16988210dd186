"""bertpiece.AutoTokenizer's per-call plan (auto_tokenizer/call_plan.py): a plan made once
per set of options is served again only while the tokenizer's state is the one it was
made for. Each change of state (added tokens, sides, lengths, pad token, the backend's
own truncation/padding, split_special_tokens, model_input_names) is made on
transformers.AutoTokenizer, on bertpiece's, and on transformers' own code over the
bertpiece backend (the general path); every call is then compared on all three, twice
(the second call runs the remembered plan). Also: the plan is really remembered
(transformers' option resolution runs once), the too-long warning of a row padded
past model_max_length, transformers' warning for an ignored max_length on every call,
copies and pickles of a tokenizer holding plans."""

import copy
import pickle
import warnings

import pytest
import transformers

import bertpiece
from auto_shapes import SHAPES, folder
from bpe_shapes import UD_FILES, ud_lines
from test_auto_tokenizer_fast import outcome

LINES = [line for path in UD_FILES for line in ud_lines(path, 2)]
TEXTS = LINES[:3] + ["zzq <new> " + LINES[0], "</s> a <pad>"]

CALLS = [  # (input, options): one text, padded batches of 1 and more, truncation by model_max_length
    (TEXTS[0], {}),
    (TEXTS[3], {}),
    ([TEXTS[0]], {"padding": True, "truncation": True, "max_length": 12, "return_tensors": "np"}),
    (TEXTS[:2], {"padding": "max_length", "max_length": 24, "truncation": True}),
    (TEXTS[1], {"truncation": True}),
    (TEXTS, {"padding": True, "return_tensors": "pt", "pad_to_multiple_of": 8}),
    (TEXTS[2:], {}),
]


def three(shape):
    path = folder(shape)
    hf = transformers.AutoTokenizer.from_pretrained(path)
    ours = bertpiece.AutoTokenizer.from_pretrained(path)
    general = bertpiece.AutoTokenizer.from_pretrained(path)
    general.__class__ = type(ours)._bertpiece_base  # transformers' own methods over bertpiece's backend
    return hf, ours, general


def set_attr(name, value):
    return lambda tok: setattr(tok, name, value)


CHANGES = [
    ("padding_side", set_attr("padding_side", "left")),
    ("truncation_side", set_attr("truncation_side", "left")),
    ("model_max_length", set_attr("model_max_length", 9)),
    ("add_tokens", lambda tok: tok.add_tokens(["zzq", "<new>"])),
    ("new pad token", lambda tok: tok.add_special_tokens({"pad_token": "<newpad>"})),
    ("pad token = eos", lambda tok: setattr(tok, "pad_token", tok.eos_token)),
    ("backend truncation", lambda tok: tok.backend_tokenizer.enable_truncation(5)),
    ("backend padding", lambda tok: tok.backend_tokenizer.enable_padding(length=30, pad_id=3)),
    ("split_special_tokens", set_attr("split_special_tokens", True)),
    ("model_input_names", set_attr("model_input_names", ["input_ids", "token_type_ids", "attention_mask"])),
    ("pad type id", set_attr("_pad_token_type_id", 1)),
    ("model_max_length back", set_attr("model_max_length", 512)),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_plans_follow_every_change_of_state(shape):
    hf, ours, general = three(shape)
    for name, change in [("as loaded", None)] + CHANGES:
        for tok in (hf, ours, general):
            if change is not None:
                change(tok)
        for text, kwargs in CALLS:
            want = outcome(hf, (text,), kwargs)
            for turn in range(2):
                context = (shape, name, text, kwargs, turn)
                assert outcome(general, (text,), kwargs) == want, context
                assert outcome(ours, (text,), kwargs) == want, context
                # the backend's state after the call is the one transformers' path leaves
                assert ours.backend_tokenizer.truncation == general.backend_tokenizer.truncation, context
                assert ours.backend_tokenizer.padding == general.backend_tokenizer.padding, context
                assert ours.backend_tokenizer.encode_special_tokens == general.backend_tokenizer.encode_special_tokens


def test_a_plan_is_made_once_per_options(monkeypatch):
    """Repeated calls do not run transformers' option resolution again (else the plan is dead code),
    and a change of state makes a new plan."""
    _, ours, _ = three("roberta")
    base = type(ours)._bertpiece_base
    resolved = []
    real = base._get_padding_truncation_strategies

    def counting(self, *args, **kwargs):
        resolved.append(kwargs)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(base, "_get_padding_truncation_strategies", counting)
    for _ in range(3):
        ours(TEXTS[0])
        ours([TEXTS[0]], padding=True, truncation=True, max_length=12, return_tensors="np")
    assert len(resolved) == 2
    ours.padding_side = "left"
    ours([TEXTS[0]], padding=True, truncation=True, max_length=12, return_tensors="np")
    assert len(resolved) == 3


def test_row_padded_past_model_max_length_warns_as_transformers(caplog):
    """A row of n tokens padded to a multiple of n + 1 is n + 1 wide: past a model_max_length of n,
    transformers warns (it checks the padded row)."""
    hf, ours, general = three("roberta")
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_warning()
    try:
        n = len(hf(TEXTS[0])["input_ids"])
        for tok in (hf, ours, general):
            tok.model_max_length = n
            caplog.clear()
            tok([TEXTS[0]], padding=True, pad_to_multiple_of=n + 1)
            assert "longer than the specified maximum" in caplog.text, type(tok)
    finally:
        transformers.logging.set_verbosity(verbosity)


def test_ignored_max_length_warns_on_every_call():
    hf, ours, _ = three("xlmr")
    for tok in (hf, ours):
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tok([TEXTS[0]], padding=True, max_length=8)
            assert any("max_length` is ignored" in str(w.message) for w in caught), type(tok)


def test_copies_and_pickles_of_a_tokenizer_holding_plans():
    hf, ours, _ = three("t5")
    batch = ([TEXTS[0], TEXTS[1]], {"padding": True, "return_tensors": "np"})
    ours(*batch[:1], **batch[1])
    twin = copy.copy(ours)  # shares the __dict__'s values, the plans among them
    twin.padding_side = "left"
    hf_twin = copy.copy(hf)
    hf_twin.padding_side = "left"
    for tok, ref in ((ours, hf), (twin, hf_twin), (copy.deepcopy(ours), hf), (pickle.loads(pickle.dumps(ours)), hf)):
        assert outcome(tok, batch[:1], batch[1]) == outcome(ref, batch[:1], batch[1])
        assert outcome(tok, (TEXTS[0],), {}) == outcome(ref, (TEXTS[0],), {})


@pytest.mark.parametrize("shape", SHAPES)
def test_encode_takes_the_same_rows(shape, monkeypatch):
    """`encode` reaches `_encode_plus` with options transformers resolved (not `__call__`'s plan)."""
    hf, ours, general = three(shape)
    options = [{}, {"add_special_tokens": False}, {"truncation": True, "max_length": 7},
               {"padding": "max_length", "max_length": 40, "truncation": True}, {"return_tensors": "np"},
               {"padding": "max_length", "max_length": 40, "return_tensors": "pt", "padding_side": "left"}]
    for kwargs in options:
        for text in TEXTS[:2] + TEXTS[3:]:
            want = hf.encode(text, **kwargs)
            for tok in (general, ours):
                got = tok.encode(text, **kwargs)
                assert type(got) is type(want) and getattr(got, "dtype", None) == getattr(want, "dtype", None)
                assert got.tolist() == want.tolist() if hasattr(want, "tolist") else got == want, (shape, kwargs)

    def fail(*a, **k):
        raise AssertionError("transformers' _encode_plus taken")

    monkeypatch.setattr(type(ours)._bertpiece_base, "_encode_plus", fail)
    ours.encode(TEXTS[0], padding="max_length", max_length=40, truncation=True)

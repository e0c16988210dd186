"""The per-call plan of ``FastCall.__call__``: what transformers' ``__call__``
decides from a call's options (``_get_padding_truncation_strategies``: padding
and truncation strategies, max_length; ``set_truncation_and_padding``: the
backend's settings; the pad id, type id and side) is decided once per distinct
set of options and per state of the tokenizer, by running transformers' own
code, and remembered (``Plan``). A repeated call then reads a few attributes,
puts the plan's settings on the backend (the state transformers' path leaves),
and takes its rows from the core: one text's ids as a list
(``pipeline_encode_ids``), or a batch padded into one int64 block whose three
planes (ids, type ids, attention mask) the core hands back as NumPy arrays
(``pipeline_encode_padded_planes``, with the plan's ``PipelinePaddedPlan``: the
same arrays as ``bertpiece.BertTokenizer``'s padded call).

What a plan depends on is the call's options (by value and type) and the
state read on every call (``_state``); any change of the state drops the
tokenizer's plans. Options the plan does not cover, inputs other than one
str or a list/tuple of str, cases transformers warns about or rejects, and any
error in the core: None, and the caller takes transformers' own path (the
definition). docs/auto-tokenizer.md.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from transformers.tokenization_utils_base import PaddingStrategy, TruncationStrategy

from .._core import PipelinePaddedPlan, pipeline_encode_flat, pipeline_encode_ids, pipeline_encode_padded_planes
from ..tokenizers_api import Tokenizer as _Backend
from .lazy_encodings import LazyEncodings, lazy_batch

_new = object.__new__

_ONE_SIDED = (TruncationStrategy.DO_NOT_TRUNCATE, TruncationStrategy.LONGEST_FIRST, TruncationStrategy.ONLY_FIRST)
_SMALL = 16  # texts that one thread encodes (starting the pool's threads costs more than it saves)
_MAX_PLANS = 64  # option sets remembered per state of a tokenizer
_CACHE = "_bertpiece_serving"  # the tokenizer's __dict__ entry holding its plans
# The call's options a plan covers, with transformers' defaults.
_DEFAULTS = {"add_special_tokens": True, "padding": False, "truncation": None, "max_length": None, "stride": 0,
             "pad_to_multiple_of": None, "padding_side": None, "return_tensors": None,
             "return_token_type_ids": None, "return_attention_mask": None, "verbose": True}
_FLAGS = ("add_special_tokens", "verbose")  # bool only (other values: transformers' path says what they mean)
_OPTIONAL_FLAGS = ("return_token_type_ids", "return_attention_mask")
_SIZES = ("max_length", "pad_to_multiple_of")


class Plan:
    """One set of options resolved by transformers' code for one state of the tokenizer."""

    __slots__ = ("settings", "add_special_tokens", "pad", "pad_to", "pad_to_multiple_of", "pad_id", "pad_type_id",
                 "left", "warn", "tensors", "types", "mask", "padded")


class _Cache:
    """A tokenizer's plans for one state of it. Never copied or pickled (a copy starts empty).
    ``quick``: the same Plan objects for the two calls a server repeats, found without the
    options' key: ``()`` for a call with no option, ``n`` for ``padding=True, truncation=True,
    max_length=n, return_tensors="np"`` and nothing else (``serve``'s first test)."""

    __slots__ = ("owner", "state", "plans", "quick")

    def __init__(self, owner: int = 0, state: tuple = ()) -> None:
        self.owner, self.state, self.plans, self.quick = owner, state, {}, {}

    def __reduce__(self) -> tuple:
        return (_Cache, ())


def _state(d: dict) -> tuple:
    """What a plan depends on besides the options, read from the tokenizer's __dict__ (no
    transformers ``__getattr__``): the backend and its core (vocabulary, added tokens,
    post-processor, encode_special_tokens), the lengths and sides, the pad and unk
    tokens (the pad id is the pad token's id, else the unk token's), the pad type id, the
    model's input names (a list, which may change in place: its items)."""
    backend = d["_tokenizer"]
    specials = d["_special_tokens_map"]
    try:
        core = backend._core  # (an attribute load: cheaper than getattr's call on every call)
    except AttributeError:
        core = None
    return (backend, core, d["model_max_length"], d["padding_side"], d["truncation_side"],
            d["split_special_tokens"], specials.get("pad_token"), specials.get("unk_token"), d["_pad_token_type_id"],
            tuple(d["model_input_names"]))


def serve(tok: Any, text: Any, options: dict) -> Optional[Any]:
    """``tok(text, **options)`` for `text` one str or a non-empty list or tuple (a batch, of str
    unless the core refuses it), no pair; or None (transformers' path)."""
    d = tok.__dict__
    # the key of `_Cache.quick`, or None
    if not options:
        quick = ()
    elif len(options) == 4:
        # (subscripts, not `get`'s method calls: this runs on every call)
        try:
            n, t = options["max_length"], options["return_tensors"]
            quick = n if (options["padding"] is True and options["truncation"] is True and type(n) is int
                          and type(t) is str and t == "np") else None
        except KeyError:
            quick = None
    else:
        quick = None
    if quick is not None:
        # A server's repeated call (`tok(text)`, or a padded batch to NumPy): its plan found without
        # the options' key, for the same state (read as every call reads it).
        cache = d.get(_CACHE)
        plan = None if cache is None else cache.quick.get(quick)
        if plan is not None and cache.owner == id(tok):
            try:
                state = _state(d)
            except (KeyError, TypeError):
                return None
            if cache.state == state:
                if type(text) is str and quick == () and not plan.pad:
                    return _one_text(tok, plan, state[0], state[1], text)  # (no option: no tensors)
                if type(text) is list and quick != ():
                    return _served(tok, plan, state[0], state[1], text)
                return run(tok, plan, state[0], state[1], text)
    try:
        state = _state(d)
        key = (tuple(options.items()), tuple(map(type, options.values())))
        cache = d.get(_CACHE)
        if cache is None or cache.owner != id(tok) or cache.state != state:
            # (a shallow copy of the tokenizer shares the dict entry, not the state)
            cache = d[_CACHE] = _Cache(id(tok), state)
        plan = cache.plans.get(key)
    except (KeyError, TypeError):
        return None  # a tokenizer missing transformers' attributes; an unhashable option
    if plan is None:
        plan = _make_plan(tok, state, options)
        if len(cache.plans) >= _MAX_PLANS:
            cache.plans.clear()
            cache.quick.clear()
        cache.plans[key] = plan
        if quick is not None and plan is not False and (quick == () or _pads_to_longest_np(plan)):
            cache.quick[quick] = plan
    if plan is False:
        return None
    return run(tok, plan, state[0], state[1], text)


def _pads_to_longest_np(plan: Plan) -> bool:
    """Whether `plan` pads to the longest row into NumPy arrays with no too-long warning (`_served`'s case)."""
    return plan.pad and plan.pad_to is None and plan.tensors == "np" and not plan.warn


def _served(tok: Any, plan: Plan, backend: Any, core: Any, texts: list) -> Optional[Any]:
    """``run`` for a model server's call (`serve`, `_pads_to_longest_np`): padded to the longest
    row, so no row is longer than the padding; a max_length given, so no too-long warning."""
    settings = plan.settings
    if backend._settings is not settings:
        backend._settings = settings
    try:
        _, (ids, types, mask), _, _ = pipeline_encode_padded_planes(core, texts, plan.padded,
                                                                    1 if len(texts) < _SMALL else None)
    except Exception:
        return None
    data = {"input_ids": ids}  # (NumPy arrays made by the core)
    if plan.types:
        data["token_type_ids"] = types
    if plan.mask:
        data["attention_mask"] = mask
    # `lazy_batch(data, (core, settings, texts, plan.add_special_tokens), "np")` without its frame
    out = _new(LazyEncodings)
    d = out.__dict__
    d["data"], d["_source"], d["_n_sequences"] = data, (core, settings, texts, plan.add_special_tokens), 1
    return out


def _make_plan(tok: Any, state: tuple, options: dict) -> Any:
    """The plan of `options` (False: transformers' path), resolved by transformers' own code."""
    backend, core = state[0], state[1]
    if not isinstance(backend, _Backend) or _has_modes(type(tok)):
        return False  # another backend; a class with input/target modes
    if any(k not in _DEFAULTS and k != "split_special_tokens" for k in options):
        return False
    o = dict(_DEFAULTS, **options)
    if (any(type(o[k]) is not bool for k in _FLAGS) or any(o[k] is not None and type(o[k]) is not bool for k in _OPTIONAL_FLAGS)
            or any(o[k] is not None and type(o[k]) is not int for k in _SIZES) or type(o["stride"]) is not int):
        return False
    tensors = o["return_tensors"]
    if tensors is not None and (type(tensors) is not str or tensors not in ("np", "pt")):
        return False
    split = options.get("split_special_tokens", state[5])
    if type(split) is not bool or core.encode_special_tokens != split:
        return False  # transformers' path sets the backend's flag (a new core: the next call plans again)
    padding, truncation, max_length = o["padding"], o["truncation"], o["max_length"]
    if o["verbose"] and padding is True and max_length is not None and (
            truncation is None or truncation is False or truncation == "do_not_truncate"):
        return False  # transformers warns that max_length is ignored
    if padding is not False and state[6] is None:
        return False  # no pad token: transformers logs and raises
    try:
        padding_strategy, truncation_strategy, max_length, _ = tok._get_padding_truncation_strategies(
            padding=padding, truncation=truncation, max_length=max_length,
            pad_to_multiple_of=o["pad_to_multiple_of"], verbose=o["verbose"])
    except Exception:
        return False  # transformers raises it
    if truncation_strategy not in _ONE_SIDED or (max_length is not None and type(max_length) is not int):
        return False
    try:
        # the backend's state as transformers' _encode_plus leaves it
        tok.set_truncation_and_padding(padding_strategy=padding_strategy, truncation_strategy=truncation_strategy,
                                       max_length=max_length, stride=o["stride"],
                                       pad_to_multiple_of=o["pad_to_multiple_of"], padding_side=o["padding_side"])
    except Exception:
        return False
    return resolved_plan(tok, backend, padding_strategy, max_length, o["add_special_tokens"], tensors,
                         o["return_token_type_ids"], o["return_attention_mask"], o["verbose"])


def resolved_plan(tok: Any, backend: Any, padding_strategy: Any, max_length: Optional[int], add_special_tokens: bool,
                  tensors: Optional[str], types: Optional[bool], mask: Optional[bool], verbose: bool) -> Any:
    """The plan for options transformers has resolved and whose settings are on `backend` (False:
    transformers' path): a template whose single-sequence type ids are not all 0."""
    names = tok.model_input_names
    plan = Plan()
    plan.types = "token_type_ids" in names if types is None else types
    plan.mask = "attention_mask" in names if mask is None else mask
    if plan.types and not _zero_type_ids(backend):
        return False
    plan.settings = backend._settings
    plan.add_special_tokens = bool(add_special_tokens)
    plan.tensors = tensors
    # the too-long warning: only without a max_length (transformers' _eventual_warn_about_too_long_sequence)
    plan.warn = verbose and max_length is None
    padded = backend._settings.padding
    plan.pad = padded is not None
    if plan.pad:
        length, plan.pad_to_multiple_of, plan.pad_id, _, plan.pad_type_id, side = padded
        plan.pad_to = length if padding_strategy is PaddingStrategy.MAX_LENGTH else None
        plan.left = side == "left"
    else:
        plan.pad_to = plan.pad_to_multiple_of = None
        plan.pad_id = plan.pad_type_id = 0
        plan.left = False
    plan.padded = None
    if plan.pad or tensors is not None:
        try:
            # the core's padded call's fixed options (a size the core cannot take: transformers' path)
            plan.padded = PipelinePaddedPlan(plan.settings, plan.add_special_tokens, plan.pad_to,
                                             plan.pad_to_multiple_of, plan.pad_id, plan.pad_type_id, plan.left)
        except (OverflowError, TypeError, ValueError):
            return False
    return plan


def _has_modes(cls: type) -> bool:
    found = _MODES.get(cls)
    if found is None:
        found = _MODES[cls] = any("_switch_to_input_mode" in vars(c) for c in cls.__mro__)
    return found


_MODES: dict = {}


def _zero_type_ids(backend: Any) -> bool:
    """Whether one sequence's type ids are all 0 under this core (the template's, fixed per core)."""
    core = backend._core
    known = _ZERO_TYPES.get(id(core))
    if known is None or known[0] is not core:
        plain = core.with_padding(core.with_truncation(backend._settings, None), None)  # (padding has its type id)
        enc = core.encode((["a"], None), False, True, plain)
        known = (core, 0 in enc.sequence_ids and not any(enc.type_ids))
        if len(_ZERO_TYPES) > 64:
            _ZERO_TYPES.clear()
        _ZERO_TYPES[id(core)] = known
    return known[1]


_ZERO_TYPES: dict = {}


def run(tok: Any, plan: Plan, backend: Any, core: Any, text: Any) -> Optional[Any]:
    """The call's BatchEncoding under `plan`, or None (transformers' path raises or decides)."""
    settings = plan.settings
    if backend._settings is not settings:
        backend._settings = settings
    batched = type(text) is not str  # (else a list or tuple: FastCall checked)
    texts = text if type(text) is list else list(text) if batched else [text]
    add = plan.add_special_tokens
    if not batched and not plan.pad and plan.tensors is None:
        return _one_text(tok, plan, backend, core, text)  # one text to lists: no arrays at all
    try:
        if not plan.pad and plan.tensors is None:
            return _ragged_lists(tok, plan, core, settings, texts)
        width, (ids, types, mask), longest, shortest = pipeline_encode_padded_planes(
            core, texts, plan.padded, 1 if len(texts) < _SMALL else None)
    except Exception:
        return None
    if plan.pad:
        if plan.pad_to is not None and longest > _rounded(plan.pad_to, plan.pad_to_multiple_of):
            return None  # rows longer than the padding: transformers leaves them ragged
    elif longest != shortest:
        return None  # ragged rows as tensors: transformers' error
    if plan.warn and width > tok.model_max_length:
        tok._eventual_warn_about_too_long_sequence(range(width), None, True)
    data = {"input_ids": ids}  # (NumPy arrays made by the core)
    if plan.types:
        data["token_type_ids"] = types
    if plan.mask:
        data["attention_mask"] = mask
    tensors = plan.tensors
    if tensors is None:
        data = {k: v.tolist() for k, v in data.items()}
        if not batched:
            data = {k: v[0] for k, v in data.items()}
    elif tensors == "pt":
        import torch

        data = {k: torch.from_numpy(v) for k, v in data.items()}
    return lazy_batch(data, (core, settings, texts, add), tensors)


def _one_text(tok: Any, plan: Plan, backend: Any, core: Any, text: str) -> Optional[Any]:
    """``run`` for one text to lists (a plan without padding or tensors): the core's ids list."""
    settings = plan.settings
    if backend._settings is not settings:
        backend._settings = settings
    add = plan.add_special_tokens
    try:
        ids = pipeline_encode_ids(core, settings, text, add)
    except Exception:
        return None
    n = len(ids)
    if plan.warn and n > tok.model_max_length:
        tok._eventual_warn_about_too_long_sequence(ids, None, True)
    data = {"input_ids": ids}
    if plan.types:
        data["token_type_ids"] = [0] * n
    if plan.mask:
        data["attention_mask"] = [1] * n
    return lazy_batch(data, (core, settings, [text], add), None)


def _rounded(n: int, multiple: Optional[int]) -> int:
    return n + (multiple - n % multiple) % multiple if multiple else n


def _ragged_lists(tok: Any, plan: Plan, core: Any, settings: Any, texts: list) -> Any:
    """A batch without padding, as lists of rows (lengths as they come)."""
    ids, splits, _, _ = pipeline_encode_flat(core, settings, texts, add_special_tokens=plan.add_special_tokens,
                                             max_length=None, own_truncation=True, return_offsets=False,
                                             num_threads=1 if len(texts) < _SMALL else None, arrow=None)
    flat = np.asarray(ids).tolist()
    bounds = np.asarray(splits).tolist()
    rows = [flat[bounds[i]:bounds[i + 1]] for i in range(len(texts))]
    if plan.warn:
        longest = max(map(len, rows))
        if longest > tok.model_max_length:
            tok._eventual_warn_about_too_long_sequence(range(longest), None, True)
    data = {"input_ids": rows}
    if plan.types:
        data["token_type_ids"] = [[0] * len(r) for r in rows]
    if plan.mask:
        data["attention_mask"] = [[1] * len(r) for r in rows]
    return lazy_batch(data, (core, settings, texts, plan.add_special_tokens), None)

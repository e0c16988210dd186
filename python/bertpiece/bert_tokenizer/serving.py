"""`BertTokenizer.__call__`'s serving cases with as little Python as possible
between the call and the core: one text to lists, a batch to lists, and a
batch padded into NumPy arrays (or torch tensors, or lists).

Each function returns None when its case needs the general path (`call.py`
then goes on as if it had not been tried), so the general path stays the
definition. What a call's options mean is decided by the general path's own
checks (`_resolve_options`, `_check_lengths`, `_padding_too_large`), run
once per distinct set of options and remembered (`ServingState.plans`); what the tokenizer's tokens are is read once per
change of the tokenizer (`ServingState`, dropped by `tokens.py` on any change).
"""

from __future__ import annotations

from .. import _core
from .batch_call import _LazyRows, _OneTextRows, _general, _row_lists, _served_rows
from .encoding import BatchEncoding
from .general import _MAX_PADDED_CELLS

_encode_to_list, _encode_to_dict, _encode_to_lists, _encode_to_offsets, _encode_padded_planes = (
    _core.encode_to_list, _core.encode_to_dict, _core.encode_to_lists, _core.encode_to_offsets, _core.encode_padded_planes)
_PaddedPlan = _core.PaddedPlan
_new = _core.new_instance  # `object.__new__(cls)`, without the cost of calling it
_MAX_PLANS = 64  # distinct option sets remembered per tokenizer


class ServingState:
    """What the serving paths read from a tokenizer, read once per change of it."""

    __slots__ = ("owner", "epoch", "cls", "sep", "pad", "added", "matcher", "plans", "padded_plans", "usable", "core",
                 "search", "model_max_length", "padding_side", "truncation_side", "pad_type_id", "framed", "one_made", "one")

    def __init__(self, tok):
        self.owner = id(tok)  # a shallow copy of a tokenizer shares its engine, not its tokens
        # the tokenizer's epoch (epochs.py): any change drops this state, so it is the current
        # one, and the rows of a call keep it without another attribute read on the tokenizer
        self.epoch = tok.__dict__.get("_epoch")
        self.cls, self.sep = tok._special_id("cls_token"), tok._special_id("sep_token")
        self.pad = tok._special_id("pad_token")
        self.added = _core.Needles(list(tok._added))
        self.matcher = tok._matcher
        self.plans, self.padded_plans = {}, {}
        # the one-text path's reads, each an attribute any change of which drops this state
        self.usable, self.core, self.search = usable(tok), tok._core, tok._matcher.search
        self.model_max_length, self.padding_side = tok.model_max_length, tok.padding_side
        self.truncation_side, self.pad_type_id = tok.truncation_side, tok.pad_token_type_id
        self.framed = self.cls is not None and self.sep is not None  # (else no special tokens to add: general path)
        # the one-text lazy rows' epoch and options, by add_special_tokens (as `_served_rows` makes them)
        self.one_made = tuple((self.epoch, (special, "do_not_truncate", None, self.padding_side, False))
                              for special in (False, True))
        # what `tok(text)`'s core path (`Calls.__call__`, src/python/serving_call.rs) reads: None where
        # `one_text` declines on the settings (it then hands the call to the Python path)
        self.one = None
        if self.usable and self.framed:
            try:
                self.one = _core.OneText(self.owner, self.core, self.cls, self.sep, self.added, self.model_max_length,
                                         self.one_made[True])
            except (TypeError, OverflowError):  # (ids the core does not take: one_text says what happens)
                pass


def state(tok):
    """The tokenizer's ServingState, kept on its engine (derived state, never pickled)."""
    engine = tok._engine
    s = engine.serving
    if s is None or s.owner != id(tok):
        s = engine.serving = ServingState(tok)
    return s


def usable(tok):
    """Whether the serving paths apply to this tokenizer's settings at all."""
    return not tok.legacy and tok.do_basic_tokenize and not tok.split_special_tokens


# ------------------------------------------------------------------ one text
def one_text(tok, text, add_special_tokens, verbose, offsets=False):
    """`tok(text)` (or `tok(text, return_offsets_mapping=True)`) with the default
    options: the core's ids (and offsets) as lists, with no Python per token;
    alignment (`tokens()`, `word_ids()`) is computed by the general path on first use.
    The one-text fast path: what it reads of the tokenizer is read once per change
    of it (`ServingState`), the core makes the data dict, and the BatchEncoding is
    made without `__init__`."""
    st = tok._engine.serving
    if st is None or st.owner != id(tok):
        st = state(tok)
    if not st.usable:
        return None  # the settings: the general path
    if offsets:
        if add_special_tokens is not True and add_special_tokens is not False:
            return None  # (any other value: the general path reads it as the reference does)
        if (add_special_tokens and not st.framed) or st.search(text):
            return None  # an added token in the text: the general path
        out = _encode_to_offsets(st.core, text, st.cls if add_special_tokens else None,
                                 st.sep if add_special_tokens else None)
        if out is None:
            return None  # a lone surrogate: the general path raises or drops it, as the reference does
        ids, spans = out
        n = len(ids)
        data = {"input_ids": ids, "token_type_ids": [0] * n, "attention_mask": [1] * n, "offset_mapping": spans}
    else:
        if add_special_tokens is True:
            if not st.framed:
                return None
            data = _encode_to_dict(st.core, text, st.cls, st.sep, st.added)
        elif add_special_tokens is False:
            data = _encode_to_dict(st.core, text, None, None, st.added)
        else:
            return None  # (any other value: the general path reads it as the reference does)
        if data is None:
            return None  # an added token in the text (searched by the core), or a lone surrogate
    if verbose and len(ids := data["input_ids"]) > st.model_max_length:
        tok._warn_if_too_long(ids, False)
    out = _new(BatchEncoding)
    out.data = data
    # `_served_rows(tok, st.epoch, [text], add_special_tokens, "do_not_truncate", None, st.padding_side, None)`,
    # made on first use (`_OneTextRows`) from a tuple made once per change of the tokenizer
    out._rows = rows = _OneTextRows()  # (a class call: cheaper than `_new`; it has no `__init__`)
    rows._tok, rows._made, rows._text = tok, st.one_made[1 if add_special_tokens else 0], text
    return out


def one_ids(tok, text, add_special_tokens):
    """`tok.encode(text)` with the default options, the encode fast path: the
    ids list alone (no BatchEncoding, whose only use there is its input_ids);
    None where `one_text` takes the general path."""
    st = tok._engine.serving
    if st is None or st.owner != id(tok):
        st = state(tok)
    if not st.usable:
        return None
    cls = sep = None
    if add_special_tokens is True:
        cls, sep = st.cls, st.sep
        if cls is None or sep is None:
            return None
    elif add_special_tokens is not False:
        return None  # (the general path reads any other value as the reference does)
    ids = _encode_to_list(st.core, text, cls, sep, st.added)  # (None: an added token, or a lone surrogate)
    if ids is not None and len(ids) > st.model_max_length:
        tok._warn_if_too_long(ids, False)
    return ids


# ------------------------------------------------------------------ batches
def plan(tok, st, padding, truncation, max_length, stride, pad_to_multiple_of, n_rows):
    """(padding strategy, truncation strategy, max_length, cells per row at least) as the general
    path decides them for single texts, or None when it would warn or raise (it then does so)."""
    key = (type(padding), padding, type(truncation), truncation, type(max_length), max_length, type(stride), stride,
           type(pad_to_multiple_of), pad_to_multiple_of)
    try:
        found = st.plans.get(key)
    except TypeError:  # an unhashable option: the general path says what it makes of it
        return None
    if found is None:
        found = _decide(tok, padding, truncation, max_length, stride, pad_to_multiple_of)
        if len(st.plans) >= _MAX_PLANS:
            st.plans.clear()
        st.plans[key] = found
    if found is False or found[3] * n_rows > _MAX_PADDED_CELLS:
        return None  # (padding too large: `_padding_too_large` is the general path's MemoryError)
    return found


def _decide(tok, padding, truncation, max_length, stride, pad_to_multiple_of):
    """The general path's own option checks (`_resolve_options`, `_check_lengths`); False where they raise."""
    if max_length is not None and padding is True and truncation in (None, False, "do_not_truncate"):
        return False  # the general path warns that max_length is ignored
    try:
        found = tok._resolve_options(padding, truncation, max_length, stride, pad_to_multiple_of, verbose=False)
        tok._check_lengths(found[1], found[2], stride, add_special_tokens=True, pair=False)
    except Exception:  # the general path raises it
        return False
    padding_strategy, truncation_strategy, max_length = found
    if truncation_strategy not in ("do_not_truncate", "longest_first", "only_first"):
        return False
    if padding_strategy == "do_not_pad" and pad_to_multiple_of is not None:
        return False  # (unread, whatever it is: the general path drops it)
    if type(max_length) is not int and max_length is not None or type(stride) is not int:
        return False  # (sizes given as other integer types: the general path converts them)
    if max_length is not None and max_length >= 1 << 64:
        return False  # (past the core's sizes: the general path checks the texts before refusing it)
    # what `_padding_too_large` checks, per row: every padded row is at least this wide
    width = 0 if padding_strategy == "do_not_pad" else max(
        max_length if padding_strategy == "max_length" and max_length else 0, pad_to_multiple_of or 0)
    return padding_strategy, truncation_strategy, max_length, 3 * width


def batch(tok, texts, batched, add_special_tokens, padding, truncation, max_length, pad_to_multiple_of,
          return_tensors, verbose):
    """`tok(texts, ...)` for single texts with the common options (no pairs,
    stride or extra outputs): lists, or padded arrays."""
    st = tok._engine.serving
    if st is None or st.owner != id(tok):
        st = state(tok)
    if (padding is True and truncation is True and add_special_tokens is True and type(max_length) is int
            and pad_to_multiple_of is None and type(return_tensors) is str and return_tensors == "np" and texts):
        # The model server's call, its plans made by an earlier call (the code below, which is the same
        # steps with every case's checks): the core's arrays, the data dict and the rows, nothing else.
        served = st.padded_plans.get(max_length)
        if served:
            return _served(tok, st, texts, served)
    if not texts or not st.usable or st.truncation_side != "right":
        return None
    if return_tensors is not None and (type(return_tensors) is not str or return_tensors not in ("np", "pt")):
        return None  # (a TensorType, "tf", "mlx"...: the general path)
    tensors = return_tensors
    core_plan = rows_opts = pad_to = None
    if (padding is True and truncation is True and type(max_length) is int and pad_to_multiple_of is None
            and add_special_tokens is True):
        # a model server's call: its plans by max_length alone (padding to the longest row is never too large)
        served = st.padded_plans.get(max_length)
        if served is None:
            if len(st.padded_plans) >= _MAX_PLANS:
                st.padded_plans.clear()
            served = st.padded_plans[max_length] = _served_plan(tok, st, max_length)
        if served is False:
            return None
        found, core_plan, rows_opts = served
    else:
        found = plan(tok, st, padding, truncation, max_length, 0, pad_to_multiple_of, len(texts))
        if found is None:
            return None
    padding_strategy, truncation_strategy, max_length, _ = found
    special = None
    if add_special_tokens is True:
        if st.cls is None or st.sep is None:
            return None
        special = (st.cls, st.sep)
    elif add_special_tokens is not False:
        return None  # (the general path reads any other value as the reference does)
    limit = max_length if truncation_strategy != "do_not_truncate" else None
    if padding_strategy == "do_not_pad":
        if tensors is not None:
            return None  # ragged rows: the general path says what transformers does
        try:
            ids, types, mask, redo = _encode_to_lists(st.core, texts, special, limit, st.added)  # (untracked rows)
            if redo:
                _redo_lists(tok, texts, redo, ids, types, mask, add_special_tokens, truncation_strategy, max_length)
        except UnicodeEncodeError:
            return None
        width = None
        data = {"input_ids": ids, "token_type_ids": types, "attention_mask": mask}
        if not batched:
            data = {k: v[0] for k, v in data.items()}
    else:
        if core_plan is None:
            if st.pad is None:
                return None  # the general path's error
            pad_to = max_length if padding_strategy == "max_length" else None
            core_plan = _PaddedPlan(special, limit, pad_to, pad_to_multiple_of, st.pad, st.padding_side == "left",
                                    st.pad_type_id, st.added)
        try:
            width, (ids, types, mask), redo, longest = _encode_padded_planes(st.core, texts, core_plan)
        except UnicodeEncodeError:
            return None
        if redo or (pad_to is not None and longest > pad_to):
            return None  # added tokens in some row, or a row longer than max_length: the general path
        data = {"input_ids": ids, "token_type_ids": types, "attention_mask": mask}  # (NumPy arrays made by the core)
        if tensors is None:
            data = {k: (_row_lists(v) if batched else v[0].tolist()) for k, v in data.items()}
    out = _new(BatchEncoding)  # (without __init__: `data` is a new dict)
    out.data = data
    if rows_opts is None:
        out._rows = _served_rows(tok, st.epoch, texts, add_special_tokens, truncation_strategy, max_length,
                                 st.padding_side, width)
    else:  # (`_served_rows` inline, its options tuple made with the plan)
        out._rows = rows = _new(_LazyRows)
        rows._tok, rows._epoch, rows._texts, rows._pairs, rows._cache = tok, st.epoch, texts, None, None
        rows._width, rows._opts = width, rows_opts
    if tensors == "pt":
        out.convert_to_tensors("pt")
    if max_length is None and verbose:
        tok._warn_if_too_long(out["input_ids"], batched)
    return out


def _served(tok, st, texts, served):
    """The model server's padded call from its plans (`st.padded_plans[max_length]`, made by an earlier
    call of `batch`): the core's arrays, the data dict and the rows, nothing else; None where a row needs
    the general path (an added token, a lone surrogate)."""
    try:
        width, (ids, types, mask), redo, _ = _encode_padded_planes(st.core, texts, served[1])
    except UnicodeEncodeError:
        return None
    if redo:
        return None  # added tokens in some row: the general path
    out = _new(BatchEncoding)
    out.data = {"input_ids": ids, "token_type_ids": types, "attention_mask": mask}
    out._rows = rows = _new(_LazyRows)
    rows._tok, rows._epoch, rows._texts, rows._pairs, rows._cache = tok, st.epoch, texts, None, None
    rows._width, rows._opts = width, served[2]
    return out


def padded_call(tok, texts, max_length):
    """`tok(texts, padding=True, truncation=True, max_length=max_length, return_tensors="np")` for a
    list or tuple `texts` and an int `max_length`, as the core's `__call__` (serving_call_routes.rs)
    sends it, without `__call__`'s Python frame: what `batch` does for it, and where that declines,
    `__call__`'s general path without a second try (`Calls._general_after_serving`)."""
    st = tok._engine.serving
    if st is not None and st.owner == id(tok) and texts:
        served = st.padded_plans.get(max_length)
        if served:
            try:
                out = _served(tok, st, texts, served)
            except TypeError:  # an item that is not a str: the general path names it (as `__call__`)
                out = None
            if out is not None:
                return out
            return tok._general_after_serving(texts, padding=True, truncation=True, max_length=max_length,
                                              return_tensors="np")
    # (no plan yet, or the call's plan declines, or no texts: `__call__` itself, which makes the plan)
    return tok._general_call(texts, padding=True, truncation=True, max_length=max_length, return_tensors="np")


def offsets_call(tok, text):
    """`tok(text, return_offsets_mapping=True)` for a str `text`, as the core's `__call__`
    (serving_call_routes.rs) sends it: `one_text`, and where it declines, `__call__`'s general path."""
    out = one_text(tok, text, True, True, offsets=True)
    return out if out is not None else tok._general_after_serving(text, return_offsets_mapping=True)


def _served_plan(tok, st, max_length):
    """A model server's padded call, `tok(texts, padding=True, truncation=True, max_length=max_length)`:
    (its plan, the core's `PaddedPlan`, its rows' options as `_served_rows` makes them), or False
    where the call takes the general path."""
    found = plan(tok, st, True, True, max_length, 0, None, 0)
    if (found is None or st.cls is None or st.sep is None or st.pad is None or not st.usable
            or st.truncation_side != "right"):
        return False
    padding_strategy, truncation_strategy, max_length, _ = found  # ("longest": pad_to is None)
    limit = max_length if truncation_strategy != "do_not_truncate" else None
    core_plan = _PaddedPlan((st.cls, st.sep), limit, None, None, st.pad, st.padding_side == "left", st.pad_type_id,
                            st.added)
    return found, core_plan, (True, truncation_strategy, max_length, st.padding_side, False)


def _redo_lists(tok, texts, redo, ids, types, mask, add_special_tokens, truncation_strategy, max_length):
    """Rows holding an added token, by the general path."""
    redone = _general(tok, [(texts[k], None) for k in redo], add_special_tokens, truncation_strategy, max_length,
                      False)
    for k, (row, _, _, row_types) in zip(redo, redone):
        ids[k], types[k], mask[k] = row, row_types, [1] * len(row)


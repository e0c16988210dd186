"""`BertTokenizer.__call__`: argument checks, padding and truncation
strategies, the one-text serving path, and the dispatch: legacy mode to
`legacy.py`, the other modes to `general.py` (which tries `batch_call.py`'s
batch path first)."""

from __future__ import annotations

import inspect
import logging
import warnings

from .. import _core
from . import chat_templates, serving, serving_windows
from .batch_call import _OneTextRows
from .call_flags import InputTypeError, check_hf_sizes, check_size as _check_size, strict_bool, truthy
from .encoding import BatchEncoding
from .general import _padding_too_large


class NoPadIdError(ValueError, TypeError):
    """Padding with a pad_token that has no id: a ValueError (as with no pad_token at
    all), also a TypeError (transformers compares the id None with 0 there)."""


# transformers' logger, so its verbosity settings apply to the same messages
logger = logging.getLogger("transformers.tokenization_utils_base")
LARGE_INTEGER = int(1e20)
_TOO_LONG = "sequence-length-is-longer-than-the-specified-maximum"
PADDING_STRATEGIES = ("longest", "max_length", "do_not_pad")
TRUNCATION_STRATEGIES = ("only_first", "only_second", "longest_first", "do_not_truncate")


class Calls:
    """`__call__` and its general path."""

    # ---------------------------------------------------------- strategies
    def _strategies(self, padding, truncation, max_length, pad_to_multiple_of, verbose=True):
        if max_length is not None and padding is False and truncation is None:
            truncation = "longest_first"
        if padding is True:
            if verbose and max_length is not None and truncation in (None, False, "do_not_truncate"):
                warnings.warn("`max_length` is ignored when `padding`=`True` and there is no truncation strategy. "
                              "To pad to max length, use `padding='max_length'`.")
            padding_strategy = "longest"
        elif padding is False:  # (None is refused below, as transformers refuses it)
            padding_strategy = "do_not_pad"
        else:
            padding_strategy = getattr(padding, "value", padding)
            if padding_strategy not in PADDING_STRATEGIES:
                raise ValueError(f"{padding} is not a valid PaddingStrategy, please select one of "
                                 f"{list(PADDING_STRATEGIES)}")
        if truncation is True:
            truncation_strategy = "longest_first"
        elif truncation is False or truncation is None:
            truncation_strategy = "do_not_truncate"
        else:
            truncation_strategy = getattr(truncation, "value", truncation)
            if truncation_strategy not in TRUNCATION_STRATEGIES:
                raise ValueError(f"{truncation} is not a valid TruncationStrategy, please select one of "
                                 f"{list(TRUNCATION_STRATEGIES)}")
        if max_length is None:
            if padding_strategy == "max_length":
                if self.model_max_length > LARGE_INTEGER:
                    padding_strategy = "do_not_pad"
                else:
                    max_length = self.model_max_length
            if truncation_strategy != "do_not_truncate":
                if self.model_max_length > LARGE_INTEGER:
                    truncation_strategy = "do_not_truncate"
                else:
                    max_length = self.model_max_length
        pad_id = self._special_id("pad_token") if padding_strategy != "do_not_pad" else 0
        if pad_id is None or pad_id < 0:  # no pad token (or one without an id) while padding
            advice = ("Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` "
                      "or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.")
            pad_token = self._special_tokens_map.get("pad_token")
            if pad_token is not None and pad_id is None:
                raise NoPadIdError(f"Asking to pad but the pad_token {str(pad_token)!r} has no id (it is not in the "
                                   f"vocabulary, and the unk_token has no id to stand for it). {advice}")
            raise ValueError(f"Asking to pad but the tokenizer does not have a padding token. {advice}")
        if (truncation_strategy != "do_not_truncate" and padding_strategy != "do_not_pad"
                and pad_to_multiple_of is not None and max_length is not None and max_length % pad_to_multiple_of):
            raise ValueError("Truncation and padding are both activated but truncation length "
                             f"({max_length}) is not a multiple of pad_to_multiple_of ({pad_to_multiple_of}).")
        return padding_strategy, truncation_strategy, max_length

    # --------------------------------------------------------------- __call__
    def __call__(self, text=None, text_pair=None, text_target=None, text_pair_target=None, add_special_tokens=True,
                 padding=False, truncation=None, max_length=None, stride=0, is_split_into_words=False,
                 pad_to_multiple_of=None, padding_side=None, return_tensors=None, return_token_type_ids=None,
                 return_attention_mask=None, return_overflowing_tokens=False, return_special_tokens_mask=False,
                 return_offsets_mapping=False, return_length=False, verbose=True, tokenizer_kwargs=None, **kwargs):
        if (text_pair is None and text_target is None and is_split_into_words is False and stride == 0
                and return_token_type_ids is None and return_attention_mask is None
                and not (return_overflowing_tokens or return_special_tokens_mask or return_offsets_mapping
                         or return_length or kwargs) and tokenizer_kwargs is None and padding_side is None):
            # the serving cases (serving.py); None: the general path below
            if type(text) is str:
                if (padding is False and truncation is None and max_length is None and return_tensors is None
                        and pad_to_multiple_of is None):
                    out = serving.one_text(self, text, add_special_tokens, verbose)
                else:
                    out = serving.batch(self, [text], False, add_special_tokens, padding, truncation, max_length,
                                        pad_to_multiple_of, return_tensors, verbose)
            elif type(text) is list or type(text) is tuple:
                try:
                    out = serving.batch(self, text, True, add_special_tokens, padding, truncation, max_length,
                                        pad_to_multiple_of, return_tensors, verbose)
                except TypeError:  # an item that is not a str: the general path names it
                    out = None
            else:
                out = None
            if out is not None:
                return out
        elif (type(text) is str and return_offsets_mapping and text_pair is None and text_target is None
              and padding is False and truncation is None and max_length is None and return_tensors is None
              and return_token_type_ids is None and return_attention_mask is None and pad_to_multiple_of is None
              and padding_side is None and stride == 0
              and is_split_into_words is False and not (return_special_tokens_mask or return_overflowing_tokens
                                                        or return_length or kwargs) and tokenizer_kwargs is None):
            out = serving.one_text(self, text, add_special_tokens, verbose, offsets=True)
            if out is not None:
                return out
        elif (type(text) is str and return_overflowing_tokens and text_pair is None and text_target is None
              and padding is False and return_tensors is None and return_token_type_ids is None
              and return_attention_mask is None and pad_to_multiple_of is None and padding_side is None
              and is_split_into_words is False and not (return_special_tokens_mask or return_offsets_mapping
                                                        or return_length or kwargs) and tokenizer_kwargs is None):
            out = serving_windows.windows(self, text, add_special_tokens, truncation, max_length, stride, verbose)
            if out is not None:
                return out
        opts = dict(add_special_tokens=add_special_tokens, padding=padding, truncation=truncation,
                    max_length=max_length, stride=stride, is_split_into_words=is_split_into_words,
                    pad_to_multiple_of=pad_to_multiple_of, padding_side=padding_side, return_tensors=return_tensors,
                    return_token_type_ids=return_token_type_ids, return_attention_mask=return_attention_mask,
                    return_overflowing_tokens=return_overflowing_tokens,
                    return_special_tokens_mask=return_special_tokens_mask,
                    return_offsets_mapping=return_offsets_mapping, return_length=return_length, verbose=verbose,
                    split_special_tokens=kwargs.pop("split_special_tokens", None))
        max_target_length = kwargs.pop("max_target_length", None)
        sanitize = kwargs.pop("sanitize_control_tokens", False)  # (apply_chat_template passes it, True or False)
        if tokenizer_kwargs is not None:  # as transformers: merged over the named arguments
            opts.update(tokenizer_kwargs)
        for key in list(kwargs):
            if key in opts:
                opts[key] = kwargs.pop(key)
        if kwargs:
            self._warn_unused(kwargs)
        if text is None and text_target is None:
            raise ValueError("You need to specify either `text` or `text_target`.")
        if sanitize and text is not None and text_pair is None and not opts["is_split_into_words"]:
            padding_strategy, truncation_strategy, max_length = self._resolve_options(
                opts["padding"], opts["truncation"], opts["max_length"], opts["stride"], opts["pad_to_multiple_of"],
                opts["verbose"])
            return chat_templates.call_sanitized(
                self, text, opts["add_special_tokens"], truncation_strategy, max_length, padding_strategy,
                opts["pad_to_multiple_of"], opts["padding_side"], opts["return_attention_mask"], opts["return_tensors"])
        encodings = self._encode(text, text_pair, **opts) if text is not None else None
        if text_target is None:
            return encodings
        if max_target_length is not None:
            opts["max_length"] = max_target_length
        targets = self._encode(text_target, text_pair_target, **opts)
        if encodings is None:
            return targets
        encodings["labels"] = targets["input_ids"]
        return encodings

    def _general_after_serving(self, text, **changed):
        """`__call__`'s general path for `self(text, **changed)` (a single text or a batch of them) once
        serving.py's attempt at it declined (`padded_call`, `offsets_call`, which the core sends these
        calls to): what `__call__` does next, without a second attempt."""
        return self._encode(text, None, **dict(_ENCODE_DEFAULTS, **changed))

    def _warn_unused(self, kwargs):
        # transformers ignores keyword arguments it does not know (a model's
        # src_lang, say); a typo should not pass unseen, so say it once per name
        new = sorted(k for k in kwargs if not self.deprecation_warnings.get(("unused", k)))
        if new:
            logger.warning("Keyword arguments %s not recognized by BertTokenizer; ignored.", new)
            for k in new:
                self.deprecation_warnings[("unused", k)] = True

    def _resolve_options(self, padding, truncation, max_length, stride, pad_to_multiple_of, verbose):
        """The sizes checked and the strategies decided: (padding strategy, truncation strategy, max_length).
        Any `stride` (None, -1, 1.5) passes while nothing is truncated: transformers never reads it then."""
        found = self._strategies(padding, truncation, max_length, None, verbose)
        if max_length is not None and (found[1] != "do_not_truncate" or found[0] == "max_length"):
            _check_size("max_length", max_length, allow_zero=True)  # (unread otherwise, as there)
        # unread without padding, as there (legacy: read whenever a max_length is, even without padding)
        if pad_to_multiple_of is not None and (found[0] != "do_not_pad" or self.legacy and found[2] is not None):
            _check_size("pad_to_multiple_of", pad_to_multiple_of, allow_zero=False)
            found = self._strategies(padding, truncation, max_length, pad_to_multiple_of, False)
        if found[1] != "do_not_truncate":
            _check_size("stride", stride, allow_zero=True)
        check_hf_sizes(found, max_length, stride, pad_to_multiple_of, self.legacy)
        return found

    def _check_lengths(self, truncation_strategy, max_length, stride, add_special_tokens, pair, part=None):
        """A max_length too small for the special tokens or for the stride: refused before encoding
        (`part`: "special" or "stride" alone)."""
        if part != "stride" and truncation_strategy != "do_not_truncate" and add_special_tokens \
                and max_length is not None:
            # transformers does not check this: HF silently skips truncation, the
            # legacy tokenizer empties the sequences. Both are wrong model inputs.
            n_special = self.num_special_tokens_to_add(pair=pair)
            if max_length < n_special:
                raise ValueError(f"max_length={max_length} is smaller than the {n_special} special tokens added "
                                 "to each sequence; use a larger max_length or add_special_tokens=False")
        if part != "special" and not self.legacy and truncation_strategy != "do_not_truncate" \
                and max_length is not None:
            # HF tokenizers checks the stride against the single-text window before encoding
            # (a stride equal to it passes there, then panics when a text is cut: see _hf_truncate)
            # (whatever add_special_tokens says; a max_length below them wraps the unsigned
            # subtraction there, so no check)
            effective = max_length - self.num_special_tokens_to_add(pair=False)
            if stride > effective >= 0:
                raise ValueError(f"tokenizer stride set to {stride}, which is greater than or equal to its effective "
                                 f"max length of {effective} (= {max_length} original max length - "
                                 f"{max_length - effective} added special tokens), ")

    def _encode(self, text, text_pair, *, add_special_tokens, padding, truncation, max_length, stride,
                is_split_into_words, pad_to_multiple_of, padding_side, return_tensors, return_token_type_ids,
                return_attention_mask, return_overflowing_tokens, return_special_tokens_mask, return_offsets_mapping,
                return_length, verbose, split_special_tokens):
        padding_strategy, truncation_strategy, max_length = self._resolve_options(
            padding, truncation, max_length, stride, pad_to_multiple_of, verbose)
        if truncation_strategy == "do_not_truncate":
            stride = 0  # (unread, whatever it is: see _resolve_options)
        warn_length = max_length is None and verbose  # (a max_length given, read or not, silences it, as there)
        if padding_strategy == "do_not_pad":
            pad_to_multiple_of = None  # (likewise)
            if truncation_strategy == "do_not_truncate":
                max_length = None
        if padding_side is not None and padding_side not in ("left", "right"):
            raise ValueError(f"Invalid padding strategy:{padding_side}" if self.legacy else  # transformers' messages
                             f"Unknown `direction`: `{padding_side}`. Use one of `left` or `right`")
        if return_tensors is not None and getattr(return_tensors, "value", return_tensors) == "pt":
            try:
                import torch  # noqa: F401  (only checks that it is installed)
            except ImportError:
                raise ImportError("return_tensors='pt' needs PyTorch: pip install torch") from None
        if self.legacy and is_split_into_words and isinstance(text, str) and (
                text_pair is None or isinstance(text_pair, str)):
            is_split_into_words = False  # BertTokenizerLegacy tokenizes such a str as text
        return_token_type_ids, return_attention_mask = truthy(return_token_type_ids), truthy(return_attention_mask)
        return_offsets_mapping = bool(return_offsets_mapping)
        batched, items = self._batch_items(text, text_pair, is_split_into_words)
        error = _padding_too_large(padding_strategy, max_length, pad_to_multiple_of, len(items))
        if error is not None:
            raise error
        pair = any(b is not None for _, b in items)
        self._check_lengths(truncation_strategy, max_length, stride, add_special_tokens, pair, part="stride")
        if not self.legacy:  # HF's Rust encode_batch takes these as bools only (after the checks above, as there)
            add_special_tokens, is_split_into_words = strict_bool(add_special_tokens), strict_bool(is_split_into_words)
            if split_special_tokens is not None and split_special_tokens != self.split_special_tokens:
                split_special_tokens = strict_bool(split_special_tokens)  # (HF sets it on its Rust tokenizer then)
        self._check_lengths(truncation_strategy, max_length, stride, add_special_tokens, pair, part="special")
        split_special = self.split_special_tokens if split_special_tokens is None else split_special_tokens
        opts = dict(add_special_tokens=add_special_tokens, padding_strategy=padding_strategy,
                    truncation_strategy=truncation_strategy, max_length=max_length, stride=stride,
                    is_split_into_words=is_split_into_words, pad_to_multiple_of=pad_to_multiple_of,
                    padding_side=padding_side or self.padding_side, return_tensors=return_tensors,
                    return_token_type_ids=return_token_type_ids, return_attention_mask=return_attention_mask,
                    return_overflowing_tokens=return_overflowing_tokens,
                    return_special_tokens_mask=return_special_tokens_mask,
                    return_offsets_mapping=return_offsets_mapping, return_length=return_length,
                    split_special=split_special)
        if self.legacy:
            if return_offsets_mapping:
                raise NotImplementedError(
                    "return_offset_mapping is not available when using Python tokenizers. To use this feature, change "
                    "your tokenizer to one deriving from transformers.PreTrainedTokenizerFast. (bertpiece: use "
                    "reference='tokenizers')")
            out = self._call_legacy(batched, items, **opts)
        else:
            out = self._call_fast(batched, items, **opts)
        if warn_length:
            self._warn_if_too_long(out["input_ids"], batched)
        return out

    def _warn_if_too_long(self, ids, batched):
        """transformers' "Token indices sequence length is longer than the specified maximum" warning (once)."""
        limit = self.model_max_length
        if limit >= LARGE_INTEGER or limit == 0 or self.deprecation_warnings.get(_TOO_LONG):
            return
        if hasattr(ids, "shape"):  # arrays or tensors: rows x width, or one row
            longest = int(ids.shape[-1]) if len(ids.shape) else 0
        elif batched or (ids and isinstance(ids[0], list)):
            longest = max(map(len, ids), default=0)
        else:
            longest = len(ids)
        if longest > limit:
            logger.warning("Token indices sequence length is longer than the specified maximum sequence length for "
                           f"this model ({longest} > {limit}). Running this sequence through the model will result "
                           "in indexing errors")
            self.deprecation_warnings[_TOO_LONG] = True

    def prepare_seq2seq_batch(self, src_texts, tgt_texts=None, max_length=None, max_target_length=None,
                              padding="longest", return_tensors=None, truncation=True, **kwargs):
        """transformers 4's prepare_seq2seq_batch: sources and their labels in one BatchEncoding."""
        return self(src_texts, text_target=tgt_texts, max_length=max_length, max_target_length=max_target_length,
                    padding=padding, return_tensors=return_tensors, truncation=truncation, **kwargs)

    @staticmethod
    def _check_text(value, where, is_split_into_words, legacy=False):
        if isinstance(value, str):
            if is_split_into_words:
                raise InputTypeError(f"{where}: expected a list of words (is_split_into_words=True), got a str")
            return
        if is_split_into_words and isinstance(value, (list, tuple)):
            if not value and legacy:
                raise InputTypeError(f"{where}: Input must be a string, list of strings, or list of ints, got an "
                                     "empty list of words (BertTokenizerLegacy refuses it)")
            for k, w in enumerate(value):
                if not isinstance(w, str):
                    raise InputTypeError(f"{where}[{k}]: expected str, got {type(w).__name__}")
            return
        raise InputTypeError(f"{where}: expected str, got {type(value).__name__}")

    def _batch_items(self, text, text_pair, is_split_into_words):
        """(batched, [(a, b_or_None)]) with every element checked."""
        if is_split_into_words:
            batched = isinstance(text, (list, tuple)) and bool(text) and isinstance(text[0], (list, tuple))
        else:
            batched = isinstance(text, (list, tuple))
        if not batched:
            self._check_text(text, "text", is_split_into_words, self.legacy)
            if text_pair is not None:
                self._check_text(text_pair, "text_pair", is_split_into_words, self.legacy)
                if not text_pair and not self.legacy:
                    text_pair = None  # HF tokenizers: an empty second text is no second text
            return False, [(text, text_pair)]
        if text_pair is None and not is_split_into_words and all(type(t) is str for t in text):
            return True, [(t, None) for t in text]  # the common case, checked in one pass
        if isinstance(text_pair, str):
            raise InputTypeError("when tokenizing batches of text, `text_pair` must be a list or tuple with the same "
                                 "length as `text`.")
        if text_pair is not None and len(text) != len(text_pair):
            raise ValueError(f"batch length of `text`: {len(text)} does not match batch length of `text_pair`: "
                             f"{len(text_pair)}.")
        items = []
        for k, item in enumerate(text):
            pair = text_pair[k] if text_pair is not None else None
            # A list or tuple is a pair. Pre-tokenized, HF tokenizers reads a pair
            # only in two sequences of words ((["a"], ["b"])), and ("a", "b") as
            # words; BertTokenizerLegacy reads any tuple as a pair.
            if pair is None and isinstance(item, (list, tuple)) and (
                    not is_split_into_words
                    or (self.legacy and isinstance(item, tuple))
                    or (len(item) == 2 and all(isinstance(x, (list, tuple)) for x in item))):
                if len(item) != 2:
                    raise InputTypeError(f"text[{k}]: expected a str or a pair (a, b), got a {type(item).__name__} "
                                         f"of length {len(item)}")
                item, pair = item
                # (legacy, pre-tokenized: each side of the pair may be a plain str, as there)
                for side, value in ((0, item), (1, pair)):
                    self._check_text(value, f"text[{k}][{side}]", is_split_into_words and not isinstance(value, str),
                                     self.legacy)
            else:
                self._check_text(item, f"text[{k}]", is_split_into_words, self.legacy)
                if pair is not None:
                    self._check_text(pair, f"text_pair[{k}]", is_split_into_words, self.legacy)
            items.append((item, pair))
        return True, items


def _core_call(general, handoff="auto"):
    """`Calls.__call__` made by the core (src/python/serving_call.rs): `tok(text)` (one str, nothing
    else) as `serving.one_text` does it, without a Python frame; every other call, and every one that
    `one_text` would decline, goes to `general` (the Python function above, the definition) with its
    arguments as they came. Replacing `serving.one_text` (the tests' hook) sends `tok(text)` there too.
    `handoff`: see `_core.serving_call`."""
    signature = str(inspect.signature(general)).replace("(self", "($self", 1)
    doc = f"__call__{signature}\n--\n\n{_CALL_DOC}"
    return _core.serving_call(general, serving.__dict__, BatchEncoding, _OneTextRows, Calls, doc, handoff)


# `_encode`'s options as `__call__` passes them when none is given (its own defaults)
_ENCODE_DEFAULTS = {name: p.default for name, p in inspect.signature(Calls.__call__).parameters.items()
                    if p.default is not inspect.Parameter.empty and name not in (
                        "text", "text_pair", "text_target", "text_pair_target", "tokenizer_kwargs")}
_ENCODE_DEFAULTS["split_special_tokens"] = None
_CALL_DOC = """Tokenize and prepare for the model one or several sequence(s) or pair(s) of sequences, as
transformers' `BertTokenizer.__call__` (docs/bert_tokenizer.md)."""
Calls._general_call = Calls.__dict__["__call__"]  # (the hand-off by name: `PyObject_VectorcallMethod`)
Calls.__call__ = _core_call(Calls._general_call)

"""Special and added tokens of `BertTokenizer`, and id <-> token conversion.

The bookkeeping is transformers 5's (`PreTrainedTokenizerBase` and
`TokenizersBackend`): named special tokens live in `_special_tokens_map`
(`bos_token` ... `mask_token`), the others in `_extra_special_tokens`;
`tok.pad_token = "x"` and `tok.pad_token_id = 5` only rename, as there, while
`__init__`, `add_tokens` and `add_special_tokens` add to the vocabulary.
"""

from __future__ import annotations

import operator

from .add_rules import add_hf, add_legacy, note_hf_added
from .added_tokens import SPECIAL_TOKENS_ATTRIBUTES, AddedToken, Matcher
from .epochs import changing

_U32 = 2**32  # HF ids are u32: anything outside raises OverflowError there


class InvalidIdError(OverflowError, ValueError):
    """A token id outside the vocabulary's range: OverflowError (HF
    tokenizers' type), also a ValueError (what it means)."""


class IdTypeError(TypeError, ValueError):
    """An id that is not an integer (a float, str, None, list): a TypeError (HF
    tokenizers' type), also a ValueError (what BertTokenizerLegacy's int() raises)."""


def _as_id(index, where):
    """`index` as an int: ints, bools, NumPy integers, integer tensors; never a float cut to an int."""
    try:
        return operator.index(index)
    except TypeError:
        raise IdTypeError(f"{where} must be an integer token id, got {type(index).__name__} {index!r:.40}") from None


class SpecialTokens:
    """transformers' special-token attributes, added vocabulary and conversions."""

    SPECIAL_TOKENS_ATTRIBUTES = list(SPECIAL_TOKENS_ATTRIBUTES)

    def _init_special_tokens(self, named, extra):
        self._special_tokens_map = dict.fromkeys(self.SPECIAL_TOKENS_ATTRIBUTES)
        for key, value in named.items():
            if value is not None and not isinstance(value, (str, AddedToken)) and not hasattr(value, "content"):
                raise TypeError(f"Special token {key} has to be either str or AddedToken but got: {type(value)}")
            self._special_tokens_map[key] = value
        if isinstance(extra, dict):  # transformers: named model-specific tokens
            self.SPECIAL_TOKENS_ATTRIBUTES = self.SPECIAL_TOKENS_ATTRIBUTES + list(extra)
            self._special_tokens_map.update(extra)
            extra = []
        elif extra is not None and not isinstance(extra, (list, tuple)):
            raise TypeError("extra_special_tokens must be a list/tuple of tokens or a dict of named tokens")
        self._extra_special_tokens = list(extra or [])
        self._added: dict[str, tuple[int, AddedToken]] = {}
        self._added_by_id: dict[int, AddedToken] = {}
        self._top_added_id = None
        # HF tokenizers' caches (add_rules.py): id -> normalized form, contents ever special
        self.__dict__["_token_strings"] = {}
        self.__dict__["_special_strings"] = ()  # sorted: datasets hashes __dict__, and a set's order follows the hash seed

    # ------------------------------------------------ attributes, as transformers
    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(f"{type(self).__name__} has no attribute {key}")
        base = key.removesuffix("_ids").removesuffix("_id") if key.endswith(("_id", "_ids")) else key
        special = self.__dict__.get("_special_tokens_map")
        if special is not None and base in self.SPECIAL_TOKENS_ATTRIBUTES:
            if key != base:
                return self._special_id(base)
            value = special.get(base)
            return None if value is None else str(value)
        if base == "extra_special_tokens" and special is not None:
            tokens = [str(t) for t in self.__dict__.get("_extra_special_tokens", [])]
            return self.convert_tokens_to_ids(tokens) if key != base else tokens
        raise AttributeError(f"{type(self).__name__} has no attribute {key}")

    def __setattr__(self, key, value):
        if self.__dict__.get("_epoch") is None:  # (being built, or a snapshot)
            self._set(key, value)
            return
        with changing(self):  # rows of earlier calls keep describing them
            self._set(key, value)

    def _set(self, key, value):
        if key in ("padding_side", "truncation_side") and value not in ("right", "left"):
            # refused here, as the constructor does (transformers only fails at the next call)
            raise ValueError(f"{key.split('_')[0].capitalize()} side should be selected between 'right' and 'left', "
                             f"current value: {value}")
        engine = self.__dict__.get("_engine")
        if engine is not None:  # what the serving paths read may have changed
            engine.serving = None
        base = key.removesuffix("_ids").removesuffix("_id") if key.endswith(("_id", "_ids")) else key
        if "_special_tokens_map" in self.__dict__:
            if base in self.SPECIAL_TOKENS_ATTRIBUTES:
                if key != base and value is not None:
                    value = self._id_to_token_checked(value, key)
                if value is not None and not isinstance(value, (str, AddedToken)):
                    raise ValueError(f"Cannot set a non-string value as the {base}")
                self._special_tokens_map[base] = value
                return
            if base == "extra_special_tokens":
                if value is not None and not isinstance(value, (list, tuple)):
                    raise ValueError(f"extra_special_tokens must be a list or tuple, got {type(value)}")
                if key != base and value is not None:
                    value = [self._id_to_token_checked(v, key) for v in value]
                self._extra_special_tokens = [] if value is None else list(value)
                return
        object.__setattr__(self, key, value)

    def _special_id(self, name):
        """`self.<name>_id` without the attribute machinery (the per-call fast paths)."""
        value = self._special_tokens_map.get(name)
        return None if value is None else self.convert_tokens_to_ids(str(value))

    def _id_to_token_checked(self, index, what):
        token = self.convert_ids_to_tokens(index)
        if token is None:
            raise ValueError(f"{what}={index!r}: no token has this id")
        return token

    @property
    def special_tokens_map(self):
        return {k: str(v) for k in self.SPECIAL_TOKENS_ATTRIBUTES if (v := self._special_tokens_map.get(k)) is not None}

    @property
    def additional_special_tokens(self):  # transformers 4's name, kept for old code
        return [str(t) for t in self._extra_special_tokens]

    @property
    def all_special_tokens(self):
        out = []
        for value in [self._special_tokens_map.get(k) for k in self.SPECIAL_TOKENS_ATTRIBUTES] + \
                self._extra_special_tokens:
            if value is not None and str(value) not in out:
                out.append(str(value))
        return out

    @property
    def all_special_ids(self):
        return self.convert_tokens_to_ids(self.all_special_tokens)

    @property
    def pad_token_type_id(self):
        return self._pad_token_type_id

    # ----------------------------------------------------------- added tokens
    def _next_id(self):
        size = len(self._core)
        top = self._top_added_id
        if top is None:
            return size
        return top + 1 if top >= size or size == 0 else size

    def _add_one(self, token, special):
        """One token added as HF tokenizers adds it (add_rules.add_hf; __init__'s added tokens too)."""
        return add_hf(self, token, special)

    def _put_added(self, tid, token):
        with changing(self):
            self._put_added_now(tid, token)

    def _put_added_now(self, tid, token):
        self._engine.serving = None
        old = self._added_by_id.get(tid)
        if old is not None and self._added.get(old.content, (None,))[0] == tid:
            del self._added[old.content]
        self._added[token.content] = (tid, token)
        self._added_by_id[tid] = token
        if self._top_added_id is None or tid > self._top_added_id:
            self._top_added_id = tid
        note_hf_added(self, tid, token)

    def _add_tokens(self, new_tokens, special_tokens=False):
        with changing(self):
            return self._add_tokens_now(new_tokens, special_tokens)

    def _add_tokens_now(self, new_tokens, special_tokens):
        add = add_legacy if self.legacy else add_hf
        n = sum([add(self, t, special_tokens) for t in new_tokens])
        self._refresh_matcher()
        return n

    def add_tokens(self, new_tokens, special_tokens=False):
        """Adds tokens matched whole in the raw text and never split. Returns how many were new."""
        if not new_tokens:
            return 0
        if not isinstance(new_tokens, (list, tuple)):
            new_tokens = [new_tokens]
        # (a str stays a str: BertTokenizerLegacy treats str and AddedToken differently)
        return self._add_tokens([t if isinstance(t, str) else AddedToken.coerce(t, special_tokens) for t in new_tokens],
                                special_tokens=special_tokens)

    def add_special_tokens(self, special_tokens_dict, replace_extra_special_tokens=True):
        """transformers' add_special_tokens: `{"cls_token": ..., "extra_special_tokens": [...]}`."""
        if not special_tokens_dict:
            return 0
        with changing(self):
            return self._add_special_tokens_now(dict(special_tokens_dict), replace_extra_special_tokens)

    def _add_special_tokens_now(self, special_tokens_dict, replace_extra_special_tokens):
        if "additional_special_tokens" in special_tokens_dict and not special_tokens_dict.get("extra_special_tokens"):
            special_tokens_dict["extra_special_tokens"] = special_tokens_dict.pop("additional_special_tokens")
        allowed = set(self.SPECIAL_TOKENS_ATTRIBUTES) | {"extra_special_tokens"}
        to_add = []
        for key, value in special_tokens_dict.items():
            if key not in allowed:
                raise ValueError(f"Key {key} is not a valid special token. Valid keys are: {sorted(allowed)}")
            if key == "extra_special_tokens":
                if not isinstance(value, (list, tuple)) or not all(
                        isinstance(t, (str, AddedToken)) or hasattr(t, "content") for t in value):
                    raise ValueError(f"Tokens {value} for key {key} should all be str or AddedToken instances")
                new = [AddedToken(t, special=True, normalized=False) if isinstance(t, str)
                       else AddedToken.coerce(t, True) for t in value
                       if replace_extra_special_tokens or str(t) not in self.extra_special_tokens]
                if replace_extra_special_tokens and new:
                    self._extra_special_tokens = list(new)
                else:
                    self._extra_special_tokens.extend(new)
                to_add.extend(new)
            else:
                if not isinstance(value, (str, AddedToken)) and not hasattr(value, "content"):
                    raise ValueError(f"Token {value} for key {key} should be a str or an AddedToken instance")
                value = AddedToken(value, special=True, normalized=False) if isinstance(value, str) \
                    else AddedToken.coerce(value, True)
                self._special_tokens_map[key] = value
                to_add.append(value)
        return self._add_tokens(to_add, special_tokens=True)

    def get_added_vocab(self):
        return {t.content: i for i, t in sorted(self._added_by_id.items())}

    @property
    def added_tokens_encoder(self):
        return self.get_added_vocab()

    @property
    def added_tokens_decoder(self):
        return dict(sorted(self._added_by_id.items()))

    def _refresh_matcher(self):
        engine = self._engine
        engine.serving = None
        engine.matcher = Matcher(self._added)
        # (split_special_tokens: HF skips every content ever added as special)
        engine.nonspecial_matcher = Matcher(c for c, (_, t) in self._added.items()
                                            if not t.special and c not in self._special_strings)

    def _matchers(self):
        if self._engine.matcher is None:  # a fresh engine (unpickled)
            self._refresh_matcher()
        return self._engine

    _matcher = property(lambda self: self._matchers().matcher)
    _nonspecial_matcher = property(lambda self: self._matchers().nonspecial_matcher)

    def _has_added_token(self, text):
        """Whether `text` holds an added or special token (matched in the raw text)."""
        return self._matcher.search(text)

    # ------------------------------------------------------------ vocabulary
    @property
    def vocab_size(self):
        return len(self._core)

    @property
    def vocab(self):
        # BertTokenizerLegacy.vocab is the vocabulary file's alone; TokenizersBackend's has the added tokens.
        return dict(self._vocab) if self.legacy else self.get_vocab()

    def get_vocab(self):
        out = dict(self._vocab)
        for c, (i, _) in self._added.items():
            out[c] = i
        return out

    def __len__(self):
        if self.legacy:
            return len(set(self._vocab) | set(self._added))
        return len(self.get_vocab())

    def __bool__(self):  # as transformers: never "empty", whatever len() says
        return True

    def _token_to_id(self, token):
        if token in self._added:
            return self._added[token][0]
        return self._core.token_to_id(token) if isinstance(token, str) else self._vocab.get(token)

    def _id_to_token(self, index):
        t = self._added_by_id.get(index)
        if t is not None:  # (HF tokenizers: a normalized token's normalized form)
            return self._token_strings.get(index, t.content) if self._token_strings else t.content
        return self._ids_to_tokens.get(index)

    def convert_tokens_to_ids(self, tokens):
        if tokens is None:
            return None
        if isinstance(tokens, str):
            i = self._token_to_id(tokens)
            if i is not None or self.unk_token is None:
                return i
            # BertTokenizerLegacy looks the unk_token up in the base vocabulary only: None for an added one
            return self._core.token_to_id(self.unk_token) if self.legacy else self._token_to_id(self.unk_token)
        return [self.convert_tokens_to_ids(t) for t in tokens]

    def _check_id(self, index, where="token id", strict=True):
        """An int id, or the error HF tokenizers gives (OverflowError) with the id and where it was.
        Not `strict`: also an integer written as a string (tokenizer_config.json's keys)."""
        if strict:
            index = _as_id(index, where)
        else:
            try:
                index = int(index)
            except (TypeError, ValueError):
                raise IdTypeError(f"{where} must be an integer, got {type(index).__name__}") from None
        if not 0 <= index < _U32:
            hint = " (-100 is the label padding id: drop it before decoding)" if index == -100 else ""
            raise InvalidIdError(f"{where} {index} is not a token id: ids run from 0 to {len(self) - 1}{hint}")
        return index

    def convert_ids_to_tokens(self, ids, skip_special_tokens=False):
        if isinstance(ids, int) or (hasattr(ids, "__index__") and not hasattr(ids, "__len__")):
            if self.legacy:  # BertTokenizerLegacy: an unknown id is the unk_token, None if that is None
                t = self._id_to_token(_as_id(ids, "ids"))
                return self.unk_token if t is None else t
            return self._id_to_token(self._check_id(ids))
        skip = set(self.all_special_ids) if skip_special_tokens else ()
        out = []
        for k, i in enumerate(ids):
            i = _as_id(i, f"ids[{k}]") if self.legacy else self._check_id(i, f"ids[{k}]")
            if i in skip:
                continue
            t = self._id_to_token(i)
            out.append(self.unk_token if t is None and self.legacy else t)
        return out

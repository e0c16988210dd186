"""``bertpiece.Tokenizer``: a drop-in for ``tokenizers.Tokenizer`` loading any
tokenizer.json, exact against HF tokenizers 0.23.3 for what it supports.

Components it does not implement are refused when the file is loaded
(NotImplementedError naming the field), never approximated. docs/pipeline.md
lists what is supported. Truncation and padding work as in tokenizers.

The compiled core and the settings are immutable values: ``enable_*``/``no_*``
and ``add_tokens`` replace them, so encoding takes no lock.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

from .._core import PipelineTokenizer as _Core
from ..batch import SurrogateError
from .added_token import AddedToken
from .added_tokens import added_token_options, added_tokens_decoder
from .bulk import encode_batch_arrays as _encode_batch_arrays
from .components import Model, stage_tokenizer_json
from .encoding import Encoding
from .pretrained import pretrained_path
from .serialization import save_tokenizer_json, tokenizer_json
from .slots import ComponentSlots

__all__ = ["Tokenizer", "Encoding", "AddedToken", "NotImplementedAttribute"]

TextInput = Union[str, Sequence[str]]


def _flag(value: Any) -> bool:
    """A bool argument as tokenizers (PyO3) takes it: a bool or NumPy bool, else its TypeError (not 1 or None)."""
    if value is True or value is False:
        return value
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):
        return bool(value)
    shown = "'None'" if value is None else f"'{type(value).__name__}' object"
    raise TypeError(f"{shown} is not an instance of 'bool'")


def _words(seq: Any, is_pretokenized: bool, what: str) -> List[str]:
    if is_pretokenized:
        if isinstance(seq, str) or not isinstance(seq, (list, tuple)):
            raise TypeError(f"{what} must be a list or tuple of str when is_pretokenized=True, got {type(seq).__name__}")
        for w in seq:
            if not isinstance(w, str):
                raise TypeError(f"{what} must hold only str, got {type(w).__name__}")
        return list(seq)
    if not isinstance(seq, str):
        raise TypeError(f"{what} must be a str, got {type(seq).__name__}")
    return [seq]


def _batch_item(item: Any, is_pretokenized: bool, k: int) -> Tuple[List[str], Optional[List[str]]]:
    # As HF: a str (or, pre-tokenized, a list of str) is one sequence; a
    # 2-tuple/list of those is a pair.
    if is_pretokenized:
        if isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(x, (list, tuple)) for x in item):
            return _words(item[0], True, f"input[{k}][0]"), _words(item[1], True, f"input[{k}][1]")
        return _words(item, True, f"input[{k}]"), None
    if isinstance(item, (list, tuple)):
        if len(item) != 2:
            raise TypeError(f"input[{k}] must be a str or a pair of str, got a sequence of {len(item)}")
        return _words(item[0], False, f"input[{k}][0]"), _words(item[1], False, f"input[{k}][1]")
    return _words(item, False, f"input[{k}]"), None


class NotImplementedAttribute(NotImplementedError, AttributeError):
    """A tokenizers.Tokenizer attribute this version lacks: a NotImplementedError
    naming it, and an AttributeError so ``hasattr`` and ``getattr(..., default)`` work."""


def _surrogate(e: UnicodeEncodeError) -> SurrogateError:
    # tokenizers refuses such text with TypeError; SurrogateError is one, and says where.
    return SurrogateError(f"text holds a lone surrogate {e.object[e.start]!r} at position {e.start} (not valid Unicode)")


class Tokenizer(ComponentSlots):
    """The general tokenization pipeline from a tokenizer.json (see the module doc),
    or, as ``tokenizers.Tokenizer(model)``, from a ``bertpiece.models`` model with the
    other stages set through the component properties."""

    def __init__(self, model: Any, json: Optional[str] = None) -> None:
        if isinstance(model, _Core) and json is not None:
            core = model  # from_str's path
        elif isinstance(model, Model):
            json = stage_tokenizer_json(model=model._state)
            core = _Core.from_str(json)
        else:
            raise TypeError(f"'{type(model).__name__}' object is not an instance of 'Model'")
        self._core = core
        self._json = json  # the components, for to_str and for editing them
        self._settings = core.stored_settings()  # truncation and padding, replaced by enable_*/no_*
        if isinstance(model, Model):
            model._bind(self, "model")

    @classmethod
    def from_str(cls, json: str) -> "Tokenizer":
        if not isinstance(json, str):
            raise TypeError(f"json must be a str, got {type(json).__name__}")
        return cls(_Core.from_str(json), json)

    def __reduce__(self) -> tuple:
        # As tokenizers: the tokenizer.json as it is now (settings, added tokens).
        return (_restore, (self.to_str(),))

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Tokenizer":
        with open(path, encoding="utf-8") as f:
            return cls.from_str(f.read())

    @classmethod
    def from_buffer(cls, buffer: bytes) -> "Tokenizer":
        return cls.from_str(bytes(buffer).decode("utf-8"))

    def encode(
        self,
        sequence: TextInput,
        pair: Optional[TextInput] = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Encoding:
        if pair is None and is_pretokenized is False and type(sequence) is str:
            # the common call: one text, straight to the core (no list, tuple or copy)
            try:
                return self._core.encode_text(sequence, add_special_tokens, self._settings)
            except UnicodeEncodeError as e:
                raise _surrogate(e) from None
        item = (
            _words(sequence, is_pretokenized, "sequence"),
            None if pair is None else _words(pair, is_pretokenized, "pair"),
        )
        try:
            return self._core.encode(item, _flag(is_pretokenized), _flag(add_special_tokens), self._settings)
        except UnicodeEncodeError as e:
            raise _surrogate(e) from None

    def encode_batch(
        self, input: Iterable[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> List[Encoding]:
        """Encodes every input on all cores (the GIL released)."""
        if isinstance(input, str):
            raise TypeError("input must be a list of inputs, got a str")
        if is_pretokenized is False and type(input) is list:
            # a list of texts only (no pairs): the texts go to the core as they are
            try:
                return self._core.encode_batch_texts(input, add_special_tokens, self._settings)
            except UnicodeEncodeError as e:
                raise _surrogate(e) from None
            except TypeError:
                pass  # not all str: checked item by item below
        items = [_batch_item(x, is_pretokenized, k) for k, x in enumerate(input)]
        try:
            return self._core.encode_batch(items, _flag(is_pretokenized), _flag(add_special_tokens), self._settings)
        except UnicodeEncodeError as e:
            raise _surrogate(e) from None

    def encode_batch_arrays(self, texts: Any, *, add_special_tokens: bool = True, max_length: Optional[int] = None,
                            truncation: Optional[bool] = None, return_offsets: bool = False,
                            num_threads: Optional[int] = None) -> Any:
        """Encodes many texts on all cores (GIL released) into NumPy arrays: an
        ``EncodedBatch`` (``ids`` int32, ``row_splits`` int64, ``offsets`` int32
        ``(n, 2)`` in chars when ``return_offsets``). Row ``i`` equals
        ``encode_batch(texts)[i].ids`` (overflowing pieces dropped, no padding).
        ``truncation=None``: this tokenizer's own truncation (``self.truncation``);
        ``False``: none; ``True``: to ``max_length`` (or the own one's). docs/pipeline-api.md."""
        return _encode_batch_arrays(self, texts, add_special_tokens=add_special_tokens, max_length=max_length,
                                   truncation=truncation, return_offsets=return_offsets, num_threads=num_threads)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        if isinstance(ids, str):  # (list("") would be [] and decode to "")
            raise TypeError("Can't extract `str` to `Vec`")
        return self._core.decode(list(ids), _flag(skip_special_tokens))

    def decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> List[str]:
        return self._core.decode_batch([list(s) for s in sequences], _flag(skip_special_tokens))

    def token_to_id(self, token: str) -> Optional[int]:
        return self._core.token_to_id(token)

    def id_to_token(self, id: int) -> Optional[str]:
        return self._core.id_to_token(id)

    def get_vocab(self, with_added_tokens: bool = True) -> dict:
        return self._core.get_vocab(_flag(with_added_tokens))

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self._core.get_vocab(_flag(with_added_tokens)))

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return self._core.num_special_tokens_to_add(bool(is_pair))

    # Truncation and padding, as tokenizers.Tokenizer: truncation before the
    # post-processor (max_length counts its special tokens), padding after it.
    @property
    def truncation(self) -> Optional[dict]:
        t = self._settings.truncation
        if t is None:
            return None
        return dict(zip(("max_length", "stride", "strategy", "direction"), t))

    @property
    def padding(self) -> Optional[dict]:
        p = self._settings.padding
        if p is None:
            return None
        return dict(zip(("length", "pad_to_multiple_of", "pad_id", "pad_token", "pad_type_id", "direction"), p))

    def no_truncation(self) -> None:
        self._settings = self._core.with_truncation(self._settings, None)

    def no_padding(self) -> None:
        self._settings = self._core.with_padding(self._settings, None)

    def enable_truncation(
        self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right"
    ) -> None:
        """Truncates to ``max_length`` tokens (special tokens included); the rest goes
        to ``Encoding.overflowing`` in windows overlapping by ``stride``."""
        self._settings = self._core.with_truncation(self._settings, (max_length, stride, strategy, direction))

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: Optional[int] = None,
        pad_to_multiple_of: Optional[int] = None,
    ) -> None:
        """Pads to ``length``, or (``None``) to the longest of a batch, rounded up to
        ``pad_to_multiple_of``."""
        self._settings = self._core.with_padding(
            self._settings, (length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction)
        )

    @property
    def encode_special_tokens(self) -> bool:
        """As tokenizers': True leaves special added tokens in the text as plain text (they
        are not split out). A run-time flag: not saved, pickled or copied, as in HF."""
        return self._core.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        value = _flag(value)  # (a bool or NumPy bool; tokenizers' own message otherwise)
        if value != self._core.encode_special_tokens:
            self._core = self._core.with_encode_special_tokens(value)

    # Serialization, added tokens, from_pretrained (tokenizers_api/serialization.py,
    # added_tokens.py, pretrained.py).
    def to_str(self, pretty: bool = False) -> str:
        """The tokenizer.json as it is now (truncation, padding, added tokens), in HF's format."""
        return tokenizer_json(self._json, self._core, self._settings, bool(pretty))

    def save(self, path: Union[str, "os.PathLike[str]"], pretty: bool = True) -> None:
        """Writes ``to_str(pretty)`` to ``path``, whole or not at all."""
        save_tokenizer_json(path, self._json, self._core, self._settings, bool(pretty))

    def add_tokens(self, tokens: list) -> int:
        """Adds tokens (str: normalized, not special; or AddedToken); returns how many were new or changed."""
        self._core, added = self._core.with_added_tokens(added_token_options(tokens, special=False))
        return added

    def add_special_tokens(self, tokens: list) -> int:
        """As ``add_tokens``, every token made special (str: not normalized)."""
        self._core, added = self._core.with_added_tokens(added_token_options(tokens, special=True))
        return added

    def get_added_tokens_decoder(self) -> dict:
        """id -> AddedToken, by increasing id."""
        return added_tokens_decoder(self._core)

    from .training import train_tokenizer as train, train_tokenizer_from_iterator as train_from_iterator  # noqa: E402

    @classmethod
    def from_pretrained(cls, identifier: str, revision: str = "main", token: Optional[str] = None) -> "Tokenizer":
        """A hub id from the local Hugging Face cache, or a folder holding tokenizer.json;
        never downloads (``token`` is accepted and unused)."""
        return cls.from_file(pretrained_path(identifier, revision))

    def __dir__(self) -> List[str]:
        # the members it lacks are not listed (as when a __getattr__ refused them)
        return [n for n in super().__dir__() if n not in _MISSING]


# tokenizers.Tokenizer's members this version lacks (0.23.3's; docs/auto-tokenizer.md)
_MISSING = ("async_decode_batch", "async_encode", "async_encode_batch", "async_encode_batch_fast", "encode_batch_fast", "post_process")


class _Missing:
    """A tokenizers.Tokenizer member this version lacks: reading it raises NotImplementedAttribute naming it.
    Named one by one, not caught by a ``__getattr__``: a class with one has every attribute read
    (``tok.encode``, ``self._core``...) take CPython's slow lookup, ~40 ns each, three a per-text call
    (docs/benchmarks/encode-objects-45.md, round 46)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Optional[type] = None) -> Any:
        raise NotImplementedAttribute(f"bertpiece.Tokenizer.{self.name} is not implemented yet (see docs/pipeline.md)")


for _name in _MISSING:
    _member = _Missing()
    _member.__set_name__(Tokenizer, _name)
    setattr(Tokenizer, _name, _member)
del _name, _member


def _restore(json: str, *legacy: Optional[tuple]) -> Tokenizer:
    tok = Tokenizer.from_str(json)
    if legacy:  # pickles of earlier versions: (json, truncation, padding)
        tok._settings = tok._core.with_padding(tok._core.with_truncation(tok._settings, legacy[0]), legacy[1])
    return tok

"""The base of the component classes (``bertpiece.normalizers``, ``.pre_tokenizers``,
``.models``, ``.processors``, ``.decoders``): each object is the JSON it writes in a
tokenizer.json (a dict in tokenizers 0.23.3's shape), nothing more. The Rust core
compiles that JSON when the component is attached to a ``Tokenizer``, or when one
of its standalone helpers (``normalize_str``, ``pre_tokenize_str``, ``decode``) runs,
so what the core refuses (NotImplementedError naming the field) is refused there.

As in tokenizers, a component attached to a tokenizer is shared with it: setting
an attribute of ``tok.normalizer`` (or of the object assigned to it) changes the
tokenizer, which rebuilds its core from the edited JSON (slots.py).
"""

from __future__ import annotations

import json
import weakref
from typing import Any, Callable, ClassVar, Dict, List, Optional, Tuple, Type

from .._core import PipelineTokenizer as _Core
from .serialization import core_json_text

__all__ = [
    "Component", "Regex", "Normalizer", "PreTokenizer", "Model", "PostProcessor", "Decoder",
    "stage_tokenizer_json", "to_json_text",
]


def to_json_text(value: Any) -> str:
    # tokenizers writes compact JSON with non-ASCII chars as they are.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Regex:
    """A regex pattern (``tokenizers.Regex``) for ``Replace`` and ``Split``. It is
    checked when the component is used: bertpiece runs only the patterns it can
    match exactly as Oniguruma does (docs/pipeline.md) and refuses the rest."""

    def __init__(self, pattern: str) -> None:
        if not isinstance(pattern, str):
            raise TypeError(f"'{type(pattern).__name__}' object cannot be converted to 'PyString'")
        self.pattern = pattern

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def pattern_json(pattern: Any) -> Dict[str, str]:
    if isinstance(pattern, str):
        return {"String": pattern}
    if isinstance(pattern, Regex):
        return {"Regex": pattern.pattern}
    raise TypeError(f"pattern must be a str or a bertpiece.Regex, got {type(pattern).__name__}")


def check_bool(name: str, value: Any) -> bool:
    # tokenizers (PyO3) takes only real bools, never ints.
    if not isinstance(value, bool):
        raise TypeError(f"{name}: '{type(value).__name__}' object is not an instance of 'bool'")
    return value


def check_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: '{type(value).__name__}' object is not an instance of 'str'")
    return value


def check_uint(name: str, value: Any) -> int:
    # PyO3 takes any int, bools too (True is 1).
    if not isinstance(value, int):
        raise TypeError(f"{name}: '{type(value).__name__}' object cannot be interpreted as an integer")
    if value < 0:
        raise OverflowError(f"{name}: can't convert negative int to unsigned")
    return int(value)


def check_char(name: str, value: Any) -> str:
    if not isinstance(value, str) or len(value) != 1:
        raise ValueError(f"{name}: expected a string of length 1")
    return value


_MISSING = object()


class Component:
    """One pipeline component: its tokenizer.json object in ``_state``."""

    _family: ClassVar[str] = ""  # the tokenizer.json field: "normalizer", "model", ...
    _registry: ClassVar[Dict[str, Type["Component"]]]
    _type: ClassVar[str] = ""  # the JSON "type"

    _state: Dict[str, Any]
    _owners: List[Tuple["weakref.ReferenceType[Any]", str]]
    _stage_cache: Tuple[str, _Core]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "_registry" in cls.__dict__:
            return  # a family base
        if cls._type:
            cls._registry[cls._type] = cls

    def _init(self, state: Dict[str, Any]) -> None:
        self._state = state
        self._owners = []

    @classmethod
    def _lazy(cls, kind: Any, read_state: Callable[[], Dict[str, Any]]) -> Optional["Component"]:
        """The component object of JSON type ``kind``, its state read by ``read_state`` only when
        first used (transformers asks for ``backend_tokenizer.model`` on every decode to learn its
        class: a 250,000-piece model is not parsed for that); None for an unknown type."""
        sub = cls._registry.get(kind) if isinstance(kind, str) else None
        if sub is None:
            return None
        obj = sub.__new__(sub)
        obj._owners = []
        obj._read_state = read_state
        return obj

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes not set: a lazy component's state on its first use.
        read = self.__dict__.pop("_read_state", None) if name == "_state" else None
        if read is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self._state = read()
        return self._state

    @classmethod
    def _from_state(cls, state: Dict[str, Any]) -> "Component":
        """The component object for a tokenizer.json object of this family."""
        sub = cls._registry.get(state.get("type", ""), None) if isinstance(state, dict) else None
        if sub is None:
            # Only a file the core accepted gets here, so its types are known.
            raise ValueError(f"{cls._family}: no component class for {state!r}")
        obj = sub.__new__(sub)
        obj._init(state)
        return obj

    def __getstate__(self) -> bytes:
        return to_json_text(self._state).encode("utf-8")

    def __setstate__(self, state: bytes) -> None:
        self._init(json.loads(state))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._state.items() if k != "type")
        return f"{type(self).__name__}({args})"

    def _set(self, key: str, value: Any) -> None:
        """Changes one JSON field, and every tokenizer holding this component."""
        old = self._state.get(key, _MISSING)
        self._state[key] = value
        self._owners = [(ref, slot) for ref, slot in self._owners if ref() is not None]
        done = []
        try:
            for ref, slot in self._owners:
                owner = ref()
                if owner is not None:
                    owner._set_component(slot, self)
                    done.append((owner, slot))
        except BaseException:
            # A value the core refuses (e.g. BPE dropout 0.5 on an attached model):
            # the component and its tokenizers stay as they were.
            if old is _MISSING:
                del self._state[key]
            else:
                self._state[key] = old
            for owner, slot in done:
                owner._set_component(slot, self)
            raise

    def _stage_core(self, **stages: Any) -> _Core:
        """The core of a tokenizer.json with just these stages, kept while they stay the same."""
        # Keyed by plain JSON (C-speed); the exact-float JSON the core reads is made only on a change
        # (for a Precompiled charsmap it costs milliseconds, which every normalize_str paid).
        key = json.dumps(stages, ensure_ascii=False)
        cached = getattr(self, "_stage_cache", None)
        if cached is None or cached[0] != key:
            cached = (key, stage_core(stage_tokenizer_json(**stages)))
            self._stage_cache = cached
        return cached[1]

    def _bind(self, owner: Any, slot: str) -> None:
        self._owners.append((weakref.ref(owner), slot))


def attr(key: str, check: Optional[Callable[[str, Any], Any]] = None, doc: str = "") -> property:
    """A getter/setter for the JSON field ``key`` (tokenizers' attribute of that name)."""

    def get(self: Component) -> Any:
        # A component got from a file in an older form may lack the field.
        return self._state.get(key)

    def put(self: Component, value: Any) -> None:
        self._set(key, check(key, value) if check else value)

    return property(get, put, doc=doc or f"The ``{key}`` field.")


def members(family: Type[Component], items: Any, what: str) -> List[Dict[str, Any]]:
    """The JSON of a Sequence's members: a list of components of ``family``."""
    if not isinstance(items, list):
        raise TypeError(f"{what}: '{type(items).__name__}' object is not an instance of 'list'")
    out = []
    for item in items:
        if not isinstance(item, family):
            raise TypeError(f"{what}: '{type(item).__name__}' object is not an instance of '{family.__name__}'")
        out.append(item._state)
    return out


_EMPTY_UNIGRAM = {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0]], "byte_fallback": False}


def stage_tokenizer_json(**stages: Any) -> str:
    """A tokenizer.json with the given stages (JSON dicts); the model defaults to a
    Unigram holding only ``<unk>``, whose unknown runs come back as their own text —
    so encoding returns the normalized or pre-tokenized text unchanged."""
    doc: Dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": _EMPTY_UNIGRAM,
    }
    doc.update(stages)
    return core_json_text(doc)  # floats as given, when the core reads them


def stage_core(json_text: str) -> _Core:
    return _Core.from_str(json_text)


class Normalizer(Component):
    """Base class of ``bertpiece.normalizers``."""

    _family = "normalizer"
    _registry: ClassVar[Dict[str, Type[Component]]] = {}

    def normalize_str(self, sequence: str) -> str:
        """The normalized text, as tokenizers' ``normalize_str``."""
        core = self._stage_core(normalizer=self._state)
        return "".join(core_encode(core, check_str("sequence", sequence)).tokens)


class PreTokenizer(Component):
    """Base class of ``bertpiece.pre_tokenizers``."""

    _family = "pre_tokenizer"
    _registry: ClassVar[Dict[str, Type[Component]]] = {}

    def pre_tokenize_str(self, sequence: str) -> List[Tuple[str, Tuple[int, int]]]:
        """The pieces and their char offsets, as tokenizers' ``pre_tokenize_str``."""
        core = self._stage_core(pre_tokenizer=self._state)
        enc = core_encode(core, check_str("sequence", sequence))
        out: List[Tuple[str, Tuple[int, int]]] = []
        last = None
        # A word the Unigram split (e.g. at a literal "<unk>") is joined back.
        for token, (start, end), word in zip(enc.tokens, enc.offsets, enc.word_ids):
            if word == last and out:
                text, (s, _) = out[-1]
                out[-1] = (text + token, (s, end))
            else:
                out.append((token, (start, end)))
            last = word
        if not out and sequence == "" and _splits_nothing(self._state):
            # tokenizers' PreTokenizedString starts as one piece, dropped only when a
            # pre-tokenizer splits it: an empty Sequence keeps the empty text's piece.
            return [("", (0, 0))]
        return out


def _splits_nothing(state: Dict[str, Any]) -> bool:
    return state.get("type") == "Sequence" and all(_splits_nothing(p) for p in state.get("pretokenizers", []))


class Model(Component):
    """Base class of ``bertpiece.models``."""

    _family = "model"
    _registry: ClassVar[Dict[str, Type[Component]]] = {}

    # tokenizers' other Model methods, not here yet: said clearly.
    def tokenize(self, sequence: str) -> Any:
        raise NotImplementedError("bertpiece.models: Model.tokenize is not implemented yet (encode with a Tokenizer)")

    def save(self, folder: str, prefix: Optional[str] = None) -> Any:
        raise NotImplementedError("bertpiece.models: Model.save is not implemented yet")

    def get_trainer(self) -> Any:
        """The trainer of this model type with HF's defaults (``bertpiece.trainers``)."""
        from ..trainers_default import default_trainer

        return default_trainer(self._state["type"])


class PostProcessor(Component):
    """Base class of ``bertpiece.processors``."""

    _family = "post_processor"
    _registry: ClassVar[Dict[str, Type[Component]]] = {}


class Decoder(Component):
    """Base class of ``bertpiece.decoders``."""

    _family = "decoder"
    _registry: ClassVar[Dict[str, Type[Component]]] = {}

    def decode(self, tokens: List[str]) -> str:
        """The text of ``tokens``, as tokenizers' ``Decoder.decode``."""
        if not isinstance(tokens, list):
            raise TypeError(f"tokens: '{type(tokens).__name__}' object is not an instance of 'list'")
        vocab: Dict[str, int] = {}
        for t in tokens:
            vocab.setdefault(check_str("tokens", t), len(vocab))
        model = {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"}
        core = stage_core(stage_tokenizer_json(decoder=self._state, model=model))
        return core.decode([vocab[t] for t in tokens], False)


def core_encode(core: _Core, text: str) -> Any:
    return core.encode(([text], None), False, False, core.stored_settings())

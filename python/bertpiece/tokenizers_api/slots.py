"""``Tokenizer``'s component properties (``model``, ``normalizer``, ``pre_tokenizer``,
``post_processor``, ``decoder``), as tokenizers.Tokenizer's, and the one method
that rebuilds the core from an edited tokenizer.json."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Type

from .. import _core as _core_module
from .._core import PipelineTokenizer as _Core
from .components import Component, Decoder, Model, Normalizer, PostProcessor, PreTokenizer
from .serialization import core_json_text, serde_float

__all__ = ["ComponentSlots", "exact_member"]


def exact_member(text: str, key: str) -> Any:
    """The top-level member ``key`` of the JSON object ``text`` with the values the core holds
    (serde_json reads some float literals an ulp off, as tokenizers does): the core's pass gives the
    member alone, its floats in digits float() reads back; text that pass does not follow is read
    whole in Python (serde_float)."""
    try:
        value = _core_module.json_top_level_values(text, [key], False)[0]
        return None if value is None else json.loads(value)
    except ValueError:
        return json.loads(text, parse_float=serde_float).get(key)


# The classes register themselves in these families' registries when bertpiece's
# __init__ imports bertpiece.normalizers, .models, ... (before any Tokenizer exists).
SLOTS: Dict[str, Type[Component]] = {
    "normalizer": Normalizer, "pre_tokenizer": PreTokenizer, "model": Model,
    "post_processor": PostProcessor, "decoder": Decoder,
}


def _from_hf_component(family: Type[Component], value: Any) -> Any:
    """An HF tokenizers component (what transformers assigns, e.g. its TemplateProcessing) as
    bertpiece's of the same JSON; one of another family is left for the TypeError below."""
    try:
        state = json.loads(value.__getstate__(), parse_float=serde_float)
    except (AttributeError, TypeError, ValueError):
        return value
    try:
        return family._from_state(state)
    except (KeyError, TypeError, ValueError):
        return value


class ComponentSlots:
    """``Tokenizer``'s component properties, as tokenizers.Tokenizer's: get returns
    the component (shared with the tokenizer); set rebuilds the core from the
    edited JSON (truncation, padding and added tokens kept); ``= None`` removes a
    stage (not the model)."""

    _json: str
    _core: _Core
    _settings: Any

    def to_str(self, pretty: bool = False) -> str: ...

    def _replace_json(self, text: str) -> None:
        """The one place the core is rebuilt: a new core from ``text``, a whole
        tokenizer.json (its truncation, padding and added tokens are the ones used)."""
        core = _Core.from_str(text)
        if self._core.encode_special_tokens:  # a run-time flag, not in the file: kept, as HF keeps it
            core = core.with_encode_special_tokens(True)
        self._core, self._json, self._settings = core, text, core.stored_settings()

    def _component(self, slot: str) -> Optional[Component]:
        kinds = self._slot_kinds()
        if kinds.get(slot) is None:
            return None
        text = self._json
        obj = SLOTS[slot]._lazy(kinds[slot], lambda: exact_member(text, slot))
        if obj is None:  # no "type" or an unknown one: made now, so the error is raised now
            obj = SLOTS[slot]._from_state(exact_member(text, slot))
        obj._bind(self, slot)
        return obj

    def _slot_kinds(self) -> Dict[str, Any]:
        """Each stage's JSON "type" ("" for a stage without one, None for none), read once per
        tokenizer.json text (plain C-speed parsing: only the types are kept)."""
        cached = self.__dict__.get("_kinds_cache")
        if cached is None or cached[0] is not self._json:
            doc = json.loads(self._json)
            kinds = {slot: None if doc.get(slot) is None else
                     doc[slot].get("type", "") if isinstance(doc[slot], dict) else "" for slot in SLOTS}
            cached = (self._json, kinds)
            self._kinds_cache = cached
        return cached[1]

    def _set_component(self, slot: str, value: Optional[Component]) -> None:
        # to_str: the tokenizer as it is now, with tokens added and settings made since loading.
        doc = json.loads(self.to_str())
        doc[slot] = None if value is None else value._state
        self._replace_json(core_json_text(doc))

    def _assign(self, slot: str, value: Any) -> None:
        family = SLOTS[slot]
        if value is None and slot != "model":
            self._set_component(slot, None)
            return
        if not isinstance(value, family) and type(value).__module__.split(".")[0] == "tokenizers":
            value = _from_hf_component(family, value)
        if not isinstance(value, family):
            raise TypeError(f"'{type(value).__name__}' object is not an instance of '{family.__name__}'")
        self._set_component(slot, value)
        value._bind(self, slot)

    @property
    def normalizer(self) -> Optional[Normalizer]:
        return self._component("normalizer")  # type: ignore[return-value]

    @normalizer.setter
    def normalizer(self, value: Optional[Normalizer]) -> None:
        self._assign("normalizer", value)

    @property
    def pre_tokenizer(self) -> Optional[PreTokenizer]:
        return self._component("pre_tokenizer")  # type: ignore[return-value]

    @pre_tokenizer.setter
    def pre_tokenizer(self, value: Optional[PreTokenizer]) -> None:
        self._assign("pre_tokenizer", value)

    @property
    def model(self) -> Model:
        return self._component("model")  # type: ignore[return-value]

    @model.setter
    def model(self, value: Model) -> None:
        self._assign("model", value)

    @property
    def post_processor(self) -> Optional[PostProcessor]:
        return self._component("post_processor")  # type: ignore[return-value]

    @post_processor.setter
    def post_processor(self, value: Optional[PostProcessor]) -> None:
        self._assign("post_processor", value)

    @property
    def decoder(self) -> Optional[Decoder]:
        return self._component("decoder")  # type: ignore[return-value]

    @decoder.setter
    def decoder(self, value: Optional[Decoder]) -> None:
        self._assign("decoder", value)

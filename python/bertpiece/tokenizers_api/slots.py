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

__all__ = ["ComponentSlots"]

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
        # The values the core holds: serde_json reads some literals an ulp off, as tokenizers does.
        try:  # the slot alone, its floats as serde_json read them (repr digits: float() gives them back)
            text = _core_module.json_top_level_values(self._json, [slot], False)[0]
            state = None if text is None else json.loads(text)
        except ValueError:  # text the core's pass does not follow: Python's reading
            state = json.loads(self._json, parse_float=serde_float).get(slot)
        if state is None:
            return None
        obj = SLOTS[slot]._from_state(state)
        obj._bind(self, slot)
        return obj

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

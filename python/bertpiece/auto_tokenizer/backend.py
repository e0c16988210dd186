"""The one step that puts bertpiece under a transformers tokenizer object, and the
``bertpiece.Tokenizer`` it puts there."""

from __future__ import annotations

from typing import Any

from ..tokenizers_api import Tokenizer
from ..tokenizers_api.serialization import exact_float_json

__all__ = ["TransformersBackend", "swap_backend"]


class TransformersBackend(Tokenizer):
    """``bertpiece.Tokenizer`` as transformers' ``_tokenizer``: its added tokens are handed
    back as ``tokenizers.AddedToken``, the class transformers compares them with (``==``,
    ``in``, ``isinstance``) — bertpiece's own AddedToken is never equal to one."""

    def get_added_tokens_decoder(self) -> dict:
        from tokenizers import AddedToken as HfAddedToken

        return {i: HfAddedToken(t.content, single_word=t.single_word, lstrip=t.lstrip, rstrip=t.rstrip,
                                normalized=t.normalized, special=t.special)
                for i, t in super().get_added_tokens_decoder().items()}

    def __reduce__(self) -> tuple:
        return (_restore_backend, (self.to_str(),))


def _restore_backend(json: str) -> TransformersBackend:
    return TransformersBackend.from_str(json)


def swap_backend(tok: Any) -> None:
    """`tok._tokenizer` (HF tokenizers) replaced by a bertpiece.Tokenizer of the same tokenizer.json
    (NotImplementedError naming a component bertpiece does not run)."""
    backend = tok._tokenizer
    if not isinstance(backend, Tokenizer):
        # The backend's own float values: transformers builds Unigram models from exact Python
        # floats, which a plain JSON round trip through serde would read an ulp off. HF's text
        # goes to the core as it is but for those literals (a 250k vocabulary: no Python objects).
        ours = TransformersBackend.from_str(exact_float_json(backend.to_str()))
        ours.encode_special_tokens = bool(backend.encode_special_tokens)
        tok._tokenizer = ours

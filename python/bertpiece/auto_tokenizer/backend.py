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
        encode_special_tokens = bool(backend.encode_special_tokens)
        text = exact_float_json(backend.to_str())
        # HF's model is freed before the core builds its own, which reuses that memory: the
        # two are never alive at once (the load's peak stays transformers' own).
        tok._tokenizer = None
        del backend
        try:
            ours = TransformersBackend.from_str(text)
        except BaseException:
            tok._tokenizer = _hf_backend(text, encode_special_tokens)
            raise
        del text
        ours.encode_special_tokens = encode_special_tokens
        tok._tokenizer = ours


def _hf_backend(text: str, encode_special_tokens: bool) -> Any:
    """HF's backend again, as its pickle would give it back (``to_str`` and ``from_str``; the
    floats as `exact_float_json` wrote them, which serde reads as the values HF held), for an
    object whose swap failed (a component bertpiece does not run): left as transformers made it."""
    from tokenizers import Tokenizer as HfTokenizer

    backend = HfTokenizer.from_str(text)
    backend.encode_special_tokens = encode_special_tokens
    return backend

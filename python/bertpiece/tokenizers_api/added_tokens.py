"""``Tokenizer.add_tokens`` / ``add_special_tokens`` / ``get_added_tokens_decoder``
as tokenizers 0.23.3 has them. The compiled core never changes: adding
tokens builds a new one (ids assigned by HF's ``AddedVocabulary`` rules, in
src/pipeline_added.rs), which the ``Tokenizer`` then holds."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from .added_token import AddedToken

__all__ = ["added_token_options", "added_tokens_decoder"]

_LIST_ERROR = "Input must be a List[Union[str, AddedToken]]"
_FIELDS = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")


def _is_added_token(x: Any) -> bool:
    # bertpiece's AddedToken, or tokenizers' (transformers passes those).
    return isinstance(x, AddedToken) or (type(x).__name__ == "AddedToken" and all(hasattr(x, f) for f in _FIELDS))


def added_token_options(tokens: Any, special: bool) -> List[Tuple[str, bool, bool, bool, bool, bool]]:
    """The core's (content, single_word, lstrip, rstrip, normalized, special) of
    each of `tokens`, made as tokenizers makes them: a str is a token with the
    defaults (special as asked); an AddedToken keeps its options, but
    `add_special_tokens` first sets ``special = True`` on it (the caller's
    object changes, as in tokenizers)."""
    if not isinstance(tokens, list):
        raise TypeError(f"tokens: '{type(tokens).__name__}' object is not an instance of 'list'")
    out = []
    for t in tokens:
        if isinstance(t, str):
            out.append((t, False, False, False, not special, special))
        elif _is_added_token(t):
            if special:
                t.special = True
            out.append(tuple(getattr(t, f) for f in _FIELDS))
        else:
            raise TypeError(_LIST_ERROR)
    return out


def added_tokens_decoder(core: Any) -> Dict[int, AddedToken]:
    """id -> AddedToken (every option given), by increasing id."""
    out = {}
    for id_, (content, single_word, lstrip, rstrip, normalized, special) in core.added_tokens():
        out[id_] = AddedToken(
            content, single_word=single_word, lstrip=lstrip, rstrip=rstrip, normalized=normalized, special=special
        )
    return out

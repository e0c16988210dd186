"""``bertpiece.normalizers``: tokenizers 0.23.3's normalizer classes, with its names,
arguments, defaults, attributes and JSON (see bertpiece.tokenizers_api.components)."""

from __future__ import annotations

import base64
from typing import Any, List, Optional, Union

from .tokenizers_api.components import (
    Normalizer, Regex, attr, check_bool, check_str, members, pattern_json, stage_core, stage_tokenizer_json,
)

__all__ = [
    "Normalizer", "BertNormalizer", "ByteLevel", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "Nmt",
    "Precompiled", "Prepend", "Replace", "Sequence", "Strip", "StripAccents",
]


def _opt_bool(name: str, value: Any) -> Optional[bool]:
    return None if value is None else check_bool(name, value)


class BertNormalizer(Normalizer):
    _type = "BertNormalizer"

    def __init__(
        self, clean_text: bool = True, handle_chinese_chars: bool = True,
        strip_accents: Optional[bool] = None, lowercase: bool = True,
    ) -> None:
        self._init({
            "type": self._type, "clean_text": check_bool("clean_text", clean_text),
            "handle_chinese_chars": check_bool("handle_chinese_chars", handle_chinese_chars),
            "strip_accents": _opt_bool("strip_accents", strip_accents), "lowercase": check_bool("lowercase", lowercase),
        })

    clean_text = attr("clean_text", check_bool)
    handle_chinese_chars = attr("handle_chinese_chars", check_bool)
    strip_accents = attr("strip_accents", _opt_bool)
    lowercase = attr("lowercase", check_bool)


class _Plain(Normalizer):
    """A normalizer without arguments."""

    def __init__(self) -> None:
        self._init({"type": self._type})


class ByteLevel(_Plain):
    _type = "ByteLevel"


class Lowercase(_Plain):
    _type = "Lowercase"


class NFC(_Plain):
    _type = "NFC"


class NFD(_Plain):
    _type = "NFD"


class NFKC(_Plain):
    _type = "NFKC"


class NFKD(_Plain):
    _type = "NFKD"


class Nmt(_Plain):
    _type = "Nmt"


class StripAccents(_Plain):
    _type = "StripAccents"


class Strip(Normalizer):
    _type = "Strip"

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self._init({"type": self._type, "strip_left": check_bool("left", left), "strip_right": check_bool("right", right)})

    left = attr("strip_left", check_bool)
    right = attr("strip_right", check_bool)


class Prepend(Normalizer):
    _type = "Prepend"

    def __init__(self, prepend: str = "\u2581") -> None:
        self._init({"type": self._type, "prepend": check_str("prepend", prepend)})

    prepend = attr("prepend", check_str)


def _no_pattern(self: Any) -> Any:
    raise Exception("Cannot get pattern")  # as tokenizers: the pattern is neither read nor set


def _fixed_pattern(kind: str) -> Any:
    def refuse(self: Any, value: Any) -> None:
        raise Exception(f"Cannot set pattern, please instantiate a new {kind} pattern instead")

    return refuse


class Replace(Normalizer):
    _type = "Replace"

    def __init__(self, pattern: Union[str, Regex], content: str) -> None:
        self._init({"type": self._type, "pattern": pattern_json(pattern), "content": check_str("content", content)})

    pattern = property(_no_pattern, _fixed_pattern("replace"))
    content = attr("content", check_str)


class Precompiled(Normalizer):
    """sentencepiece's charsmap; checked when built (ValueError naming
    ``precompiled_charsmap`` where tokenizers raises Exception)."""

    _type = "Precompiled"

    def __init__(self, precompiled_charsmap: Any) -> None:
        if isinstance(precompiled_charsmap, str):
            raise TypeError("Can't extract `str` to `Vec`")
        try:
            raw = bytes(precompiled_charsmap)
        except (TypeError, ValueError) as e:
            raise TypeError(f"precompiled_charsmap must be bytes or a list of ints in 0..=255: {e}") from None
        self._init({"type": self._type, "precompiled_charsmap": base64.b64encode(raw).decode("ascii")})
        stage_core(stage_tokenizer_json(normalizer=self._state))  # refuses a malformed charsmap now


class Sequence(Normalizer):
    _type = "Sequence"

    def __init__(self, normalizers: List[Normalizer]) -> None:
        self._init({"type": self._type, "normalizers": members(Normalizer, normalizers, "normalizers")})

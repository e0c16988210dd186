"""``bertpiece.decoders``: tokenizers 0.23.3's decoder classes, with its names,
arguments, defaults, attributes and JSON (see bertpiece.tokenizers_api.components).
``Replace`` with a ``Regex`` is refused when used (NotImplementedError)."""

from __future__ import annotations

from typing import Any, List, Union

from .pre_tokenizers import MetaspaceOptions
from .tokenizers_api.components import (
    Decoder, Regex, attr, check_bool, check_char, check_str, check_uint, members, pattern_json,
)

__all__ = [
    "Decoder", "BPEDecoder", "ByteFallback", "ByteLevel", "CTC", "Fuse", "Metaspace", "Replace", "Sequence",
    "Strip", "WordPiece",
]


class BPEDecoder(Decoder):
    _type = "BPEDecoder"

    def __init__(self, suffix: str = "</w>") -> None:
        self._init({"type": self._type, "suffix": check_str("suffix", suffix)})

    suffix = attr("suffix", check_str)


class ByteFallback(Decoder):
    _type = "ByteFallback"

    def __init__(self) -> None:
        self._init({"type": self._type})


class Fuse(Decoder):
    _type = "Fuse"

    def __init__(self) -> None:
        self._init({"type": self._type})


class ByteLevel(Decoder):
    _type = "ByteLevel"

    def __init__(self, **kwargs: Any) -> None:
        # tokenizers takes and ignores keyword arguments here.
        self._init({"type": self._type, "add_prefix_space": True, "trim_offsets": True, "use_regex": True})


class CTC(Decoder):
    _type = "CTC"

    def __init__(self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True) -> None:
        self._init({
            "type": self._type, "pad_token": check_str("pad_token", pad_token),
            "word_delimiter_token": check_str("word_delimiter_token", word_delimiter_token),
            "cleanup": check_bool("cleanup", cleanup),
        })

    pad_token = attr("pad_token", check_str)
    word_delimiter_token = attr("word_delimiter_token", check_str)
    cleanup = attr("cleanup", check_bool)


class Metaspace(MetaspaceOptions, Decoder):
    pass


class Replace(Decoder):
    _type = "Replace"

    def __init__(self, pattern: Union[str, Regex], content: str) -> None:
        self._init({"type": self._type, "pattern": pattern_json(pattern), "content": check_str("content", content)})


class Strip(Decoder):
    _type = "Strip"

    def __init__(self, content: str = " ", left: int = 0, right: int = 0) -> None:
        self._init({
            "type": self._type, "content": check_char("content", content),
            "start": check_uint("left", left), "stop": check_uint("right", right),
        })

    content = attr("content", check_char)
    start = attr("start", check_uint)
    stop = attr("stop", check_uint)


class WordPiece(Decoder):
    _type = "WordPiece"

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self._init({"type": self._type, "prefix": check_str("prefix", prefix), "cleanup": check_bool("cleanup", cleanup)})

    prefix = attr("prefix", check_str)
    cleanup = attr("cleanup", check_bool)


class Sequence(Decoder):
    _type = "Sequence"

    def __init__(self, decoders: List[Decoder]) -> None:
        self._init({"type": self._type, "decoders": members(Decoder, decoders, "decoders")})

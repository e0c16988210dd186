"""``bertpiece.pre_tokenizers``: tokenizers 0.23.3's pre-tokenizer classes, with its
names, arguments, defaults, attributes and JSON (see
bertpiece.tokenizers_api.components). ``FixedLength`` is
refused when constructed (NotImplementedError)."""

from __future__ import annotations

from typing import Any, List, Union

from .tokenizers_api.components import (
    PreTokenizer, Regex, attr, check_bool, check_char, check_str, members, pattern_json,
)

__all__ = [
    "PreTokenizer", "BertPreTokenizer", "ByteLevel", "CharDelimiterSplit", "Digits", "FixedLength", "Metaspace",
    "Punctuation", "Sequence", "Split", "UnicodeScripts", "Whitespace", "WhitespaceSplit",
]

_BEHAVIORS = {
    "removed": "Removed", "isolated": "Isolated", "merged_with_previous": "MergedWithPrevious",
    "merged_with_next": "MergedWithNext", "contiguous": "Contiguous",
}


def _behavior(name: str, value: Any) -> str:
    if value not in _BEHAVIORS:
        raise ValueError(
            "Wrong value for SplitDelimiterBehavior, expected one of: "
            "`removed, isolated, merged_with_previous, merged_with_next, contiguous`"
        )
    return _BEHAVIORS[value]


def _prepend_scheme(name: str, value: Any) -> str:
    if value not in ("first", "never", "always"):
        raise ValueError(f"{value} is an unknown variant, should be one of ['first', 'never', 'always']")
    return str(value)


def _behavior_property() -> property:
    # tokenizers reports the variant's name lowercased: "mergedwithnext".
    return property(
        lambda self: self._state["behavior"].lower(),
        lambda self, v: self._set("behavior", _behavior("behavior", v)),
    )


class _Plain(PreTokenizer):
    def __init__(self) -> None:
        self._init({"type": self._type})


class BertPreTokenizer(_Plain):
    _type = "BertPreTokenizer"


class Whitespace(_Plain):
    _type = "Whitespace"


class WhitespaceSplit(_Plain):
    _type = "WhitespaceSplit"


def _bytes_to_unicode() -> List[str]:
    # GPT-2's map: printable bytes stand for themselves, the rest from U+0100 on.
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    out, extra = [], 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out


class ByteLevel(PreTokenizer):
    _type = "ByteLevel"

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self._init({
            "type": self._type, "add_prefix_space": check_bool("add_prefix_space", add_prefix_space),
            "trim_offsets": check_bool("trim_offsets", trim_offsets), "use_regex": check_bool("use_regex", use_regex),
        })

    add_prefix_space = attr("add_prefix_space", check_bool)
    trim_offsets = attr("trim_offsets", check_bool)
    use_regex = attr("use_regex", check_bool)

    @staticmethod
    def alphabet() -> List[str]:
        """The 256 chars bytes map to."""
        return _bytes_to_unicode()


class CharDelimiterSplit(PreTokenizer):
    _type = "CharDelimiterSplit"

    def __init__(self, delimiter: str) -> None:
        self._init({"type": self._type, "delimiter": check_char("delimiter", delimiter)})

    delimiter = attr("delimiter", check_char)


class Digits(PreTokenizer):
    _type = "Digits"

    def __init__(self, individual_digits: bool = False) -> None:
        self._init({"type": self._type, "individual_digits": check_bool("individual_digits", individual_digits)})

    individual_digits = attr("individual_digits", check_bool)


class MetaspaceOptions:
    """Metaspace's arguments and attributes: the pre-tokenizer's and the decoder's are the same."""

    _type = "Metaspace"
    _init: Any

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        # As tokenizers: argument types first, then prepend_scheme's value.
        state = {
            "type": self._type, "replacement": check_char("replacement", replacement),
            "prepend_scheme": check_str("prepend_scheme", prepend_scheme), "split": check_bool("split", split),
        }
        _prepend_scheme("prepend_scheme", prepend_scheme)
        self._init(state)

    replacement = attr("replacement", check_char)
    prepend_scheme = attr("prepend_scheme", _prepend_scheme)
    split = attr("split", check_bool)


class Metaspace(MetaspaceOptions, PreTokenizer):
    pass


class Punctuation(PreTokenizer):
    _type = "Punctuation"

    def __init__(self, behavior: str = "isolated") -> None:
        self._init({"type": self._type, "behavior": _behavior("behavior", behavior)})

    behavior = _behavior_property()


def _no_pattern(self: Any) -> Any:
    raise Exception("Cannot get pattern")  # as tokenizers: the pattern is neither read nor set


def _fixed_pattern(kind: str) -> Any:
    def refuse(self: Any, value: Any) -> None:
        raise Exception(f"Cannot set pattern, please instantiate a new {kind} pattern instead")

    return refuse


class Split(PreTokenizer):
    _type = "Split"

    def __init__(self, pattern: Union[str, Regex], behavior: str, invert: bool = False) -> None:
        self._init({
            "type": self._type, "pattern": pattern_json(pattern), "behavior": _behavior("behavior", behavior),
            "invert": check_bool("invert", invert),
        })

    pattern = property(_no_pattern, _fixed_pattern("split"))
    behavior = _behavior_property()
    invert = attr("invert", check_bool)


class Sequence(PreTokenizer):
    _type = "Sequence"

    def __init__(self, pretokenizers: List[PreTokenizer]) -> None:
        self._init({"type": self._type, "pretokenizers": members(PreTokenizer, pretokenizers, "pretokenizers")})


class UnicodeScripts(_Plain):
    _type = "UnicodeScripts"


class FixedLength(PreTokenizer):
    """Refused: bertpiece does not implement it."""

    def __init__(self, length: int = 5) -> None:
        raise NotImplementedError('pre_tokenizer.type: unsupported "FixedLength"')

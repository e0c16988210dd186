"""``bertpiece.processors``: tokenizers 0.23.3's post-processor classes, with its
names, arguments, defaults, attributes and JSON (see
bertpiece.tokenizers_api.components)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple, Union

from .tokenizers_api.components import PostProcessor, attr, check_bool, check_str, check_uint, members

__all__ = ["PostProcessor", "BertProcessing", "ByteLevel", "RobertaProcessing", "Sequence", "TemplateProcessing"]


def _special(name: str, value: Any) -> List[Any]:
    # A (token, id) tuple, stored as a JSON list.
    if not isinstance(value, tuple):
        raise TypeError(f"{name}: '{type(value).__name__}' object is not an instance of 'tuple'")
    if len(value) != 2 or not isinstance(value[0], str):
        raise TypeError(f"{name}: expected a tuple (str, int), got {value!r}")
    return [value[0], check_uint(name, value[1])]


def _special_property(key: str) -> property:
    return property(lambda self: tuple(self._state[key]), lambda self, v: self._set(key, _special(key, v)))


class BertProcessing(PostProcessor):
    _type = "BertProcessing"

    def __init__(self, sep: Tuple[str, int], cls: Tuple[str, int]) -> None:
        self._init({"type": self._type, "sep": _special("sep", sep), "cls": _special("cls", cls)})

    sep = _special_property("sep")
    cls = _special_property("cls")


class RobertaProcessing(PostProcessor):
    _type = "RobertaProcessing"

    def __init__(
        self, sep: Tuple[str, int], cls: Tuple[str, int], trim_offsets: bool = True, add_prefix_space: bool = True
    ) -> None:
        self._init({
            "type": self._type, "sep": _special("sep", sep), "cls": _special("cls", cls),
            "trim_offsets": check_bool("trim_offsets", trim_offsets),
            "add_prefix_space": check_bool("add_prefix_space", add_prefix_space),
        })

    sep = _special_property("sep")
    cls = _special_property("cls")
    trim_offsets = attr("trim_offsets", check_bool)
    add_prefix_space = attr("add_prefix_space", check_bool)


def _opt_bool_true(name: str, value: Any) -> bool:
    return True if value is None else check_bool(name, value)


class ByteLevel(PostProcessor):
    _type = "ByteLevel"

    def __init__(
        self, add_prefix_space: Optional[bool] = None, trim_offsets: Optional[bool] = None,
        use_regex: Optional[bool] = None,
    ) -> None:
        self._init({
            "type": self._type, "add_prefix_space": _opt_bool_true("add_prefix_space", add_prefix_space),
            "trim_offsets": _opt_bool_true("trim_offsets", trim_offsets),
            "use_regex": _opt_bool_true("use_regex", use_regex),
        })

    add_prefix_space = attr("add_prefix_space", check_bool)
    trim_offsets = attr("trim_offsets", check_bool)
    use_regex = attr("use_regex", check_bool)


_U32 = re.compile(r"\+?[0-9]+")  # Rust's u32 parse: ASCII digits, an optional "+"


def _type_id(text: str) -> Optional[int]:
    if _U32.fullmatch(text) and int(text) < 2**32:
        return int(text)
    return None


def _piece(text: str) -> Dict[str, Any]:
    """One template piece as tokenizers parses it: ``$A``/``$B``/``$``/``$N`` (type id N)
    or a special token, each with an optional ``:type_id`` that wins."""
    parts = text.split(":")
    bad = ValueError(f'Cannot build Piece from string "{text}"')
    if len(parts) > 2:
        raise bad
    head = parts[0]
    if not head.startswith("$"):
        kind, id, type_id = "SpecialToken", head, 0
    elif head[1:] in ("", "A", "a"):
        kind, id, type_id = "Sequence", "A", 0
    elif head[1:] in ("B", "b"):
        kind, id, type_id = "Sequence", "B", 0
    else:
        n = _type_id(head[1:])
        if n is None:
            raise bad
        kind, id, type_id = "Sequence", "A", n
    if len(parts) == 2:
        explicit = _type_id(parts[1])
        if explicit is None:
            raise bad
        type_id = explicit
    return {kind: {"id": id, "type_id": type_id}}


def _template(name: str, value: Union[str, List[str]]) -> List[Dict[str, Any]]:
    if isinstance(value, str):
        items = value.split(" ")
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = value
    else:
        raise TypeError(f"{name}: expected a str or a list of str")
    return [_piece(p) for p in items]


def _special_tokens(value: Any) -> Dict[str, Dict[str, Any]]:
    out: Dict[str, Dict[str, Any]] = {}
    if not isinstance(value, list):
        raise TypeError(f"special_tokens: '{type(value).__name__}' object is not an instance of 'list'")
    for item in value:
        if isinstance(item, dict):
            if "id" not in item:
                raise ValueError("`id` must be specified")
            if "ids" not in item:
                raise ValueError("`ids` must be specified")
            if "tokens" not in item:
                raise ValueError("`tokens` must be specified")
            ids = [check_uint("ids", i) for i in item["ids"]]
            tokens = [check_str("tokens", t) for t in item["tokens"]]
            if len(ids) != len(tokens):
                raise ValueError("SpecialToken: ids and tokens must be of the same length")
            out[check_str("id", item["id"])] = {"id": item["id"], "ids": ids, "tokens": tokens}
            continue
        if isinstance(item, tuple) and len(item) == 2:
            token, id = item if isinstance(item[0], str) else (item[1], item[0])
            if isinstance(token, str) and isinstance(id, int) and not isinstance(id, bool) and 0 <= id < 2**32:
                out[token] = {"id": token, "ids": [id], "tokens": [token]}
                continue
        raise TypeError("Expected Union[Tuple[str, int], Tuple[int, str], dict]")
    return out


def _check_template(single: List[Dict[str, Any]], pair: List[Dict[str, Any]], specials: Dict[str, Any]) -> None:
    seqs = {p["Sequence"]["id"] for p in pair if "Sequence" in p}
    if seqs != {"A", "B"}:
        raise ValueError("Template for `pair` must use both sequences")
    missing = [p["SpecialToken"]["id"] for p in single + pair if "SpecialToken" in p]
    missing = [m for k, m in enumerate(missing) if m not in specials and m not in missing[:k]]
    if missing:
        # tokenizers' order here is a hash set's; the ids are the same.
        raise ValueError(f"Missing SpecialToken(s) with id(s) `{', '.join(missing)}`")


def _template_repr(pieces: List[Dict[str, Any]]) -> str:
    # tokenizers' getter returns the Rust Debug text of the template.
    def one(p: Dict[str, Any]) -> str:
        if "Sequence" in p:
            return f"Sequence {{ id: {p['Sequence']['id']}, type_id: {p['Sequence']['type_id']} }}"
        return f"SpecialToken {{ id: \"{p['SpecialToken']['id']}\", type_id: {p['SpecialToken']['type_id']} }}"

    return "Template([" + ", ".join(one(p) for p in pieces) + "])"


class TemplateProcessing(PostProcessor):
    _type = "TemplateProcessing"

    def __init__(
        self, single: Union[str, List[str], None] = None, pair: Union[str, List[str], None] = None,
        special_tokens: Optional[List[Any]] = None,
    ) -> None:
        one = _template("single", single) if single is not None else [{"Sequence": {"id": "A", "type_id": 0}}]
        two = _template("pair", pair) if pair is not None else [
            {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
        ]
        specials = _special_tokens([] if special_tokens is None else special_tokens)
        _check_template(one, two, specials)
        self._init({"type": self._type, "single": one, "pair": two, "special_tokens": specials})

    @property
    def single(self) -> str:
        return _template_repr(self._state["single"])

    @single.setter
    def single(self, value: Union[str, List[str]]) -> None:
        # tokenizers checks the special tokens only in the constructor.
        self._set("single", _template("single", value))


class Sequence(PostProcessor):
    _type = "Sequence"

    def __init__(self, processors: List[PostProcessor]) -> None:
        self._init({"type": self._type, "processors": members(PostProcessor, processors, "processors")})

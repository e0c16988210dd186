"""``Tokenizer.to_str`` / ``save``: the tokenizer.json of a tokenizer as it is
now, in tokenizers 0.23.3's format (serde_json: its key order, compact or
2-space pretty, non-ASCII written as is, its float notation).

The components (normalizer, pre-tokenizer, model, post-processor, decoder) are
written as the loaded file gave them; the top level is rebuilt in HF's order
with the current truncation, padding and added tokens. For a file that came
from HF's own ``to_str``/``save`` the output is byte for byte HF's. HF
re-serializes components from its parsed objects, so for a hand-written file
(omitted defaults, other key order, legacy forms) HF's output fills those in
and ours keeps them as written: both load back to the same tokenizer
(docs/pipeline.md).
"""

from __future__ import annotations

import functools
import json
import math
import re
from fractions import Fraction
from typing import Any, Optional

from .. import _core
from .._atomic_write import write_file_atomically, write_text_atomically

__all__ = ["tokenizer_json", "save_tokenizer_json", "core_json_text", "exact_float_json", "serde_float", "serde_exact_literal"]

_U64_MAX = 2**64 - 1
_I32_MAX = 2**31 - 1
_POW10 = [float(f"1e{k}") for k in range(309)]
_NUMBER = re.compile(r"(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?)(\d+))?$")

_ADDED_FIELDS = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")
_PARTS = ("normalizer", "pre_tokenizer", "post_processor", "decoder", "model")

# A JSON string (skipped) or a number in exponent notation (rewritten).
_JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # runs between escapes, not char by char (a charsmap is ~200 KB)
_STRING_OR_EXPONENT = re.compile(_JSON_STRING + r'|(-?\d+(?:\.\d+)?)e([-+])(\d+)')


def serde_float(literal: str) -> float:
    """The f64 serde_json 1.0 (without its `float_roundtrip` feature, as
    tokenizers and bertpiece build it) reads from a JSON number with a
    fraction or exponent: the digits that fit in a u64 (the rest only move the
    exponent, or are dropped after the point), times or over a power of ten,
    rounded at each step. Not always the nearest f64 to the text (Python's
    float() is): "-7.3246283531188965" reads as -7.324628353118896."""
    m = _NUMBER.match(literal)
    if m is None:  # json.loads gives only JSON numbers
        raise ValueError(f"not a JSON number: {literal!r}")
    sign, integer, fraction, exp_sign, exp_digits = m.groups()
    fraction = fraction or ""
    if len(integer) + len(fraction) <= 19:  # < 10**19 < 2**64: every digit fits (the common case, in one step)
        significand, exponent = int(integer + fraction), -len(fraction)
    else:
        significand, exponent = 0, 0
        for k, c in enumerate(integer):
            if significand * 10 + int(c) > _U64_MAX:
                exponent += len(integer) - k  # the remaining integer digits only scale
                break
            significand = significand * 10 + int(c)
        for c in fraction:
            if significand * 10 + int(c) > _U64_MAX:
                break  # the remaining fraction digits are dropped
            significand = significand * 10 + int(c)
            exponent -= 1
    if exp_digits is not None:
        exp = int(exp_digits)
        if exp > _I32_MAX:
            if significand != 0 and exp_sign != "-":
                raise ValueError(f"number out of range: {literal!r}")
            return -0.0 if sign else 0.0
        exponent = exponent - exp if exp_sign == "-" else exponent + exp
        exponent = max(-(2**31), min(_I32_MAX, exponent))
    f = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            f = f * _POW10[exponent] if exponent >= 0 else f / _POW10[-exponent]
            break
        if f == 0.0:
            break
        if exponent >= 0:
            raise ValueError(f"number out of range: {literal!r}")
        f /= 1e308
        exponent += 308
    return -f if sign else f


def _nearby_literals(target: Fraction):
    """Literals ``s e-k`` next to ``target``: first 17-19 digits, then an integer
    ``s`` < 2**64 that is an exact f64 (so serde's first rounding is none)."""
    exp10 = math.floor(math.log10(target))
    for digits in (17, 18, 19):
        k = digits - 1 - exp10
        start = round(target * Fraction(10) ** k)
        for delta in sorted(range(-64, 65), key=abs):
            if start + delta > 0:
                yield f"{start + delta}e{-k}"
    for k in range(-exp10 - 1, -exp10 + 21):
        scaled = target * Fraction(10) ** k
        if not 1 <= scaled < 2**64:
            continue
        near = float(scaled)
        for f in (near, math.nextafter(near, 0.0), math.nextafter(near, math.inf)):
            if f.is_integer() and f < 2**64:
                yield f"{int(f)}e{-k}"


def serde_exact_literal(x: float) -> str:
    """A JSON number serde_json reads (`serde_float`) as exactly ``x``, where one exists.

    repr's shortest digits usually are one, but not always: a value given in
    code (a sentencepiece score, as converters build Unigram models) can need
    17 digits whose significand is not exact in an f64, and serde's two
    roundings then miss it by an ulp -- where tokenizers holds the value
    itself. Otherwise a literal ``s e-k`` is searched whose integer ``s`` (< 2**64)
    is an exact f64 next to ``x * 10**k``, so that serde's one division rounds to ``x``."""
    return _exact_literal(repr(x))  # by repr: -0.0 and 0.0 are one dict key


@functools.lru_cache(maxsize=1 << 16)  # a model's scores, when the same model is loaded again
def _exact_literal(text: str) -> str:
    x = float(text)
    if not math.isfinite(x):
        return text
    # serde_json itself (in the core) tries repr and the 17-19 digit literals first: fast
    found = _core.serde_exact_literal(x, text)
    if found is not None:
        return found
    if serde_float(text) == x:
        return text
    sign, target = ("-" if x < 0 else ""), Fraction(abs(x))
    for candidate in _nearby_literals(target):
        if serde_float(sign + candidate) == x:
            return sign + candidate
    # Unreachable through serde's reading (about 0.1% of random f64; they need a
    # way past JSON into the core): held an ulp off, as docs/pipeline.md says.
    return text


_STRING_OR_FLOAT = re.compile(_JSON_STRING + r'|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


def _exact_float(m: "re.Match[str]") -> str:
    token = m.group(0)
    if token.startswith('"') or not any(c in token for c in ".eE"):
        return token  # a string or an integer
    return serde_exact_literal(float(token))


def _exact_literal_of(literal: str) -> str:
    return serde_exact_literal(float(literal))


def exact_float_json(text: str) -> str:
    """JSON `text` with every float literal that serde_json would read an ulp
    away from Python's ``float()`` of it replaced by one it reads exactly
    (`serde_exact_literal`); the rest as given. The scan runs in the core, the
    rare literal it replaces here."""
    try:
        return _core.exact_float_literals(text, _exact_literal_of)
    except ValueError:  # not JSON the scan follows: Python's reading decides
        return core_json_text(json.loads(text))


def core_json_text(value: Any) -> str:
    """Compact JSON of a tokenizer or component state for the Rust core to
    compile: as tokenizers writes it, every float written so that serde_json
    reads back the very value given (see `serde_exact_literal`)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        # The same literals as the Python pass below (json.dumps writes repr, kept where serde reads it).
        return _core.exact_float_literals(text, _exact_literal_of)
    except ValueError:
        return _STRING_OR_FLOAT.sub(_exact_float, text)


def _serde_exponent(m: "re.Match[str]") -> str:
    # Python's repr and serde_json (tokenizers 0.23.3) give the same shortest
    # digits and switch to exponents at the same large values (1e16), but
    # serde_json writes 1e-5..1e-4 plainly (0.00001) and no exponent padding
    # (1e-7, not 1e-07). Measured on thousands of random f64 in a Unigram vocab.
    mantissa, sign, exp = m.group(1), m.group(2), m.group(3)
    if mantissa is None:
        return m.group(0)
    if sign == "-" and int(exp) == 5:
        neg = mantissa.startswith("-")
        digits = mantissa.lstrip("-").replace(".", "")
        return ("-" if neg else "") + "0.0000" + digits
    return f"{mantissa}e{sign}{int(exp)}"


def _truncation(t: Optional[tuple]) -> Optional[dict]:
    if t is None:
        return None
    max_length, stride, strategy, direction = t
    strategy = "".join(w.capitalize() for w in strategy.split("_"))  # longest_first -> LongestFirst
    return {"direction": direction.capitalize(), "max_length": max_length, "strategy": strategy, "stride": stride}


def _padding(p: Optional[tuple]) -> Optional[dict]:
    if p is None:
        return None
    length, pad_to_multiple_of, pad_id, pad_token, pad_type_id, direction = p
    return {
        "strategy": "BatchLongest" if length is None else {"Fixed": length},
        "direction": direction.capitalize(),
        "pad_to_multiple_of": pad_to_multiple_of,
        "pad_id": pad_id,
        "pad_type_id": pad_type_id,
        "pad_token": pad_token,
    }


def tokenizer_json(base_json: str, core: Any, settings: Any, pretty: bool) -> str:
    """The tokenizer.json: `base_json`'s components with `core`'s added tokens
    and `settings`' truncation and padding.

    The whole text is written by the core in one pass over `base_json`
    (`json_document`: the components as `json.loads(parse_float=serde_float)`
    then `json.dumps` and `_serde_exponent` below would write them, without
    building Python objects of a 250k vocabulary); text it does not follow (a
    repeated key inside a component, ...) takes that Python path."""
    try:
        return _core.json_document(base_json, _head_text(core, settings, pretty), list(_PARTS), bool(pretty))
    except ValueError:
        return _tokenizer_json_python(base_json, core, settings, pretty)


def save_tokenizer_json(path: Any, base_json: str, core: Any, settings: Any, pretty: bool) -> None:
    """`tokenizer_json`'s text written to `path`, whole or not at all: the core
    writes the file itself (a 16 MB text is never made a Python str and
    encoded back, as tokenizers' own `save` writes from Rust)."""
    head, pretty = _head_text(core, settings, pretty), bool(pretty)
    try:
        write_file_atomically(path, lambda tmp: _core.json_document_to_file(base_json, head, list(_PARTS), pretty, tmp))
    except ValueError:
        write_text_atomically(path, _tokenizer_json_python(base_json, core, settings, pretty))


def _head_text(core: Any, settings: Any, pretty: bool) -> str:
    """The top-level object's opening and its members before the components."""
    head = _head(core, settings)
    if pretty:
        return "{\n" + ",\n".join(
            f'  "{k}": ' + json.dumps(v, ensure_ascii=False, indent=2).replace("\n", "\n  ") for k, v in head.items())
    return "{" + ",".join(f'"{k}":' + json.dumps(v, ensure_ascii=False, separators=(",", ":")) for k, v in head.items())


def _head(core: Any, settings: Any) -> dict:
    return {
        "version": "1.0",
        "truncation": _truncation(settings.truncation),
        "padding": _padding(settings.padding),
        "added_tokens": [
            {"id": id_, **dict(zip(_ADDED_FIELDS, options))} for id_, options in core.added_tokens()
        ],
    }


def _tokenizer_json_python(base_json: str, core: Any, settings: Any, pretty: bool) -> str:
    base = json.loads(base_json, parse_float=serde_float)
    doc = _head(core, settings)
    for part in _PARTS:
        doc[part] = base.get(part)
    if pretty:
        text = json.dumps(doc, ensure_ascii=False, indent=2)
    else:
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    return _STRING_OR_EXPONENT.sub(_serde_exponent, text)

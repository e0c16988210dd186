"""Pure-Python reference ("oracle") of HF tokenizers' normalizers, with alignments.

The readable specification the Rust normalizers (src/normalizers/) are tested
against, next to tokenizers 0.23.3 itself.  A normalized text is a list of
``(char, (start, end))``: each char with the span of the original text (in
chars) it came from.  Edits follow HF's ``NormalizedString.transform``: a
stream of ``(char, change)`` where 0 replaces the next char, 1 inserts one
(with the previous char's span, or the empty span at the start), and -n
replaces the next char and removes the n after it; removing chars (``filter``)
leaves the others' spans alone.

Character data comes from the pinned unicodedata2 (Unicode 17.0), while HF's
Rust uses older tables (unicode-normalization-alignments: Unicode 9.0; the
Rust standard library for whitespace and lowercase).  The two agree on the
characters assigned by Unicode 3.2 (``unicodedata.ucd_3_2_0``), which is the
alphabet the three-way tests give the oracle (tests/test_pipeline_norm25*.py).
Written for clarity, not speed; it never imports the extension.
"""

from __future__ import annotations

import re
from typing import Iterable, List, Tuple

import unicodedata2

from . import _strtables
# Importing bertpiece.oracle refuses (UnicodeVersionMismatch) a unicodedata2 other than the pinned
# version, which would mix its categories with _strtables' case data.
from .oracle import UNICODE_VERSION  # noqa: F401
from .oracle_bpe import WHITE_SPACE, bytes_to_unicode
from .oracle_regex import compiled

Span = Tuple[int, int]
Text = List[Tuple[str, Span]]


def original(text: str, origin: int = 0) -> Text:
    return [(c, (origin + i, origin + i + 1)) for i, c in enumerate(text)]


def transform(text: Text, edits: Iterable[Tuple[str, int]], origin: int = 0) -> Text:
    out, pos = [], 0
    for c, change in edits:
        if change > 0:
            span = text[pos - 1][1] if pos > 0 else (origin, origin)
        else:
            span = text[pos][1]
            pos += 1 - change
        out.append((c, span))
    return out


# --- Unicode normal forms, as unicode-normalization-alignments streams them ---

def _ccc(c: str) -> int:
    return unicodedata2.combining(c)


def decompose_edits(text: str, compat: bool) -> List[Tuple[str, int]]:
    """Each char's full decomposition (first part replaces it, the rest inserted),
    then every run of non-starters stably sorted by combining class."""
    form = "NFKD" if compat else "NFD"
    edits = []
    for ch in text:
        edits += [(d, int(i > 0)) for i, d in enumerate(unicodedata2.normalize(form, ch))]
    i = 0
    while i < len(edits):
        if _ccc(edits[i][0]) == 0:
            i += 1
            continue
        j = i
        while j < len(edits) and _ccc(edits[j][0]) != 0:
            j += 1
        edits[i:j] = sorted(edits[i:j], key=lambda e: _ccc(e[0]))
        i = j
    return edits


def _compose(a: str, b: str):
    c = unicodedata2.normalize("NFC", a + b)
    return c if len(c) == 1 else None


def compose_edits(text: str, compat: bool) -> List[Tuple[str, int]]:
    """The crate's recomposition: a char composed into the starter before it
    adds its change to the starter's, less one (it is removed)."""
    out, composee, buffer, last_ccc = [], None, [], None
    for ch, change in decompose_edits(text, compat):
        cls = _ccc(ch)
        if composee is None:
            if cls != 0:
                out.append((ch, change))
            else:
                composee = (ch, change)
            continue
        blocked = last_ccc is not None and last_ccc >= cls
        composed = None if blocked else _compose(composee[0], ch)
        if composed is not None:
            composee = (composed, composee[1] + change - 1)
        elif cls == 0:
            out.append(composee)
            out += buffer
            composee, buffer, last_ccc = (ch, change), [], None
        else:
            buffer.append((ch, change))
            last_ccc = cls
    if composee is not None:
        out.append(composee)
    return out + buffer


def _unicode(text: Text, form: str, origin: int) -> Text:
    s = "".join(c for c, _ in text)
    compat = form in ("NFKC", "NFKD")
    edits = compose_edits(s, compat) if form in ("NFC", "NFKC") else decompose_edits(s, compat)
    return transform(text, edits, origin)


# --- the other normalizers ---

def _keep(text: Text, keep) -> Text:
    return [(c, span) for c, span in text if keep(c)]


def _is_rust_space(c: str) -> bool:
    return ord(c) in WHITE_SPACE


def _lowercase(text: Text, origin: int) -> Text:
    """Rust's char::to_lowercase, char by char (no final sigma)."""
    edits = [(low, int(i > 0)) for c, _ in text for i, low in enumerate(_strtables.LOWER.get(ord(c), c))]
    return transform(text, edits, origin)


_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _bert(cfg: dict, text: Text, origin: int) -> Text:
    if cfg["clean_text"]:
        # unicode_categories' is_other: Cc, Cf, Co (and Cn, which it does not list); \t\n\r are spaces.
        def control(c):
            return c not in "\t\n\r" and unicodedata2.category(c) in ("Cc", "Cf", "Co")
        text = _keep(text, lambda c: c not in "\0\ufffd" and not control(c))
        text = [(" " if c in "\t\n\r" or _is_rust_space(c) else c, span) for c, span in text]
    if cfg["handle_chinese_chars"]:
        edits = []
        for c, _ in text:
            if any(lo <= ord(c) <= hi for lo, hi in _CJK):
                edits += [(" ", 0), (c, 1), (" ", 1)]
            else:
                edits.append((c, 0))
        text = transform(text, edits, origin)
    strip = cfg.get("strip_accents")
    if (cfg["lowercase"] if strip is None else strip):
        text = _keep(_unicode(text, "NFD", origin), lambda c: unicodedata2.category(c) != "Mn")
    if cfg["lowercase"]:
        text = _lowercase(text, origin)
    return text


def _strip(text: Text, left: bool, right: bool) -> Text:
    while left and text and _is_rust_space(text[0][0]):
        text = text[1:]
    while right and text and _is_rust_space(text[-1][0]):
        text = text[:-1]
    return text


def _replace(cfg: dict, text: Text, origin: int) -> Text:
    (kind, pattern), = cfg["pattern"].items()
    regex = re.compile(re.escape(pattern)) if kind == "String" else compiled(pattern)
    s = "".join(c for c, _ in text)
    out, last = [], 0
    for m in regex.finditer(s):
        out += text[last:m.start()]
        span = text[m.end() - 1][1] if m.end() > 0 else (origin, origin)
        out += [(c, span) for c in cfg["content"]]
        last = m.end()
    return out + text[last:]


_NMT_REMOVED = {*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F}
_NMT_SPACES = {0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD}
_BYTE_CHARS = bytes_to_unicode()


def normalize(cfg: dict, text: Text, origin: int = 0) -> Text:
    """Applies the tokenizer.json normalizer ``cfg`` (a dict) to ``text``."""
    kind = cfg["type"]
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return _unicode(text, kind, origin)
    if kind == "Lowercase":
        return _lowercase(text, origin)
    if kind == "BertNormalizer":
        return _bert(cfg, text, origin)
    if kind == "Strip":
        return _strip(text, cfg["strip_left"], cfg["strip_right"])
    if kind == "StripAccents":
        # unicode-normalization-alignments' is_combining_mark: Mn, Mc, Me.
        return _keep(text, lambda c: unicodedata2.category(c) not in ("Mn", "Mc", "Me"))
    if kind == "Replace":
        return _replace(cfg, text, origin)
    if kind == "Prepend":
        return [(c, text[0][1]) for c in cfg["prepend"]] + text if text else text
    if kind == "Nmt":
        text = _keep(text, lambda c: ord(c) not in _NMT_REMOVED)
        return [(" " if ord(c) in _NMT_SPACES else c, span) for c, span in text]
    if kind == "ByteLevel":
        edits = [(_BYTE_CHARS[b], int(i > 0)) for c, _ in text for i, b in enumerate(c.encode("utf-8"))]
        return transform(text, edits, origin)
    if kind == "Sequence":
        for step in cfg["normalizers"]:
            text = normalize(step, text, origin)
        return text
    raise NotImplementedError(f"normalizer type {kind!r}")


def normalize_str(cfg: dict, text: str) -> Tuple[str, List[Span]]:
    """The normalized string and each of its chars' original span."""
    out = normalize(cfg, original(text))
    return "".join(c for c, _ in out), [span for _, span in out]

"""Oniguruma's meaning (Ruby syntax, as tokenizers 0.23.3 runs it) of the
regex subset bertpiece runs for ``Split`` and ``Replace``
(src/pre_tokenizers/onig_subset.rs), stated as a Python ``re`` pattern.

Python's ``re`` is a backtracking engine like Oniguruma (with the lookahead
of a final ``|\\s+(?!\\s)|\\s+`` too); spelling every class out as explicit
code point sets gives it Oniguruma's Unicode 16 tables, and the anchors are
spelled as Oniguruma reads them:

- ``\\s`` White_Space; ``\\d`` Nd; ``\\p{X}`` general category X (one letter:
  all of X*), by Unicode 16 (unicodedata2 is Unicode 17: the chars new in 17
  are unassigned here); ``\\P{X}``, ``\\S``, ``\\D`` their complements.
- ``.`` any char but "\\n".
- ``\\A`` start, ``\\z`` end of the text; ``$`` before any "\\n" or at the end;
  ``^`` at the start or after any "\\n" (bertpiece admits it only before a
  char, so Oniguruma's "not at the very end" never comes up).
- ``(?i:...)`` of ASCII literals: each letter and its other case, and K/ſ
  for k/s (Oniguruma's folds, measured on every code point).
"""

from __future__ import annotations

import functools
import re
from typing import List

import unicodedata2

from .oracle_bpe import NEW_IN_UNICODE_17, WHITE_SPACE

# Marks, punctuation and symbols new in Unicode 17 (letters and numbers are in
# NEW_IN_UNICODE_17): unassigned to Oniguruma's and the regex crate's Unicode 16
# tables (measured: \p{Cn} over every code point).
_OTHERS_NEW_IN_UNICODE_17 = (
    (0x1ACF, 0x1ADD), (0x1AE0, 0x1AEB), (0x20C1, 0x20C1), (0x2B96, 0x2B96), (0xFBC3, 0xFBD2), (0xFD90, 0xFD91),
    (0xFDC8, 0xFDCE), (0x10ED0, 0x10ED8), (0x10EFA, 0x10EFB), (0x11B60, 0x11B67), (0x1CCFA, 0x1CCFC),
    (0x1CEBA, 0x1CED0), (0x1CEE0, 0x1CEF0), (0x1E6E3, 0x1E6E3), (0x1E6E6, 0x1E6E6), (0x1E6EE, 0x1E6EF),
    (0x1E6F5, 0x1E6F5), (0x1F6D8, 0x1F6D8), (0x1F777, 0x1F77A), (0x1F8D0, 0x1F8D8), (0x1FA54, 0x1FA57),
    (0x1FA8A, 0x1FA8A), (0x1FA8E, 0x1FA8E), (0x1FAC8, 0x1FAC8), (0x1FACD, 0x1FACD), (0x1FAEA, 0x1FAEA),
    (0x1FAEF, 0x1FAEF), (0x1FBFA, 0x1FBFA),
)
_NEW_IN_UNICODE_17 = frozenset(cp for a, b in NEW_IN_UNICODE_17 + _OTHERS_NEW_IN_UNICODE_17 for cp in range(a, b + 1))

# Categories Unicode 17 changed (measured: the two-letter categories over every code point).
_UNICODE_16_CATEGORY = {0x0295: "Ll"}  # Lo since Unicode 17

GENERAL_CATEGORIES = ("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc",
                      "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C",
                      "Cc", "Cf", "Cn", "Co")


def general_category(c: str) -> str:
    """The general category by Unicode 16, as both regex engines have it."""
    cp = ord(c)
    if cp in _NEW_IN_UNICODE_17:
        return "Cn"
    return _UNICODE_16_CATEGORY.get(cp) or unicodedata2.category(c)


def _expand_ranges(ranges):
    return frozenset(cp for a, b in ranges for cp in range(a, b + 1))


# Word chars new in Unicode 17: the regex crate's tables in tokenizers 0.23.3
# are Unicode 16, so to its \w these are not word chars (measured over every code point).
_WORD_NEWER = _expand_ranges((
    (0x088F, 0x088F), (0x0C5C, 0x0C5C), (0x0CDC, 0x0CDC), (0x1ACF, 0x1ADD), (0x1AE0, 0x1AEB), (0xA7CE, 0xA7CF),
    (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7F1, 0xA7F1), (0x10940, 0x10959), (0x10EC5, 0x10EC7),
    (0x10EFA, 0x10EFB), (0x11B60, 0x11B67), (0x11DB0, 0x11DDB), (0x11DE0, 0x11DE9), (0x16EA0, 0x16EB8),
    (0x16EBB, 0x16ED3), (0x16FF2, 0x16FF6), (0x187F8, 0x187FF), (0x18D09, 0x18D1E), (0x18D80, 0x18DF2),
    (0x1E6C0, 0x1E6DE), (0x1E6E0, 0x1E6F5), (0x1E6FE, 0x1E6FF), (0x2B73A, 0x2B73F), (0x2CEA2, 0x2CEAD),
    (0x323B0, 0x33479),
))
# Other_Alphabetic symbols (circled and squared Latin letters): Alphabetic, so \w.
_ALPHABETIC_SYMBOLS = _expand_ranges(((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189)))


def is_word(c: str) -> bool:
    """The regex crate's Unicode ``\\w``: Alphabetic, marks, Nd, Pc, Join_Control."""
    cp = ord(c)
    if cp in _WORD_NEWER:
        return False
    cat = unicodedata2.category(c)
    return cat[0] in "LM" or cat in ("Nd", "Nl", "Pc") or cp in (0x200C, 0x200D) or cp in _ALPHABETIC_SYMBOLS


# Oniguruma's \w beside the regex crate's: the joiners out; outside brackets Latin-1's number signs in.
_WORD_ALSO = frozenset((0xB2, 0xB3, 0xB9, 0xBC, 0xBD, 0xBE))
_WORD_NOT = frozenset((0x200C, 0x200D))


def in_class(name: str, c: str) -> bool:
    """Whether ``c`` is in ``\\s`` (name "s"), ``\\d`` ("d"), ``\\w`` ("w"; "w[]" inside
    brackets) or ``\\p{name}``."""
    if name in ("w", "w[]"):
        cp = ord(c)
        return cp not in _WORD_NOT and ((name == "w" and cp in _WORD_ALSO) or is_word(c))
    if name == "s":
        return ord(c) in WHITE_SPACE
    if name == "d":
        return general_category(c) == "Nd"
    if name not in GENERAL_CATEGORIES:
        raise NotImplementedError(f"\\p{{{name}}}")
    return general_category(c).startswith(name)


@functools.lru_cache(maxsize=1)
def _category_runs():
    """(first, last, category) runs over all code points but the surrogates."""
    # general_category() for every code point, in one pass (it runs once per process, on 1.1M code points)
    cats = list(map(unicodedata2.category, map(chr, range(0x110000))))
    for cp in _NEW_IN_UNICODE_17:
        cats[cp] = "Cn"
    for cp, cat in _UNICODE_16_CATEGORY.items():
        cats[cp] = cat
    runs: List[list] = []
    for cp, cat in enumerate(cats):
        if 0xD800 <= cp < 0xE000:
            continue
        if runs and runs[-1][2] == cat and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, cat])
    return runs


@functools.lru_cache(maxsize=None)
def _runs_in(name: str) -> tuple:
    """The class's code points as (first, last) runs, the surrogates left out;
    computed once per class, its negation included (the \\s \\d \\w ones test
    every code point)."""
    if name in ("s", "d", "w", "w[]"):
        runs: List[List[int]] = []
        for cp in range(0x110000):
            if 0xD800 <= cp < 0xE000 or not in_class(name, chr(cp)):
                continue
            if runs and runs[-1][1] == cp - 1:
                runs[-1][1] = cp
            else:
                runs.append([cp, cp])
        return tuple((a, b) for a, b in runs)
    if name not in GENERAL_CATEGORIES:
        raise NotImplementedError(f"\\p{{{name}}}")
    return tuple((a, b) for a, b, cat in _category_runs() if cat.startswith(name))


def _complement(runs) -> List[tuple]:
    out, start = [], 0
    for a, b in runs:
        if start < a:
            out.append((start, a - 1))
        start = b + 1
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return [(a, b) for a, b in out if not (0xD800 <= a and b < 0xE000)]


@functools.lru_cache(maxsize=None)
def _set_body(name: str, negated: bool) -> str:
    """The class as ranges for inside ``[...]``."""
    runs = _complement(_runs_in(name)) if negated else _runs_in(name)
    ranges: List[List[int]] = []
    for a, b in runs:
        a, b = (0xE000, b) if 0xD800 <= a < 0xE000 else (a, b)  # a complement run starting in the surrogates
        b = 0xD7FF if 0xD800 <= b < 0xE000 else b
        if ranges and ranges[-1][1] == a - 1:
            ranges[-1][1] = b
        elif ranges and ranges[-1][1] == 0xD7FF and a == 0xE000:
            ranges[-1][1] = b  # across the surrogates, which no text holds
        else:
            ranges.append([a, b])
    return "".join("\\U%08X-\\U%08X" % (a, b) for a, b in ranges)


_FOLDS = {"k": "kK\u212a", "s": "sS\u017f"}
_ANCHORS = {"A": r"\A", "z": r"\Z", "$": r"(?=\n|\Z)", "^": r"(?<![^\n])", ".": r"[^\n]"}


def translate(pattern: str) -> str:
    """The Oniguruma ``pattern`` as a Python ``re`` pattern with the same matches."""
    out, i, in_class_, icase_depth, depth = [], 0, False, None, 0  # paren depth of an open (?i:
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("(?i:", i):
            if icase_depth is not None:
                raise NotImplementedError(f"nested (?i:...) in {pattern!r}")
            depth += 1
            icase_depth = depth
            out.append("(?:")
            i += 4
            continue
        if c == "(" and not in_class_:
            depth += 1
        elif c == ")" and not in_class_:
            if icase_depth == depth:
                icase_depth = None
            depth -= 1
        elif icase_depth is not None and c.isascii() and c.isalpha():
            out.append("[%s]" % _FOLDS.get(c.lower(), c.lower() + c.upper()))
            i += 1
            continue
        if c == "\\" and pattern[i + 1:i + 2] in ("s", "S", "d", "D", "w", "W", "p", "P"):
            esc = pattern[i + 1]
            if esc in "sSdDwW":
                name, i = esc.lower() + ("[]" if esc in "wW" and in_class_ else ""), i + 2
            elif pattern[i + 2:i + 3] == "{":
                end = pattern.index("}", i)
                name, i = pattern[i + 3:end], end + 1
            else:
                raise NotImplementedError(f"\\pX without braces in {pattern!r}")
            body = _set_body(name, esc in "SDWP")
            out.append(body if in_class_ else "[%s]" % body)
            continue
        if c == "\\" and pattern[i + 1:i + 2] in ("A", "z") and not in_class_:
            out.append(_ANCHORS[pattern[i + 1]])
            i += 2
            continue
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c in "^$." and not in_class_:
            out.append(_ANCHORS[c])
        elif c == "[":
            if in_class_:
                raise NotImplementedError(f"nested classes in {pattern!r}")
            in_class_ = True
            out.append(c)
            if pattern[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
        elif c == "]" and in_class_:
            in_class_ = False
            out.append(c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=64)
def compiled(pattern: str):
    return re.compile(translate(pattern))

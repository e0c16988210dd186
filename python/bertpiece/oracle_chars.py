"""The oracle's per-character rules (bertpiece.oracle uses them; see its docstring):
the references' character classes, cleaning, CJK spacing, lowercasing, accent
stripping and punctuation splitting, on unicodedata2 and the pinned _strtables."""

import re

import unicodedata2

from . import _strtables


# ---------------------------------------------------------------------------
# Character classes (identical in both references except for "control").
# ---------------------------------------------------------------------------

class _PerCodePoint(dict):
    """code point -> rule(chr(code point)), the rule run once per code point (on
    first sight) and remembered: the every-code-point tests push each code point
    through several times. With a rule that returns the character to write (None
    to drop it) this is a str.translate() table, which loops over a text in C."""

    def __init__(self, rule):
        super().__init__()
        self._rule = rule

    def __missing__(self, cp):
        result = self._rule(chr(cp))
        # An unchanged character is kept as its code point, the key itself
        # (translate() reads it as that character): no string per code point.
        self[cp] = cp if result == chr(cp) else result
        return self[cp]


def _is_whitespace(ch):
    # \t \n \r are Cc but both references treat them as whitespace.
    return ch in " \t\n\r" or unicodedata2.category(ch) == "Zs"


def _is_control(ch, reference):
    if ch in "\t\n\r":
        return False
    category = unicodedata2.category(ch)
    if reference == "google":
        return category in ("Cc", "Cf")
    # transformers: any "C*" category, i.e. also Cs (surrogates), Co, Cn.
    return category.startswith("C")


def _is_punctuation(ch):
    cp = ord(ch)
    # Both references count every non-alphanumeric ASCII symbol ("$", "^", "`"
    # ...) as punctuation, although Unicode puts some of them in S*.
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata2.category(ch).startswith("P")


_IS_PUNCTUATION = _PerCodePoint(_is_punctuation)


# The "CJK Unified Ideographs" blocks that both references surround with spaces
# (Hangul, Hiragana and Katakana are NOT in here).
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def _cleaned(ch, reference):
    """Cleaning drops NUL, U+FFFD and control characters and maps every whitespace to " "."""
    if ch in "\x00\ufffd" or _is_control(ch, reference):
        return None
    return " " if _is_whitespace(ch) else ch


_CLEANED = {"google": _PerCodePoint(lambda ch: _cleaned(ch, "google")),
            "transformers": _PerCodePoint(lambda ch: _cleaned(ch, "transformers"))}


_CJK_RE = re.compile(
    "[%s]" % "".join("%s-%s" % (chr(lo), chr(hi)) for lo, hi in _CJK_RANGES)
)


# ---------------------------------------------------------------------------
# Lowercasing: CPython's str.lower() (full case mappings plus the Final_Sigma
# rule of unicodeobject.c:handle_capital_sigma), from the pinned tables.
# ---------------------------------------------------------------------------

_CAPITAL_SIGMA = "\u03a3"


def _is_final_sigma(text, i):
    """Final_Sigma: cased case-ignorable* SIGMA !(case-ignorable* cased)."""
    j = i - 1
    while j >= 0 and ord(text[j]) in _strtables.CASE_IGNORABLE:
        j -= 1
    if j < 0 or ord(text[j]) not in _strtables.CASED:
        return False
    j = i + 1
    while j < len(text) and ord(text[j]) in _strtables.CASE_IGNORABLE:
        j += 1
    return j == len(text) or ord(text[j]) not in _strtables.CASED


def _lower(text):
    if _CAPITAL_SIGMA not in text:
        return text.translate(_strtables.LOWER)  # LOWER.get(ord(ch), ch) for each ch
    out = []
    for i, ch in enumerate(text):
        if ch == _CAPITAL_SIGMA:
            # The context is the original (not yet lowered) text, as in CPython.
            out.append("\u03c2" if _is_final_sigma(text, i) else "\u03c3")
        else:
            out.append(_strtables.LOWER.get(ord(ch), ch))
    return "".join(out)


_DROP_NONSPACING_MARKS = _PerCodePoint(lambda ch: None if unicodedata2.category(ch) == "Mn" else ch)


def _strip_accents(text):
    """Both references: NFD, then drop nonspacing marks (category Mn)."""
    return unicodedata2.normalize("NFD", text).translate(_DROP_NONSPACING_MARKS)


def _split_on_punc(text):
    """Every punctuation character becomes a token of its own."""
    if not any(map(_IS_PUNCTUATION.__getitem__, map(ord, text))):
        return [text]  # no punctuation (the common case, found without a Python loop)
    words = []
    start_new_word = True
    for ch in text:
        if _is_punctuation(ch):
            words.append(ch)
            start_new_word = True
        else:
            if start_new_word:
                words.append("")
            start_new_word = False
            words[-1] += ch
    return words

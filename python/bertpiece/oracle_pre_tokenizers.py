"""The pure-Python statement of HF tokenizers 0.23.3's pre-tokenizers
(BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits,
CharDelimiterSplit, Split with a string or a regex in the subset bertpiece runs,
UnicodeScripts, Sequence; ByteLevel only without regex and prefix space), read from
tokenizers' Rust source and checked against ``pre_tokenize_str`` and against
bertpiece's Rust pipeline (tests/test_pipeline_pretok*.py).

A piece of text is a list of ``(word, (start, end))`` in chars of the text, as
``pre_tokenize_str`` returns. Each pre-tokenizer marks stretches of a piece as
match / non-match, then a split behaviour decides what the matches become.
"""

from __future__ import annotations

import array
import functools
import json
from typing import Callable, List, Tuple

import unicodedata2

from .oracle_bpe import WHITE_SPACE
from .oracle_regex import compiled, is_word

Word = Tuple[str, Tuple[int, int]]
Marks = List[Tuple[int, int, bool]]  # (start, end, is_match), covering the piece in order


def _expand(ranges):
    return frozenset(cp for a, b in ranges for cp in range(a, b + 1))


# Punctuation as HF's unicode_categories 0.1.1 tables see it (Unicode 9 era):
# the P* code points of Unicode 17 not yet P* there, and two that were P* then
# (U+166D, U+111C9; So and Mn today). Measured over every code point
# (test_classes_of_every_code_point fails if the lists go stale).
_PUNCT_NEWER = _expand((
    (0x061D, 0x061D), (0x09FD, 0x09FD), (0x0A76, 0x0A76), (0x0C77, 0x0C77), (0x0C84, 0x0C84), (0x1B4E, 0x1B4F),
    (0x1B7D, 0x1B7F), (0x2E43, 0x2E4F), (0x2E52, 0x2E5D), (0x10D6E, 0x10D6E), (0x10EAD, 0x10EAD),
    (0x10ED0, 0x10ED0), (0x10F55, 0x10F59), (0x10F86, 0x10F89), (0x113D4, 0x113D5), (0x113D7, 0x113D8),
    (0x1144B, 0x1144F), (0x1145A, 0x1145B), (0x1145D, 0x1145D), (0x11660, 0x1166C), (0x116B9, 0x116B9),
    (0x1183B, 0x1183B), (0x11944, 0x11946), (0x119E2, 0x119E2), (0x11A3F, 0x11A46), (0x11A9A, 0x11A9C),
    (0x11A9E, 0x11AA2), (0x11B00, 0x11B09), (0x11BE1, 0x11BE1), (0x11C41, 0x11C45), (0x11C70, 0x11C71),
    (0x11EF7, 0x11EF8), (0x11F43, 0x11F4F), (0x11FFF, 0x11FFF), (0x12FF1, 0x12FF2), (0x16D6D, 0x16D6F),
    (0x16E97, 0x16E9A), (0x16FE2, 0x16FE2), (0x1E5FF, 0x1E5FF), (0x1E95E, 0x1E95F),
))
_PUNCT_OLDER = frozenset((0x166D, 0x111C9))
def is_whitespace(c: str) -> bool:
    """Rust's ``char::is_whitespace``: the White_Space property."""
    return ord(c) in WHITE_SPACE


def is_punctuation(c: str) -> bool:
    """BertPreTokenizer's and Punctuation's ``is_ascii_punctuation() || is_punctuation()``."""
    cp = ord(c)
    if cp < 128:
        return c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    if cp in _PUNCT_OLDER:
        return True
    return unicodedata2.category(c).startswith("P") and cp not in _PUNCT_NEWER


def is_numeric(c: str) -> bool:
    """Rust's ``char::is_numeric``: general category Nd, Nl or No."""
    return unicodedata2.category(c) in ("Nd", "Nl", "No")


def char_marks(text: str, pred: Callable[[str], bool]) -> Marks:
    """Every char for which ``pred`` holds is a match of its own."""
    marks, last = [], 0
    for i, c in enumerate(text):
        if pred(c):
            if last < i:
                marks.append((last, i, False))
            marks.append((i, i + 1, True))
            last = i + 1
    if last < len(text):
        marks.append((last, len(text), False))
    return marks


def literal_marks(text: str, literal: str) -> Marks:
    """Leftmost non-overlapping occurrences; an empty literal matches (empty) at every position."""
    marks, prev, pos = [], 0, 0
    while pos <= len(text):
        at = text.find(literal, pos)
        if at < 0:
            break
        if prev != at:
            marks.append((prev, at, False))
        marks.append((at, at + len(literal), True))
        prev = at + len(literal)
        pos = prev if literal else at + 1
    if prev != len(text):
        marks.append((prev, len(text), False))
    return marks


def whitespace_marks(text: str) -> Marks:
    """Whitespace's ``\\w+|[^\\w\\s]+`` matches, inverted (the words are the non-matches)."""
    marks, i = [], 0
    while i < len(text):
        j = i
        kind = _kind(text[i])
        while j < len(text) and _kind(text[j]) == kind:
            j += 1
        marks.append((i, j, kind == "space"))
        i = j
    return marks


def _kind(c: str) -> str:
    if is_word(c):
        return "word"
    return "space" if is_whitespace(c) else "other"


# --- Split with a Regex pattern ------------------------------------------------
# bertpiece runs only the Oniguruma subset whose meaning it can guarantee;
# oracle_regex states that meaning as a Python re pattern.


def regex_marks(text: str, pattern: str) -> Marks:
    """The pattern's leftmost non-overlapping matches (it never matches the empty string)."""
    marks, prev = [], 0
    for m in compiled(pattern).finditer(text):
        if prev != m.start():
            marks.append((prev, m.start(), False))
        marks.append((m.start(), m.end(), True))
        prev = m.end()
    if prev != len(text):
        marks.append((prev, len(text), False))
    return marks


def apply_behavior(marks: Marks, behavior: str) -> List[Tuple[int, int]]:
    """HF's SplitDelimiterBehavior: the kept (start, end) stretches, empty ones dropped."""
    kept: List[list] = []  # [start, end, remove]
    previous = False
    if behavior == "Removed":
        kept = [[s, e, m] for s, e, m in marks]
    elif behavior == "Isolated":
        kept = [[s, e, False] for s, e, _ in marks]
    elif behavior in ("Contiguous", "MergedWithPrevious"):
        for s, e, m in marks:
            merge = (m == previous) if behavior == "Contiguous" else (m and not previous)
            if merge and kept:
                kept[-1][1] = e
            else:
                kept.append([s, e, False])
            previous = m
    elif behavior == "MergedWithNext":
        for s, e, m in reversed(marks):
            if m and not previous and kept:
                kept[-1][0] = s
            else:
                kept.append([s, e, False])
            previous = m
        kept.reverse()
    else:
        raise ValueError(f"unknown behavior {behavior!r}")
    return [(s, e) for s, e, remove in kept if not remove and s < e]


def _split(words: List[Word], marks_of: Callable[[str], Marks], behavior: str) -> List[Word]:
    out = []
    for word, (start, _) in words:
        for s, e in apply_behavior(marks_of(word), behavior):
            out.append((word[s:e], (start + s, start + e)))
    return out


# --- UnicodeScripts ---------------------------------------------------------
# tokenizers' table, measured on every code point (scripts/gen_unicode_scripts.py):
# anonymous classes, 0 = Any (" " and chars its table does not list).


@functools.lru_cache(maxsize=1)
def _script_classes() -> array.array:
    """Every code point's class."""
    from ._scripts_table import SCRIPT_CLASSES

    table = array.array("H", bytes(2 * 0x110000))
    for first, last, k in SCRIPT_CLASSES:
        table[first:last + 1] = array.array("H", [k]) * (last + 1 - first)
    return table


def script_class(c: str) -> int:
    return _script_classes()[ord(c)]


def unicode_scripts(word: str) -> List[Tuple[int, int]]:
    """A cut before each char whose class differs from the last non-Any char's;
    the pieces are the stretches between cuts, so Any chars before the first
    cut are dropped (as in HF)."""
    cuts, last, classes = [], None, _script_classes()
    for i, c in enumerate(word):
        k = classes[ord(c)]
        if k:
            if k != last:
                cuts.append(i)
            last = k
    cuts.append(len(word))
    return list(zip(cuts, cuts[1:]))


def pre_tokenize(config: dict, words: List[Word]) -> List[Word]:
    """Runs one pre-tokenizer (its tokenizer.json dict) over ``words``."""
    kind = config["type"]
    if kind == "Sequence":
        for item in config["pretokenizers"]:
            words = pre_tokenize(item, words)
        return words
    if kind == "BertPreTokenizer":
        words = _split(words, lambda w: char_marks(w, is_whitespace), "Removed")
        return _split(words, lambda w: char_marks(w, is_punctuation), "Isolated")
    if kind == "Whitespace":
        return _split(words, whitespace_marks, "Removed")
    if kind == "WhitespaceSplit":
        return _split(words, lambda w: char_marks(w, is_whitespace), "Removed")
    if kind == "Punctuation":
        return _split(words, lambda w: char_marks(w, is_punctuation), config.get("behavior") or "Isolated")
    if kind == "Digits":
        behavior = "Isolated" if config["individual_digits"] else "Contiguous"
        return _split(words, lambda w: char_marks(w, is_numeric), behavior)
    if kind == "CharDelimiterSplit":
        return _split(words, lambda w: char_marks(w, lambda c: c == config["delimiter"]), "Removed")
    if kind == "UnicodeScripts":
        return [(w[s:e], (start + s, start + e)) for w, (start, _) in words for s, e in unicode_scripts(w)]
    if kind == "Split" and "String" in config["pattern"]:
        literal, invert = config["pattern"]["String"], config["invert"]
        marks_of = lambda w: [(s, e, m != invert) for s, e, m in literal_marks(w, literal)]  # noqa: E731
        return _split(words, marks_of, config["behavior"])
    if kind == "Split" and "Regex" in config["pattern"]:
        pattern, invert = config["pattern"]["Regex"], config["invert"]
        marks_of = lambda w: [(s, e, m != invert) for s, e, m in regex_marks(w, pattern)]  # noqa: E731
        return _split(words, marks_of, config["behavior"])
    if kind == "ByteLevel" and not config.get("add_prefix_space") and config.get("use_regex") is False:
        # Without its regex and prefix space, ByteLevel only maps chars to byte chars.
        return [(_to_byte_chars(w), span) for w, span in words]
    raise NotImplementedError(f"pre_tokenizer {kind!r} is not in this oracle")


def _to_byte_chars(word: str) -> str:
    from .oracle_bpe import BYTE_CHAR

    return "".join(BYTE_CHAR[b] for b in word.encode("utf-8"))


def pre_tokenize_str(config, text: str) -> List[Word]:
    """Like ``tokenizers.pre_tokenizers.X().pre_tokenize_str(text)``; ``config`` is the
    pre-tokenizer's tokenizer.json dict or its JSON text."""
    if isinstance(config, (str, bytes)):
        config = json.loads(config)
    # As in HF, the text starts as one piece, empty or not; only a split drops
    # empty pieces (so an empty Sequence leaves [("", (0, 0))] for "").
    return pre_tokenize(config, [(text, (0, len(text)))])


__all__ = ["pre_tokenize", "pre_tokenize_str", "apply_behavior", "is_whitespace", "is_punctuation", "is_numeric", "is_word"]

"""Pure-Python reference ("oracle") of byte-level BPE as HF tokenizers runs it.

The readable specification the Rust pipeline (src/pipeline.rs) is tested
against, next to tokenizers 0.23.3 itself.  It covers the byte-level shapes
(GPT-2, RoBERTa): the ByteLevel pre-tokenizer (optional prefix space, GPT-2's
split regex, bytes -> printable chars), the BPE model (merges by rank, lowest
first, leftmost on ties) and ByteLevel offset trimming.  Added tokens,
normalizers and post-processors are left to the differential tests against
tokenizers.  Written for clarity, not speed; it never imports the extension.

Unicode categories (``\\p{L}``, ``\\p{N}``) come from the pinned unicodedata2
(Unicode 17.0), less the letters and numbers Unicode 17.0 added, which the
Oniguruma of tokenizers 0.23.3 (Unicode 16.0 tables) does not know (see
``NEW_IN_UNICODE_17``); ``\\s`` is the White_Space property, as in Oniguruma.
"""

from __future__ import annotations

import json
from typing import Dict, List, Tuple

import unicodedata2

# The White_Space property (Oniguruma's \s for Unicode text).
WHITE_SPACE = frozenset(
    [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)
# Letters and numbers new in Unicode 17.0 (inclusive ranges): tokenizers 0.23.3's
# Oniguruma sees them as unassigned, so to its split they are neither \\p{L} nor \\p{N}.
# Measured against tokenizers over every code point (tests/test_pipeline_bpe_fuzz.py
# test_split_of_every_code_point_three_way fails if this list goes stale).
NEW_IN_UNICODE_17 = (
    (0x088F, 0x088F), (0x0C5C, 0x0C5C), (0x0CDC, 0x0CDC), (0xA7CE, 0xA7CF), (0xA7D2, 0xA7D2),
    (0xA7D4, 0xA7D4), (0xA7F1, 0xA7F1), (0x10940, 0x10959), (0x10EC5, 0x10EC7), (0x11DB0, 0x11DDB),
    (0x11DE0, 0x11DE9), (0x16EA0, 0x16EB8), (0x16EBB, 0x16ED3), (0x16FF2, 0x16FF6), (0x187F8, 0x187FF),
    (0x18D09, 0x18D1E), (0x18D80, 0x18DF2), (0x1E6C0, 0x1E6DE), (0x1E6E0, 0x1E6E2), (0x1E6E4, 0x1E6E5),
    (0x1E6E7, 0x1E6ED), (0x1E6F0, 0x1E6F4), (0x1E6FE, 0x1E6FF), (0x2B73A, 0x2B73F), (0x2CEA2, 0x2CEAD),
    (0x323B0, 0x33479),
)
_NEW_IN_UNICODE_17 = frozenset(cp for a, b in NEW_IN_UNICODE_17 for cp in range(a, b + 1))
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def bytes_to_unicode() -> Dict[int, str]:
    """GPT-2's table: printable Latin-1 bytes stand for themselves, the rest map to U+0100 on."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table, n = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


BYTE_CHAR = bytes_to_unicode()
CHAR_BYTE = {c: b for b, c in BYTE_CHAR.items()}


def _is_space(c: str) -> bool:
    return ord(c) in WHITE_SPACE


def _category(c: str) -> str:
    if ord(c) in _NEW_IN_UNICODE_17:
        return "Cn"
    return unicodedata2.category(c)


def _is_letter(c: str) -> bool:
    return _category(c).startswith("L")


def _is_number(c: str) -> bool:
    return _category(c).startswith("N")


def _is_other(c: str) -> bool:
    return not (_is_space(c) or _is_letter(c) or _is_number(c))


def _run(text: str, i: int, pred) -> int:
    while i < len(text) and pred(text[i]):
        i += 1
    return i


def gpt2_split(text: str) -> List[str]:
    """The words of ``'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+``,
    trying the alternatives in order at each position, as a backtracking regex engine does."""
    words, i = [], 0
    while i < len(text):
        end = None
        for c in CONTRACTIONS:
            if text.startswith(c, i):
                end = i + len(c)
                break
        if end is None:
            j = i + 1 if text[i] == " " else i
            for pred in (_is_letter, _is_number, _is_other):
                if j < len(text) and pred(text[j]):
                    end = _run(text, j, pred)
                    break
        if end is None:
            # \s+(?!\S): the whitespace run, minus its last char when a non-space follows
            # (if that leaves nothing, the plain \s+ takes the one char).
            run_end = _run(text, i, _is_space)
            end = run_end if run_end == len(text) or run_end - i == 1 else run_end - 1
        words.append(text[i:end])
        i = end
    return words


def bpe(word: str, ranks: Dict[Tuple[str, str], int]) -> List[str]:
    """Merges the chars of ``word`` by rank: the adjacent pair with the lowest
    rank merges first, the leftmost one on ties, until no pair has a rank."""
    parts = list(word)
    while len(parts) > 1:
        best = None
        for k in range(len(parts) - 1):
            r = ranks.get((parts[k], parts[k + 1]))
            if r is not None and (best is None or r < best[0]):
                best = (r, k)
        if best is None:
            break
        k = best[1]
        parts[k: k + 2] = [parts[k] + parts[k + 1]]
    return parts


class ByteLevelBPE:
    """A byte-level BPE tokenizer.json read by the oracle (model, ByteLevel
    pre-tokenizer and offset trimming; no added tokens, no normalizer)."""

    def __init__(self, tokenizer_json: str) -> None:
        cfg = json.loads(tokenizer_json)
        model, pre = cfg["model"], cfg["pre_tokenizer"]
        if pre.get("type") != "ByteLevel" or model.get("type", "BPE") != "BPE":
            raise ValueError("the BPE oracle reads ByteLevel + BPE files only")
        self.vocab: Dict[str, int] = model["vocab"]
        merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
        self.ranks = {pair: r for r, pair in enumerate(merges)}
        self.add_prefix_space: bool = pre["add_prefix_space"]
        self.use_regex: bool = pre.get("use_regex", True)
        post = cfg.get("post_processor") or {}
        self.trim_offsets: bool = post.get("type") in ("ByteLevel", "RobertaProcessing") and post["trim_offsets"]
        self.trim_prefix_space: bool = post.get("add_prefix_space", True)

    def encode(self, text: str) -> Tuple[List[int], List[str], List[Tuple[int, int]]]:
        """ids, tokens and char offsets of ``text`` (no special tokens)."""
        origin_shift = 0
        if self.add_prefix_space and not text.startswith(" ") and text:
            text, origin_shift = " " + text, 1  # the prefix space spans the first char
        words, start = [], 0
        for w in gpt2_split(text) if self.use_regex else ([text] if text else []):
            words.append((w, start))
            start += len(w)
        ids, tokens, offsets = [], [], []
        for word, start in words:
            # each byte char remembers the original char it came from
            chars, owner = [], []
            for k, c in enumerate(word):
                for b in c.encode("utf-8"):
                    chars.append(BYTE_CHAR[b])
                    owner.append(max(start + k - origin_shift, 0))
            at = 0
            for tok in bpe("".join(chars), self.ranks):
                if tok not in self.vocab:
                    raise ValueError(f"{tok!r} is not in the vocabulary (the oracle has no unk handling)")
                ids.append(self.vocab[tok])
                tokens.append(tok)
                offsets.append((owner[at], owner[at + len(tok) - 1] + 1))
                at += len(tok)
        if self.trim_offsets:
            offsets = [self._trim(i, t, o) for i, (t, o) in enumerate(zip(tokens, offsets))]
        return ids, tokens, offsets

    def _trim(self, i: int, token: str, offsets: Tuple[int, int]) -> Tuple[int, int]:
        """Leading/trailing spaces leave a token's offsets, except the one
        prefix space of the first token."""
        spacey = lambda c: c == "Ġ" or ord(c) in WHITE_SPACE  # noqa: E731
        lead = next((k for k, c in enumerate(token) if not spacey(c)), len(token))
        trail = next((k for k, c in enumerate(reversed(token)) if not spacey(c)), len(token))
        start, end = offsets
        if lead and not ((i == 0 or start == 0) and self.trim_prefix_space and lead == 1):
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        return start, end


def load(path: str) -> ByteLevelBPE:
    with open(path, encoding="utf-8") as f:
        return ByteLevelBPE(f.read())


__all__ = ["bytes_to_unicode", "gpt2_split", "bpe", "ByteLevelBPE", "load", "WHITE_SPACE"]
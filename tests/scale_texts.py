"""Texts built to reach the fast paths' state that only large inputs reach: random distinct words of 1-40
chars in several scripts (more than any word cache holds, on one thread), and edge lines. Shared by
tests/test_parity_at_scale.py and benches/parity_sweep.py (docs/parity-sweep.md)."""

import random

# (first, last) code points of each script's letters; marks are added inside words of the scripts that use them
SCRIPTS = {
    "latin": [(0x61, 0x7A)],
    "latin-accented": [(0x61, 0x7A), (0xE0, 0xFF), (0x100, 0x17F)],
    "Latin-upper": [(0x41, 0x5A), (0x61, 0x7A)],
    "cyrillic": [(0x430, 0x44F)],
    "greek": [(0x3B1, 0x3C9)],
    "cjk": [(0x4E00, 0x9FFF)],
    "hangul": [(0xAC00, 0xD7A3)],
    "kana": [(0x3041, 0x3096), (0x30A1, 0x30FA)],
    "devanagari": [(0x915, 0x939)],
    "arabic": [(0x627, 0x64A)],
    "digits": [(0x30, 0x39)],
}
MARKS = {"devanagari": [0x93E, 0x93F, 0x940, 0x94D, 0x902], "arabic": [0x64B, 0x64E, 0x650],
         "latin-accented": [0x301, 0x308]}
FREQUENT = ["the", "of", "and", "internationally", "Wednesday's", "1999", "—", ",", ".", "日本", "данные"]


def random_word(rng, script):
    spans = SCRIPTS[script]
    n = rng.randint(1, 40) if rng.random() < 0.3 else rng.randint(1, 12)
    chars = []
    for _ in range(n):
        a, b = spans[rng.randrange(len(spans))]
        chars.append(chr(rng.randint(a, b)))
        if script in MARKS and rng.random() < 0.15:
            chars.append(chr(rng.choice(MARKS[script])))
    return "".join(chars)


def synthetic_lines(words, seed=46, per_line=60):
    """`words` random words (nearly all distinct), scripts mixed inside a line, a frequent word every few,
    in lines of `per_line` words: more distinct words than any cache holds, on one thread."""
    rng = random.Random(seed)
    names = sorted(SCRIPTS)
    lines, line = [], []
    for k in range(words):
        if k % 5 == 4:
            line.append(FREQUENT[k % len(FREQUENT)])
        line.append(random_word(rng, names[rng.randrange(len(names))]))
        if len(line) >= per_line:
            sep = " " if rng.random() < 0.8 else rng.choice(["  ", "\t", " , ", "-", ""])
            lines.append(sep.join(line))
            line = []
    if line:
        lines.append(" ".join(line))
    return lines


def edge_lines():
    """Lines each path treats specially: empty, only spaces/NUL/marks, control chars, a 2 MB line with no space,
    long words, emoji sequences, lone combining marks after spaces."""
    long_word = "abcdefghij" * 200_000  # 2 MB, no space
    return ["", " ", "   ", "\x00", "\x00\x00 \x00", "\u0301", " \u0301\u0302 ", "\u0301" * 500, "\t\n\r",
            "\u200b\u200d\ufeff", "a\u0000b", "\u3000x\u3000", "😀" * 300, "👨‍👩‍👧‍👦 🏳️‍🌈", "x" * 5000,
            "ab " * 30_000, " ".join("w%d" % k for k in range(20_000)), long_word, "é" * 100_000,
            "日本語" * 50_000, "\u0300a\u0300 \u0300", "Ａｂｃ１２３ ｶﾞ ﬁ", "<s> </s> <pad> [CLS] [SEP] [MASK] <unk>"]

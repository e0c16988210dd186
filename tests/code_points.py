"""The code points the every-code-point sweeps run through.

A code point's treatment by the tokenizers here is a function of its properties: its general category,
combining class, decompositions and case mappings (in the newest Unicode, unicodedata2, and in this
interpreter's, which Google's and transformers' Python code read), its script class, whether it is
whitespace or a regex word char, whether a reference counts it as CJK, whether it is new in Unicode 17.
Where at least RUN consecutive code points share all of those (the CJK ideographs, Hangul syllables,
Tangut, private use, unassigned stretches...), the sweeps take the run's first and last two and every
STRIDE-th between (every PLAIN_STRIDE-th in planes 4-13 and 15-16, unassigned and private use); every
other code point is taken: about 70,000 of the 1,114,112. The runs are computed (once per process, ~2 s)
from the libraries and tables the references and the oracle read."""

import bisect
import functools
import unicodedata

RUN = 256
STRIDE = 13  # in the runs found by their properties
PLAIN_STRIDE = 61  # in the unassigned and private-use planes
# Both references' CJK ranges (oracle_chars / HF's Rust table: HF's lacks U+2B820..U+2B91F).
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F), (0x2B820, 0x2B91F))
# Planes 4-13 (unassigned) and 15-16 (private use): checked uniform below, so their signatures are not
# computed one by one (900,000 code points).
_PLAIN_PLANES = ((0x40000, 0xE0000, "Cn"), (0xF0000, 0xFFFFE, "Co"), (0x100000, 0x10FFFE, "Co"))


def _signature(cp, cjk_range, script_class, regex_category, is_word, white_space, u2):
    c = chr(cp)
    decomposition = u2.decomposition(c)
    return (u2.category(c), u2.combining(c), decomposition.split(" ")[0] if decomposition.startswith("<") else bool(decomposition),
            u2.normalize("NFD", c) != c, u2.normalize("NFKD", c) != c, u2.normalize("NFKC", c) != c,
            unicodedata.category(c), unicodedata.combining(c), unicodedata.normalize("NFD", c) != c,
            unicodedata.normalize("NFKD", c) != c, c.lower() != c, c.upper() != c, c.casefold() != c,
            c.isspace(), c.isprintable(), c.isalnum(), cjk_range(cp), script_class(c), regex_category(c),
            is_word(c), cp in white_space)


def _runs_to_sample():
    """(first, last, stride) of the uniform runs of RUN or more code points."""
    import unicodedata2

    from bertpiece.oracle_bpe import WHITE_SPACE
    from bertpiece.oracle_pre_tokenizers import script_class
    from bertpiece.oracle_regex import general_category, is_word

    def cjk_range(cp):
        return tuple(lo <= cp <= hi for lo, hi in _CJK)

    def uniform_runs(first, stop):
        runs, start, last = [], first, None
        for cp in range(first, stop):
            sig = _signature(cp, cjk_range, script_class, general_category, is_word, WHITE_SPACE, unicodedata2)
            if sig != last:
                if cp - start >= RUN:
                    runs.append((start, cp - 1, STRIDE))
                start, last = cp, sig
        if stop - start >= RUN:
            runs.append((start, stop - 1, STRIDE))
        return runs

    runs = uniform_runs(0, 0x40000) + uniform_runs(0xE0000, 0xF0000)
    for first, stop, category in _PLAIN_PLANES:
        odd = [cp for cp in range(first, stop) if unicodedata2.category(chr(cp)) != category
               or unicodedata.category(chr(cp)) != category]
        assert not odd, f"U+{odd[0]:04X} is not {category}: tests/code_points.py's plain planes are not uniform"
        runs.append((first, stop - 1, PLAIN_STRIDE))
    return runs


@functools.lru_cache(maxsize=None)
def _swept():
    """Every swept code point (the surrogates included), ascending."""
    out, cp = [], 0
    for first, last, stride in sorted(_runs_to_sample()):
        out.extend(range(cp, first))
        out.extend(k for k in range(first, last + 1) if (k - first) % stride == 0 or k - first < 2 or last - k < 2)
        cp = last + 1
    out.extend(range(cp, 0x110000))
    return out


def code_points(start=0, stop=0x110000, surrogates=False):
    """The swept code points in [start, stop): see the module's docstring."""
    swept = _swept()
    chosen = swept[bisect.bisect_left(swept, start):bisect.bisect_left(swept, stop)]
    return chosen if surrogates else [cp for cp in chosen if not 0xD800 <= cp < 0xE000]

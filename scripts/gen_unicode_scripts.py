"""Generates src/pre_tokenizers/unicode_scripts_table.rs and
python/bertpiece/_scripts_table.py: the script classes of tokenizers'
UnicodeScripts pre-tokenizer, MEASURED on every code point on the installed
tokenizers (0.23.3), so both tables are exactly what it runs.

HF's pre-tokenizer (tokenizers/src/pre_tokenizers/unicode_scripts/) cuts a
piece wherever a char's script differs from the last non-`Any` char's, with
its own table (sentencepiece's, an older Unicode) where unlisted chars and
" " are `Any`, and Hiragana, Katakana and U+30FC count as Han. Only which
chars share a script matters, so the table holds anonymous class numbers
(0 = `Any`); they are read off the pre-tokenizer's own cuts:

1. c is `Any` iff "a" c "α" has no cut between "a" and c and "α" c "a" none
   between "α" and c (a Latin, a Greek neighbour: any other script cuts one).
2. Of the other chars, in code point order, two neighbours share a class iff
   there is no cut between them; each run's class is found by probing its
   first char against one char of every class seen so far ("r k1 r k2 ...").

Run: python scripts/gen_unicode_scripts.py (needs tokenizers 0.23.3).
"""

import pathlib

import tokenizers
from tokenizers import pre_tokenizers

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPTS = pre_tokenizers.UnicodeScripts()
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
CHUNK = 100_000


def cuts(text):
    """The char offsets where the pre-tokenizer starts a new piece."""
    return {start for _, (start, _) in SCRIPTS.pre_tokenize_str(text)}


def any_chars():
    found = set()
    for i in range(0, len(CODE_POINTS), CHUNK):
        chunk = CODE_POINTS[i:i + CHUNK]
        latin_first = cuts("".join("a" + chr(c) + "α" for c in chunk))
        greek_first = cuts("".join("α" + chr(c) + "a" for c in chunk))
        found.update(c for j, c in enumerate(chunk) if 3 * j + 1 not in latin_first and 3 * j + 1 not in greek_first)
    return found


def classes():
    """code point -> class number (1.., in order of first appearance)."""
    anys = any_chars()
    rest = [c for c in CODE_POINTS if c not in anys]
    starts = set()
    for i in range(0, len(rest), CHUNK):
        chunk = rest[i:i + CHUNK + 1]  # one char of overlap: a cut at a chunk start is seen from the previous one
        starts.update(i + j for j in cuts("".join(map(chr, chunk))) if j > 0)
    starts.add(0)
    reps, of = [], {}  # one char per class
    run_class = 0
    for j, c in enumerate(rest):
        if j in starts:
            probe = "".join(chr(c) + chr(k) for k in reps)
            same = [n for n in range(len(reps)) if 2 * n + 1 not in cuts(probe)]
            assert len(same) <= 1, hex(c)
            if same:
                run_class = same[0] + 1
            else:
                reps.append(c)
                run_class = len(reps)
        of[c] = run_class
    return of


def ranges(of):
    out = []
    for c in CODE_POINTS:
        k = of.get(c, 0)
        if out and out[-1][2] == k and out[-1][1] == c - 1:
            out[-1][1] = c
        elif k:
            out.append([c, c, k])
    return [r for r in out if r[2]]


def main():
    table = ranges(classes())
    source = f"tokenizers {tokenizers.__version__}'s UnicodeScripts, measured by scripts/gen_unicode_scripts.py"
    rust = [f"// @generated from {source}; do not edit.",
            "// (first, last, class): chars in one range share a script class; unlisted chars are `Any` (0).",
            "",
            f"pub static SCRIPT_CLASSES: [(u32, u32, u16); {len(table)}] = ["]
    rust += [f"    (0x{a:04X}, 0x{b:04X}, {k})," for a, b, k in table] + ["];", ""]
    (ROOT / "src/pre_tokenizers/unicode_scripts_table.rs").write_text("\n".join(rust))
    py = [f'"""@generated from {source}; do not edit."""', "",
          "# (first, last, class): chars in one range share a script class; unlisted chars are Any (0).",
          "SCRIPT_CLASSES = ("]
    py += ["    " + " ".join(f"({a}, {b}, {k})," for a, b, k in table[i:i + 6]) for i in range(0, len(table), 6)]
    py += [")", ""]
    (ROOT / "python/bertpiece/_scripts_table.py").write_text("\n".join(py))
    print(len(table), "ranges,", max(k for _, _, k in table), "classes")


if __name__ == "__main__":
    main()

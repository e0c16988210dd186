"""Every code point U+0000..U+10FFFF (tests/code_points.py), alone and in context, through the Rust
BasicTokenizer and the oracle's, for both references, lowercased under one and cased under the other.
Also the core's NFD/NFC tables against unicodedata2 for every code point."""

import pytest
import unicodedata2

import bertpiece
from bertpiece import _core, oracle
from code_points import code_points

SEGMENT = 0x8000
SEGMENTS = range(0, 0x110000, SEGMENT)
CONFIGS = [(ref, lower) for ref in ("google", "transformers") for lower in (True, False)]


def contexts(c):
    """The whitespace tokens each code point is tried in."""
    return (
        c,                      # alone
        "ab" + c + "cd",        # inside a word
        "(" + c + ")",          # beside punctuation
        "AΣ" + c + "Σ",         # between sigmas: is c cased, case-ignorable, neither?
        "E" + c + "\u0301",     # between a base letter and a combining mark (ordering, composition)
        c + "\u0323\u0301",     # c as a base for marks
    )


def segment_cps(start):
    return code_points(start, min(start + SEGMENT, 0x110000), surrogates=True)


def segment_text(start):
    return " ".join(t for cp in segment_cps(start) for t in contexts(chr(cp)))


def first_difference(start, rust, orac):
    for cp in segment_cps(start):
        text = " ".join(contexts(chr(cp)))
        if rust.tokenize(text) != orac.tokenize(text):
            return cp, text, rust.tokenize(text), orac.tokenize(text)
    return None


# Each segment under both references, lowercased under one and cased under the other, taking turns: every
# code point meets both references and both casings, every configuration half the segments.
SWEEP = [(ref, lower, start) for k, start in enumerate(SEGMENTS) for ref, lower in CONFIGS
         if lower == ((k % 2 == 0) == (ref == "google"))]


@pytest.mark.parametrize("reference,lower,start", SWEEP, ids=lambda v: str(v) if isinstance(v, (bool, str, type(None))) else f"U+{v:05X}")
def test_every_code_point_in_context(reference, lower, start):
    rust = bertpiece.BasicTokenizer(do_lower_case=lower, reference=reference)
    orac = oracle.BasicTokenizer(do_lower_case=lower, reference=reference)
    text = segment_text(start)
    if rust.tokenize(text) != orac.tokenize(text):
        cp, ctx, got, want = first_difference(start, rust, orac)
        pytest.fail(f"U+{cp:04X} in {ctx!r}: rust {got!r} != oracle {want!r}")


@pytest.mark.parametrize("start", SEGMENTS, ids=lambda s: f"U+{s:05X}")
def test_normalization_tables_match_unicodedata2(start):
    chars = [chr(cp) for cp in segment_cps(start)]
    for form in ("NFD", "NFC"):
        for build in (lambda c: c, lambda c: "A" + c + "\u0301", lambda c: c + "\u0327\u0301"):
            text = " ".join(build(c) for c in chars)
            if _core._normalize(form, text) != unicodedata2.normalize(form, text):
                bad = next(c for c in chars if _core._normalize(form, build(c)) != unicodedata2.normalize(form, build(c)))
                pytest.fail(f"{form} of {build(bad)!r} (U+{ord(bad):04X}) differs from unicodedata2")

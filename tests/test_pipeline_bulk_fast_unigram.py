"""The ids-only bulk path (Tokenizer::encode_ids_into, src/pipeline_ids.rs)
on the fused Metaspace + Unigram shape (FusedUnigram::encode_ids) against the
general path of the same file (fast_path=False) and tokenizers 0.23.3's
encode_batch, three-way: every UD line for the plain and the XLM-R
(Precompiled) shapes, the other Metaspace shapes on a sample, texts holding
added tokens (which take `encode`), tokens added at run time, truncation,
add_special_tokens, 1 and 2 threads, offsets, hypothesis texts."""

import functools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import AddedToken

from bpe_shapes import UD_FILES, ud_lines
from test_pipeline_bulk_fast import check
from test_pipeline_bpe_fuzz import TEXT
from test_pipeline_unigram_fast import EXTRA, SHAPES, three as three_of_text
from tiers import ud_file_tiers


@functools.lru_cache(maxsize=None)
def three(shape):
    return three_of_text(SHAPES[shape]())


def lines_of(n):
    return [line for path in UD_FILES for line in ud_lines(path, n)] + EXTRA


@pytest.mark.parametrize("shape", ["t5", "spm_xlmr_precompiled"])
@pytest.mark.parametrize("files", ud_file_tiers(UD_FILES))
def test_every_ud_line_three_way(shape, files):
    fused, general, theirs = three(shape)
    # Lines 1, 4, 7, ... of every UD file (test_pipeline_unigram_fast.py runs lines 0, 3, 6, ... through the fused core):
    # all of them ids only (the charsmap as text, space runs cut by the word cutter), a sample with offsets too
    lines = [line for path in files for line in ud_lines(path)[1::3]] + EXTRA
    check(fused, general, theirs, lines, threads=(2,), offsets_too=(False,), general_rows=2000)
    check(fused, general, theirs, lines[::5] + EXTRA, threads=(1,), offsets_too=(True,), add_special_tokens=False)


@pytest.mark.parametrize("shape", sorted(set(SHAPES) - {"t5", "spm_xlmr_precompiled"}))
def test_other_shapes_three_way(shape):
    fused, general, theirs = three(shape)
    for add in (True, False):
        check(fused, general, theirs, lines_of(40), add_special_tokens=add)


@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_three_way(direction):
    fused, general, theirs = three("spm_xlmr_precompiled")
    lines = lines_of(4)
    try:
        for max_length, strategy in ((0, "longest_first"), (1, "only_first"), (2, "longest_first"), (7, "only_first")):
            for t in (theirs, fused, general):
                t.enable_truncation(max_length, stride=0, strategy=strategy, direction=direction)
            for add in (True, False):
                # ids only (the text-only normalization; offsets with truncation: the hypothesis test)
                check(fused, general, theirs, lines, threads=(1,), offsets_too=(False,), add_special_tokens=add)
    finally:
        for t in (theirs, fused, general):
            t.no_truncation()


def test_tokens_added_at_run_time():
    """The "no added token here" check follows add_tokens (a text holding one takes `encode`)."""
    text = SHAPES["t5"]()
    fused, general, theirs = three_of_text(text)
    for t in (fused, general, theirs):
        t.add_tokens(["zz", AddedToken("é", normalized=False)])
        t.add_special_tokens([AddedToken("[X]", lstrip=True, rstrip=True)])
    lines = lines_of(8) + ["a [X] b", "café [X]é", "é", "zzz zz", "xzzx"]
    check(fused, general, theirs, lines)
    check(fused, general, theirs, lines, add_special_tokens=False)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(TEXT, min_size=1, max_size=6), shape=st.sampled_from(sorted(SHAPES)), add=st.booleans(),
       max_length=st.one_of(st.none(), st.integers(0, 12)), direction=st.sampled_from(["right", "left"]))
def test_hypothesis_texts_three_way(texts, shape, add, max_length, direction):
    fused, general, theirs = three(shape)
    try:
        if max_length is not None:
            for t in (theirs, fused, general):
                t.enable_truncation(max_length, direction=direction)
        check(fused, general, theirs, texts, add_special_tokens=add)
    finally:
        for t in (theirs, fused, general):
            t.no_truncation()


# English punctuation the XLM-R charsmap keeps (curly quotes, dashes, Latin-1), chars it changes or that join
# a neighbour (… NBSP, a combining mark, a soft hyphen, ‼), spaces the Strip and Replace(" {2,}") normalize;
# for the ids-only path (the charsmap applied as text): controls and NUL, every kind of whitespace, full-width
# and other NFKC-changing forms, CJK, emoji, the replacement char, and runs longer than the word cache's keys.
PLAIN_FORM_CHARS = (list("ab A.\t“”‘’–—é£×\u00a0…\u0301\u00ad©‼\u2028") + [" ", "  ", "   "]
                    + list("\x00\x01\x1e\x7f\r\n\x0b\x0c\x85\u1680\u2000\u2009\u200b\u3000\u2029ＡＢ０！ｶﬁ①Ⅻ²™½\u0308\u20dd日本😀👍🏽▁")
                    + ["abcdefghij" * 7, " ▁ ", "x" * 66])
PLAIN_FORM_LINES = ["“Yes,” she said.  ‘No’ – it’s £5 — café ", "  “ ”  ", "a\u2019\u0301 b", "x … y\u00a0z",
                    "end.  Next  one   here", "‼ © ×", "a  ", "  a", "\u2028“x”", "a\u3000\u3000 b\t\t c ▁ d  ▁e",
                    "ＡＢ  ０ ﬁ\x00 \x85 ", "\t ", " ▁", "▁  ▁ ", "w" * 70 + "  " + "w" * 70]


def test_plain_forms_three_way():
    """Texts the XLM-R normalizer leaves as they are (non-ASCII chars it keeps next to ASCII) or, ids only,
    only strips and replaces in take the raw path (FusedUnigram::encode_ids): equal to the general path
    and tokenizers 0.23.3, with and without offsets, 1 and 2 threads."""
    fused, general, theirs = three("spm_xlmr_precompiled")
    check(fused, general, theirs, PLAIN_FORM_LINES)
    check(fused, general, theirs, PLAIN_FORM_LINES, add_special_tokens=False)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(st.lists(st.sampled_from(PLAIN_FORM_CHARS), max_size=25).map("".join), min_size=1, max_size=4))
def test_plain_forms_hypothesis_three_way(texts):
    fused, general, theirs = three("spm_xlmr_precompiled")
    check(fused, general, theirs, texts, threads=(2,), add_special_tokens=False)


def block_edge_lines():
    """Texts for the block word cutter (fused_cut.rs, 64 bytes a block): every length 0-2, 15-17, 63-65 and
    127-129 bytes, with a space, `▁`, a run of spaces, a curly quote (its lead byte is `▁`'s) or a non-ASCII
    letter at each block boundary (a char split by the block's end), and word lengths around the cache's
    16-byte inline keys."""
    fills = ["ab cde", "▁x▁", "a  b", "“q” ", "é ß", "  ", "w" * 15 + " ", "v" * 17 + "▁", "\t x"]
    out = []
    for n in (0, 1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129):
        for k, fill in enumerate(fills):
            text = (fill * (n // max(len(fill.encode()), 1) + 2)).encode()[:n].decode("utf-8", "ignore")
            out.append(text)
            # the same length with the marker moved onto the byte before, at and after each block edge
            for edge in (15, 16, 63, 64):
                for d in (-1, 0, 1):
                    at = edge + d
                    if 0 <= at < n:
                        out.append("x" * at + fill + "y" * max(n - at - len(fill), 0))
    return out


@pytest.mark.parametrize("shape", ["t5", "spm_xlmr_precompiled", "llama_byte_fallback_first", "xlmr_mask"])
def test_block_edges_three_way(shape):
    fused, general, theirs = three(shape)
    lines = block_edge_lines()
    check(fused, general, theirs, lines, threads=(1,), offsets_too=(False,), add_special_tokens=False)
    check(fused, general, theirs, lines, threads=(2,), offsets_too=(True,))

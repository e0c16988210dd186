"""SentencePieceProcessor.encode of a list with sentencepiece's per-text
options (add_bos, add_eos, reverse, emit_unk_piece; ids, pieces and bytes
out): the core applies them in each slice's job, so a list with options is
encoded as much in parallel as one without. Compared with sentencepiece on
the same list and thread count, and with the single-text calls."""

import numpy as np
import pytest

from spm_models import _trained, every_ud_line, pair

# "ꙮ" and "𓀀" are in no model (unknown runs); spaces apart so they stay two runs.
ODD = ["", "ꙮ ꙮꙮ x𓀀", "a ꙮ b 𓀀 c", "  ", "<sep>abc<cls>ing the", "ꙮ"]
OPTIONS = [dict(add_bos=True), dict(add_eos=True), dict(reverse=True), dict(add_bos=True, add_eos=True, reverse=True),
           dict(emit_unk_piece=True), dict(emit_unk_piece=True, reverse=True, add_bos=True)]


def lines_of_slices():
    # More than one slice (>= 16 KB each) per thread, unknown runs in several slices.
    lines = list(every_ud_line()[::5])
    return [*ODD, *lines[:300], *ODD, *lines[300:], *ODD]


@pytest.mark.parametrize("name", ["unigram", "bpe", "unigram_bytes", "bpe_symbols"])
def test_list_options_on_one_and_two_threads_equal_sentencepiece(name):
    ref, ours = pair(name)
    texts = lines_of_slices()
    assert sum(map(len, texts)) > 64_000
    for out_type in (int, str, bytes):
        for kwargs in OPTIONS:
            if out_type is int and "emit_unk_piece" in kwargs:
                continue
            single = [ours.encode(text, out_type=out_type, **kwargs) for text in texts]
            assert single == [ref.encode(text, out_type=out_type, **kwargs) for text in texts], (out_type, kwargs)
            for threads in (1, 2):
                got = ours.encode(texts, out_type=out_type, num_threads=threads, **kwargs)
                assert got == ref.encode(texts, out_type=out_type, num_threads=threads, **kwargs), (out_type, kwargs, threads)
                assert got == single, (out_type, kwargs, threads)


def test_emit_unk_piece_keeps_an_unknown_run_spelled_as_a_control_piece():
    # A control symbol is never matched in text, so "ꙮ" is an unknown run; but
    # PieceToId("ꙮ") is the control id, not unk, so emit_unk_piece keeps its text.
    import sentencepiece as spm

    import bertpiece

    blob = _trained((("control_symbols", ("ꙮ",)), ("model_type", "unigram")))
    ref, ours = spm.SentencePieceProcessor(model_proto=blob), bertpiece.SentencePieceProcessor(model_proto=blob)
    texts = ["ꙮ", "a ꙮ 𓀀 b", "ꙮ𓀀", *every_ud_line()[:2000:7]]
    for threads in (1, 2):
        for out_type in (str, bytes):
            got = ours.encode(texts, out_type=out_type, emit_unk_piece=True, num_threads=threads)
            assert got == ref.encode(texts, out_type=out_type, emit_unk_piece=True, num_threads=threads)
    # The case is there: sentencepiece keeps "ꙮ" and spells 𓀀's run as unk.
    pieces = ref.encode("a ꙮ 𓀀 b", out_type=str, emit_unk_piece=True)
    assert "ꙮ" in pieces and ref.id_to_piece(ref.unk_id()) in pieces, pieces

def test_list_options_are_applied_by_the_core_not_per_row_in_python():
    # Per-row rewriting in Python after the core's call held the GIL on one
    # thread for every row (serial: add_bos cost a list encode ~8 %, bytes 3x,
    # emit_unk_piece 6x). The options now have one definition, the core's (one
    # text with options is a list of one): no per-row rewriting is left in Python.
    from bertpiece.sentencepiece_api import args

    assert not hasattr(args, "rewrite_ids") and not hasattr(args, "rewrite_pieces")
    ref, ours = pair("unigram")
    texts = list(every_ud_line()[:50])
    for kwargs in OPTIONS:
        assert ours.encode(texts, out_type=str, num_threads=2, **kwargs) == ref.encode(texts, out_type=str, **kwargs)
        assert ours.encode(texts[7], out_type=str, **kwargs) == ref.encode(texts[7], out_type=str, **kwargs)
    assert ours.encode(texts, add_bos=True, add_eos=True, reverse=True) == ref.encode(texts, add_bos=True, add_eos=True, reverse=True)
    assert ours.encode(texts[7], add_bos=True, add_eos=True, reverse=True) == ref.encode(texts[7], add_bos=True, add_eos=True, reverse=True)
    assert ours.encode(texts, out_type=bytes) == ref.encode(texts, out_type=bytes)


@pytest.mark.parametrize("name", ["unigram", "bpe_bytes"])
def test_numpy_rows_as_sentencepieces(name):
    # int32 arrays made by the core from each slice's ids, read-only as sentencepiece's
    # (views of its buffers; the old per-row np.array gave writeable arrays).
    ref, ours = pair(name)
    texts = lines_of_slices()
    for kwargs in [dict(), dict(add_bos=True, add_eos=True, reverse=True)]:
        for threads in (1, 2):
            got = ours.encode(texts, out_type="numpy", num_threads=threads, **kwargs)
            expected = ref.encode(texts, out_type="numpy", num_threads=threads, **kwargs)
            assert type(got) is list and len(got) == len(expected)
            for a, b in zip(got, expected):
                assert (a.dtype, a.shape, a.flags.writeable, a.flags.c_contiguous) == \
                       (b.dtype, b.shape, b.flags.writeable, b.flags.c_contiguous)
                assert np.array_equal(a, b)
    for text in ODD:
        a, b = ours.encode(text, out_type="numpy"), ref.encode(text, out_type="numpy")
        assert (a.dtype, a.shape, a.flags.writeable) == (b.dtype, b.shape, b.flags.writeable) and np.array_equal(a, b)

"""The fused Metaspace + Unigram path (src/models/unigram/fused.rs) against the
general path on the same file (`PipelineTokenizer.from_str(json, fast_path=False)`)
AND tokenizers 0.23.3: UD lines of every language, pairs, pre-tokenized input, added
tokens, byte_fallback, every Metaspace option, truncation with overflow and
padding, on files trained at test time (tests/models_shapes.py,
tests/precomp_shapes.py: sentencepiece models converted as transformers does)."""

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bertpiece._core import PipelineTokenizer
from bpe_shapes import UD_FILES, assert_all_same, assert_same, ud_lines
from models_shapes import llama_json, t5_json, unigram_base, with_byte_pieces, xlmr_json
from precomp_shapes import t5_json as spm_t5_json, xlmr_json as spm_xlmr_json
from tiers import ud_file_tiers


def _with_pre_tokenizer(text, pre_tokenizer):
    cfg = json.loads(text)
    cfg["pre_tokenizer"] = pre_tokenizer
    return json.dumps(cfg)


def _with_normalizer(text, normalizer, pre_tokenizer):
    cfg = json.loads(_with_pre_tokenizer(text, pre_tokenizer))
    cfg["normalizer"] = normalizer
    return json.dumps(cfg)


def _meta(scheme="always", split=True):
    return {"type": "Metaspace", "replacement": "▁", "prepend_scheme": scheme, "split": split}


def _whitespace_then_meta(text):
    return _with_pre_tokenizer(text, {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, _meta()]})


SHAPES = {
    "t5": t5_json,
    "xlmr_mask": xlmr_json,
    "llama_byte_fallback_first": llama_json,
    "never_unsplit": lambda: _with_pre_tokenizer(unigram_base(), _meta("never", False)),
    "first_sequence_of_one": lambda: _with_pre_tokenizer(
        with_byte_pieces(unigram_base(), every=3), {"type": "Sequence", "pretokenizers": [_meta("first")]}),
    "spm_xlmr_precompiled": spm_xlmr_json,
    "spm_t5_whitespace_split": lambda: _whitespace_then_meta(spm_t5_json()),
    # NFKC keeps ASCII text: such texts are cut from their bytes (as the normalizer-less files' are)
    "nfkc_first": lambda: _with_normalizer(unigram_base(), {"type": "NFKC"}, _meta("first")),
}

EXTRA = ["", " ", "  a  b  ", "▁x", "a▁▁b", "日本語のテキスト", "x\u0301y", "\x00z", "😀 emoji 👍🏽", "\t\n tab",
         "<mask>x <mask> y<mask>", " ﬁ ① Ⅻ ｶ "] + [
    # 1, 63, 64, 65 and 129 bytes, ASCII and not
    (unit * 70)[:n] for n in (1, 63, 64, 65, 129) for unit in ("the cat ", "  a", "é b ")]


def three(text):
    """(fused, general, tokenizers) on one file; the first on the fused path, the second not."""
    fused = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, fast_path=False), text)
    assert fused._core.fast_path() == "metaspace_unigram"
    assert general._core.fast_path() is None
    return fused, general, HFTokenizer.from_str(text)


# Every 3rd line of every UD file for the two main shapes (plain Metaspace, XLM-R with its charsmap); every 16th
# for the others (tests/test_pipeline_bulk_fast_unigram.py runs the other lines through the same fused core).
EVERY_LINE = {"t5", "spm_xlmr_precompiled"}


def all_ud_lines(step=1, files=UD_FILES):
    return [line for path in files for line in ud_lines(path)[::step]] + EXTRA


def test_other_shapes_stay_on_the_general_path():
    for pre in [{"type": "Whitespace"}, {"type": "Sequence", "pretokenizers": [_meta(), {"type": "Digits", "individual_digits": False}]}]:
        assert bertpiece.Tokenizer.from_str(_with_pre_tokenizer(unigram_base(), pre))._core.fast_path() is None


@pytest.mark.parametrize("files", ud_file_tiers(UD_FILES))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_ud_line_fused_general_and_tokenizers(shape, files):
    fused, general, hf = three(SHAPES[shape]())
    lines = all_ud_lines(3 if shape in EVERY_LINE else 16, files)
    want = hf.encode_batch(lines)
    for got_fused, got_general, w, line in zip(fused.encode_batch(lines), general.encode_batch(lines), want, lines):
        assert_all_same((got_fused, got_general), w, line)
    # One at a time (the cache of this thread, warm from the batch or not) and pairs.
    sample = lines[::197] + EXTRA
    for line, nxt in zip(sample, sample[1:] + sample[:1]):
        assert_same(fused.encode(line), hf.encode(line), line)
        assert_same(fused.encode(line, nxt, add_special_tokens=False), hf.encode(line, nxt, add_special_tokens=False),
                    (line, nxt))
        assert_same(fused.encode(line, nxt), general.encode(line, nxt), (line, nxt))


@pytest.mark.parametrize("shape", ["t5", "llama_byte_fallback_first", "spm_t5_whitespace_split"])
def test_pretokenized_and_added_tokens(shape):
    fused, general, hf = three(SHAPES[shape]())
    hf.add_tokens(["ab c", "zz"])
    text = hf.to_str()
    fused, general, hf = three(text)
    words = ["Hello", "wörld", " two words", "", "日本", "▁x", "zzab cx"]
    for a, b in [(words, None), (words, words[::-1])]:
        assert_same(fused.encode(a, b, is_pretokenized=True), hf.encode(a, b, is_pretokenized=True), words)
        assert_same(general.encode(a, b, is_pretokenized=True), hf.encode(a, b, is_pretokenized=True), words)
    for line in ["zz ab c zzz", " ab c", "<s>zz</s>", "x zz\u3000ab  c"] + EXTRA:
        assert_same(fused.encode(line), hf.encode(line), line)


@pytest.mark.parametrize("shape", ["xlmr_mask", "spm_xlmr_precompiled"])
def test_truncation_with_overflow_and_padding(shape):
    fused, general, hf = three(SHAPES[shape]())
    # Lines cut to 120 chars: a pair of long lines overflows into hundreds of windows, all alike.
    lines = [line[:120] for path in UD_FILES[::3] for line in ud_lines(path, 8)]
    for tok in (fused, hf):
        tok.enable_truncation(max_length=28, stride=3)  # (at 12 a pair of 120-char lines overflows into ~3,700 windows)
        tok.enable_padding(pad_id=0, pad_token="<pad>", pad_to_multiple_of=8)
    for line, nxt in zip(lines, lines[1:] + lines[:1]):
        got, want = fused.encode(line, nxt), hf.encode(line, nxt)
        assert_same(got, want, (line, nxt))
        # (Each .overflowing builds its list of Encodings anew: a pair has thousands here.)
        got_overflowing, want_overflowing = got.overflowing, want.overflowing
        assert [e.ids for e in got_overflowing] == [e.ids for e in want_overflowing]
        assert [e.offsets for e in got_overflowing] == [e.offsets for e in want_overflowing]
    for got, want in zip(fused.encode_batch(lines), hf.encode_batch(lines)):
        assert_same(got, want, "batch")

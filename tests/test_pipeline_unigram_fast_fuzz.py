"""Hypothesis, three-way: the fused Metaspace + Unigram path == the general
path on the same file == tokenizers 0.23.3, on generated texts (all Unicode
categories but surrogates, combining marks, whitespace runs, digits, CJK,
emoji, NUL, the replacement char) and on generated Metaspace options over
generated small vocabularies (scores with ties, byte_fallback, no unk)."""

import json

from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers

import bertpiece
from bertpiece._core import PipelineTokenizer
from bpe_shapes import assert_all_same, assert_same
from models_shapes import llama_json
from precomp_shapes import xlmr_json as spm_xlmr_json

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

TEXT = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(" \t\n\r\u3000\u00a0\u0301\u0308▁\x00日本語😀👍🏽0123456789abcé<mask>"),
    ),
    max_size=40,
)


def three(text):
    fused = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, fast_path=False), text)
    assert fused._core.fast_path() == "metaspace_unigram" and general._core.fast_path() is None
    return fused, general, HFTokenizer.from_str(text)


def _check(tokenizers, texts):
    fused, general, hf = tokenizers
    for s in texts:
        assert_all_same((fused.encode(s), general.encode(s)), hf.encode(s), s)
    for got, want in zip(fused.encode_batch(texts), hf.encode_batch(texts)):
        assert_same(got, want, "batch")


_XLMR = []
_LLAMA = []


@FUZZ
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_generated_texts_xlmr_precompiled(texts):
    if not _XLMR:
        _XLMR.append(three(spm_xlmr_json()))
    _check(_XLMR[0], texts)


@FUZZ
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_generated_texts_llama_byte_fallback(texts):
    if not _LLAMA:
        _LLAMA.append(three(llama_json()))
    _check(_LLAMA[0], texts)


PIECES = st.lists(
    st.tuples(st.text(alphabet="ab▁ cé日\u0301", min_size=1, max_size=4), st.sampled_from([-1.0, -2.0, -2.5, -3.0])),
    min_size=1, max_size=12, unique_by=lambda p: p[0])


@FUZZ
@given(PIECES, st.booleans(), st.booleans(), st.sampled_from(["always", "first", "never"]), st.booleans(),
       st.lists(st.text(alphabet="ab▁ cé日\u0301x\U0001F600", max_size=12), min_size=1, max_size=3))
def test_generated_vocabularies_and_metaspace_options(pieces, with_unk, byte_fallback, scheme, split, texts):
    vocab = ([("<unk>", 0.0)] if with_unk else []) + pieces
    if byte_fallback:
        have = {p for p, _ in vocab}
        vocab += [(f"<0x{b:02X}>", -5.0) for b in range(256) if f"<0x{b:02X}>" not in have]
    tok = HFTokenizer(models.Unigram(vocab, unk_id=0 if with_unk else None, byte_fallback=byte_fallback))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme=scheme, split=split)
    text = tok.to_str()
    fused, general, hf = three(text)
    for s in texts:
        try:
            want = hf.encode(s)
        except Exception as e:  # no unk piece and a char no piece covers: both must refuse (an Exception, no panic)
            for ours in (fused, general):
                try:
                    ours.encode(s)
                except Exception:
                    pass
                else:
                    raise AssertionError(f"{s!r}: tokenizers raised {e!r}, bertpiece did not")
            continue
        assert_all_same((fused.encode(s), general.encode(s)), want, s)
    assert json.loads(text)["pre_tokenizer"]["type"] == "Metaspace"

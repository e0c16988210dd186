"""Hypothesis: Tokenizer.encode_batch_arrays == tokenizers 0.23.3's
encode_batch == our own encode_batch (ids and char offsets), on generated
batches of texts (all Unicode categories but surrogates, combining marks,
whitespace runs, digits, CJK, emoji, NUL, added-token strings), generated
truncation settings and thread counts, for every model shape."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from test_pipeline_bulk import SHAPES, rows, want_rows

FUZZ = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

PIECE = st.one_of(
    st.characters(blacklist_categories=("Cs",)),
    st.sampled_from(list(" \t\n\u3000\u00a0\u0301\u0308▁\x00日本語😀👍🏽0123456789abcé")),
    st.sampled_from(["<s>", "</s>", "<mask>", "[MASK]", "<|endoftext|>", "<unk>", "[SEP]", " <mask> "]),
)
TEXT = st.lists(PIECE, max_size=30).map("".join)
TRUNCATION = st.one_of(st.none(), st.tuples(st.integers(0, 12), st.sampled_from(["left", "right"])))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_generated_batches_match_tokenizers(shape):
    text = SHAPES[shape]()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)

    @FUZZ
    @given(texts=st.lists(TEXT, max_size=8), special=st.booleans(), truncation=TRUNCATION,
           threads=st.sampled_from([1, 2]))
    def check(texts, special, truncation, threads):
        if truncation is None:
            ours.no_truncation()
            theirs.no_truncation()
        else:
            ours.enable_truncation(truncation[0], direction=truncation[1])
            theirs.enable_truncation(truncation[0], direction=truncation[1])
        want = want_rows(theirs.encode_batch(texts, add_special_tokens=special))
        assert want_rows(ours.encode_batch(texts, add_special_tokens=special)) == want
        got = ours.encode_batch_arrays(texts, add_special_tokens=special, return_offsets=True, num_threads=threads)
        assert rows(got) == want

    check()

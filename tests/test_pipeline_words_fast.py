"""The plain-words fast path (src/pipeline_words.rs: no normalizer, Whitespace or
WhitespaceSplit, WordLevel or BPE) against the general path of the same file
(PipelineTokenizer.from_str(json, fast_path=False)) and tokenizers 0.23.3, three-way:
every 3rd UD line, pairs, pre-tokenized input, added tokens (all flags), BPE's
affixes and unknown token, truncation and padding, hypothesis text."""

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, processors, trainers

from bpe_shapes import (UD_FILES, check_fast_path, check_options_pairs_and_pretokenized, check_truncation_and_padding,
                        fast_general_theirs, training_sample, ud_lines)
from test_pipeline_bpe import ADDED, ADDED_TEXTS, EDGE_TEXTS
from test_pipeline_bpe_fuzz import TEXT
from test_pipeline_bulk import assert_same_flat
from tiers import ud_params

SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]"]


def _make(model, pre, trainer):
    tok = HFTokenizer(model)
    tok.pre_tokenizer = pre
    tok.train_from_iterator(training_sample(), trainer)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tok


@functools.lru_cache(maxsize=None)
def shape_json(shape):
    pre = pre_tokenizers.WhitespaceSplit() if "split" in shape else pre_tokenizers.Whitespace()
    if shape.startswith("wordlevel"):
        trainer = trainers.WordLevelTrainer(vocab_size=2000, special_tokens=SPECIALS, show_progress=False)
        tok = _make(models.WordLevel(unk_token="[UNK]"), pre, trainer)
    elif "affixes" in shape:
        trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=SPECIALS, show_progress=False,
                                      continuing_subword_prefix="##", end_of_word_suffix="</w>")
        tok = _make(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>"), pre, trainer)
    else:
        trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=SPECIALS, show_progress=False)
        tok = _make(models.BPE(unk_token="[UNK]", fuse_unk="fuse" in shape), pre, trainer)
    if "added" in shape:
        tok.add_tokens(ADDED)
    return tok.to_str()


SHAPES = ["wordlevel-whitespace", "wordlevel-split-added", "bpe-whitespace", "bpe-whitespace-fuse-added",
          "bpe-split-affixes"]


@functools.lru_cache(maxsize=None)
def three(shape):
    return fast_general_theirs(shape_json(shape))


def check(shape, encode):
    """encode(tokenizer) -> list of encodings, for fast, general and tokenizers."""
    check_fast_path(three(shape), "plain_words", encode)


@pytest.mark.parametrize("path", ud_params(UD_FILES), ids=lambda p: p.rsplit("-", 1)[-1][:-4])
def test_every_ud_line(path):
    lines = ud_lines(path)[::3]
    check("bpe-whitespace-fuse-added", lambda t: t.encode_batch(lines))
    check("wordlevel-split-added", lambda t: t.encode_batch(lines[:300]))


@pytest.mark.parametrize("shape", SHAPES)
def test_options_pairs_and_pretokenized(shape):
    lines = check_options_pairs_and_pretokenized(check, shape, EDGE_TEXTS + ADDED_TEXTS)
    check(shape, lambda t: [t.encode(line) for line in lines[:60]])


@pytest.mark.parametrize("shape", ["wordlevel-split-added", "bpe-whitespace-fuse-added"])
def test_truncation_and_padding(shape):
    check_truncation_and_padding(check, three, shape, pad_id=3, pad_token="[PAD]")


@pytest.mark.parametrize("shape", ["wordlevel-split-added", "bpe-whitespace-fuse-added", "bpe-split-affixes"])
@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_fuzz_fast_general_tokenizers(shape, text):
    check(shape, lambda t: [t.encode(text), t.encode(text, text[::-1]), t.encode(text)])


@pytest.mark.parametrize("shape", SHAPES)
def test_bulk_arrays_on_two_threads(shape):
    # the bulk call's rows (ids, offsets) come from the same path, on each worker's own memo
    fast, _, theirs = three(shape)
    lines = [line for path in UD_FILES for line in ud_lines(path, 60)] + EDGE_TEXTS + ADDED_TEXTS
    for add in (True, False):
        got = fast.encode_batch_arrays(lines, add_special_tokens=add, return_offsets=True, num_threads=2)
        assert_same_flat(got, theirs.encode_batch(lines, add_special_tokens=add), lines, shape)

"""Real-shaped byte-level BPE tokenizer.json files, trained at test time with
HF tokenizers' own trainer on the UD samples (small vocabularies, so it is
fast), and helpers comparing bertpiece.Tokenizer with tokenizers.Tokenizer."""

import functools
import glob
import os

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

import bertpiece
from bertpiece._core import PipelineTokenizer

from shared_cache import session_cached

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
UD_FILES = sorted(glob.glob(os.path.join(DATA, "ud-*.txt")))
ATTRS = ("ids", "tokens", "offsets", "type_ids", "special_tokens_mask", "attention_mask", "word_ids", "sequence_ids")


def ud_lines(path, n=None):
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    return lines if n is None else lines[:n]


@functools.lru_cache(maxsize=None)
def training_sample():
    """The first 150 lines of every UD file: enough merges in every script."""
    return tuple(line for path in UD_FILES for line in ud_lines(path, 150))


def _train(tok, vocab_size, specials):
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=list(specials), show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(training_sample(), trainer)
    return tok


@session_cached
def gpt2_json():
    """GPT-2's settings: no prefix space, ByteLevel post-processor and decoder, <|endoftext|>."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.decoder = decoders.ByteLevel()
    return _train(tok, 1500, ["<|endoftext|>"]).to_str()


@session_cached
def roberta_json():
    """RoBERTa's settings: prefix space, RobertaProcessing (trim_offsets) with <s> </s> <pad> <unk> <mask>."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    _train(tok, 1500, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    tok.post_processor = processors.RobertaProcessing(
        ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True, add_prefix_space=True
    )
    # RoBERTa's <mask> takes the space before it.
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)])
    return tok.to_str()


@session_cached
def modernbert_json():
    """ModernBERT's shape: ByteLevel without prefix space, TemplateProcessing [CLS] $A [SEP] (pair $B:1 [SEP]:1)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    _train(tok, 1500, ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"])
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def normalized_json():
    """GPT-2's shape behind a Sequence[NFC, Lowercase] normalizer, with normalized added tokens."""
    tok = Tokenizer.from_str(gpt2_json())
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()])
    tok.add_tokens([AddedToken("Hello World", normalized=True), AddedToken("ÉTÉ", normalized=True, single_word=True)])
    return tok.to_str()


SHAPES = {"gpt2": gpt2_json, "roberta": roberta_json, "modernbert": modernbert_json, "normalized": normalized_json}


def columns(enc):
    return {a: getattr(enc, a) for a in ATTRS}


def assert_same(ours, theirs, context):
    for a in ATTRS:
        got, want = getattr(ours, a), getattr(theirs, a)
        assert got == want, f"{a} differs for {context!r}:\n ours   {got}\n theirs {want}"


def assert_all_same(ours_encodings, theirs, context):
    """assert_same for each of several Encodings against one of tokenizers', whose columns are read once
    (each read of a tokenizers.Encoding attribute builds its list anew)."""
    want = columns(theirs)
    for ours in ours_encodings:
        for a in ATTRS:
            got = getattr(ours, a)
            assert got == want[a], f"{a} differs for {context!r}:\n ours   {got}\n theirs {want[a]}"


def fast_general_theirs(text):
    """A tokenizer.json as bertpiece.Tokenizer (on its fast path, if it has one), as bertpiece's general
    pipeline alone, and as tokenizers.Tokenizer."""
    fast = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, False), text)
    return fast, general, Tokenizer.from_str(text)


def check_fast_path(three, fast_path, encode):
    """encode(tokenizer) -> list of encodings, for the fast, general and tokenizers' of `three`
    (fast_general_theirs'): the fast one on `fast_path`, the general one on none, each the same."""
    fast, general, theirs = three
    assert fast._core.fast_path() == fast_path and general._core.fast_path() is None
    for a, b, c in zip(encode(fast), encode(general), encode(theirs), strict=True):
        assert_same(a, b, "fast vs general")
        assert_same(a, c, "fast vs tokenizers")


def check_options_pairs_and_pretokenized(check, shape, texts):
    """A fast path's batches with and without special tokens, of single texts and pairs, and pre-tokenized
    (batches and pairs), on UD lines and `texts`, through `check(shape, encode)` (fast against general and
    tokenizers). Returns the lines."""
    lines = [line for path in UD_FILES for line in ud_lines(path, 6)] + texts
    pairs = list(zip(lines, lines[1:] + [""]))
    for add in (True, False):
        check(shape, lambda t: t.encode_batch(lines, add_special_tokens=add))
        check(shape, lambda t: t.encode_batch(pairs, add_special_tokens=add))
    words = [line.split(" ") for line in lines[:40]]
    check(shape, lambda t: t.encode_batch(words, is_pretokenized=True))
    check(shape, lambda t: [t.encode(w, w[::-1], is_pretokenized=True) for w in words])
    return lines


def numbered_word(k):
    """The k-th of all distinct lowercase words (" a" ... " z", " ba" ...), a space first."""
    w = ""
    while True:
        k, r = divmod(k, 26)
        w += "abcdefghijklmnopqrstuvwxyz"[r]
        if k == 0:
            return " " + w


def distinct_word_lines(words=70_000, per_line=100):
    """`words` distinct words, `per_line` a line."""
    return ["".join(numbered_word(k) for k in range(at, at + per_line)) for at in range(0, words, per_line)]


def check_truncation_and_padding(check, three, shape, pad_id, pad_token):
    """A fast path's truncation (stride, longest_first) and padding (a multiple) on UD lines and short pairs,
    through `check(shape, encode)` (fast against general and tokenizers), then its overflowing pieces
    against tokenizers' (`three(shape)`: fast, general, tokenizers)."""
    lines = [line for path in UD_FILES for line in ud_lines(path, 2)]
    pairs = [(a[:50], b[:30]) for a, b in zip(lines, lines[::-1])]  # short: a pair's overflows multiply (as in HF)

    def run(t):
        t.enable_truncation(12, stride=2, strategy="longest_first")
        t.enable_padding(pad_id=pad_id, pad_token=pad_token, pad_to_multiple_of=4)
        try:
            return t.encode_batch(lines) + t.encode_batch(pairs) + [t.encode(*pairs[2])]
        finally:
            t.no_truncation()
            t.no_padding()

    check(shape, run)
    fast, _, theirs = three(shape)
    fast.enable_truncation(12, stride=2)
    theirs.enable_truncation(12, stride=2)
    try:
        for a, b in zip(fast.encode_batch(lines), theirs.encode_batch(lines)):
            assert len(a.overflowing) == len(b.overflowing)
            for x, y in zip(a.overflowing, b.overflowing):
                assert_same(x, y, "overflowing")
    finally:
        fast.no_truncation()
        theirs.no_truncation()

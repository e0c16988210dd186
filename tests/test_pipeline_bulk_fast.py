"""The ids-only bulk path (Tokenizer::encode_ids_into, src/pipeline_ids.rs,
behind encode_batch_arrays for byte-level BPE files) against the general
path of the same file (fast_path=False, whose bulk call goes through
`encode`) and tokenizers 0.23.3's encode_batch, three-way: every UD line,
added tokens (from the file and added at run time), post-processors
(none, ByteLevel trims, RoBERTa, templates, sequences of them), truncation
(sides, strategies, stride, max_length 0), add_special_tokens, 1 and 2
threads, offsets, the word cache's edges (key sizes, a text's end, more words than it holds), and
hypothesis texts."""

import functools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import AddedToken, Tokenizer as HFTokenizer, processors

import bertpiece
from bertpiece._core import PipelineTokenizer
from bertpiece.tokenizers_api.bulk import encode_counting_cuts
from bpe_shapes import UD_FILES, distinct_word_lines, gpt2_json, numbered_word, ud_lines
from test_pipeline_bpe import ADDED, ADDED_TEXTS, EDGE_TEXTS
from test_pipeline_bpe_fast import SHAPES as FAST_SHAPES
from test_pipeline_bpe_fuzz import TEXT
from test_pipeline_bulk import rows, want_rows
from tiers import ud_file_tiers


def with_post(post):
    """GPT-2's trained file with `post` as its post-processor."""
    tok = HFTokenizer.from_str(gpt2_json())
    tok.post_processor = post
    return tok.to_str()


def llama3_like():
    # Llama 3's composition: ByteLevel (no trim) then a BOS template.
    return with_post(processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|endoftext|> $A", pair="<|endoftext|> $A <|endoftext|> $B:1",
                                      special_tokens=[("<|endoftext|>", 0)]),
    ]))


def trim_then_template():
    # two trims (not idempotent) before a template with specials on both sides
    return with_post(processors.Sequence([
        processors.ByteLevel(trim_offsets=True, add_prefix_space=False),
        processors.ByteLevel(trim_offsets=True, add_prefix_space=True),
        processors.TemplateProcessing(single="<|endoftext|> $A <|endoftext|> <|endoftext|>",
                                      pair="$A $B", special_tokens=[("<|endoftext|>", 0)]),
    ]))


def template_then_trim():
    # a trim after the specials: the ids-only path declines it, the result must not change
    return with_post(processors.Sequence([
        processors.TemplateProcessing(single="<|endoftext|> $A", pair="$A $B", special_tokens=[("<|endoftext|>", 0)]),
        processors.ByteLevel(trim_offsets=True),
    ]))


def bert_processing():
    return with_post(processors.BertProcessing(("<|endoftext|>", 0), ("<|endoftext|>", 0)))


SHAPES = {**FAST_SHAPES, "llama3-like": llama3_like, "trim-trim-template": trim_then_template,
          "template-then-trim": template_then_trim, "bert-processing": bert_processing}
# '<' and '|' start the files' added tokens: the bulk scan stops at them, in or out of a token
TEXTS = EDGE_TEXTS + ADDED_TEXTS + ["  <|endoftext|> a<|endoftext|>", "a" * 300, "x " * 200, "a < b <", "<<|", "x<|endoftext",
                                    "don't " * 11 + "<|endoftext|>", "it's " * 13 + "é"]
# ASCII texts over the bytes that decide GPT-2's pieces: contractions, every ASCII whitespace, the added tokens' first bytes
ASCII_PIECES = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\x0b\x0c", "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S",
                                "''", "a", "the", "Word", "7", "1999", "!", ".", "--", " <", "<|endoftext|>", "|", "\x00"])
ASCII_TEXT = st.lists(ASCII_PIECES, max_size=30).map("".join)


@functools.lru_cache(maxsize=None)
def three(shape):
    text = SHAPES[shape]()
    fast = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, False), text)
    assert fast._core.fast_path() == "byte_level_bpe" and general._core.fast_path() is None
    return fast, general, HFTokenizer.from_str(text)


def some_lines(n):
    return [line for path in UD_FILES for line in ud_lines(path, n)] + TEXTS


def check(fast, general, theirs, lines, threads=(1, 2), offsets_too=(True, False), general_rows=None, **kw):
    """Bulk rows (ids, offsets) of the fast and general paths equal tokenizers' encode_batch, as do the cut
    counts (the general path on the first `general_rows` lines only, when given: it is the slow one)."""
    add = kw.get("add_special_tokens", True)
    encodings = theirs.encode_batch(lines, add_special_tokens=add)
    want = want_rows(encodings)
    want_cuts = sum(1 for e in encodings if e.overflowing)
    for th in threads:
        for offsets in offsets_too:
            for tok in (fast, general):
                n = len(lines) if tok is fast or general_rows is None else general_rows
                if n < len(lines):
                    encodings_n = encodings[:n]
                    want, want_cuts = want_rows(encodings_n), sum(1 for e in encodings_n if e.overflowing)
                else:
                    want, want_cuts = want_rows(encodings), sum(1 for e in encodings if e.overflowing)
                batch, cuts = encode_counting_cuts(tok, lines[:n], return_offsets=offsets, num_threads=th, **kw)
                got = rows(batch)
                assert got == (want if offsets else [(i, None) for i, _ in want]), (th, offsets, tok is fast)
                assert cuts == want_cuts


@pytest.mark.parametrize("files", ud_file_tiers(UD_FILES))
def test_every_ud_line_gpt2_three_way(files):
    fast, general, theirs = three("gpt2")
    # Lines 1, 4, 7, ... of every UD file (test_pipeline_bpe_fast.py runs lines 0, 3, 6, ... through the fast path)
    lines = [line for path in files for line in ud_lines(path)[1::3]] + TEXTS
    check(fast, general, theirs, lines, threads=(2,), offsets_too=(True,), general_rows=2600)
    check(fast, general, theirs, lines[:1200] + TEXTS, threads=(1,), add_special_tokens=False)


@pytest.mark.parametrize("shape", sorted(set(SHAPES) - {"gpt2"}))
def test_shapes_three_way(shape):
    fast, general, theirs = three(shape)
    lines = some_lines(50)  # 50 lines of every UD file per shape (the file's CPU time kept as before the edge and contraction checks)
    for add in (True, False):
        check(fast, general, theirs, lines, add_special_tokens=add)


@pytest.mark.parametrize("shape", ["roberta", "llama3-like", "trim-trim-template"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_three_way(shape, direction):
    fast, general, theirs = three(shape)
    lines = some_lines(4)
    try:
        for max_length, strategy in ((0, "longest_first"), (1, "only_first"), (3, "longest_first"), (5, "only_first"),
                                     (40, "longest_first")):
            for t in (theirs, fast, general):
                t.enable_truncation(max_length, stride=0, strategy=strategy, direction=direction)
            for add in (True, False):
                check(fast, general, theirs, lines, threads=(1,), offsets_too=(True,), add_special_tokens=add)
    finally:
        for t in (theirs, fast, general):
            t.no_truncation()


@pytest.mark.parametrize("how", ["only_second", "stride"])
def test_truncation_errors_stay_errors(how):
    """What `encode` refuses (only_second on one sequence, stride >= the length kept), the bulk call refuses too."""
    fast, general, theirs = three("roberta")
    kw = {"strategy": "only_second"} if how == "only_second" else {"stride": 4}
    lines = ["a", "a much longer line of text that has to be cut somewhere in its middle"]
    try:
        for t in (theirs, fast, general):
            t.enable_truncation(6, **kw)
        with pytest.raises(BaseException):  # tokenizers panics on the stride (PanicException)
            theirs.encode_batch(lines)
        for tok in (fast, general):
            with pytest.raises(ValueError, match="Truncation error|stride"):
                tok.encode_batch_arrays(lines)
        # rows that need no cut are fine
        check(fast, general, theirs, lines[:1], threads=(1,))
    finally:
        for t in (theirs, fast, general):
            t.no_truncation()


def test_tokens_added_at_run_time():
    text = SHAPES["roberta"]()
    fast = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, False), text)
    theirs = HFTokenizer.from_str(text)
    lines = some_lines(10)
    for t in (fast, general, theirs):
        t.add_tokens(ADDED)
        t.add_special_tokens([AddedToken("[X]", lstrip=True, rstrip=True), "é"])
    assert fast._core.fast_path() == "byte_level_bpe"
    check(fast, general, theirs, lines + ["a [X] b", "café [X]é", "é"])
    check(fast, general, theirs, lines, add_special_tokens=False)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(st.one_of(TEXT, ASCII_TEXT), min_size=1, max_size=6), shape=st.sampled_from(sorted(SHAPES)), add=st.booleans(),
       max_length=st.one_of(st.none(), st.integers(0, 12)), direction=st.sampled_from(["right", "left"]))
def test_hypothesis_texts_three_way(texts, shape, add, max_length, direction):
    fast, general, theirs = three(shape)
    try:
        if max_length is not None:
            for t in (theirs, fast, general):
                t.enable_truncation(max_length, direction=direction)
        check(fast, general, theirs, texts, add_special_tokens=add)
    finally:
        for t in (theirs, fast, general):
            t.no_truncation()


def test_contractions_every_case_and_whitespace_three_way():
    """GPT-2's contractions are lowercase only ('s 't 're 've 'm 'll 'd): their uppercase and mixed-case forms
    ('S, 'RE, 'Ll...) are a quote run then letters. Each form after a word, a space, every ASCII whitespace
    char, a quote, a digit and nothing, and before nothing (the text's end: its key read byte by byte), a
    letter, a word, a non-ASCII letter, another contraction and a tab: the fast path's scan against the general
    path and tokenizers, in the bulk call (ids only and with offsets) and in `encode`'s word ids (the pieces
    themselves: this small vocabulary has no "'S" token, so a case-blind contraction would change no id)."""
    fast, general, theirs = three("gpt2")
    forms = ["s", "t", "re", "ve", "m", "ll", "d"]
    forms += [f.upper() for f in forms] + ["Re", "rE", "Ve", "lL", "Ll", "x"]
    befores = ["it", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "'", "7", "", "x "]
    afters = ["", "x", " y", "é", "'s", "\t"]
    texts = [before + "'" + form + after for form in forms for before in befores for after in afters]
    check(fast, general, theirs, texts, threads=(1,))
    want = [e.word_ids for e in theirs.encode_batch(texts, add_special_tokens=False)]
    for tok in (fast, general):
        assert [e.word_ids for e in tok.encode_batch(texts, add_special_tokens=False)] == want


def test_block_scanner_edges_three_way():
    """The ids-only loop splits 64 bytes at a time where 64 are left (SSE2 class masks) and hands the rest and
    every quote, non-0x20 whitespace, control, non-ASCII byte and added token's first byte to the scalar
    scanner: texts of 63 to 130 bytes (the last block's edge), a word, a space run, digits or punctuation
    across byte 64, and each kind of byte the block leaves at every place from 56 to 72 of the text."""
    fast, general, theirs = three("gpt2")
    texts = []
    for n in (63, 64, 65, 66, 127, 128, 129, 130):
        for fill in ("the cat sat ", "x  ", "ab12 ", "a, b. ", "   y", "word"):
            texts.append((fill * 40)[:n])
    for at in range(56, 73):
        for odd in ("'s", "'", "\t", "\n", "  ", "é", "<|endoftext|>", "<", "\x00", "\x7f", "7", ".", "ß"):
            texts.append(("one two three " * 6)[:at] + odd + " four five six" * 5)
    check(fast, general, theirs, texts, threads=(1,), offsets_too=(False,))


def cache_edge_words():
    """Words on both sides of the word cache's key sizes (1, 8, 9, 16, 17 bytes with their space) and of the
    linear merge's bound (64 bytes), of letters (the scanner's 8-byte runs), digits, mixed case and
    non-ASCII letters, with and without their space."""
    rng = random.Random(25)
    words = []
    for n in list(range(1, 19)) + [63, 64, 65, 70]:
        for alphabet in ("etaoinshrdlu", "ETAOINshrdlu", "0123456789", "eéaàoöß"):
            w = "".join(rng.choice(alphabet) for _ in range(n))
            words += [w, " " + w, " " + w[:-1]]
    return words


def test_added_tokens_starting_with_a_quote_three_way():
    """Added tokens whose first bytes are ASCII punctuation, a quote among them: the bulk scan stops at
    those bytes (no contraction at a quote that may start a token: 'll is a token here); texts with and
    without the tokens."""
    text = SHAPES["gpt2"]()
    fast = bertpiece.Tokenizer.from_str(text)
    general = bertpiece.Tokenizer(PipelineTokenizer.from_str(text, False), text)
    theirs = HFTokenizer.from_str(text)
    for t in (fast, general, theirs):
        t.add_tokens([AddedToken("'em", normalized=False), AddedToken("'ll", normalized=False),
                      AddedToken("[[x", lstrip=True, normalized=False)])
    assert fast._core.fast_path() == "byte_level_bpe"
    quotes = ["it's 'em, 'emx don't'em", "'", "''s [[x [[ 's", "a'll 've 're'd [[x'em", "we'll go", "it'll"] + ["we'll see " * 8 + "'em"]
    check(fast, general, theirs, some_lines(6) + quotes, offsets_too=(True,))


def test_word_cache_edges_three_way():
    """Each edge word alone (its key read at the text's end, byte by byte), inside a text (8-byte loads past
    its end), once more (a cache hit), and within runs that overflow the scanner's 8-byte steps; with and
    without offsets (the ids-only call reads one-token words of 2 to 16 bytes from their home slot inline)."""
    fast, general, theirs = three("gpt2")
    words = cache_edge_words()
    texts = words + [w + " x!" for w in words] + ["".join(words[k:k + 9]) for k in range(0, len(words), 9)]
    check(fast, general, theirs, texts + texts, threads=(1,), offsets_too=(True,))
    # ids only (one-token words of 2 to 16 bytes looked up inline): the fast path against tokenizers
    want = want_rows(theirs.encode_batch(texts + texts))
    assert rows(fast.encode_batch_arrays(texts + texts, num_threads=1)) == [(ids, None) for ids, _ in want]


def test_more_words_than_the_cache_holds():
    """70,000 distinct words through one thread (the cache holds 65,536, then starts over), then the first
    words again (missing from the cache once more): the fast path's rows equal tokenizers', with offsets
    and ids only."""
    fast, _, theirs = three("gpt2")
    lines = distinct_word_lines()
    lines.append("".join(numbered_word(k) for k in range(300)))
    want = want_rows(theirs.encode_batch(lines, add_special_tokens=False))
    got = rows(fast.encode_batch_arrays(lines, add_special_tokens=False, return_offsets=True, num_threads=1))
    assert got == want
    # ids only: so many words collide in the tables that many sit past their home slot (looked up out of line)
    got = rows(fast.encode_batch_arrays(lines, add_special_tokens=False, num_threads=1))
    assert got == [(ids, None) for ids, _ in want]


def test_shape_without_an_ids_path_is_unchanged():
    """A file the fast path does not take (no regex in ByteLevel) still gives tokenizers' rows."""
    d = json.loads(gpt2_json())
    d["pre_tokenizer"]["use_regex"] = False
    text = json.dumps(d)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert ours._core.fast_path() is None
    lines = some_lines(5)
    assert rows(ours.encode_batch_arrays(lines, return_offsets=True)) == want_rows(theirs.encode_batch(lines))

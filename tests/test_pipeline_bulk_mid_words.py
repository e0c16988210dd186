"""The byte-level fast path's 9–16-byte word table (doubled at three quarters full, docs/benchmarks/bpe-bulk-45.md)
against tokenizers 0.23.3: tens of thousands of distinct words of 9 to 16 bytes, so the table passes three
quarters of its slots at every size from 1,024 to 65,536 slots, with frequent words of one token and of several
between them (found in their home slot, past it, moved home); the same thread then a tokenizer of another file,
then the first again, 1 then 2 threads, and the calls after a huge text; and the cache starting over inside a
text while the AVX-512 loop holds lookups made before (docs/benchmarks/bpe-bulk-45.md)."""

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import numbered_word
from test_pipeline_bpe_fast import SHAPES
from test_pipeline_bulk import rows, want_rows


def mid_word(k):
    """The k-th distinct word of 9 to 16 bytes, its space first (" ba" -> " bazzzzzz")."""
    w = numbered_word(k)
    return w + "z" * max(0, 9 + k % 8 - len(w))


def mid_lines(words, per_line=50):
    """`words` distinct 9–16-byte words, each line with a few frequent words of 9 to 16 bytes too."""
    frequent = [" internationally", " governments", " hypothetical", " Wednesday's"]
    return ["".join(mid_word(k) + frequent[k % 4] for k in range(at, at + per_line)) for at in range(0, words, per_line)]


def pair(shape):
    text = SHAPES[shape]()
    fast = bertpiece.Tokenizer.from_str(text)
    assert fast._core.fast_path() == "byte_level_bpe"
    return fast, HFTokenizer.from_str(text)


def same(fast, theirs, lines, threads):
    want = [ids for ids, _ in want_rows(theirs.encode_batch(lines, add_special_tokens=False))]
    got = rows(fast.encode_batch_arrays(lines, add_special_tokens=False, num_threads=threads))
    assert [ids for ids, _ in got] == want
    got = rows(fast.encode_batch_arrays(lines, add_special_tokens=False, return_offsets=True, num_threads=threads))
    assert got == want_rows(theirs.encode_batch(lines, add_special_tokens=False))


@pytest.mark.parametrize("words", [700, 3_000, 30_000])
def test_mid_words_past_three_quarters_then_again(words):
    fast, theirs = pair("gpt2")
    lines = mid_lines(words)
    for threads in (1, 2, 1):
        same(fast, theirs, lines, threads)  # the first time: every word missed and cached; then all found


def test_two_files_on_one_thread_and_after_a_huge_text():
    (a, a_ref), (b, b_ref) = pair("gpt2"), pair(next(s for s in SHAPES if s != "gpt2"))
    lines = mid_lines(6_000)
    same(a, a_ref, lines, 1)
    same(b, b_ref, lines[::-1], 1)  # the thread's cache now another model's
    same(a, a_ref, lines, 1)
    same(a, a_ref, lines, 2)
    huge = ["".join(mid_word(k) for k in range(40_000, 110_000))]  # more words than the cache holds, in one text
    same(a, a_ref, huge, 1)
    same(a, a_ref, lines, 1)
    same(b, b_ref, lines, 2)


def test_cache_starting_over_inside_a_text():
    """One text of 150,000 distinct numbers of many tokens with short frequent words of several tokens between
    them (three groups of eight pieces a window): the thread's cache fills and starts over inside the text
    (twice), while the AVX-512 loop has made the lookups of the group it is writing and of the next one. The
    frequent words' pieces were cached early (after one rare word's: at small places), so after the cache
    starts over those places hold the pieces of the number that made it start over: their answers from
    before are stale. Ids only and with offsets, against tokenizers, once and again."""
    fast, theirs = pair("gpt2")
    frequent = [" qz", " xj", " vq", " jx"]
    rare = " zqx"
    text = rare + "".join(f" {1_000_000 + k}{frequent[k % 4]}{frequent[(k + 1) % 4]}" for k in range(150_000))
    n_ids = lambda w: len(theirs.encode(w, add_special_tokens=False).ids)  # noqa: E731
    assert all(n_ids(w) > 1 for w in frequent + [rare]) and min(n_ids(f" {k}") for k in range(1_060_000, 1_070_000)) > 4
    same(fast, theirs, [text], 1)
    same(fast, theirs, [text, text[:5000]], 1)

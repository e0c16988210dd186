"""The byte-level fast path's words of two tokens kept in their cache slot (both ids below 65,536: the AVX-512
loop answers them with the one-token words; else their pieces are kept apart) and its lookahead across windows
(a window's last group is written after the next window's first group is looked up), against tokenizers 0.23.3
(docs/benchmarks/bpe-bulk-46.md): more than 65,536 distinct words of one, two and three tokens, with GPT-2's
trained test file and the same file with its tokens from id 1,000 on moved past 65,536 (ids on both sides of it);
two files on one thread in turn, 1 then 2 threads, and the calls after a huge text (the cache starting over
inside it)."""

import functools
import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import gpt2_json, numbered_word
from test_pipeline_bulk import rows, want_rows

MOVED_FROM, MOVED_BY = 1_000, 65_536


def moved_ids_json():
    """GPT-2's trained test file with every id from MOVED_FROM on moved up by MOVED_BY (vocab and added tokens)."""
    d = json.loads(gpt2_json())
    move = lambda i: i + MOVED_BY if i >= MOVED_FROM else i  # noqa: E731
    d["model"]["vocab"] = {t: move(i) for t, i in d["model"]["vocab"].items()}
    for t in d["added_tokens"]:
        t["id"] = move(t["id"])
    return json.dumps(d)


def pair(text):
    fast = bertpiece.Tokenizer.from_str(text)
    assert fast._core.fast_path() == "byte_level_bpe"
    return fast, HFTokenizer.from_str(text)


def same(fast, theirs, lines, threads):
    want = want_rows(theirs.encode_batch(lines, add_special_tokens=False))
    got = rows(fast.encode_batch_arrays(lines, add_special_tokens=False, num_threads=threads))
    assert [ids for ids, _ in got] == [ids for ids, _ in want]
    got = rows(fast.encode_batch_arrays(lines, add_special_tokens=False, return_offsets=True, num_threads=threads))
    assert got == want


@functools.lru_cache(maxsize=None)
def halves():
    """The trained file's tokens of a space and 2 to 6 lowercase letters, and of 2 to 6 lowercase letters
    (a word of one of each: mostly two tokens)."""
    vocab = json.loads(gpt2_json())["model"]["vocab"]
    letters = lambda t: 2 <= len(t) <= 6 and t.isascii() and t.isalpha() and t.islower()  # noqa: E731
    return sorted(t[1:] for t in vocab if t[0] == "Ġ" and letters(t[1:])), sorted(t for t in vocab if letters(t))


def word(k):
    """The k-th word: a space and two of `halves()` (" thing", ~15,700 distinct), or (two in five) a
    numbered word of several tokens (all distinct)."""
    heads, tails = halves()
    if k % 5 >= 3:
        return numbered_word(k)
    a, b = divmod(k, len(tails))
    return " " + heads[a % len(heads)] + tails[b]


def word_lines(first, words, per_line=60):
    """`words` distinct words from the `first`-th, with frequent words of two and three tokens between them
    and a newline or a curly quote now and then (pieces the block scanner leaves: windows end there)."""
    frequent = [" qz", " xjv", " zq", ",", " vqx", "’s"]
    return ["".join(word(k) + frequent[k % 6] + ("\n" if k % 37 == 0 else "")
                    for k in range(at, at + per_line)) for at in range(first, first + words, per_line)]


def test_the_files_keep_pairs_in_the_slot_and_in_pieces():
    """The words' token counts (tokenizers'): many of two tokens; in the moved file, some pairs past 65,536."""
    (_, plain), (_, moved) = pair(gpt2_json()), pair(moved_ids_json())
    words = [word(k) for k in range(20_000, 21_000)]
    counts = [(plain.encode(w).ids, moved.encode(w).ids) for w in words]
    assert sum(len(a) == 2 for a, _ in counts) > 400
    assert sum(len(b) == 2 and all(i < 65_536 for i in b) for _, b in counts) > 150
    assert sum(len(b) == 2 and any(i >= 65_536 for i in b) for _, b in counts) > 150
    assert len({word(k) for k in range(200_000)}) > 65_536


@pytest.mark.parametrize("threads", [1, 2])
def test_more_distinct_words_than_the_cache_holds(threads):
    fast, theirs = pair(gpt2_json())
    lines = word_lines(0, 200_000)
    same(fast, theirs, lines, threads)  # the cache starts over inside the run of texts
    same(fast, theirs, lines[:300], threads)


def test_two_files_on_one_thread_then_two_threads_and_after_a_huge_text():
    (a, a_ref), (b, b_ref) = pair(gpt2_json()), pair(moved_ids_json())
    lines = word_lines(5_000, 12_000)
    same(a, a_ref, lines, 1)
    same(b, b_ref, lines, 1)  # the thread's cache now the other file's: pairs past 65,536 in pieces
    same(a, a_ref, lines, 1)
    same(a, a_ref, lines, 2)
    same(b, b_ref, lines[::-1], 2)
    huge = ["".join(word_lines(200_000, 200_000))]  # more distinct words than the cache holds, in one text
    same(b, b_ref, huge, 1)
    same(b, b_ref, lines, 1)
    same(a, a_ref, huge, 1)
    same(a, a_ref, lines, 2)

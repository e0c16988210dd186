"""The fused Metaspace + Unigram path's shared word tables (src/models/unigram/fused.rs:
a copy of the cache of the first thread to hold 16,384, then 65,536 words becomes
the tokenizer's own table, set once, then read by every thread whose cache holds
fewer words) with two different Unigram files used alternately from the same
threads: each file's bulk rows equal tokenizers 0.23.3's for that file, on 1 and 2
threads, rows in either order, with per-text calls in between."""

import bertpiece
from tokenizers import Tokenizer as HFTokenizer

from bpe_shapes import UD_FILES, distinct_word_lines, ud_lines
from test_pipeline_bulk import rows, want_rows
from test_pipeline_unigram_fast import SHAPES

def lines():
    """70,000 distinct words (past both sharing points in one thread), 100 a line, then UD lines."""
    return distinct_word_lines() + [line for path in UD_FILES[:4] for line in ud_lines(path, 200)]


def test_two_files_alternately_on_the_same_threads():
    texts = lines()
    shapes = ("t5", "spm_xlmr_precompiled")
    ours = {s: bertpiece.Tokenizer.from_str(SHAPES[s]()) for s in shapes}
    want = {s: [ids for ids, _ in want_rows(HFTokenizer.from_str(SHAPES[s]()).encode_batch(texts, add_special_tokens=False))]
            for s in shapes}
    # the two files give different ids here (a table used for the wrong file would show)
    assert want["t5"] != want["spm_xlmr_precompiled"]
    backwards = texts[::-1]
    steps = [(s, th, order) for th in (1, 2, 2) for order in ("forward", "backward") for s in shapes]
    for s, threads, order in steps + steps[::-1]:
        tok = ours[s]
        got = rows(tok.encode_batch_arrays(texts if order == "forward" else backwards, add_special_tokens=False,
                                           num_threads=threads))
        expected = want[s] if order == "forward" else want[s][::-1]
        assert got == [(ids, None) for ids in expected], (s, threads, order)
        # the calling thread's own per-text path, for the other file, in between
        other = shapes[1 - shapes.index(s)]
        for k in range(0, len(texts), 97):
            assert ours[other].encode(texts[k], add_special_tokens=False).ids == want[other][k], (other, k)

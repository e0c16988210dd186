"""A Unigram word too large for the memory left (a text with no space is one
word: its lattice takes 24 bytes a byte) raises MemoryError from the fused
Metaspace + Unigram path, the general path and the bulk call, instead of
aborting the process (Rust's allocation failure handler). The child caps its
address space (RLIMIT_AS) 150 MiB above what it maps once the text exists, as
tests/test_limits.py's documents do; 16 MiB of "ab" with no space needs a
~400 MiB lattice and ~224 MiB of encoding room."""

import json
import sys

import pytest
import tokenizers

import bertpiece
from memory_cap import run_capped

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")


def unigram_json(byte_fallback):
    vocab = [["<unk>", 0.0], ["▁", -1.0], ["a", -2.0], ["b", -3.0], ["ab", -2.5]]
    if byte_fallback:
        vocab += [[f"<0x{b:02X}>", -10.0] for b in range(256)]
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "post_processor": None, "decoder": None,
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": byte_fallback}})


SETUP = """
import bertpiece
from bertpiece._core import PipelineTokenizer
tok = bertpiece.Tokenizer.from_str(JSON)
general = bertpiece.Tokenizer(PipelineTokenizer.from_str(JSON, fast_path=False), JSON)
assert tok._core.fast_path() == "metaspace_unigram" and general._core.fast_path() is None
doc = "ab" * (8 << 20)
"""

CALLS = {
    "encode": "tok.encode(doc)",
    "encode_batch": "tok.encode_batch([doc, 'ab'])",
    "encode_batch_arrays": "tok.encode_batch_arrays([doc, 'ab'])",
    "encode_batch_arrays offsets": "tok.encode_batch_arrays([doc], return_offsets=True)",
    "general path": "general.encode(doc)",
    "general path encode_batch_arrays": "general.encode_batch_arrays([doc])",
}


@pytest.mark.parametrize("byte_fallback", [False, True])
def test_the_small_file_is_what_tokenizers_gives(byte_fallback):
    # the file the children load: the same ids and offsets as the reference on short texts
    text = unigram_json(byte_fallback)
    hf, ours = tokenizers.Tokenizer.from_str(text), bertpiece.Tokenizer.from_str(text)
    for t in ["ab aab", "abzab", "ab" * 10, "日本 ab", ""]:
        want, got = hf.encode(t), ours.encode(t)
        assert (got.ids, got.offsets) == (want.ids, want.offsets), t


@pytest.mark.parametrize("byte_fallback", [False, True])
@pytest.mark.parametrize("name", list(CALLS))
def test_a_word_too_large_for_memory_is_a_memory_error(name, byte_fallback):
    out = run_capped(SETUP.replace("JSON", repr(unigram_json(byte_fallback))), CALLS[name], 150)
    assert out.startswith("MemoryError"), out


# Many short words, each two pieces (`▁` `a`): the bulk call's ids outgrow the room it guessed (a quarter of
# the text's bytes), and the fused path's cached words were pushed without making room (an abort under the cap
# before, in push_prefixed_ids); then a small call on the same thread, whose word cache the failed call filled,
# still gives tokenizers' ids.
MANY_WORDS = """
rows = ["a " * 4096] * (4 << 10)  # 32 MiB of text: 16 M ids of 4 bytes
small = ["a ab b", "ab a", "b"]
def bulk_then_small():
    try:
        tok.encode_batch_arrays(rows, num_threads=1)
        first = None
    except MemoryError as e:
        first = e
    got = tok.encode_batch_arrays(small, num_threads=1).ids.tolist()
    assert got == WANT, got
    if first is not None:
        raise first
"""


@pytest.mark.parametrize("cap", [100, 200])
def test_many_words_past_the_guessed_room_are_a_memory_error_then_the_next_call_is_right(cap):
    text = unigram_json(False)
    hf = tokenizers.Tokenizer.from_str(text)
    want = [i for t in ["a ab b", "ab a", "b"] for i in hf.encode(t).ids]
    setup = SETUP.replace("JSON", repr(text)).replace('doc = "ab" * (8 << 20)', "") + MANY_WORDS.replace("WANT", repr(want))
    out = run_capped(setup, "bulk_then_small()", cap)
    if cap == 100:
        assert out.startswith("MemoryError"), out

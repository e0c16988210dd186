"""Real merges: the first 6000 of CLIP's BPE (tests/data/clip-merges-6000.txt,
from open-clip-torch's bpe_simple_vocab_16e6.txt.gz), in a byte-level BPE
tokenizer.json with CLIP's vocabulary layout and `end_of_word_suffix` "</w>":
bertpiece.Tokenizer == tokenizers 0.23.3 on every UD file. (CLIP's own
normalizer and Split pre-tokenizer are not in this slice; the merges and the
suffix are what is under test.)"""

import functools
import json
import os

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import DATA, UD_FILES, assert_same, ud_lines
from tiers import ud_params


def clip_byte_chars():
    """CLIP's bytes_to_unicode, in its order: printable bytes first, then the rest."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


@functools.lru_cache(maxsize=None)
def clip_json():
    with open(os.path.join(DATA, "clip-merges-6000.txt"), encoding="utf-8") as f:
        merges = [tuple(line.split(" ")) for line in f.read().splitlines()]
    # open_clip's SimpleTokenizer: byte chars, the same with </w>, then one token per merge.
    tokens = clip_byte_chars()
    tokens += [t + "</w>" for t in tokens] + ["".join(m) for m in merges] + ["<start_of_text>", "<end_of_text>"]
    vocab = {t: i for i, t in enumerate(tokens)}
    return json.dumps({
        "version": "1.0",
        "added_tokens": [
            {"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True} for t in ("<start_of_text>", "<end_of_text>")
        ],
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["<end_of_text>", vocab["<end_of_text>"]],
                           "cls": ["<start_of_text>", vocab["<start_of_text>"]], "trim_offsets": True,
                           "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": "</w>", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [list(m) for m in merges]},
    })


def test_clip_merges_are_the_file_we_think():
    with open(os.path.join(DATA, "clip-merges-6000.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) == 6000 and lines[:2] == ["i n", "t h"] and all(len(m.split(" ")) == 2 for m in lines)


@pytest.mark.parametrize("path", ud_params(UD_FILES), ids=lambda p: p.rsplit("-", 1)[-1][:-4])
def test_clip_merges_match_tokenizers(path):
    ours, theirs = bertpiece.Tokenizer.from_str(clip_json()), HFTokenizer.from_str(clip_json())
    lines = [line.lower() for line in ud_lines(path, 150)]
    for line, a, b in zip(lines, ours.encode_batch(lines), theirs.encode_batch(lines)):
        assert_same(a, b, line)
    ids = [e.ids for e in theirs.encode_batch(lines)]
    assert ours.decode_batch(ids) == theirs.decode_batch(ids)


def test_clip_merges_and_suffix_apply():
    """Not vacuous: whole English words come out as single "word</w>" tokens."""
    enc = bertpiece.Tokenizer.from_str(clip_json()).encode("the quick brown fox jumped over the lazy dogs")
    assert {"the</w>", "quick</w>", "brown</w>", "over</w>", "dogs</w>"} <= set(enc.tokens)

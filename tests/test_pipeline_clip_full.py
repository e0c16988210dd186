"""CLIP's whole tokenizer.json, built as transformers 5.24's CLIPConverter
builds it (NFC + Replace(\\s+) + Lowercase, Split(CLIP's regex, removed,
invert) + ByteLevel, BPE with "</w>", RobertaProcessing, ByteLevel decoder)
from CLIP's real vocabulary and all 48894 merges, which ship in the
open-clip-torch wheel (open_clip/bpe_simple_vocab_16e6.txt.gz; fetched with
pip into .cache/ when absent, checked by sha256): bertpiece.Tokenizer ==
tokenizers 0.23.3 on every 3rd UD line (ids, tokens, offsets, type ids, masks,
word ids), on pairs, with the special tokens in the text, and in decode."""

import functools
import gzip
import hashlib
import json
import os
import subprocess
import sys
import types
import zipfile

import pytest
from tokenizers import AddedToken, Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import UD_FILES, assert_same, ud_lines
from test_pipeline_bpe_clip import clip_byte_chars
from tiers import ud_params

WHEEL = "open_clip_torch-3.3.0-py3-none-any.whl"
WHEEL_SHA256 = "c549ad5ed6bfc119cc11105033c0a2b9d7a2a4afeb40a58a09aab3da1a0043ce"
VOCAB_GZ_SHA256 = "924691ac288e54409236115652ad4aa250f48203de50a9e4722a6ecd48d6804a"
CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".cache", "open_clip")


def clip_merges():
    """The merges as open_clip's SimpleTokenizer reads them: lines 1 .. 49152-256-2 after the version line."""
    path = os.path.join(CACHE, WHEEL)
    if not os.path.exists(path):
        subprocess.run([sys.executable, "-m", "pip", "download", "open-clip-torch==3.3.0", "--no-deps", "-q", "-d", CACHE],
                       check=True)
    with open(path, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == WHEEL_SHA256
    data = zipfile.ZipFile(path).read("open_clip/bpe_simple_vocab_16e6.txt.gz")
    assert hashlib.sha256(data).hexdigest() == VOCAB_GZ_SHA256
    lines = gzip.decompress(data).decode("utf-8").split("\n")
    return [tuple(line.split()) for line in lines[1:49152 - 256 - 2 + 1]]


@functools.lru_cache(maxsize=None)
def clip_full_json(normalized_specials):
    from transformers.convert_slow_tokenizer import CLIPConverter

    merges = clip_merges()
    tokens = clip_byte_chars()
    tokens += [t + "</w>" for t in tokens] + ["".join(m) for m in merges] + ["<|startoftext|>", "<|endoftext|>"]
    vocab = {t: i for i, t in enumerate(tokens)}
    slow = types.SimpleNamespace(  # what CLIPConverter reads of the slow CLIPTokenizer
        encoder=vocab, bpe_ranks={m: i for i, m in enumerate(merges)}, unk_token="<|endoftext|>",
        bos_token="<|startoftext|>", bos_token_id=vocab["<|startoftext|>"],
        eos_token="<|endoftext|>", eos_token_id=vocab["<|endoftext|>"])
    tok = CLIPConverter(slow).converted()
    tok.add_special_tokens([AddedToken(t, normalized=normalized_specials, special=True)
                            for t in ("<|startoftext|>", "<|endoftext|>")])
    return tok.to_str()


def test_the_file_is_clips():
    data = json.loads(clip_full_json(True))
    assert len(data["model"]["vocab"]) == 49408 and len(data["model"]["merges"]) == 48894
    assert [n["type"] for n in data["normalizer"]["normalizers"]] == ["NFC", "Replace", "Lowercase"]
    assert data["post_processor"]["type"] == "RobertaProcessing"
    enc = bertpiece.Tokenizer.from_str(clip_full_json(True)).encode("A photo of a cat")
    assert enc.tokens == ["<|startoftext|>", "a</w>", "photo</w>", "of</w>", "a</w>", "cat</w>", "<|endoftext|>"]


EXTRA = ["<|startoftext|>A  PHOTO\tof<|endoftext|> it's 1234 Café!!", "  ", "", "ＦＵＬＬ　ｗｉｄｔｈ ŉ ǅ İstanbul",
         "emoji 👍🏽 and\u00a0nbsp\u2028line", "'S 'LL 'd's"]


def _compare(text, lines):
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    for line, a, b in zip(lines, ours.encode_batch(lines), theirs.encode_batch(lines)):
        assert_same(a, b, line)
    pairs = list(zip(lines[::7], lines[1::7]))
    for pair, a, b in zip(pairs, ours.encode_batch(pairs), theirs.encode_batch(pairs)):
        assert_same(a, b, pair)
    ids = [e.ids for e in theirs.encode_batch(lines[:200])]
    assert ours.decode_batch(ids) == theirs.decode_batch(ids)
    assert ours.decode_batch(ids, skip_special_tokens=False) == theirs.decode_batch(ids, skip_special_tokens=False)


@pytest.mark.parametrize("path", ud_params(UD_FILES), ids=lambda p: p.rsplit("-", 1)[-1][:-4])
def test_every_ud_line_matches_tokenizers(path):
    _compare(clip_full_json(True), ud_lines(path)[::3] + EXTRA)  # every 3rd line: CLIP's path is the general one


def test_special_tokens_not_normalized():
    """The same file with its two special tokens matched before normalizing."""
    _compare(clip_full_json(False), [line for path in UD_FILES for line in ud_lines(path, 40)] + EXTRA)


@pytest.mark.parametrize("normalized_specials", [True, False])
def test_bulk_ids_match_tokenizers(normalized_specials):
    """The bulk call's ids-only path for BPE files no fast path takes (src/pipeline_ids_bpe.rs) against
    tokenizers' encode_batch: with and without the specials, truncated both ways, on 1 and 2 threads."""
    text = clip_full_json(normalized_specials)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = [line for path in UD_FILES for line in ud_lines(path, 60)] + EXTRA
    for add in (True, False):
        want = [e.ids for e in theirs.encode_batch(lines, add_special_tokens=add)]
        for threads in (1, 2):
            bulk = ours.encode_batch_arrays(lines, add_special_tokens=add, num_threads=threads)
            assert [bulk.ids[a:b].tolist() for a, b in zip(bulk.row_splits[:-1], bulk.row_splits[1:])] == want
    for direction in ("right", "left"):
        theirs.enable_truncation(7, direction=direction)
        want = [e.ids for e in theirs.encode_batch(lines)]
        theirs.no_truncation()
        ours.enable_truncation(7, direction=direction)
        bulk = ours.encode_batch_arrays(lines, num_threads=2)
        ours.no_truncation()
        assert [bulk.ids[a:b].tolist() for a, b in zip(bulk.row_splits[:-1], bulk.row_splits[1:])] == want, direction

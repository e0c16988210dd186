"""Offsets and word ids against HF tokenizers (reference="tokenizers"): every
code point in context, and real text, through BertNormalizer + BertPreTokenizer
+ WordPiece. Offsets are code points of the original string."""

import atexit
import functools
import os
import shutil
import tempfile

import pytest
from tokenizers import Tokenizer
from tokenizers.models import WordPiece
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

import bertpiece
from bertpiece import _core
from code_points import code_points
from google_reference import data_files, read_lines
from tiers import ud_params

SEGMENT = 0x8000
# A vocabulary of just the unknown token turns every pre-tokenizer word into one
# [UNK] spanning the whole word: its offsets are the pre-tokenizer's offsets.
UNK_ONLY = os.path.join(tempfile.mkdtemp(prefix="bertpiece-"), "unk-only.txt")
atexit.register(shutil.rmtree, os.path.dirname(UNK_ONLY), True)  # needed at collection: no tmp_path yet
with open(UNK_ONLY, "w", encoding="utf-8") as f:
    f.write("[UNK]\n")

CONFIGS = [("bert-base-uncased", True, None), ("bert-base-multilingual-cased", False, None),
           ("bert-base-multilingual-cased", True, False), ("bert-base-cased", False, True)]
# The code point sweep (HF takes ~3 s per segment) uses two configurations:
# pre-tokenizer words after strip + lowercase, and WordPiece pieces after
# lowercasing alone (İ -> i + U+0307). tests/test_tokenizers_reference.py
# sweeps the tokens of every configuration.
SWEEP = [(UNK_ONLY, True, None), CONFIGS[2]]


@functools.lru_cache(maxsize=None)  # built once per process: mBERT's vocabulary takes ~0.2 s to load; neither is mutated
def pair(name, lower, strip):
    path = name if os.path.isabs(name) else bertpiece.vocab_path(name)
    hf = Tokenizer(WordPiece.from_file(path, unk_token="[UNK]", max_input_chars_per_word=100))
    hf.normalizer = BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=strip, lowercase=lower)
    hf.pre_tokenizer = BertPreTokenizer()
    ours = _core.FullTokenizer(path, lower, reference="tokenizers", strip_accents=strip)
    return hf, ours


def contexts(c):
    """Alone, in a word, beside punctuation, among combining marks, after an expanding İ."""
    return (c, "ab" + c + "cd", "(" + c + ")", "E" + c + "\u0301", c + "\u0323\u0301", "İ" + c + c)


def check(hf, ours, text):
    e = hf.encode(text, add_special_tokens=False)
    return (e.ids, e.offsets, e.word_ids) == tuple(map(list, ours.encode_offsets(text)))


# The two configurations take turns segment by segment: each code point under one of them.
@pytest.mark.parametrize("config,start", [(SWEEP[k % 2], start) for k, start in enumerate(range(0, 0x110000, SEGMENT))],
                         ids=lambda v: f"U+{v:05X}" if isinstance(v, int) else "-".join(map(str, (os.path.basename(v[0]),) + v[1:])))
def test_every_code_point_offsets_equal_hf(config, start):
    hf, ours = pair(*config)
    cps = code_points(start, min(start + SEGMENT, 0x110000))
    text = " ".join(t for cp in cps for t in contexts(chr(cp)))
    if not check(hf, ours, text):
        bad = next(cp for cp in cps if not check(hf, ours, " ".join(contexts(chr(cp)))))
        ctx = " ".join(contexts(chr(bad)))
        e = hf.encode(ctx, add_special_tokens=False)
        pytest.fail(f"U+{bad:04X} in {ctx!r}: ours {ours.encode_offsets(ctx)} != HF {(e.ids, e.offsets, e.word_ids)}")


@pytest.mark.parametrize("filename", ud_params(data_files()))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_real_text_offsets_equal_hf(config, filename):
    hf, ours = pair(*config)
    # Every 4th line, the configurations taking turns: each line under one of the four.
    for line in read_lines(filename)[CONFIGS.index(config)::4]:
        assert check(hf, ours, line), line


def test_offsets_index_the_original_string():
    """Google/transformers modes: each token's offsets cover the original text it came from."""
    path = bertpiece.vocab_path("bert-base-uncased")
    text = "\x00Héllo\u200b  WORLD İstanbul 中文 unaffable\ufffd!"
    for reference in ("google", "transformers"):
        ours = _core.FullTokenizer(path, True, reference=reference)
        ids, offsets, words = ours.encode_offsets(text)
        assert ids == ours.encode(text)
        # Each token's text, normalized on its own, is the token (less "##").
        tokens = ours.tokenize(text)
        for (s, e), token in zip(offsets, tokens):
            if token != "[UNK]":
                assert token.replace("##", "", 1) in "".join(ours.tokenize(text[s:e])).replace("##", "")
        assert words == sorted(words) and len(offsets) == len(tokens)

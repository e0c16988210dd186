"""The general pipeline (normalizers, pre-tokenizers, added tokens, every
model) and the fast paths on a text too large for the memory left: a `MemoryError`, never an
abort of the process. Its normalized text takes 20 bytes a char (a char and
its span in the original), and every step's pieces are made fallibly. Each
call runs in a child whose address space is capped (RLIMIT_AS) a little above
what it maps once the text exists, as tests/test_limits.py's documents do;
16 MiB of text, with spaces and without (one word)."""

import sys

import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from memory_cap import run_capped

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")


def _wordpiece():
    vocab = {t: i for i, t in enumerate(["[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##a", "##b", "##ab"])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    tok.add_special_tokens(["[CLS]", "[SEP]"])
    return tok


def _byte_level():
    vocab = {c: i for i, c in enumerate(pre_tokenizers.ByteLevel.alphabet())}
    vocab["ab"], vocab["Ġa"] = len(vocab), len(vocab) + 1
    tok = Tokenizer(models.BPE(vocab, [("a", "b"), ("Ġ", "a")]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return tok


def _nfkc_split_bpe():
    vocab = {t: i for i, t in enumerate(["<unk>", "a", "b", "ab", " "])}
    tok = Tokenizer(models.BPE(vocab, [("a", "b")], unk_token="<unk>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("b", "b"), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(" ", "isolated"), pre_tokenizers.Digits()])
    tok.add_tokens(["zz"])
    return tok


SHAPES = {"wordpiece": _wordpiece, "byte_level": _byte_level, "nfkc_split_bpe": _nfkc_split_bpe}

SETUP = """
import numpy  # (imported before the cap: its own start-up allocates)
import bertpiece
from bertpiece._core import PipelineTokenizer
general = bertpiece.Tokenizer(PipelineTokenizer.from_str(JSON, fast_path=False), JSON)
tok = bertpiece.Tokenizer.from_str(JSON)
doc = UNIT * ((16 << 20) // len(UNIT))
"""


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_files_are_what_tokenizers_gives(shape):
    text = SHAPES[shape]().to_str()
    hf, ours = HFTokenizer.from_str(text), bertpiece.Tokenizer.from_str(text)
    for t in ["ab ab", "aab  bzzb", "AB ａｂ 12", ""]:
        want, got = hf.encode(t), ours.encode(t)
        assert (got.ids, got.offsets) == (want.ids, want.offsets), (shape, t)


# 150 MiB: the encoding's room fails first; 400 and 800: the normalized text or the pieces
@pytest.mark.parametrize("cap", [150, 400, 800])
@pytest.mark.parametrize("unit", ["ab", "a b "])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_general_path_on_a_text_too_large_is_a_memory_error(shape, unit, cap):
    out = run_capped(SETUP.replace("JSON", repr(SHAPES[shape]().to_str())).replace("UNIT", repr(unit)), "general.encode(doc)", cap)
    if cap == 150:
        assert out.startswith("MemoryError"), out


# The fast paths' calls (byte-level BPE: its fused scanner, the gathered lookups, the merge of a word
# too long for its cache, the bulk arrays; WordPiece: the fused BERT encoder), one child each.
FAST_CALLS = ["tok.encode(doc)", "tok.encode_batch([doc, 'ab'])", "tok.encode_batch_arrays([doc], return_offsets=True)",
              "tok.encode_batch_arrays([doc, doc], num_threads=2)"]


@pytest.mark.parametrize("cap", [150, 400])
@pytest.mark.parametrize("unit", ["ab", "a b "])
@pytest.mark.parametrize("shape", ["byte_level", "wordpiece"])
def test_the_fast_paths_on_a_text_too_large_are_a_memory_error(shape, unit, cap):
    text = SHAPES[shape]().to_str()
    assert bertpiece.Tokenizer.from_str(text)._core.fast_path() is not None
    for call in FAST_CALLS:
        run_capped(SETUP.replace("JSON", repr(text)).replace("UNIT", repr(unit)), call, cap)


# A pair whose second sequence is the large one: the post-processor (WordPiece's BertProcessing) or the merge
# of the two (byte-level, no post-processor) makes the room for it fallibly; both aborted before (caps 150
# and 250 on 4 MiB of text, measured on the build before this change).
@pytest.mark.parametrize("cap", [150, 200, 250, 300])
@pytest.mark.parametrize("shape", ["wordpiece", "byte_level"])
def test_a_pair_with_a_large_second_sequence_is_a_memory_error(shape, cap):
    setup = SETUP.replace("JSON", repr(SHAPES[shape]().to_str())).replace("UNIT", repr("a b ")).replace("(16 << 20)", "(4 << 20)")
    for call in ["tok.encode('ab', doc)", "general.encode('ab', doc)", "tok.encode_batch([('ab', doc)])"]:
        run_capped(setup, call, cap)

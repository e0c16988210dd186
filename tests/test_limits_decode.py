"""Decoding a list of ids too large for the memory left: a `MemoryError`,
never an abort of the process. The id lists taken from Python, the tokens,
every decoder stage's output and the Python str are made fallibly (PyO3's own
list extraction and str conversion abort or panic when CPython or the
allocator cannot give the room). Each call runs in a child whose address
space is capped (RLIMIT_AS) a little above what it maps once the ids exist,
as tests/test_limits*.py do; 12 million ids (the Python list alone is 96 MB)."""

import sys

import pytest
from tokenizers import Tokenizer, decoders, models
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from memory_cap import run_capped
from spm_models import model

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")

VOCAB = ["<unk>", "<pad>", "▁ab", "##cd", "<0x61>", "<0xE2>", "ĠÃ", "©", "x</w>", "▁▁", "|", "é"]

# every decoder family: each stage's output grows through its own buffers
DECODERS = {
    "byte_level": decoders.ByteLevel(),
    "wordpiece": decoders.WordPiece(),
    "metaspace": decoders.Metaspace(),
    "llama": decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                decoders.Strip(" ", 1, 0)]),
    "bpe_ctc": decoders.Sequence([decoders.BPEDecoder(), decoders.CTC()]),
    "none": None,
}


def _json(name):
    tok = Tokenizer(models.WordLevel({t: i for i, t in enumerate(VOCAB)}, unk_token="<unk>"))
    tok.add_special_tokens(["<s>"])
    if DECODERS[name] is not None:
        tok.decoder = DECODERS[name]
    return tok.to_str()


SETUP = """
import bertpiece
tok = bertpiece.Tokenizer.from_str(JSON)
ids = list(range(13)) * ((12 << 20) // 13)
batch = [ids[: 1 << 20]] * 12
"""


@pytest.mark.parametrize("name", list(DECODERS))
def test_the_files_decode_as_tokenizers_does(name):
    hf, ours = HFTokenizer.from_str(_json(name)), bertpiece.Tokenizer.from_str(_json(name))
    for ids in [list(range(13)), [2, 2, 9, 3, 4, 5, 10, 12, 8], [6, 7, 11, 1, 1, 0], []]:
        for skip in (True, False):
            assert ours.decode(ids, skip) == hf.decode(ids, skip), (name, ids, skip)
    assert ours.decode_batch([[2, 3], [4, 5, 6]]) == hf.decode_batch([[2, 3], [4, 5, 6]])


# 200 MiB: the ids' vector, the tokens or the text fail first (every call aborted before); 500: the batch's texts
@pytest.mark.parametrize("cap", [200, 500])
@pytest.mark.parametrize("name", list(DECODERS))
def test_decoding_too_many_ids_is_a_memory_error(name, cap):
    setup = SETUP.replace("JSON", repr(_json(name)))
    for call in ["tok.decode(ids, False)", "tok.decode_batch(batch)"]:
        out = run_capped(setup, call, cap)
        if cap == 200 and call.startswith("tok.decode("):
            assert out.startswith("MemoryError"), (name, call, out)


SPM_SETUP = """
import bertpiece
sp = bertpiece.SentencePieceProcessor(model_file=MODEL)
ids = list(range(3, 40)) * ((12 << 20) // 37)
pieces = [sp.id_to_piece(i) for i in range(3, 40)] * ((12 << 20) // 37)
"""


@pytest.mark.parametrize("cap", [200, 500])
@pytest.mark.parametrize("name", ["unigram", "bpe_bytes"])
def test_sentencepiece_decoding_too_many_ids_is_a_memory_error(name, cap, tmp_path):
    path = tmp_path / "m.model"
    path.write_bytes(model(name))
    setup = SPM_SETUP.replace("MODEL", repr(str(path)))
    for call in ["sp.decode(ids)", "sp.decode_pieces(pieces)", "sp.decode([ids[:1 << 20]] * 12)"]:
        run_capped(setup, call, cap)

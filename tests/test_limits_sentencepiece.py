"""SentencePieceProcessor on a text too large for the memory left: a
`MemoryError`, never an abort of the process. The normalized text, the
lattice (24 bytes a byte of a word: a text with no space is one word), the
BPE symbols and merge agenda, the pieces and the id lists are made fallibly.
Each call runs in a child whose address space is capped (RLIMIT_AS) a little
above what it maps once the text exists (tests/test_limits.py's way), on 16
MiB of text with spaces, without, and in a script with no space (Japanese)."""

import sys

import pytest

from memory_cap import run_capped
from spm_models import model

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")

SETUP = """
import bertpiece
sp = bertpiece.SentencePieceProcessor(model_file=MODEL)
doc = UNIT * ((16 << 20) // len(UNIT.encode()))
"""

CALLS = ["sp.encode(doc)", "sp.encode(doc, out_type=str)", "sp.encode([doc, 'x'])",
         "sp.encode([doc, doc], out_type=str, num_threads=2)", "sp.normalize(doc)"]


# 100 MiB: the normalized text or the lattice fails first; 400: the pieces or the lists
@pytest.mark.parametrize("cap", [100, 400])
@pytest.mark.parametrize("unit", ["ab", "a b ", "日本語"])
@pytest.mark.parametrize("name", ["unigram", "bpe_symbols"])
def test_a_text_too_large_for_memory_is_a_memory_error(name, unit, cap, tmp_path):
    path = tmp_path / "m.model"
    path.write_bytes(model(name))
    setup = SETUP.replace("MODEL", repr(str(path))).replace("UNIT", repr(unit))
    for call in CALLS:
        out = run_capped(setup, call, cap)
        if cap == 100 and "normalize" not in call:
            assert out.startswith("MemoryError"), (call, out)

"""SentencePieceProcessor on a text too large for the memory left: a
`MemoryError`, never an abort of the process. The normalized text, the
lattice (24 bytes a byte of a word: a text with no space is one word), the
BPE symbols and merge agenda, the pieces and the id lists are made fallibly.
Each call runs in a child whose address space is capped (RLIMIT_AS) a little
above what it maps once the text exists (tests/test_limits.py's way), on 16
MiB of text with spaces, without, and in a script with no space (Japanese)."""

import sys

import pytest

from preloaded import run_python
from spm_models import model

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")

CHILD = """
import resource, warnings
import bertpiece
sp = bertpiece.SentencePieceProcessor(model_file=MODEL)
doc = UNIT * ((16 << 20) // len(UNIT.encode()))
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (CAP << 20),) * 2)
warnings.simplefilter("ignore")
try:
    CALL
    print("ok")
except MemoryError as e:
    print("MemoryError", e)
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
    for call in CALLS:
        code = (CHILD.replace("MODEL", repr(str(path))).replace("UNIT", repr(unit)).replace("CAP", str(cap))
                .replace("CALL", call))
        r = run_python(["-c", code], text=True, timeout=300)
        assert r.returncode == 0, f"{call}: child ended with {r.returncode} (a negative code is a signal):\n{r.stderr[-3000:]}"
        assert "panicked" not in r.stderr, r.stderr[-3000:]
        assert r.stdout.startswith(("MemoryError", "ok")), (call, r.stdout, r.stderr[-3000:])
        if cap == 100 and "normalize" not in call:
            assert r.stdout.startswith("MemoryError"), (call, r.stdout)

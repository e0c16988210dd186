"""The benchmark peers' venvs, pinned and made on first use from PyPI.

Each bench that runs peers gets their python from here instead of a path on
one machine: `peer_python("all")` is a venv with every peer of the pipeline
benches (fastokens, tokie, kitoken, gigatoken, tiktoken, sentencepiece,
nanotoken, tokenizers 0.23.3 beside them), `peer_python("tok1")` one with
tokenizers 1.0.0rc3 (it replaces the 0.23 that transformers needs, hence its
own venv), `peer_python("bert")` benches/bert_peers.py's smaller set. A venv
is remade when its pins change (the pins are stamped in it). An environment
variable (`BERTPIECE_BENCH_PY_ALL`, `..._TOK1`, `..._BERT`) may name an existing
python to use instead.

The venvs live in .cache/bert-peers/ (bert_peers.py made the first two there).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENVS = ROOT / ".cache" / "bert-peers"
PINS = {
    "bert": ("venv-peers", ["nanotoken==0.1.0", "tokie==0.1.4", "numpy==2.4.6", "unicodedata2==17.0.1"]),
    "tok1": ("venv-tok1", ["tokenizers==1.0.0rc3"]),
    "all": ("venv-all", ["fastokens==0.3.5", "tokie==0.1.4", "kitoken==0.11.1", "gigatoken==0.10.0",
                         "tiktoken==0.14.0", "sentencepiece==0.2.3", "nanotoken==0.1.0", "numpy==2.4.6",
                         "tokenizers==0.23.3", "unicodedata2==17.0.1"]),
}


def peer_python(kind: str) -> str:
    """The python of the `kind` venv ("all", "tok1" or "bert"), made (or remade) with its pins if needed."""
    override = os.environ.get(f"BERTPIECE_BENCH_PY_{kind.upper()}")
    if override:
        return override
    name, pins = PINS[kind]
    path = VENVS / name
    python, stamp = path / "bin" / "python", path / "pins.txt"
    if not python.exists() or not stamp.exists() or stamp.read_text() != "\n".join(pins):
        print(f"making {path} ({', '.join(pins)})", file=sys.stderr)
        venv.EnvBuilder(clear=True, with_pip=True).create(path)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pins], check=True)
        stamp.write_text("\n".join(pins))
    return str(python)

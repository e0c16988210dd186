"""Instructions per BERT serving call, counted by callgrind: a figure the
machine's load does not move (2 cores shared by several builds make CPU time
noisy to ±20 %), for A/B comparisons of two builds of the Python-level path.

    python benches/serving_instructions.py                  # every case, this checkout's python/
    python benches/serving_instructions.py 1 8 --calls 500  # padded batches of 1 and 8
    python benches/serving_instructions.py one --python /tmp/build-a  # another build's package

Cases: `one` (`tok(text)`), `encode` (`tok.encode(text)`), `offsets`
(`tok(text, return_offsets_mapping=True)`), `stride` (`tok(text, truncation=True,
max_length=16, stride=4, return_overflowing_tokens=True)`), and a batch size
(`tok(texts, padding=True, truncation=True, max_length=128, return_tensors="np")`),
over the peers benchmark's 2,000 EWT sentences (`bert_peers.sentences`). Each
case runs in a fresh interpreter under `valgrind --tool=callgrind`: one warm
pass over the inputs (word memo filled, plans made), then `--calls` calls,
counted alone (callgrind collects only inside the `deque(map(...))` that makes
them). Caveat: callgrind counts a `rep stosb` (glibc's memset of a few kB and
more) byte by byte, so the zeroed padded block weighs more here than in time.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CALLS = {"one": 2000, "encode": 2000, "offsets": 2000, "stride": 1000, "1": 2000, "8": 500, "32": 200}

WORKER = r"""
import collections, itertools, sys
sys.path.insert(0, sys.argv[3])
import bert_peers, bertpiece
case, n = sys.argv[1], int(sys.argv[2])
tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
texts = bert_peers.sentences()
if case == "one":
    fn, items = tok, texts
elif case == "encode":
    fn, items = tok.encode, texts
elif case == "offsets":
    fn, items = (lambda x: tok(x, return_offsets_mapping=True)), texts
elif case == "stride":
    fn, items = (lambda x: tok(x, truncation=True, max_length=16, stride=4, return_overflowing_tokens=True)), texts
else:
    b = int(case)
    fn = lambda x: tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")
    items = [texts[i:i + b] for i in range(0, len(texts), b)][:max(8, 2000 // b)]
for x in items:
    fn(x)
work = list(itertools.islice(itertools.cycle(items), n))
collections.deque(map(fn, work), maxlen=0)
"""


def count(case: str, calls: int, python_dir: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=consume_iterator",
               f"--callgrind-out-file={tmp}/out", sys.executable, "-c", WORKER, case, str(calls),
               str(ROOT / "benches")]
        env = dict(os.environ, PYTHONPATH=python_dir)
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        m = re.search(r"Collected : (\d+)", p.stderr)
        if not m:
            raise SystemExit(p.stderr[-2000:])
        return int(m.group(1)) / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", default=["one", "encode", "1", "8", "32", "256"])
    ap.add_argument("--calls", type=int, help="calls counted (default: 2,000 for one text and batches of 1, "
                    "500 for 8, 200 for 32, 40 for 256 and larger)")
    ap.add_argument("--python", default=str(ROOT / "python"), help="the directory holding the bertpiece package")
    args = ap.parse_args()
    print("| case | instructions per call |\n|---|---:|")
    for case in args.cases:
        calls = args.calls or DEFAULT_CALLS.get(case, 40)
        print(f"| {case} | {count(case, calls, args.python):,.0f} |", flush=True)


if __name__ == "__main__":
    main()

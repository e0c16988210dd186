"""Where a padded BERT serving call's CPU time goes, by subtraction: the whole call
(`tok(texts, padding=True, truncation=True, max_length=128, return_tensors="np")`), the core's
padded call alone with the call's own plan (`_core.encode_padded_planes`: encoder, block, NumPy
arrays), and the encoder alone on the same rows (`FullTokenizer.encode_batch` to flat arrays with
[CLS]/[SEP] and the cut at 128, no padding: what the block and arrays add is the difference).

    python benches/padded_parts.py 1 8 32 256 --python DIR [DIR ...] --rounds 5
    taskset -c 0 perf record -F 999 python benches/padded_parts.py 256 --loop 20000   # a profile's load

`--loop N`: only the whole call, N passes over the sentences in batches of the first size, in this
process and with the package on sys.path (for `perf record`), nothing printed.

Over the peers benchmark's 2,000 EWT sentences (benches/bert_peers.py's `sentences()`), in batches of
each size. Each build runs in a fresh interpreter pinned to CPU 0 (`taskset`), the builds taking turns
`--rounds` times; each measurement: one warm pass, then the median of 9 passes of `time.process_time`.
Printed: CPU µs per call, median over the rounds, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[2])
import bert_peers, bertpiece
from bertpiece import _core
tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
texts, out = bert_peers.sentences(), {}
opts = dict(padding=True, truncation=True, max_length=128, return_tensors="np")
for b in map(int, sys.argv[1].split(",")):
    batches = [texts[i:i + b] for i in range(0, len(texts), b)]
    tok(batches[0], **opts)
    st = tok._engine.serving
    plan = st.padded_plans[128][1]
    cases = {"call": lambda x: tok(x, **opts),
             "core padded call": lambda x: _core.encode_padded_planes(st.core, x, plan),
             "encoder alone": lambda x: st.core.encode_batch(x, special=(st.cls, st.sep), max_length=128,
                                                             num_threads=1)}
    for name, fn in cases.items():
        for x in batches:
            fn(x)
        times = []
        for _ in range(9):
            t = time.process_time()
            for x in batches:
                fn(x)
            times.append((time.process_time() - t) / len(batches) * 1e6)
        out[f"{name}, batch of {b}"] = statistics.median(times)
print(json.dumps(out))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--python", nargs="+", help="directories holding a bertpiece package")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--loop", type=int, help="run the call this many passes here, for a profiler")
    args = ap.parse_args()
    if args.loop:
        loop(args.sizes[0], args.loop)
        return
    if not args.python:
        ap.error("--python is required (or --loop)")
    found = {p: {} for p in args.python}
    load = [os.getloadavg()]
    sizes = ",".join(map(str, args.sizes))
    for _ in range(args.rounds):
        for p in args.python:
            run = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", WORKER, sizes, str(ROOT / "benches")],
                                 capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=p), check=True)
            for k, v in json.loads(run.stdout.strip().splitlines()[-1]).items():
                found[p].setdefault(k, []).append(v)
    load.append(os.getloadavg())
    cases = list(found[args.python[0]])
    print("| case | " + " | ".join(args.python) + " |")
    print("|---|" + "---|" * len(args.python))
    for c in cases:
        print(f"| {c} | " + " | ".join(f"{statistics.median(found[p][c]):.2f}" for p in args.python) + " |")
    print("load average before / after: " + " / ".join(", ".join(f"{x:.2f}" for x in la) for la in load))


def loop(size, passes):
    sys.path.insert(0, str(ROOT / "benches"))
    import bert_peers
    import bertpiece

    tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    texts = bert_peers.sentences()
    batches = [texts[i:i + size] for i in range(0, len(texts), size)]
    for _ in range(passes):
        for x in batches:
            tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")


if __name__ == "__main__":
    main()

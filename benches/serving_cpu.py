"""CPU time per BERT serving call of two or more builds of the package, taking turns: for A/B checks of
small differences that `benches/peers.py bert` (one decimal of a µs) cannot show.

    python benches/serving_cpu.py 1 --python /tmp/build-a /tmp/build-b --rounds 12

Cases as benches/serving_instructions.py: `one` (`tok(text)`), `encode`, `offsets`, or a batch size
(`tok(texts, padding=True, truncation=True, max_length=128, return_tensors="np")`), over the peers
benchmark's 2,000 EWT sentences. Each measurement is a fresh interpreter pinned to CPU 0 (`taskset`):
one warm pass, then 15 passes timed by `time.process_time`; its median µs per call. The builds take turns
`--rounds` times; printed: each build's median (lowest–highest) over the rounds, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import statistics, sys, time
sys.path.insert(0, sys.argv[2])
import bert_peers, bertpiece
tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
texts, case = bert_peers.sentences(), sys.argv[1]
if case in ("one", "encode"):
    fn, items = (tok if case == "one" else tok.encode), texts
elif case == "offsets":
    fn, items = (lambda x: tok(x, return_offsets_mapping=True)), texts
else:
    b = int(case)
    fn = lambda x: tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")
    items = [texts[i:i + b] for i in range(0, len(texts), b)]
for x in items:
    fn(x)
times = []
for _ in range(15):
    t = time.process_time()
    for x in items:
        fn(x)
    times.append((time.process_time() - t) / len(items) * 1e6)
print(statistics.median(times))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case")
    ap.add_argument("--python", nargs="+", required=True, help="directories holding a bertpiece package")
    ap.add_argument("--rounds", type=int, default=12)
    args = ap.parse_args()
    found = {p: [] for p in args.python}
    load = [os.getloadavg()]
    for _ in range(args.rounds):
        for p in args.python:
            out = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", WORKER, args.case, str(ROOT / "benches")],
                                 capture_output=True, text=True, check=True, env=dict(os.environ, PYTHONPATH=p))
            found[p].append(float(out.stdout))
    load.append(os.getloadavg())
    print(f"| build | CPU µs per call ({args.case}), median (lowest–highest) of {args.rounds} |\n|---|---|")
    for p, v in found.items():
        print(f"| {p} | {statistics.median(v):.3f} ({min(v):.3f}–{max(v):.3f}) |")
    print("load average before / after: " + " / ".join(", ".join(f"{x:.2f}" for x in a) for a in load))


if __name__ == "__main__":
    main()

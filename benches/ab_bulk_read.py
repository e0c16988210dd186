#!/usr/bin/env python3
"""Two builds of bertpiece taking turns on a bulk call whose cost is mostly
reading the Python texts (round bert34, docs/benchmarks/bert-bulk-34.md):
`BertTokenizer._core.encode_batch(texts, num_threads=N)` on 400,000 short strs,
each its own object ("w12 x", 64 forms, so the word memo answers nearly every
word; shuffled, so the objects lie apart in memory and each str's first touch
misses the cache).
It shows what reading the texts while the workers encode changes, which the
en-large bulk call (reading ~4 % of its CPU) cannot resolve on a shared machine.

    python benches/ab_bulk_read.py A_DIR B_DIR [--rounds 6] [--threads 2]

Each round runs one fresh interpreter per build, in alternating order, pinned
with `taskset` to CPUs 0,1 (or CPU 0 at 1 thread); each reports the median,
over its calls but the first three, of the call's process CPU time and wall
time in ms. The table: each round's figures and B/A; the summary, the medians.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from ab_summary import median_ratio_line  # benches/ is the script's directory

WORKER = r"""
import json, random, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import bertpiece
threads, calls = int(sys.argv[2]), int(sys.argv[3])
random.seed(1)
texts = [f"w{k % 64} x" for k in range(400_000)]
random.shuffle(texts)
core = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)._core
cpu, wall = [], []
for _ in range(calls):
    t, w = time.process_time(), time.perf_counter()
    core.encode_batch(texts, num_threads=threads)
    cpu.append((time.process_time() - t) * 1e3)
    wall.append((time.perf_counter() - w) * 1e3)
print(json.dumps({"cpu": statistics.median(cpu[3:] or cpu), "wall": statistics.median(wall[3:] or wall)}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2, choices=(1, 2))
    ap.add_argument("--calls", type=int, default=15)
    args = ap.parse_args()
    cpus = "0" if args.threads == 1 else "0,1"
    got = {"A": [], "B": []}
    print("| round | A CPU ms | B CPU ms | B/A CPU | A wall ms | B wall ms | B/A wall |\n|---|---|---|---|---|---|---|")
    for r in range(args.rounds):
        now = {}
        for name in ("AB" if r % 2 == 0 else "BA"):
            build = args.a if name == "A" else args.b
            cmd = ["taskset", "-c", cpus, sys.executable, "-c", WORKER, str(build), str(args.threads), str(args.calls)]
            now[name] = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            got[name].append(now[name])
        a, b = now["A"], now["B"]
        print(f"| {r + 1} | {a['cpu']:.1f} | {b['cpu']:.1f} | {b['cpu'] / a['cpu']:.3f} "
              f"| {a['wall']:.1f} | {b['wall']:.1f} | {b['wall'] / a['wall']:.3f} |", flush=True)
    for key in ("cpu", "wall"):
        print(f"{key}: {median_ratio_line([x[key] for x in got['A']], [x[key] for x in got['B']], unit='ms')}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Two builds of bertpiece taking turns on the bulk call of issue 28, in CPU
time: `BertTokenizer.encode_batch(lines, add_special_tokens=True, num_threads=N)`
as benches/bert_peers.py makes it (word memos emptied before every pass), on
the 8 MB en-large file peers.py cuts (`.cache/bert-peers/bulk-en-large-8.txt`,
bert-base-uncased) or another corpus.

    python benches/ab_bulk_cpu.py A_DIR B_DIR [--rounds 8] [--threads 1|2] [--passes 12] [--warm]
        [--corpus FILE --model bert-base-multilingual-cased --cased]

A_DIR and B_DIR each hold a `bertpiece` package (a copy of `python/` with a
build's `_core.abi3.so`). Every round runs one fresh interpreter per build,
in alternating order, pinned with `taskset` to CPU 0 (1 thread) or CPUs 0,1;
each reports the median MB/s of process CPU time (all threads) over its
passes but the first three (the process warming up). `--warm` keeps the
memos from pass to pass (after one pass to fill them). The table: each
build's median over rounds and the median (range) of the per-round ratios
B/A. A digest of the ids and row splits is checked equal between the builds.
The same passes' wall-clock MB/s (median) are printed beside: at 2 threads on
a shared machine they time the other tenants too, so read them as medians of
many rounds, with the load average; the best pass's wall clock (the one least
slowed by other processes) is summed up last.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from ab_summary import median_ratio_line  # benches/ is the script's directory

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import hashlib, json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import bertpiece
path, model, cased, threads, passes, warm = sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5]), int(sys.argv[6]), sys.argv[7] == "1"
lines = open(path, encoding="utf-8").read().splitlines()
size = sum(len(l.encode()) for l in lines)
tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path(model), do_lower_case=not cased)
b = tok.encode_batch(lines, add_special_tokens=True, num_threads=threads)
digest = hashlib.sha256(bytes(memoryview(b.ids).cast("B")) + bytes(memoryview(b.row_splits).cast("B"))).hexdigest()
speeds, walls = [], []
for _ in range(passes):
    if not warm:
        bertpiece._core._forget_words()
    t, w = time.process_time(), time.perf_counter()
    tok.encode_batch(lines, add_special_tokens=True, num_threads=threads)
    w, t = time.perf_counter() - w, time.process_time() - t
    speeds.append(size / t / 1e6)
    walls.append(size / w / 1e6)
print(json.dumps({"mbs": statistics.median(speeds[3:] or speeds), "wall": statistics.median(walls[3:] or walls),
                  "best": max(walls[3:] or walls), "digest": digest}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1, choices=(1, 2))
    ap.add_argument("--passes", type=int, default=12)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--corpus", type=Path, default=ROOT / ".cache" / "bert-peers" / "bulk-en-large-8.txt")
    ap.add_argument("--model", default="bert-base-uncased")
    ap.add_argument("--cased", action="store_true")
    args = ap.parse_args()
    cpus = "0" if args.threads == 1 else "0,1"
    speeds, walls, bests, digests = {"A": [], "B": []}, {"A": [], "B": []}, {"A": [], "B": []}, set()
    print("| round | A MB/s | B MB/s | B/A | A wall MB/s | B wall MB/s | B/A wall |\n|---|---|---|---|---|---|---|")
    for r in range(args.rounds):
        got = {}
        for name in ("AB" if r % 2 == 0 else "BA"):
            build = args.a if name == "A" else args.b
            cmd = ["taskset", "-c", cpus, sys.executable, "-c", WORKER, str(build), str(args.corpus), args.model,
                   "1" if args.cased else "0", str(args.threads), str(args.passes), "1" if args.warm else "0"]
            out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            got[name], got[name + "w"] = out["mbs"], out["wall"]
            bests[name].append(out["best"])
            digests.add(out["digest"])
        for name in "AB":
            speeds[name].append(got[name])
            walls[name].append(got[name + "w"])
        print(f"| {r + 1} | {got['A']:.1f} | {got['B']:.1f} | {got['B'] / got['A']:.3f} "
              f"| {got['Aw']:.1f} | {got['Bw']:.1f} | {got['Bw'] / got['Aw']:.3f} |", flush=True)
    print(f"\n{median_ratio_line(speeds['A'], speeds['B'])}, {args.rounds} rounds; ids {'equal' if len(digests) == 1 else 'DIFFER'}")
    print(f"wall clock: {median_ratio_line(walls['A'], walls['B'])}")
    print(f"best pass, wall clock: {median_ratio_line(bests['A'], bests['B'])}")
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()

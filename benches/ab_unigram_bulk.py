#!/usr/bin/env python3
"""Two builds of bertpiece taking turns on the Unigram bulk call, in CPU time:
`Tokenizer.encode_batch_arrays(lines, add_special_tokens=False, num_threads=N)`
on a tokenizer file and a corpus (UD Japanese is 0.26 MB: one call is a few
milliseconds, so each process repeats it `--passes` times, the word caches
emptied before every pass unless `--warm`).

    python benches/ab_unigram_bulk.py A_DIR B_DIR --tokenizer FILE [--tokenizer FILE ...]
        [--corpus FILE] [--mb 8] [--skip-mb 0] [--rounds 4] [--passes 50] [--threads 1] [--warm]

A_DIR and B_DIR each hold a `bertpiece` package (a copy of `python/` with a
build's `_core.abi3.so`). Every round runs one fresh interpreter per build and
file, in alternating order, pinned with `taskset` to CPU 0 (1 thread) or CPUs
0,1; each reports the median MB/s of process CPU time (all threads) over its
passes but the first three. The table: each build's median over rounds and
the median (range) of the per-round ratios B/A. The ids and row splits are
checked equal between the builds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from ab_summary import median_ratio_line  # benches/ is the script's directory

HERE = Path(__file__).resolve().parent

WORKER = r"""
import hashlib, json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[8])
import numpy  # before any clock, as in bench_unigram.py
import bertpiece
from corpus_text import head
tok_file, corpus, mb, skip_mb, threads, passes, warm = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[9] == "1"
lines = [l for l in head(corpus, mb, skip_mb).split("\n") if l]
size = sum(len(l.encode()) for l in lines)
tok = bertpiece.Tokenizer.from_file(tok_file)
b = tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=threads)
digest = hashlib.sha256(bytes(memoryview(b.ids).cast("B")) + bytes(memoryview(b.row_splits).cast("B"))).hexdigest()
speeds = []
for _ in range(passes):
    if not warm:
        bertpiece._core._forget_words()
    t = time.process_time()
    tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=threads)
    speeds.append(size / (time.process_time() - t) / 1e6)
print(json.dumps({"mbs": statistics.median(speeds[3:] or speeds), "digest": digest}))
"""


def run(build, args, tok_file):
    cpus = "0" if args.threads == 1 else "0,1"
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    cmd = ["taskset", "-c", cpus, sys.executable, "-c", WORKER, str(build), tok_file, args.corpus, str(args.mb),
           str(args.skip_mb), str(args.threads), str(args.passes), str(HERE), "1" if args.warm else "0"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tokenizer", action="append", required=True)
    ap.add_argument("--corpus", default="/work/shared/data/corpus/ud-ja.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--skip-mb", type=float, default=0)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--passes", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--warm", action="store_true")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    rows = []
    for tok_file in args.tokenizer:
        a, b = [], []
        for r in range(args.rounds):
            order = [(args.a, a), (args.b, b)] if r % 2 == 0 else [(args.b, b), (args.a, a)]
            digests = set()
            for build, into in order:
                res = run(build, args, tok_file)
                into.append(res["mbs"])
                digests.add(res["digest"])
            if len(digests) != 1:
                raise SystemExit(f"{tok_file}: the builds' ids differ")
        rows.append((Path(tok_file).stem, a, b))
        print(f"{Path(tok_file).stem}: " + median_ratio_line(a, b, unit="MB per CPU s"))
    print(f"load average at end: {os.getloadavg()}")
    print("\n| file | A MB per CPU s | B MB per CPU s | B/A (median of rounds) |\n|---|---:|---:|---:|")
    for name, a, b in rows:
        ratios = sorted(y / x for x, y in zip(a, b))
        print(f"| {name} | {min(a):.1f}–{max(a):.1f} | {min(b):.1f}–{max(b):.1f} | "
              f"{statistics.median(ratios):.2f}× ({ratios[0]:.2f}–{ratios[-1]:.2f}) |")


if __name__ == "__main__":
    main()

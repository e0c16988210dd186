#!/usr/bin/env python3
"""Two builds of bertpiece, A and B, training Unigram in turns on the same
text: CPU time (the check behind a speed change of the trainer on a shared
machine, where wall time moves with the load) and the output compared bit
for bit (pieces, order, every score's bits).

Each build is a directory holding a `bertpiece` package (a copy of
`python/` with the build's `_core.abi3.so`). Every turn runs one fresh
interpreter per build and thread count: it counts the first `--mb` MB of
the corpus with `_core.MetaspaceCounter` (as `Tokenizer.train` with a
``Metaspace()`` pre-tokenizer does) and trains `--vocab-size` pieces on the
counts; it reports the CPU time (process_time: all threads) and wall time
of the training alone, and a digest of the result.

    python benches/ab_train_unigram.py /tmp/build-a /tmp/build-b --mb 5 --turns 2 --threads 1,2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CORPUS = Path("/work/shared/data/corpus/en-large.txt")

WORKER = r"""
import hashlib, json, os, sys, time
sys.path.insert(0, sys.argv[1])
from bertpiece import _core
path, mb, size, threads = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])
data = open(path, "rb").read(int(mb * 1e6))
lines = data.decode("utf-8", "ignore").splitlines(keepends=True)
counter = _core.MetaspaceCounter()
counter.feed(lines, num_threads=threads)
cpu, wall = time.process_time(), time.perf_counter()
pieces, unk, rounds = counter.train_unigram(_core.UnigramOptions(size, special_tokens=["<unk>", "<s>", "</s>"],
                                            unk_token="<unk>"), num_threads=threads)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
digest = hashlib.sha256(repr([(p, s.hex()) for p, s in pieces]).encode()).hexdigest()[:16]
print(json.dumps({"cpu": cpu, "wall": wall, "digest": digest, "pieces": len(pieces), "rounds": rounds}))
"""


def run(build: Path, args, threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", WORKER, str(build), str(args.corpus), str(args.mb),
                          str(args.vocab_size), str(threads)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path, help="directory holding build A's bertpiece package")
    ap.add_argument("b", type=Path, help="directory holding build B's bertpiece package")
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    for build in (args.a, args.b):
        if not (build / "bertpiece" / "__init__.py").is_file():
            sys.exit(f"ab_train_unigram: {build} holds no bertpiece package")
    results = {}
    for turn in range(args.turns):
        for threads in (int(t) for t in args.threads.split(",")):
            for name, build in (("A", args.a), ("B", args.b)) if turn % 2 == 0 else (("B", args.b), ("A", args.a)):
                before = load()
                r = run(build, args, threads)
                r["load"] = f"{before} -> {load()}"
                results.setdefault((threads, name), []).append(r)
                print(json.dumps({"turn": turn, "threads": threads, "build": name, **r}), file=sys.stderr, flush=True)
    print("| threads | build | CPU s (median) | wall s (median) | digest | load (1/5/15 min) |")
    print("|---:|---|---:|---:|---|---|")
    for (threads, name), rs in sorted(results.items()):
        digests = sorted({r["digest"] for r in rs})
        print(f"| {threads} | {name} | {statistics.median(r['cpu'] for r in rs):.2f} | "
              f"{statistics.median(r['wall'] for r in rs):.2f} | {', '.join(digests)} | {rs[-1]['load']} |")
    same = len({r["digest"] for rs in results.values() for r in rs}) == 1
    print("\noutputs identical across builds and thread counts:", "yes" if same else "NO")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()

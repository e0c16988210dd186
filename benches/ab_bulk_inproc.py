#!/usr/bin/env python3
"""Two builds of bertpiece's extension in ONE process, taking turns pass by
pass on the core of the bulk call of issue 28 (`FullTokenizer.encode_batch`
as `BertTokenizer.encode_batch(lines, add_special_tokens=True)` calls it, word
memos emptied before every pass), in CPU time: on a shared machine a slow
spell (another tenant's process on the same core, its cache traffic) then
hits both builds within a second of each other, where a fresh process per
build and round (benches/ab_bulk_cpu.py) leaves ±10 % between rounds. For
changes of a few per cent.

    python benches/ab_bulk_inproc.py A_DIR B_DIR [--corpus FILE] [--threads 1|2] [--rounds 40]
        [--model bert-base-multilingual-cased --cased]

A_DIR and B_DIR each hold a `bertpiece` package (a copy of `python/` with a
build's `_core.abi3.so`); each extension is loaded from its own file (two
copies of the library, each with its own thread pool and memos). The process
is pinned with `taskset` to CPU 0 (1 thread) or CPUs 0,1. A round is one pass
of each build, in alternating order; the table is each build's median MB/s of
CPU time (all threads) and of wall clock, and the median (range) over rounds
of B/A. The ids and row splits are checked equal. The Python wrapper around
the core call (the same code for both) is left out.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import subprocess
import sys
import time

import numpy as np
from pathlib import Path
from ab_summary import median_ratio_line  # benches/ is the script's directory

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = dict(reference="tokenizers", tokenize_chinese_chars=True, strip_accents=None, max_input_chars_per_word=100,
                unk_token="[UNK]")
ADDED = ["[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"]


def load(build: Path):
    spec = importlib.util.spec_from_file_location("_core", build / "bertpiece" / "_core.abi3.so")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--corpus", type=Path, default=ROOT / ".cache" / "bert-peers" / "bulk-en-large-8.txt")
    ap.add_argument("--model", default="bert-base-uncased", help="a bundled vocabulary (python/bertpiece/vocab/MODEL.txt)")
    ap.add_argument("--cased", action="store_true")
    ap.add_argument("--threads", type=int, default=1, choices=(1, 2))
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.pinned:
        cpus = "0" if args.threads == 1 else "0,1"
        sys.exit(subprocess.run(["taskset", "-c", cpus, sys.executable, __file__, *sys.argv[1:], "--pinned"]).returncode)
    lines = args.corpus.read_text(encoding="utf-8").splitlines()
    size = sum(len(line.encode()) for line in lines)
    cores = {"A": load(args.a), "B": load(args.b)}
    vocab = ROOT / "python" / "bertpiece" / "vocab" / f"{args.model}.txt"
    toks = {k: c.FullTokenizer(str(vocab), not args.cased, **SETTINGS) for k, c in cores.items()}

    def run(k):
        cores[k]._forget_words()
        t, w = time.process_time(), time.perf_counter()
        out = toks[k].encode_batch(lines, special=(101, 102), num_threads=args.threads, added=ADDED)
        w, t = time.perf_counter() - w, time.process_time() - t
        return size / t / 1e6, size / w / 1e6, out

    digests = set()
    for k in "AB":  # warm-up, and the outputs compared
        _, _, out = run(k)
        digests.add(hashlib.sha256(np.asarray(out[0]).tobytes() + np.asarray(out[1]).tobytes()
                                   + repr(list(out[3])).encode()).hexdigest())
    cpu, wall = {"A": [], "B": []}, {"A": [], "B": []}
    for r in range(args.rounds):
        for k in ("AB" if r % 2 == 0 else "BA"):
            c, w, _ = run(k)
            cpu[k].append(c)
            wall[k].append(w)
    loadavg = os.getloadavg()
    for name, d in (("CPU", cpu), ("wall", wall)):
        print(f"{name}: {median_ratio_line(d['A'], d['B'])}")
    print(f"{args.rounds} rounds, {args.threads} thread(s), {args.corpus.name}; ids {'equal' if len(digests) == 1 else 'DIFFER'}; "
          f"load at the end {loadavg[0]:.1f} {loadavg[1]:.1f}")
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()

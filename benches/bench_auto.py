#!/usr/bin/env python3
"""bertpiece.AutoTokenizer against transformers.AutoTokenizer on the same folder:
microseconds per call for the two serving calls, one text (`tok(text)`) and a
padded batch (`tok(texts, padding=True, truncation=True, max_length=128,
return_tensors="np")`) of 1, 8, 32 and 256 texts, for the RoBERTa, XLM-R, T5
and MPNet shapes of tests/auto_shapes.py (folders built offline, small
vocabularies trained on the UD samples).

    python benches/bench_auto.py [--passes 7] [--calls 200]

Inputs: real sentences, the UD English lines of tests/data/ud-en.txt (none
seen before timing: a warm-up on other lines first). Peers run in the same
process, interleaved pass by pass (the machine is shared: each pass times
every peer once, in alternating order), and the figure is the median over
passes of (pass time / calls); the ratio is bertpiece's median over
transformers'. Two clocks: wall time (perf_counter) and the process's CPU
time (process_time: every thread's, so a batch spread over threads counts
whole), which other users of a shared machine disturb less. transformers'
AutoTokenizer is the only peer offering these calls for non-BERT models here
(nanotoken is not installed). Threads: the libraries' defaults (both use every
core for a batch of many texts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "python"))

BATCHES = (1, 8, 32, 256)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200, help="one-text calls per pass (batches: fewer)")
    parser.add_argument("--shapes", default="roberta,xlmr,t5,mpnet")
    args = parser.parse_args()

    import transformers

    import bertpiece
    from auto_shapes import folder
    from bpe_shapes import DATA, ud_lines

    lines = [line for line in ud_lines(os.path.join(DATA, "ud-en.txt")) if line.strip()]
    warm, lines = lines[:300], lines[300:]
    print("| shape | call | transformers µs | bertpiece µs | ratio | transformers CPU µs | bertpiece CPU µs | CPU ratio |\n"
          "|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        path = folder(shape)
        peers = {"transformers": transformers.AutoTokenizer.from_pretrained(path),
                 "bertpiece": bertpiece.AutoTokenizer.from_pretrained(path)}
        for tok in peers.values():
            for text in warm:
                tok(text)
            tok(warm[:256], padding=True, truncation=True, max_length=128, return_tensors="np")
        cases = [("tok(text)", None)] + [(f"padded batch of {n}", n) for n in BATCHES]
        for name, n in cases:
            if n is None:
                calls = args.calls

                def run(tok, k):
                    for i in range(calls):
                        tok(lines[(k * calls + i) % len(lines)])
            else:
                calls = max(3, args.calls * 4 // (n + 8))

                def run(tok, k):
                    for i in range(calls):
                        start = ((k * calls + i) * n) % (len(lines) - n)
                        tok(lines[start:start + n], padding=True, truncation=True, max_length=128,
                            return_tensors="np")
            times = {p: [] for p in peers}
            cpu = {p: [] for p in peers}
            for k in range(args.passes):
                order = list(peers) if k % 2 == 0 else list(peers)[::-1]
                for p in order:
                    t0, c0 = time.perf_counter(), time.process_time()
                    run(peers[p], k)
                    times[p].append((time.perf_counter() - t0) / calls * 1e6)
                    cpu[p].append((time.process_time() - c0) / calls * 1e6)
            hf, bp = statistics.median(times["transformers"]), statistics.median(times["bertpiece"])
            hf_cpu, bp_cpu = statistics.median(cpu["transformers"]), statistics.median(cpu["bertpiece"])
            print(f"| {shape} | {name} | {hf:.0f} | {bp:.0f} | {bp / hf:.2f} | {hf_cpu:.0f} | {bp_cpu:.0f} | "
                  f"{bp_cpu / hf_cpu:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

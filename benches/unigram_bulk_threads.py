"""The bulk call's CPU time on 1 or 2 threads, in the order bench_unigram.py
runs it (per-text calls, then encode_batch, then the bulk call) and then three
more bulk calls: MB of text per CPU second of the process (all threads), so two
builds can be compared by CPU time on a loaded machine. Pin it as the bench
does; the build imported is the one on PYTHONPATH:

    RAYON_NUM_THREADS=2 PYTHONPATH=python taskset -c 0,1 python benches/unigram_bulk_threads.py TOKENIZER_JSON 2 [--mb 8] [--skip-mb 0]
"""

import argparse
import os
import sys
import time

import numpy  # noqa: F401  (imported before any clock, as in the bench)

import bertpiece

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_text import head  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tokenizer_json")
    ap.add_argument("threads", type=int)
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--skip-mb", type=float, default=0, help="the text from this many MB into --corpus (as bench_unigram.py)")
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    a = ap.parse_args()
    lines = [line for line in head(a.corpus, a.mb, a.skip_mb).split("\n") if line]
    n = sum(len(line.encode()) for line in lines)
    tok = bertpiece.Tokenizer.from_file(a.tokenizer_json)
    calls = {
        "one": lambda: [tok.encode(s, add_special_tokens=False).ids for s in lines],
        "batch": lambda: tok.encode_batch(lines, add_special_tokens=False),
        "bulk": lambda: tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=a.threads),
    }
    out = []
    for mode in ("one", "batch", "bulk", "bulk", "bulk", "bulk"):
        c = time.process_time()
        calls[mode]()
        out.append(f"{mode} {n / (time.process_time() - c) / 1e6:.0f}")
    print(" | ".join(out))


if __name__ == "__main__":
    main()

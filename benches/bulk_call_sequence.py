"""Wall-clock MB/s of each of a process's first bulk calls (`Tokenizer.encode_batch_arrays` on the same
lines, one after another): the peers' benches time a process's second call, after one warm-up, so what
happens between the first and the second call shows there (docs/benchmarks/bpe-bulk-44.md).

    python benches/bulk_call_sequence.py [--tokenizer FILE] [--mb 8] [--skip-mb 0] [--calls 5] [--numpy-first] [--threads 1]

`--numpy-first` imports NumPy before the tokenizer is loaded (the calls then never load it themselves).
Run it pinned (`taskset -c 1`) and more than once: one process's figures move by ±5 % here.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_text import head  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", default=os.path.join(ROOT, ".cache", "bench_pipeline", "gpt2-from-whisper-ranks.json"))
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--skip-mb", type=float, default=0)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--numpy-first", action="store_true")
    args = ap.parse_args()
    if args.numpy_first:
        import numpy

        numpy.zeros(1)
    from bertpiece import Tokenizer

    lines = [line for line in head(args.corpus, args.mb, skip_mb=args.skip_mb).split("\n") if line]
    size = sum(len(line.encode()) for line in lines)
    tok = Tokenizer.from_file(args.tokenizer)
    speeds = []
    for _ in range(args.calls):
        t = time.perf_counter()
        tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=args.threads)
        speeds.append(size / (time.perf_counter() - t) / 1e6)
    print(f"{os.path.basename(args.tokenizer)} skip {args.skip_mb:g} MB, numpy first {args.numpy_first}, "
          f"{args.threads} thread(s): MB/s of calls 1..{args.calls}: " + " ".join(f"{s:.1f}" for s in speeds))


if __name__ == "__main__":
    main()

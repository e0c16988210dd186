"""Builds of bertpiece taking turns on the call bench_pipeline.py times, in CPU time: each round one fresh
interpreter per build (alternating order, pinned to one CPU) loads the tokenizer, makes one warm-up bulk call
(`Tokenizer.encode_batch_arrays(lines, add_special_tokens=False, num_threads=1)`), then `--calls` times: the
previous call's ids made an `array` (what the bench's digest does between its calls, which pushes the word
cache's tables out of the CPU's caches) and a timed call. Reported per build: the median over rounds of the
first timed call's CPU MB/s (the bench's call) and of the later ones', and the ratio to the first build.

    python benches/ab_bulk_second_call.py BUILD [BUILD...] [--rounds 12] [--skip-mb 20] [--tokenizer FILE] [--as-bench]

`--as-bench`: the one-text and batch calls first, in the same process, as bench_pipeline's worker does.

A BUILD is a directory holding a `bertpiece` package (a copy of `python/` with a build's `_core.abi3.so`).
The ids' digest must be equal for every build.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

from ab_summary import median_ratio_line  # benches/ is the script's directory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKER = r"""
import array, hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
from corpus_text import head
import numpy
from bertpiece import Tokenizer
tokenizer, corpus, mb, skip, calls = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
as_bench = sys.argv[7] == "1"
lines = [line for line in head(corpus, mb, skip_mb=skip).split("\n") if line]
size = sum(len(line.encode()) for line in lines)
tok = Tokenizer.from_file(tokenizer)
if as_bench:  # bench_pipeline's worker runs the one-text and batch calls first, in the same process
    rows = [tok.encode(s, add_special_tokens=False).ids for s in lines]
    rows = [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
    del rows
b = tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=1)
speeds = []
for _ in range(calls):
    digest = hashlib.sha256(array.array("I", b.ids).tobytes()).hexdigest()
    t = time.process_time()
    b = tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=1)
    speeds.append(size / (time.process_time() - t) / 1e6)
print(json.dumps({"speeds": speeds, "digest": digest}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--tokenizer", default=os.path.join(ROOT, ".cache", "bench_pipeline", "gpt2-from-whisper-ranks.json"))
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--skip-mb", type=float, default=20)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--cpu", default="1")
    ap.add_argument("--as-bench", action="store_true", help="the one-text and batch calls first, as bench_pipeline's worker")
    args = ap.parse_args()
    first = {b: [] for b in args.builds}
    later = {b: [] for b in args.builds}
    digests = {}
    for r in range(args.rounds):
        for build in args.builds if r % 2 == 0 else args.builds[::-1]:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(build))
            cmd = ["taskset", "-c", args.cpu, sys.executable, "-c", WORKER, os.path.dirname(os.path.abspath(__file__)),
                   args.tokenizer, args.corpus, str(args.mb), str(args.skip_mb), str(args.calls), "1" if args.as_bench else "0"]
            out = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
            first[build].append(out["speeds"][0])
            later[build].append(statistics.median(out["speeds"][1:] or out["speeds"]))
            digests.setdefault(build, set()).add(out["digest"][:12])
    print(f"{os.path.basename(args.tokenizer)}, skip {args.skip_mb:g} MB, {args.rounds} rounds, load average "
          f"{os.getloadavg()[0]:.2f}; CPU MB/s of the first timed call (the bench's) and of the later ones")
    base = args.builds[0]
    for build in args.builds:
        print(f"{build}: " + median_ratio_line(first[base], first[build], names=("first build", "this")) +
              f"; later calls {statistics.median(later[build]):.1f}; digest {sorted(digests[build])}")
    if len({d for ds in digests.values() for d in ds}) != 1:
        sys.exit("ids differ between builds")


if __name__ == "__main__":
    main()

"""CPU time of the byte-level BPE bulk calls of bertpiece builds and fastokens
IN ONE PROCESS, taking turns: on a shared machine, wall-clock MB/s of runs
minutes apart (bench_pipeline.py) move by a third; CPU time of calls
interleaved seconds apart much less. One thread each: run it pinned to one
CPU with fastokens' pool at one thread (its venv holds fastokens; the
builds' `_core` are loaded as ab_bulk_bpe.py does):

    RAYON_NUM_THREADS=1 taskset -c 0 /work/venv-bench/bin/python benches/cpu_bulk_bpe_peers.py BUILD [BUILD...] [--rounds 5]

fastokens' call is bench_pipeline.py's "bulk" (`encode_batch_flat`, its ids
made an array); bertpiece's is `pipeline_encode_flat` (ids only, one thread).
The ids of every engine must be equal (sha256).
"""

import argparse
import array
import glob
import hashlib
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_bulk_bpe import ROOT, load_core  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    path = sorted(glob.glob(os.path.join(ROOT, ".cache", "bench_pipeline", "bpe-*.json")))[0]
    tokenizer_json = open(path, encoding="utf-8").read()
    text = open(args.corpus, encoding="utf-8").read(int(args.mb * 1_000_000))
    text = text[: text.rfind("\n") + 1]
    lines = text.split("\n")[:-1]
    mb = len(text.encode("utf-8")) / 1e6
    calls = {}
    for i, build in enumerate(args.builds):
        core = load_core(build, i)
        tok = core.PipelineTokenizer.from_str(tokenizer_json, True)
        settings = tok.stored_settings()
        calls[build] = (lambda core=core, tok=tok, settings=settings: np.asarray(core.pipeline_encode_flat(
            tok, settings, lines, add_special_tokens=False, num_threads=1)[0]).astype(np.uint32).tobytes())
    import fastokens

    fast = fastokens.Tokenizer.from_file(path)
    calls["fastokens"] = lambda: array.array("I", fast.encode_batch_flat(lines)[0]).tobytes()
    speeds = {name: [] for name in calls}
    digests = {}
    for _ in range(args.rounds):
        for name, call in calls.items():
            digests[name] = hashlib.sha256(call()).hexdigest()[:12]  # warm-up
            for _ in range(args.reps):
                t0 = time.process_time()
                call()
                speeds[name].append(mb / (time.process_time() - t0))
    print(f"tokenizer {path}; text {mb:.2f} MB, {len(lines)} lines; load average {os.getloadavg()[0]:.2f}")
    ref = statistics.median(speeds["fastokens"])
    for name, v in speeds.items():
        v = sorted(v)
        print(f"{name}: CPU MB/s median {statistics.median(v):.1f} max {v[-1]:.1f}  vs fastokens {statistics.median(v) / ref:.2f}"
              f"  digest {digests[name]}")
    if len(set(digests.values())) > 1:
        raise SystemExit("the engines' ids differ")


if __name__ == "__main__":
    main()

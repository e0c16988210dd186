"""Builds of bertpiece's compiled core side by side IN ONE PROCESS, taking turns
on the byte-level BPE bulk call: the A/B behind each step of docs/benchmarks/bpe-bulk.md's
"Byte-level BPE bulk speed" section. On a shared machine, wall-clock MB/s move
by a third from run to run; CPU time of calls interleaved seconds apart moves
much less, and a slow spell hits every build alike.

Each build is a directory holding `bertpiece/_core.abi3.so` (for instance a copy
of `python/` with the build's library in it); each is loaded under its own
module name. The tokenizer is bench_pipeline.py's cached 32k GPT-2 shape (run
that once first), the text the first --mb MB of en-large, one text per line.
Per round and build: one warm-up call, then --reps timed calls of
`pipeline_encode_flat(..., add_special_tokens=False, num_threads=1)`; reported:
CPU MB/s (median, upper quartile, max) and a digest of ids (and offsets) that
must be the same for every build.

    python benches/ab_bulk_bpe.py /tmp/build-a /tmp/build-b [--rounds 5] [--reps 3] [--offsets]
"""

import argparse
import glob
import hashlib
import importlib.machinery
import importlib.util
import os
import statistics
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_core(build, tag):
    """The `_core` extension of `build` as a module of its own (its init function is `PyInit__core`)."""
    name = f"build{tag}._core"
    loader = importlib.machinery.ExtensionFileLoader(name, os.path.join(build, "bertpiece", "_core.abi3.so"))
    spec = importlib.util.spec_from_file_location(name, loader.path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--offsets", action="store_true")
    ap.add_argument("--tokenizer", default=None, help="default: bench_pipeline.py's cached file")
    args = ap.parse_args()
    path = args.tokenizer or sorted(glob.glob(os.path.join(ROOT, ".cache", "bench_pipeline", "bpe-*.json")))[0]
    with open(path, encoding="utf-8") as f:
        tokenizer_json = f.read()
    with open(args.corpus, encoding="utf-8") as f:
        text = f.read(int(args.mb * 1_000_000))
    text = text[: text.rfind("\n") + 1]
    lines = text.split("\n")[:-1]
    mb = len(text.encode("utf-8")) / 1e6
    cores = [load_core(b, i) for i, b in enumerate(args.builds)]
    toks = []
    for core in cores:
        tok = core.PipelineTokenizer.from_str(tokenizer_json, True)
        toks.append((core, tok, tok.stored_settings()))
    speeds = {b: [] for b in args.builds}
    digests = {}
    for _ in range(args.rounds):
        for build, (core, tok, settings) in zip(args.builds, toks):
            def run():
                return core.pipeline_encode_flat(tok, settings, lines, add_special_tokens=False,
                                                 return_offsets=args.offsets, num_threads=1)
            out = run()
            for _ in range(args.reps):
                t0 = time.process_time()
                out = run()
                speeds[build].append(mb / (time.process_time() - t0))
            arrays = [np.asarray(a).tobytes() for a in out[:3] if a is not None]
            digests[build] = hashlib.sha256(b"".join(arrays)).hexdigest()[:12]
    print(f"tokenizer {path}; text {mb:.2f} MB, {len(lines)} lines; offsets {args.offsets}")
    for build in args.builds:
        v = sorted(speeds[build])
        print(f"{build}: CPU MB/s median {statistics.median(v):.1f} q75 {v[3 * len(v) // 4]:.1f} max {v[-1]:.1f}"
              f"  digest {digests[build]}")
    if len(set(digests.values())) > 1:
        raise SystemExit("the builds' ids differ")


if __name__ == "__main__":
    main()

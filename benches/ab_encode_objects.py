#!/usr/bin/env python3
"""Builds of bertpiece taking turns on the calls that hand out `Encoding` objects
(docs/benchmarks/encode-one-32.md): `[tok.encode(s).ids for s in lines]` ("keep"),
the same with results dropped ("discard"), `[tok.encode(s) for s in lines]` ("enc"),
`[e.ids for e in tok.encode_batch(lines)]` ("batch") and `tok.encode_batch(lines)` alone
("batch-only"), all with add_special_tokens=False, one text per line.

Each build is a directory holding a `bertpiece` package (a copy of `python/` with the
build's `_core.abi3.so`). Every turn runs one fresh interpreter per build and mode,
pinned to `--cpus` (its thread count: the CPUs it may use), which times `--passes` passes
and reports its median by CPU time (all the process's threads) and by wall clock, and
the growth of its peak RSS over the run (the kept results' memory). The figure printed
per build is the median over the turns.

    python benches/ab_encode_objects.py /tmp/eb/A /tmp/eb/E --tokenizer FILE --cpus 0 --turns 3
    python benches/ab_encode_objects.py /tmp/eb/A /tmp/eb/E --tokenizer FILE --cpus 0,1 --modes batch batch-only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the shared data beside the checkout (/work/main) or beside the worktrees (/work/wt/NAME)
CORPUS = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared") / "data" / "corpus" / "en-large.txt"

CHILD = r"""
import gc, json, resource, sys, time
from bertpiece import Tokenizer
path, text, mb, mode, passes = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
tok = Tokenizer.from_file(path)
with open(text, encoding="utf-8") as f:
    data = f.read(int(mb * 1e6))
lines = [l for l in data[: data.rfind("\n")].split("\n") if l]
size = sum(len(l.encode()) for l in lines) / 1e6
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu, wall = [], []
for _ in range(passes):
    c, w = time.process_time(), time.perf_counter()
    if mode == "keep":
        out = [tok.encode(s, add_special_tokens=False).ids for s in lines]
    elif mode == "discard":
        for s in lines:
            tok.encode(s, add_special_tokens=False).ids
        out = None
    elif mode == "enc":
        out = [tok.encode(s, add_special_tokens=False) for s in lines]
    elif mode == "batch":
        out = [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
    else:
        out = tok.encode_batch(lines, add_special_tokens=False)
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - w)
    out = None
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
med = lambda xs: sorted(xs)[len(xs) // 2]
print(json.dumps({"cpu": size / med(cpu), "wall": size / med(wall), "rss_mb": rss, "lines": len(lines)}))
"""


def run(build: str, args, mode: str) -> dict:
    env = dict(os.environ, PYTHONPATH=build)
    cmd = ["taskset", "-c", args.cpus, sys.executable, "-c", CHILD, args.tokenizer, str(args.text), str(args.mb), mode, str(args.passes)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--text", default=CORPUS)
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--cpus", default="0")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--modes", nargs="+", default=["keep", "discard", "enc", "batch", "batch-only"])
    args = ap.parse_args()
    res: dict = {}
    for _ in range(args.turns):
        for mode in args.modes:
            for b in args.builds:
                res.setdefault((mode, b), []).append(run(b, args, mode))
    print(f"CPUs {args.cpus}, {args.mb} MB of {Path(args.text).name}, {args.turns} turns x {args.passes} passes, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| call | build | MB/s by CPU time (median) | MB/s by wall clock | peak RSS growth, MB |")
    print("|---|---|---|---|---|")
    for mode in args.modes:
        for b in args.builds:
            rs = res[(mode, b)]
            med = lambda k: statistics.median(r[k] for r in rs)
            print(f"| {mode} | {b} | {med('cpu'):.1f} | {med('wall'):.1f} | {med('rss_mb'):.0f} |")


if __name__ == "__main__":
    main()

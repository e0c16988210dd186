#!/usr/bin/env python3
"""A bertpiece build against nanotoken on the bulk call of issue 28, in CPU
time, on any corpus: the ratio peers.py prints (wall clock, one run) measured
on a shared machine, and on text other than the 8 MB it cuts from en-large
(a slice far from en-large's start, a UD file), so that a gain is not tuned
to one text.

    python benches/ab_bulk_nanotoken.py BUILD_DIR CORPUS [--rounds 6] [--threads 1|2] [--passes 12]
        [--peer-python .cache/bert-peers/venv-peers/bin/python]

Each round runs one fresh interpreter per engine, in alternating order,
pinned with `taskset` to CPU 0 (1 thread) or CPUs 0,1, each as peers.py's
runner calls it (bertpiece: `BertTokenizer.encode_batch(lines,
add_special_tokens=True)` after `_forget_words()`; nanotoken:
`encode_batch(lines, add_special_tokens=True)` after `clear_cache()`, from
the `tokenizer.json` peers.py writes), the thread count set by
BERTPIECE_NUM_THREADS / RAYON_NUM_THREADS as peers.py sets it. Each reports
the median over its passes but the first two of MB/s of process CPU time
(all threads) and of wall clock; the ids and row lengths are checked equal.
At 2 threads the wall-clock ratio is the one the target speaks of, and it
times the other tenants too: read it with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from ab_summary import median_ratio_line  # benches/ is the script's directory

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import hashlib, json, statistics, sys, time
import numpy as np
engine, build, path, passes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = open(path, encoding="utf-8").read().splitlines()
size = sum(len(l.encode()) for l in lines)
if engine == "bertpiece":
    sys.path.insert(0, build)
    import bertpiece
    tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    def bulk():
        bertpiece._core._forget_words()
        b = tok.encode_batch(lines, add_special_tokens=True)
        return b.ids, np.diff(b.row_splits)
else:
    import nanotoken
    base = nanotoken.Tokenizer.from_json(open(build, encoding="utf-8").read())
    def bulk():
        base.clear_cache()
        r = base.encode_batch(lines, add_special_tokens=True)
        return r.ids, r.lengths
ids, lens = bulk()
digest = hashlib.sha256(np.asarray(ids, dtype="<i8").tobytes() + np.asarray(lens, dtype="<i8").tobytes()).hexdigest()
cpu, wall = [], []
for _ in range(passes):
    t, w = time.process_time(), time.perf_counter()
    bulk()
    w, t = time.perf_counter() - w, time.process_time() - t
    cpu.append(size / t / 1e6)
    wall.append(size / w / 1e6)
print(json.dumps({"cpu": statistics.median(cpu[2:] or cpu), "wall": statistics.median(wall[2:] or wall), "digest": digest}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=Path)
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--threads", type=int, default=1, choices=(1, 2))
    ap.add_argument("--passes", type=int, default=12)
    ap.add_argument("--peer-python", type=Path, default=ROOT / ".cache" / "bert-peers" / "venv-peers" / "bin" / "python")
    ap.add_argument("--tokenizer-json", type=Path, default=ROOT / ".cache" / "bert-peers" / "bert-base-uncased.json")
    args = ap.parse_args()
    cpus = "0" if args.threads == 1 else "0,1"
    n = str(args.threads)
    env = dict(os.environ, RAYON_NUM_THREADS=n, RAYON_RS_NUM_CPUS=n, BERTPIECE_NUM_THREADS=n, TOKENIZERS_PARALLELISM="true")
    env.pop("PYTHONPATH", None)
    runs = {"bertpiece": (sys.executable, args.build), "nanotoken": (args.peer_python, args.tokenizer_json)}
    got = {"bertpiece": [], "nanotoken": []}
    digests = set()
    print("| round | bertpiece CPU MB/s | nanotoken CPU MB/s | ratio | bertpiece wall | nanotoken wall | ratio |\n|---|---|---|---|---|---|---|")
    for r in range(args.rounds):
        order = ["bertpiece", "nanotoken"] if r % 2 == 0 else ["nanotoken", "bertpiece"]
        out = {}
        for e in order:
            python, build = runs[e]
            cmd = ["taskset", "-c", cpus, str(python), "-c", WORKER, e, str(build), str(args.corpus), str(args.passes)]
            out[e] = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout)
            got[e].append(out[e])
            digests.add(out[e]["digest"])
        b, p = out["bertpiece"], out["nanotoken"]
        print(f"| {r + 1} | {b['cpu']:.1f} | {p['cpu']:.1f} | {b['cpu'] / p['cpu']:.2f} | {b['wall']:.1f} | {p['wall']:.1f} "
              f"| {b['wall'] / p['wall']:.2f} |", flush=True)
    for clock in ("cpu", "wall"):
        ours, theirs = ([x[clock] for x in got[e]] for e in ("bertpiece", "nanotoken"))
        print(f"{clock}: {median_ratio_line(theirs, ours, names=('nanotoken', 'bertpiece'), digits=2)}")
    print(f"ids {'equal' if len(digests) == 1 else 'DIFFER'}; {args.rounds} rounds, {args.threads} thread(s), {args.corpus.name}")
    if len(digests) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()

"""Page faults of the padded call, one fresh process at a time (issue 28, pad28): a loop of
`BertTokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="np")` over
the 7 batches of 256 EWT sentences of benches/bert_peers.py: each result dropped before the
next call ("dropped"), each held in a variable until the next call has made its own (`out =
tok(x)` in a loop: "assigned"), or a pass's 7 results held until its end ("kept"). Whether a freed 786 kB block
goes back to the OS (and the next call faults fresh pages in) depends on where glibc placed it,
so it differs from process to process: each process prints its CPU µs a call and its minor page
faults a call during the loop (getrusage), and the checkouts take turns.

    python benches/padded_faults.py DIR [DIR ...] [--procs 8] [--passes 200] [--mode dropped assigned kept]

Each DIR holds a `python/` with a `bertpiece` package and its build (e.g. a copy of main's).
Run it pinned (`taskset -c 0`): every process inherits the CPU.
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
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")

WORKER = r"""
import json, resource, sys, time
where, data, passes, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, where + "/python")
import bertpiece
ewt = [s for s in open(data + "/corpus/ud-en.txt", encoding="utf-8").read().split("\n") if s][:3852][-2000:]
tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
batches = [ewt[i:i + 256] for i in range(0, len(ewt), 256)][:7]
kw = dict(padding=True, truncation=True, max_length=128, return_tensors="np")
for x in batches:
    tok(x, **kw)
faults, t = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.process_time()
out = None
for _ in range(passes):
    if mode == "kept":
        held = [tok(x, **kw) for x in batches]
        del held
    elif mode == "assigned":
        for x in batches:
            out = tok(x, **kw)
    else:
        for x in batches:
            tok(x, **kw)
calls = passes * len(batches)
print(json.dumps({"us": (time.process_time() - t) / calls * 1e6,
                  "faults": (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / calls}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--procs", type=int, default=8, help="fresh processes per checkout and mode")
    ap.add_argument("--passes", type=int, default=200, help="passes over the 7 batches per process")
    ap.add_argument("--mode", nargs="*", default=["dropped", "assigned", "kept"], choices=["dropped", "assigned", "kept"])
    args = ap.parse_args()
    print(f"load before {os.getloadavg()}")
    out = {(d, m): [] for d in args.dirs for m in args.mode}
    for _ in range(args.procs):
        for mode in args.mode:
            for d in args.dirs:
                env = dict(os.environ)
                env.pop("PYTHONPATH", None)
                p = subprocess.run([sys.executable, "-c", WORKER, d, str(DATA), str(args.passes), mode],
                                   capture_output=True, text=True, env=env)
                if p.returncode:
                    sys.exit(p.stderr)
                out[(d, mode)].append(json.loads(p.stdout.strip().splitlines()[-1]))
    print(f"load after {os.getloadavg()}")
    print("\n| checkout | results | CPU µs a call, each process | median | page faults a call, each process |")
    print("|---|---|---|---|---|")
    for (d, mode), runs in out.items():
        us = " ".join(f"{r['us']:.0f}" for r in runs)
        faults = " ".join(f"{r['faults']:.0f}" for r in runs)
        print(f"| {d} | {mode} | {us} | {statistics.median(r['us'] for r in runs):.1f} | {faults} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Two builds of bertpiece taking turns on the padded serving call (issue 28),
in CPU time: `tok(batch, padding=True, truncation=True, max_length=128,
return_tensors="np")` with `bertpiece.BertTokenizer` (bert-base-uncased) on
batches of the last 2,000 UD English-EWT sentences (as benches/bert_peers.py)
and of the first 2,000 non-empty en-large lines (21 % over 128 tokens).

    python benches/ab_padded_call.py A_DIR B_DIR [--turns 5] [--batch 32 256] [--passes 7] [--nanotoken PYTHON]

A_DIR and B_DIR each hold a `bertpiece` package (a copy of `python/` with a
build's `_core.abi3.so`). Every turn runs one fresh interpreter per build,
pinned to CPU 0 (`taskset -c 0`), in alternating order; each reports the
median over its passes of the thread CPU time per call (400 calls a pass,
the set's batches in turn, the word memo warm: the calls repeat their texts, as a
server's do). The table: each build's median over turns and the median of
the per-turn ratios B/A. The ids (a digest of every call's input_ids and
attention_mask) are checked equal between the builds (and nanotoken's `as_hf()`,
with `--nanotoken .cache/bert-peers/venv-peers/bin/python`: the same call on
the tokenizer.json benches/bert_peers.py saves, in its own interpreter, in turn).
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
import hashlib, json, statistics, sys, time
data, batch_sizes, passes = sys.argv[2], [int(b) for b in sys.argv[3].split(",")], int(sys.argv[4])
if sys.argv[1].startswith("nanotoken:"):
    import nanotoken
    tok = nanotoken.Tokenizer.from_json(open(sys.argv[1][len("nanotoken:"):], encoding="utf-8").read()).as_hf()
else:
    sys.path.insert(0, sys.argv[1])
    import bertpiece
    tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
ewt = [s for s in open(data + "/corpus/ud-en.txt", encoding="utf-8").read().split("\n") if s][:3852][-2000:]
large = []
with open(data + "/corpus/en-large.txt", encoding="utf-8") as f:
    for line in f:
        if line.strip():
            large.append(line.rstrip("\n"))
        if len(large) >= 2000:
            break
out = {}
for name, lines in (("EWT", ewt), ("en-large", large)):
    for b in batch_sizes:
        batches = [lines[i:i + b] for i in range(0, len(lines), b)][:max(8, 2000 // b)]
        call = lambda x: tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")
        h = hashlib.sha256()
        for x in batches:
            enc = call(x)
            h.update(enc["input_ids"].tobytes())
            h.update(enc["attention_mask"].tobytes())
        reps = max(1, 400 // len(batches))
        times = []
        for _ in range(passes):
            t = time.thread_time()
            for _ in range(reps):
                for x in batches:
                    call(x)
            times.append((time.thread_time() - t) / (reps * len(batches)) * 1e6)
        out[f"{name}, batch of {b}"] = (statistics.median(times), h.hexdigest()[:16])
print(json.dumps(out))
"""


def run(build: str, batches: list[int], passes: int, python: str = sys.executable) -> dict:
    cmd = ["taskset", "-c", "0", python, "-c", WORKER, build, str(DATA),
           ",".join(map(str, batches)), str(passes)]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--batch", type=int, nargs="*", default=[32, 256])
    ap.add_argument("--nanotoken", metavar="PYTHON", help="a python with nanotoken: its as_hf() call takes turns too")
    args = ap.parse_args()
    runs = {"a": [], "b": [], "n": []}
    loads = []
    json_path = str(ROOT / ".cache" / "bert-peers" / "bert-base-uncased.json")  # benches/bert_peers.py makes it
    for turn in range(args.turns):
        order = ("a", "b", "n") if turn % 2 == 0 else ("n", "b", "a")
        for side in order:
            if side == "n":
                if args.nanotoken:
                    runs["n"].append(run("nanotoken:" + json_path, args.batch, args.passes, args.nanotoken))
            else:
                runs[side].append(run(str(Path(getattr(args, side))), args.batch, args.passes))
        loads.append(os.getloadavg()[0])
    print(f"A = {args.a}, B = {args.b}; {args.turns} turns, load average {min(loads):.1f}-{max(loads):.1f}")
    n_head = " nanotoken CPU µs | B / nanotoken (median of turns) |" if runs["n"] else ""
    print(f"| case | A CPU µs | B CPU µs | B / A (median of turns) | ratios by turn |{n_head} ids equal |")
    print("|---|---|---|---|---|" + ("---|---|" if runs["n"] else "") + "---|")
    for case in runs["a"][0]:
        a = [r[case][0] for r in runs["a"]]
        b = [r[case][0] for r in runs["b"]]
        ratios = [y / x for x, y in zip(a, b)]
        same = all(r[case][1] == runs["a"][0][case][1] for r in runs["a"] + runs["b"] + runs["n"])
        n_cols = ""
        if runs["n"]:
            n = [r[case][0] for r in runs["n"]]
            n_cols = f" {statistics.median(n):.1f} | {statistics.median([y / x for x, y in zip(n, b)]):.3f} |"
        print(f"| {case} | {statistics.median(a):.1f} | {statistics.median(b):.1f} | {statistics.median(ratios):.3f} | "
              f"{' '.join(f'{r:.3f}' for r in ratios)} |{n_cols} {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()

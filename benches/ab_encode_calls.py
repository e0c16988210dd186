#!/usr/bin/env python3
"""Builds of bertpiece taking turns on each step of the per-text calls that hand out `Encoding`
objects, timed apart by CPU time (`--clock wall`: wall clock) and printed in µs a line (docs/benchmarks/encode-objects-45.md):
`encode_batch_arrays` (ids; with `return_offsets=True`), `b = encode_batch(lines)`, `[e.ids for e
in b]` (first read, then again), `del b`, freeing the id lists, `[encode(s).ids for s in lines]`
and freeing that, then `[e.offsets for e in encode_batch(lines)]` and the same with `.word_ids` (columns
made on first read: the ids-only rows make them then).
All with add_special_tokens=False, one text per line, on one thread (`--threads 2 --cpu 0,1`: the
batch calls on two; CPU time then counts both threads).

Each build is a directory holding a `bertpiece` package (a copy of `python/` with the build's
`_core.abi3.so`). Every turn runs one fresh interpreter per build and tokenizer, pinned to
`--cpu` with RAYON_NUM_THREADS=`--threads`, which runs `--passes` passes and reports each step's median;
the table shows the median over the turns, and B/A. `--only word_ids` (any column) times
`[e.word_ids for e in encode_batch(lines)]` alone, pass after pass: a process whose callers always read it.

    python benches/ab_encode_calls.py /tmp/eb/A /tmp/eb/B --turns 3
    python benches/ab_encode_calls.py /tmp/eb/A /tmp/eb/B --tokenizers .cache/bench_pipeline/gpt2-from-whisper-ranks.json

Default tokenizers: GPT-2's ranks and XLM-R (the bench caches of bench_pipeline.py and
unigram_third_party.py) and BERT-base-uncased's tokenizer.json (made here from its vocab.txt by
tokenizers' BertWordPieceTokenizer).
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
SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
CORPUS = SHARED / "data" / "corpus" / "en-large.txt"
BERT_VOCAB = SHARED / "data" / "vocab" / "bert-base-uncased.txt"
CACHE = ROOT / ".cache"
TOKENIZERS = [CACHE / "bench_pipeline" / "gpt2-from-whisper-ranks.json", CACHE / "bench_unigram_third_party" / "xlmr-en.json",
              CACHE / "bench_encode_calls" / "bert-base-uncased.json"]

STEPS = ["arrays ids", "arrays ids+offsets", "b = encode_batch", "[e.ids for e in b]", "[e.ids] again", "del b",
         "del id lists", "[encode(s).ids]", "del those", "encode_batch + .offsets",
         "encode_batch + .word_ids"]

CHILD = r"""
import gc, json, sys, time
from bertpiece import Tokenizer
path, text, mb, skip, passes = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
clock = time.perf_counter if sys.argv[7] == "wall" else time.process_time
sys.path.insert(0, sys.argv[6])
from corpus_text import head
tok = Tokenizer.from_file(path)
lines = [l for l in head(text, mb, skip).split("\n") if l]
times = {}
def step(name, t0):
    times.setdefault(name, []).append(clock() - t0)
only = sys.argv[8]
for _ in range(passes if only else 0):
    # one step alone, pass after pass: a process whose callers always read that column
    t = clock(); out = [getattr(e, only) for e in tok.encode_batch(lines, add_special_tokens=False)]; step(only, t)
    del out
for _ in range(0 if only else passes):
    t = clock(); tok.encode_batch_arrays(lines, add_special_tokens=False); step("arrays ids", t)
    t = clock(); tok.encode_batch_arrays(lines, add_special_tokens=False, return_offsets=True); step("arrays ids+offsets", t)
    t = clock(); b = tok.encode_batch(lines, add_special_tokens=False); step("b = encode_batch", t)
    t = clock(); ids = [e.ids for e in b]; step("[e.ids for e in b]", t)
    t = clock(); again = [e.ids for e in b]; step("[e.ids] again", t)
    again = None
    t = clock(); del b; step("del b", t)
    t = clock(); del ids; step("del id lists", t)
    t = clock(); one = [tok.encode(s, add_special_tokens=False).ids for s in lines]; step("[encode(s).ids]", t)
    t = clock(); del one; step("del those", t)
    t = clock(); offs = [e.offsets for e in tok.encode_batch(lines, add_special_tokens=False)]; step("encode_batch + .offsets", t)
    del offs
    t = clock(); words = [e.word_ids for e in tok.encode_batch(lines, add_special_tokens=False)]; step("encode_batch + .word_ids", t)
    del words
med = lambda xs: sorted(xs)[len(xs) // 2]
print(json.dumps({"lines": len(lines), "us": {k: 1e6 * med(v) / len(lines) for k, v in times.items()}}))
"""


def bert_json() -> Path:
    out = TOKENIZERS[2]
    if not out.exists():
        from tokenizers import BertWordPieceTokenizer

        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(BertWordPieceTokenizer(str(BERT_VOCAB), lowercase=True).to_str(), encoding="utf-8")
    return out


def run(build: str, tokenizer: Path, args) -> dict:
    env = dict(os.environ, PYTHONPATH=build, RAYON_NUM_THREADS=str(args.threads))
    cmd = ["taskset", "-c", args.cpu, sys.executable, "-c", CHILD, str(tokenizer), str(args.text), str(args.mb),
           str(args.skip_mb), str(args.passes), str(ROOT / "benches"), args.clock, args.only]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tokenizers", nargs="+", type=Path, default=None)
    ap.add_argument("--text", default=CORPUS)
    ap.add_argument("--mb", type=float, default=2)
    ap.add_argument("--skip-mb", type=float, default=20)
    ap.add_argument("--cpu", default="1", help="the CPUs the children are pinned to (taskset -c)")
    ap.add_argument("--threads", type=int, default=1, help="RAYON_NUM_THREADS (the batch calls' threads)")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu", help="CPU time (all threads) or wall clock")
    ap.add_argument("--only", default="", metavar="COLUMN", help="time only `[e.COLUMN for e in encode_batch(lines)]`, pass after pass")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args()
    toks = args.tokenizers or TOKENIZERS[:2] + [bert_json()]
    res: dict = {}
    loads = []
    for _ in range(args.turns):
        for tok in toks:
            for b in (args.a, args.b):
                res.setdefault((tok, b), []).append(run(b, tok, args))
                loads.append(os.getloadavg()[0])
    print(f"CPU {args.cpu}, RAYON_NUM_THREADS={args.threads}, {args.mb} MB of {Path(args.text).name} from {args.skip_mb} MB in, "
          f"{args.turns} turns x {args.passes} passes, load average {min(loads):.2f}-{max(loads):.2f}\n")
    for tok in toks:
        n = res[(tok, args.a)][0]["lines"]
        print(f"{tok.name} ({n} lines): {args.clock} µs a line, median of turns\n")
        print("| step | A | B | B/A |")
        print("|---|---|---|---|")
        for s in [args.only] if args.only else STEPS:
            a, b = (statistics.median(r["us"][s] for r in res[(tok, x)]) for x in (args.a, args.b))
            print(f"| {s} | {a:.2f} | {b:.2f} | {b / a:.2f} |")
        print()


if __name__ == "__main__":
    main()

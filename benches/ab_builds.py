#!/usr/bin/env python3
"""Two builds of bertpiece, A and B, taking turns on the same corpora: the
check behind a "kept / not kept" decision in docs/benchmarks/bert-bulk.md. On a shared
machine a slow spell then hits both builds alike.

Each build is a directory holding a `bertpiece` package (for instance a copy
of `python/` with the build's `_core.abi3.so` in it). Every turn runs one
fresh interpreter per build and corpus; it encodes the corpus with
`encode_batch(lines, add_special_tokens=False, num_threads=N)` (`--threads`,
1 by default) several times, the word memo emptied before each pass, and
reports (`--offsets`: with return_offsets=True) its best pass by wall clock and by CPU time (all the process's
threads: at 2 threads on a shared machine the CPU figure is the steadier
one) and the process's peak RSS.
With `--warm` the memo is kept from pass to pass instead (after one pass
to fill it): the steady state of a long run over text in one language.
The CPU-time columns are what to read on a shared machine (pinned with
`taskset -c 0` they time the work, not the other processes); `--cpu-time`,
which once switched the one clock to CPU time, is still accepted.

    python benches/ab_builds.py /tmp/build-a /tmp/build-b --turns 2
    python benches/ab_builds.py /tmp/build-a /tmp/build-b --corpora ud-vi.txt ud-ja.txt
    python benches/ab_builds.py /tmp/build-a /tmp/build-b --corpora en-large.txt --threads 2 --turns 5

`--corpora` replaces the default five corpora by the files named; each
gets the model bench.py gives it (`bench.model_for`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from bench import model_for  # benches/ is the script's directory, so on sys.path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus"
DEFAULT_CORPORA = ["ud-ru.txt", "ud-ko.txt", "ud-de.txt", "ud-en.txt", "en-large.txt"]


def case(corpus: str) -> tuple[str, str, int]:
    """A corpus file name, with its model (bench.py's choice) and number of passes."""
    return corpus, model_for(Path(corpus), "auto"), 6 if corpus == "en-large.txt" else 30


WORKER = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import bertpiece
from bertpiece import _core
path, model, passes, warm, threads = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "warm", int(sys.argv[6])
offsets = sys.argv[7] == "offsets"
lines = open(path, encoding="utf-8").read().splitlines()
tok = bertpiece.BertTokenizer.from_pretrained(model)
tok.encode_batch(lines if warm else lines[:50], add_special_tokens=False, num_threads=threads, return_offsets=offsets)
best = cpu = float("inf")
for _ in range(passes):
    if not warm:
        _core._forget_words()
    t, c = time.perf_counter(), time.process_time()
    tok.encode_batch(lines, add_special_tokens=False, num_threads=threads, return_offsets=offsets)
    best, cpu = min(best, time.perf_counter() - t), min(cpu, time.process_time() - c)
mb = sum(len(l.encode()) for l in lines) / 1e6
print(mb / best, mb / cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path, help="directory holding build A's bertpiece package")
    ap.add_argument("b", type=Path, help="directory holding build B's bertpiece package")
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--corpus-dir", type=Path, default=CORPUS)
    ap.add_argument("--warm", action="store_true", help="keep the word memo from pass to pass")
    ap.add_argument("--cpu-time", action="store_true", help="accepted for older commands: CPU time is always reported")
    ap.add_argument("--corpora", nargs="+", metavar="FILE", help="corpus files to run instead of the default five")
    ap.add_argument("--threads", type=int, default=1, help="num_threads of the calls")
    ap.add_argument("--offsets", action="store_true", help="return_offsets=True")
    args = ap.parse_args()
    cases = [case(c) for c in args.corpora or DEFAULT_CORPORA]
    for corpus, _, _ in cases:
        if not (args.corpus_dir / corpus).is_file():
            sys.exit(f"ab_builds: no corpus {args.corpus_dir / corpus}")
    for build in (args.a, args.b):
        if not (build / "bertpiece" / "__init__.py").is_file():
            sys.exit(f"ab_builds: {build} holds no bertpiece package")
    print(f"threads {args.threads}, offsets {args.offsets}\n\n| turn | build | corpus | best pass MB/s | best CPU MB/s | peak RSS MB |\n|---|---|---|---|---|---|")
    speeds, cpus = {}, {}
    for turn in range(1, args.turns + 1):
        for name, build in (("A", args.a), ("B", args.b)):
            for corpus, model, passes in cases:
                r = subprocess.run([sys.executable, "-c", WORKER, str(build), str(args.corpus_dir / corpus), model,
                                    str(passes), "warm" if args.warm else "cold", str(args.threads),
                                    "offsets" if args.offsets else "ids"],
                                   capture_output=True, text=True, check=True)
                mbs, cpu, rss = map(float, r.stdout.split())
                speeds.setdefault((name, corpus), []).append(mbs)
                cpus.setdefault((name, corpus), []).append(cpu)
                print(f"| {turn} | {name} | {corpus} | {mbs:.1f} | {cpu:.1f} | {rss:.0f} |", flush=True)
    # Per corpus: each build's best turn, and B / A turn by turn (a slow spell hits one turn's pair alike).
    print("\n| corpus | A best MB/s | B best MB/s | B / A per turn (median) | A best CPU MB/s | B best CPU MB/s "
          "| B / A CPU per turn (median) |\n|---|---|---|---|---|---|---|")
    for corpus, _, _ in cases:
        a, b = speeds["A", corpus], speeds["B", corpus]
        ca, cb = cpus["A", corpus], cpus["B", corpus]
        print(f"| {corpus} | {max(a):.1f} | {max(b):.1f} | {median_ratio(a, b):.3f} | {max(ca):.1f} | {max(cb):.1f} "
              f"| {median_ratio(ca, cb):.3f} |")


def median_ratio(a, b):
    """B / A turn by turn (a slow spell hits one turn's pair alike), the median."""
    ratios = sorted(y / x for x, y in zip(a, b))
    return ratios[len(ratios) // 2]


if __name__ == "__main__":
    main()

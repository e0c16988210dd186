#!/usr/bin/env python3
"""Two builds of `examples/bert_bulk` (the Rust core alone: docs/benchmarks/bert-bulk-28.md)
taking turns, the order alternating round by round, each run pinned to one CPU unless
`--cpus` says otherwise: per round both builds' medians of CPU-time MB/s and B/A, then the
median and range of the per-round ratios, and the load average before and after. The ids
checksums of the two builds must be equal (the script stops otherwise).

    cargo build --release --example bert_bulk && cp target/release/examples/bert_bulk /tmp/A
    # ... change, build again, copy to /tmp/B
    V=../shared/data/vocab C=../shared/data/corpus
    python benches/ab_bert_bulk.py /tmp/A /tmp/B --rounds 8 -- $V/bert-base-uncased.txt $C/en-large.txt --mb 8 --passes 9
    python benches/ab_bert_bulk.py /tmp/A /tmp/B --cpus 0,1 -- ... --threads 2

Everything after `--` goes to bert_bulk as it is.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys


def run(binary: str, cpus: str, args: list[str]) -> tuple[float, str]:
    """One run: its median CPU-time MB/s and ids checksum."""
    out = subprocess.run(["taskset", "-c", cpus, binary, *args], capture_output=True, text=True, check=True).stdout
    mbs = re.search(r"^([\d.]+) MB/s CPU", out, re.M)
    checksum = re.search(r"ids checksum (\w+)", out)
    if not mbs or not checksum:
        sys.exit(f"{binary}: unexpected output:\n{out}")
    return float(mbs.group(1)), checksum.group(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--cpus", default="0", help="taskset's CPU list (default 0)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    opts, args = ap.parse_args(argv[:cut]), argv[cut + 1:]  # after "--": bert_bulk's arguments
    load = lambda: " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load before: {load()}")
    ratios = []
    for r in range(opts.rounds):
        if r % 2 == 0:
            (ma, ca), (mb, cb) = run(opts.a, opts.cpus, args), run(opts.b, opts.cpus, args)
        else:
            (mb, cb), (ma, ca) = run(opts.b, opts.cpus, args), run(opts.a, opts.cpus, args)
        if ca != cb:
            sys.exit(f"round {r + 1}: ids checksums differ: A {ca}, B {cb}")
        ratios.append(mb / ma)
        print(f"round {r + 1}: A {ma:.1f} B {mb:.1f} MB/s, B/A {mb / ma:.3f} (checksum {ca})")
    print(f"B/A median of rounds {statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})")
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()

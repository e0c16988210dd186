"""A long fuzz campaign: `make fuzz MINUTES=N` (or, from tests/,
`python -m fuzz.campaign --minutes N [--seed S]`).

Runs cases of a fresh seed (the time, unless --seed) until the time is up,
printing cases/s every 10 s. A case that differs and is not a known bug
(known_bugs.py) is saved to regressions/<seed>-<index>.json, which
tests/test_fuzz.py replays from then on: fix the bug, or, if it is a
deliberate difference, document it and teach compare.py. Exit status 1 when
anything new was found.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time

from .cases import case_for
from .compare import run_case
from .known_bugs import classify

REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=None, help="default: the current time")
    ap.add_argument("--max-saved", type=int, default=50, help="stop saving after this many new cases")
    args = ap.parse_args(argv)
    if args.minutes <= 0:
        ap.error(f"--minutes must be positive, got {args.minutes}")
    seed = args.seed if args.seed is not None else int(time.time())
    start = time.monotonic()
    deadline, report_at = start + 60 * args.minutes, start + 10
    known, saved, i = collections.Counter(), [], 0
    print(f"fuzz campaign: seed {seed}, {args.minutes:g} min", flush=True)
    while time.monotonic() < deadline:
        case = case_for(seed, i)
        diff = run_case(case)
        if diff is not None:
            category = classify(case, diff)
            if category is not None:
                known[category] += 1
            elif len(saved) < args.max_saved:
                path = os.path.join(REGRESSIONS, f"{seed}-{i}.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump({**case, "note": f"fuzz campaign seed {seed} case {i}: {diff}"}, f,
                              ensure_ascii=True, indent=1)
                saved.append(path)
                print(f"NEW: case {i} differs in {diff['field']} -> {path}", flush=True)
        i += 1
        now = time.monotonic()
        if now >= report_at:
            print(f"{i:,} cases, {i / (now - start):.1f} cases/s, {len(saved)} new, known bugs {dict(known)}",
                  flush=True)
            report_at = now + 10
    elapsed = time.monotonic() - start
    print(f"done: {i:,} cases in {elapsed:.0f} s ({i / elapsed:.1f} cases/s), {len(saved)} new failing case(s) "
          f"saved, known bugs seen {dict(known)}")
    return 1 if saved else 0


if __name__ == "__main__":
    sys.exit(main())

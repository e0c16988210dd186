"""The padded block's cost (issue 28): thread CPU time per call of the core's
`encode_padded_planes` (the padded call's core: encode, pad into the 3 x rows x
width int64 block, the three NumPy arrays) against `encode_batch` (the same
rows, flat ids, no block), on batches of the last 2,000 UD English-EWT
sentences (as benches/bert_peers.py) and of the first en-large lines (21 %
over 128 tokens: a batch of 256 pads to width 128, a 786 kB block).

    python benches/padded_block.py [--checkout DIR] [--calls N] [--batch 32 256]

"freed": each call's result dropped before the next call (what a benchmark
loop does; the allocator hands back the same heap block, nothing faults);
"kept": the results of a pass over the batches held until its end (each
block then comes as fresh pages from the OS: glibc gives heap memory back
past its trim threshold, so the next pass faults it in again).
A/B of two builds: run it alternately for each `--checkout` (A, B, A, B, ...)
and compare medians; the load is printed with each run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", default=str(ROOT))
    ap.add_argument("--calls", type=int, default=4000, help="calls per case and pass")
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--batch", type=int, nargs="*", default=[32, 256])
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.checkout) / "python"))
    import bertpiece
    from bertpiece import _core
    from bertpiece.bert_tokenizer import serving

    ewt = [s for s in (DATA / "corpus" / "ud-en.txt").read_text(encoding="utf-8").split("\n") if s][:3852][-2000:]
    large = []
    with open(DATA / "corpus" / "en-large.txt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                large.append(line.rstrip("\n"))
            if len(large) >= 2000:
                break
    tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    tok(ewt[:8], padding=True, truncation=True, max_length=128, return_tensors="np")
    st, core = serving.state(tok), tok._core
    plan = _core.PaddedPlan((st.cls, st.sep), 128, None, None, st.pad, False, 0, st.added)

    def planes(t):
        return _core.encode_padded_planes(core, t, plan)

    def flat(t):
        return core.encode_batch(t, special=(st.cls, st.sep), max_length=128, num_threads=1)

    out = {}
    for name, lines in (("EWT", ewt), ("en-large", large)):
        for b in args.batch:
            batches = [lines[i:i + b] for i in range(0, len(lines), b)][:2000 // b]
            reps = max(1, args.calls // len(batches))

            def freed(fn):
                t = time.thread_time()
                for _ in range(reps):
                    for x in batches:
                        fn(x)
                return (time.thread_time() - t) / (reps * len(batches)) * 1e6

            def kept(fn):
                t = time.thread_time()
                for _ in range(reps):
                    held = [fn(x) for x in batches]
                    del held
                return (time.thread_time() - t) / (reps * len(batches)) * 1e6

            for label, fn, how in (("block, freed", planes, freed), ("block, kept", planes, kept),
                                   ("flat ids", flat, freed)):
                how(fn)  # warm
                out[f"{name}, batch of {b}: {label}"] = statistics.median(how(fn) for _ in range(args.passes))
    print(f"checkout {args.checkout}, load {os.getloadavg()}")
    for name, us in out.items():
        print(f"| {name} | {us:.1f} |")


if __name__ == "__main__":
    main()

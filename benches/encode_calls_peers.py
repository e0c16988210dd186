#!/usr/bin/env python3
"""The per-text calls that hand out `Encoding`s against the peers, by CPU time
(docs/benchmarks/encode-objects-45.md): "one" (`[tok.encode(s).ids for s in lines]`, one thread) and
"batch" (`[e.ids for e in tok.encode_batch(lines)]`, 1 and 2 threads), plus each engine's bulk call.
The engines and their code are benches/peers.py's, run by its worker with the clock switched to
`time.process_time()` (the process's CPU time, all its threads): on a shared machine the wall clock
of bench_pipeline.py's same calls moved 2.5x between two runs minutes apart. Engines run in turn,
round by round, each pinned to `threads` CPUs; the table gives medians. Every engine's ids are
checked against tokenizers 0.23.3's (run once, untimed).

    python benches/encode_calls_peers.py --rounds 3
    python benches/encode_calls_peers.py --tokenizer .cache/bench_unigram_third_party/xlmr-en.json --threads 1

fastokens' `Encoding` keeps no offsets (`.offsets` raises NotImplementedError): its objects do less work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_pipeline  # noqa: E402
import peers  # noqa: E402
from corpus_text import head  # noqa: E402

# the worker's clock: CPU time (the load time it reports becomes CPU time too)
peers.WORKER = peers.WORKER.replace("time.perf_counter()", "time.process_time()")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the shared data beside the checkout (/work/main) or beside the worktrees (/work/wt/NAME)
CORPUS = next((p for p in (os.path.join(ROOT, "..", "shared"), os.path.join(ROOT, "..", "..", "shared")) if os.path.isdir(p)),
              os.path.join(ROOT, "..", "shared"))
CORPUS = os.path.normpath(os.path.join(CORPUS, "data", "corpus", "en-large.txt"))
DEFAULT = [os.path.join(ROOT, ".cache", "bench_pipeline", "gpt2-from-whisper-ranks.json"),
           os.path.join(ROOT, ".cache", "bench_unigram_third_party", "xlmr-en.json")]

# tokie as peers.py runs it, with add_special_tokens=False as every other engine here (its default adds
# XLM-R's <s> </s>: ids no longer tokenizers' without them)
TOKIE = """
import tokie
def load(path): return tokie.Tokenizer.from_json(path)
def one(tok, s): return tok.encode(s, add_special_tokens=False).ids
def batch(tok, lines): return [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
def bulk(tok, lines): return tok.encode_batch_flat(lines, add_special_tokens=False)
"""
bench_pipeline.ENGINES["tokie"] = lambda tok, text, th, **kw: peers.run_worker("tokie", bench_pipeline.BENCH_PY, TOKIE, tok, text, th, **kw)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer", action="append", default=None)
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--mb", type=float, default=2)
    ap.add_argument("--skip-mb", type=float, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--engines", default="bertpiece,tokie,fastokens,gigatoken")
    args = ap.parse_args()
    if not os.path.exists(args.corpus):
        sys.exit(f"no corpus at {args.corpus}: pass --corpus")
    engines = args.engines.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    text = head(args.corpus, args.mb, args.skip_mb)
    mb = len(text.encode("utf-8")) / 1e6
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as f:
        f.write(text)
        text_path = f.name
    try:
        for tokenizer in args.tokenizer or DEFAULT:
            ref = bench_pipeline.ENGINES[bench_pipeline.REFERENCE](tokenizer, text_path, 1, modes=("batch",))
            want = ref["modes"]["batch"]["digest"]
            res, digests, loads = {}, {}, []
            for _ in range(args.rounds):
                for th in threads:
                    modes = ("one", "batch", "bulk") if th == 1 else ("batch", "bulk")
                    for e in engines:
                        out = bench_pipeline.ENGINES[e](tokenizer, text_path, th, modes=modes)
                        loads.append(os.getloadavg()[0])
                        if "error" in out:
                            digests[e] = out["error"]
                            continue
                        for mode, m in out["modes"].items():
                            res.setdefault((e, mode, th), []).extend(m["times"])
                            digests[(e, mode)] = m["digest"]
            print(f"\n{os.path.basename(tokenizer)}: {mb:.2f} MB of {os.path.basename(args.corpus)} from {args.skip_mb} MB in, "
                  f"{text.count(chr(10))} lines, {args.rounds} rounds, load average {min(loads):.2f}-{max(loads):.2f}\n")
            print("| call | threads | engine | MB per CPU s (median) | bertpiece / engine | ids == tokenizers 0.23.3 |")
            print("|---|---|---|---|---|---|")
            exact = lambda e, mode: digests.get((e, mode)) == want  # noqa: E731
            for e, mode, th, v, ratio, same in bench_pipeline.call_rows(res, engines, threads, mb, exact):
                print(f"| {mode} | {th} | {e} | {v:.1f} | {ratio} | {same} |")
    finally:
        os.unlink(text_path)


if __name__ == "__main__":
    main()

"""Builds of bertpiece's compiled core side by side IN ONE PROCESS, taking turns
on the byte-level BPE bulk call: the A/B behind each step of docs/benchmarks/bpe-bulk.md's
"Byte-level BPE bulk speed" section. On a shared machine, wall-clock MB/s move
by a third from run to run; CPU time of calls interleaved seconds apart moves
much less, and a slow spell hits every build alike.

Each build is a directory holding `bertpiece/_core.abi3.so` (for instance a copy
of `python/` with the build's library in it); each is loaded under its own
module name. The tokenizer is bench_pipeline.py's cached 32k GPT-2 shape (run
that once first), the text the first --mb MB of en-large, one text per line.
Per round, build and thread count: one warm-up call, then --reps timed calls
of `pipeline_encode_flat(..., add_special_tokens=False, num_threads=N)`;
reported (benches/bulk_bpe_rounds.py): CPU MB/s (median, upper quartile,
max; CPU time of all the process's threads), the ratio to the first call,
wall-clock MB/s, and a digest of ids (and offsets) that must be the same for
every build and thread count.

    python benches/ab_bulk_bpe.py /tmp/build-a /tmp/build-b [--rounds 5] [--reps 3] [--offsets]
    python benches/ab_bulk_bpe.py /tmp/build-a --threads 1,2     # 1 against 2 threads, taking turns
"""

import argparse

import numpy as np

from bulk_bpe_rounds import add_common_arguments, load_core, material, report, run_rounds  # benches/ is the script's directory


def main():
    ap = argparse.ArgumentParser()
    add_common_arguments(ap)
    ap.add_argument("--offsets", action="store_true")
    ap.add_argument("--threads", default="1", help="thread counts, comma-separated (each build runs each)")
    ap.add_argument("--tokenizer", default=None, help="default: bench_pipeline.py's cached file")
    args = ap.parse_args()
    path, tokenizer_json, lines, mb = material(args.corpus, args.mb, args.tokenizer, args.skip_mb)
    threads = [int(t) for t in args.threads.split(",")]
    calls = {}
    for i, build in enumerate(args.builds):
        core = load_core(build, i)
        tok = core.PipelineTokenizer.from_str(tokenizer_json, True)
        settings = tok.stored_settings()
        for th in threads:
            name = build if threads == [1] else f"{build} threads={th}"
            calls[name] = (lambda core=core, tok=tok, settings=settings, th=th: core.pipeline_encode_flat(
                tok, settings, lines, add_special_tokens=False, return_offsets=args.offsets, num_threads=th))
    wall = {}
    speeds, digests = run_rounds(calls, mb, args.rounds, args.reps, wall=wall,
                                 as_bytes=lambda out: b"".join(np.asarray(a).tobytes() for a in out[:3] if a is not None))
    report(f"tokenizer {path}; text {mb:.2f} MB, {len(lines)} lines; offsets {args.offsets}", speeds, digests,
           next(iter(calls)), wall)


if __name__ == "__main__":
    main()

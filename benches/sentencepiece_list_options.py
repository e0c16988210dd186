"""CPU time of one SentencePieceProcessor list encode per output option (ids, numpy, bytes, pieces
with emit_unk_piece, pieces with add_bos/add_eos/reverse), for A/B runs of two builds: each process
imports the bertpiece package of --python (default: this checkout's), makes one warm-up call and then
--calls timed ones per option, and prints the median CPU seconds (getrusage, all threads) of each.
Run it alternately for the two builds (fresh processes) and compare the medians of the rounds.

    python benches/sentencepiece_list_options.py [--python DIR] [--model .cache/bench_spm26/bpe32k.model]
        [--corpus en-large.txt] [--mb 8] [--threads 1] [--calls 5]
"""

import argparse
import os
import resource
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OPTIONS = [("ids", dict()), ("numpy", dict(out_type="numpy")), ("bytes", dict(out_type=bytes)),
           ("str emit_unk_piece", dict(out_type=str, emit_unk_piece=True)),
           ("str add_bos add_eos reverse", dict(out_type=str, add_bos=True, add_eos=True, reverse=True))]


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=os.path.join(os.path.dirname(HERE), "python"))
    ap.add_argument("--model", default=os.path.join(os.path.dirname(HERE), ".cache", "bench_spm26", "bpe32k.model"))
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calls", type=int, default=5)
    args = ap.parse_args()
    sys.path.insert(0, args.python)
    import bertpiece

    with open(args.corpus, encoding="utf-8") as f:
        lines = [line for line in f.read(int(args.mb * 1_000_000)).split("\n") if line]
    sp = bertpiece.SentencePieceProcessor(model_file=args.model)
    out = []
    for name, kwargs in OPTIONS:
        sp.encode(lines, num_threads=args.threads, **kwargs)
        seconds = []
        for _ in range(args.calls):
            start = cpu()
            rows = sp.encode(lines, num_threads=args.threads, **kwargs)
            seconds.append(cpu() - start)
            del rows
        out.append(f"{name}: {statistics.median(seconds):.3f}")
    print(f"{bertpiece.__file__}  load {os.getloadavg()[0]:.1f}  " + "  ".join(out), flush=True)


if __name__ == "__main__":
    main()

"""BPE training speed and memory: bertpiece's trainers against HF tokenizers'
BpeTrainer, same options, same file, same result (the merges are checked
equal), on en-large, 32,000 tokens.

    python benches/bench_train_bpe.py --markdown [--repeats 2] [--threads 1,2]

Each run is a fresh process (peak RSS: its VmHWM, imports included; wall time
measured inside the process around the training call alone); peers run
interleaved and the median is reported. byte-level: HF's `ByteLevelBPETokenizer`
setup (ByteLevel(add_prefix_space=False), initial_alphabet=ByteLevel.alphabet(),
special token <|endoftext|>); char-level: HF's CharBPETokenizer setup without
its suffix (BertNormalizer(lowercase=False), BertPreTokenizer, <unk>).
Threads: HF via RAYON_NUM_THREADS, bertpiece via num_threads. The machine may
be shared: compare ratios within one run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "corpus"
if not CORPUS.exists():
    CORPUS = pathlib.Path("/work/shared/data/corpus")
VOCAB_SIZE = 32000

CHILD = r"""
import hashlib, json, sys, time
trainer, kind, path, threads, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if trainer == "hf-tokenizers":
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    if kind == "byte-level":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tr = trainers.BpeTrainer(vocab_size=size, special_tokens=["<|endoftext|>"], show_progress=False,
                                 initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tr = trainers.BpeTrainer(vocab_size=size, special_tokens=["<unk>"], show_progress=False)
    start = time.perf_counter()
    tok.train([path], tr)
    seconds = time.perf_counter() - start
    merges = json.loads(tok.to_str())["model"]["merges"]
else:
    from bertpiece.trainers import BpeTrainer, ByteLevelBpeTrainer, train_bpe_from_files
    start = time.perf_counter()
    if kind == "byte-level":
        t = ByteLevelBpeTrainer(size, special_tokens=["<|endoftext|>"], show_progress=False)
        trained = train_bpe_from_files([path], t, num_threads=threads)
    else:
        t = BpeTrainer(size, special_tokens=["<unk>"], show_progress=False)
        trained = train_bpe_from_files([path], t, unk_token="<unk>", num_threads=threads)
    seconds = time.perf_counter() - start
    merges = [list(m) for m in trained.merges]
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
digest = hashlib.sha1(json.dumps(merges).encode()).hexdigest()[:12]
print(json.dumps({"seconds": seconds, "rss_mib": int(hwm.split()[1]) / 1024, "merges": digest}))
"""

TRAINERS = ["hf-tokenizers", "bertpiece"]


def run_one(trainer, kind, path, threads, size):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), RAYON_RS_NUM_CPUS=str(threads))
    out = subprocess.run([sys.executable, "-c", CHILD, trainer, kind, str(path), str(threads), str(size)],
                         stdout=subprocess.PIPE, env=env, check=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--kinds", default="byte-level,char-level")
    ap.add_argument("--corpus", default=str(CORPUS / "en-large.txt"))
    ap.add_argument("--vocab-size", type=int, default=VOCAB_SIZE)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rows = []
    for kind in args.kinds.split(","):
        for n in (int(t) for t in args.threads.split(",")):
            runs = {t: [] for t in TRAINERS}
            for _ in range(args.repeats):
                for t in TRAINERS:  # interleaved: load on the machine hits both alike
                    runs[t].append(run_one(t, kind, args.corpus, n, args.vocab_size))
            same = {r["merges"] for rs in runs.values() for r in rs}
            base = statistics.median(r["seconds"] for r in runs["hf-tokenizers"])
            for t in TRAINERS:
                sec = statistics.median(r["seconds"] for r in runs[t])
                rss = statistics.median(r["rss_mib"] for r in runs[t])
                rows.append((kind, n, t, sec, sec / base, rss, len(same) == 1))
                print(f"{kind} threads={n} {t}: {sec:.2f} s ({sec / base:.2f}x HF), peak RSS {rss:.0f} MiB, "
                      f"merges equal: {len(same) == 1}", file=sys.stderr)
    if args.markdown:
        print("| kind | threads | trainer | wall (s) | vs HF | peak RSS (MiB) | merges equal HF's |")
        print("|---|---|---|---|---|---|---|")
        for kind, n, t, sec, ratio, rss, same in rows:
            print(f"| {kind} | {n} | {t} | {sec:.2f} | {ratio:.2f}x | {rss:.0f} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()

"""Unigram training speed and memory: bertpiece's UnigramTrainer against HF
tokenizers' UnigramTrainer and sentencepiece's trainer, same file, same
vocabulary size, 1 and 2 threads.

    python benches/bench_train_unigram.py --markdown [--mb 5] [--vocab-size 8000] [--threads 1,2] [--rounds 3]

The first `--mb` MB of en-large are written to a temporary file that every
trainer reads. Each run is a fresh process (peak RSS: its VmHWM, imports
included; wall time measured inside the process around the training call).
HF: Metaspace pre-tokenizer, `Tokenizer.train([file])`, threads via
RAYON_NUM_THREADS; spm: `SentencePieceTrainer.train(model_type="unigram",
character_coverage=1.0, normalization_rule_name="identity", num_threads=N)`;
bertpiece: `train_unigram_from_files(num_threads=N)`. All get <unk>, <s>,
</s>. The machine may be shared: compare ratios within one run; with
--rounds N the three trainers run interleaved N times and the table gives
median seconds and the median of the per-round ratios (peak RSS: the largest).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = pathlib.Path("/work/shared/data/corpus/en-large.txt")

CHILD = r"""
import json, os, sys, tempfile, time
who, path, threads, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
specials = ["<unk>", "<s>", "</s>"]
if who == "HF":
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tr = trainers.UnigramTrainer(vocab_size=size, special_tokens=specials, unk_token="<unk>", show_progress=False)
    t = time.perf_counter()
    tok.train([path], tr)
    seconds = time.perf_counter() - t
    n = tok.get_vocab_size()
elif who == "spm":
    import sentencepiece as sp
    d = tempfile.mkdtemp()
    t = time.perf_counter()
    sp.SentencePieceTrainer.train(input=path, model_prefix=os.path.join(d, "m"), vocab_size=size,
                                  model_type="unigram", character_coverage=1.0, normalization_rule_name="identity",
                                  input_sentence_size=0, minloglevel=2, num_threads=threads,
                                  hard_vocab_limit=False)
    seconds = time.perf_counter() - t
    n = size
else:
    from bertpiece.trainers import UnigramTrainer, train_unigram_from_files
    t = time.perf_counter()
    r = train_unigram_from_files([path], UnigramTrainer(vocab_size=size, special_tokens=specials, unk_token="<unk>",
                                                       show_progress=False), num_threads=threads)
    seconds = time.perf_counter() - t
    n = len(r.pieces)
rss = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        rss = int(line.split()[1]) // 1024
print(json.dumps({"seconds": seconds, "rss_mb": rss, "vocab": n}))
"""


def run(who, path, threads, size):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), RAYON_RS_NUM_THREADS=str(threads),
               PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", CHILD, who, path, str(threads), str(size)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=1,
                    help="interleaved rounds (bertpiece, HF, spm each round); medians are reported")
    a = ap.parse_args()
    with open(CORPUS, "rb") as f:
        data = f.read(int(a.mb * 1e6))
    data = data[:data.rfind(b"\n") + 1]
    with tempfile.NamedTemporaryFile(suffix=".txt", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        if a.markdown:
            print(f"| trainer | threads | seconds | × fastest peer | peak RSS MB | vocab |  ({a.mb:g} MB of en-large, "
                  f"vocab_size {a.vocab_size:,})")
            print("|---|---:|---:|---:|---:|---:|")
        for threads in [int(t) for t in a.threads.split(",")]:
            rounds = [{who: run(who, path, threads, a.vocab_size) for who in ("bertpiece", "HF", "spm")}
                      for _ in range(a.rounds)]
            # per round, each trainer's time over the faster peer's in that round; then medians
            ratios = {who: statistics.median(r[who]["seconds"] / min(r["HF"]["seconds"], r["spm"]["seconds"])
                                             for r in rounds) for who in rounds[0]}
            got = {who: {"seconds": statistics.median(r[who]["seconds"] for r in rounds),
                         "rss_mb": max(r[who]["rss_mb"] for r in rounds), "vocab": rounds[0][who]["vocab"]}
                   for who in rounds[0]}
            for who, r in got.items():
                ratio = ratios[who]
                if a.markdown:
                    print(f"| {who} | {threads} | {r['seconds']:.1f} | {ratio:.2f} | {r['rss_mb']} | {r['vocab']:,} |")
                else:
                    print(who, threads, f"{r['seconds']:.2f}s", f"{ratio:.2f}x", f"{r['rss_mb']} MB", r["vocab"])
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()

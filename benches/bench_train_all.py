"""Training speed and memory of every model through ``bertpiece.Tokenizer.train``
(the HF-style API: the tokenizer's own normalizer and pre-tokenizer) against
HF tokenizers 0.23.3's ``Tokenizer.train`` on the same tokenizer, and
sentencepiece 0.2.3's trainer where it has the model (BPE, Unigram), on
en-large, 32,000 tokens, 1 and 2 threads.

    python benches/bench_train_all.py --markdown [--repeats 2] [--threads 1,2] [--models wordpiece,bpe,byte-bpe,unigram]

Setups (the same for bertpiece and HF):
  wordpiece  BertNormalizer(lowercase=True), BertPreTokenizer, WordPieceTrainer, [PAD] [UNK] [CLS] [SEP] [MASK]
  bpe        BertNormalizer(lowercase=False), BertPreTokenizer, BpeTrainer, <unk>      (spm: model_type="bpe")
  byte-bpe   ByteLevel(add_prefix_space=False), BpeTrainer(initial_alphabet=ByteLevel.alphabet()), <|endoftext|>
  unigram    Metaspace(), UnigramTrainer(unk_token="<unk>"), <unk> <s> </s>             (spm: model_type="unigram")
spm: character_coverage=1.0, normalization_rule_name="identity", input_sentence_size=0, hard_vocab_limit=False,
num_threads=N. Threads: every child process is pinned to N CPUs (sched_setaffinity: bertpiece's pool sizes
itself to them; Tokenizer.train has no thread option, as in HF), and HF also gets RAYON_NUM_THREADS=N.

Each run is a fresh process: wall time of the training call alone (reading the file included), its CPU
time (process_time: every thread of the process; on a shared machine the steadier figure), peak RSS its
VmHWM (imports included). Per round the trainers of a case run in turn (interleaved); the table gives
the median seconds, the median of the per-round ratios to the fastest peer, and the largest peak RSS.
Every finished run is appended to --log as one JSON line (a long run can be read while it goes on).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = pathlib.Path("/work/shared/data/corpus/en-large.txt")

CHILD = r"""
import json, os, sys, tempfile, time
who, model, path, threads, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])
SPECIALS = {"wordpiece": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], "bpe": ["<unk>"],
            "byte-bpe": ["<|endoftext|>"], "unigram": ["<unk>", "<s>", "</s>"]}
specials = SPECIALS[model]
if who == "spm":
    import sentencepiece as sp
    d = tempfile.mkdtemp()
    t, cpu = time.perf_counter(), time.process_time()
    sp.SentencePieceTrainer.train(input=path, model_prefix=os.path.join(d, "m"), vocab_size=size,
                                  model_type=model, character_coverage=1.0, normalization_rule_name="identity",
                                  input_sentence_size=0, minloglevel=2, num_threads=threads, hard_vocab_limit=False)
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    n = sum(1 for _ in open(os.path.join(d, "m.vocab"), encoding="utf-8"))
else:
    if who == "HF":
        import tokenizers as lib
        from tokenizers import models, normalizers, pre_tokenizers, trainers
    else:
        import bertpiece as lib
        from bertpiece import models, normalizers, pre_tokenizers, trainers
    if model == "wordpiece":
        tok = lib.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tr = trainers.WordPieceTrainer(vocab_size=size, special_tokens=specials, show_progress=False)
    elif model == "bpe":
        tok = lib.Tokenizer(models.BPE(unk_token="<unk>"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tr = trainers.BpeTrainer(vocab_size=size, special_tokens=specials, show_progress=False)
    elif model == "byte-bpe":
        tok = lib.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tr = trainers.BpeTrainer(vocab_size=size, special_tokens=specials, show_progress=False,
                                 initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:
        tok = lib.Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tr = trainers.UnigramTrainer(vocab_size=size, special_tokens=specials, unk_token="<unk>", show_progress=False)
    t, cpu = time.perf_counter(), time.process_time()
    tok.train([path], tr)
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    n = tok.get_vocab_size()
rss = 0
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        rss = int(line.split()[1]) // 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_mb": rss, "vocab": n}))
"""

PEERS = {"wordpiece": ["HF"], "bpe": ["HF", "spm"], "byte-bpe": ["HF"], "unigram": ["HF", "spm"]}


def run(who, model, path, threads, size):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", CHILD, who, model, str(path), str(threads), str(size)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models", default="wordpiece,bpe,byte-bpe,unigram")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--vocab-size", type=int, default=32000)
    ap.add_argument("--log", default=None, help="append every run here as a JSON line")
    ap.add_argument("--skip", default="", help="peers not to run, as model:peer,... (e.g. unigram:HF, when an "
                                               "earlier run showed it is not the fastest)")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    rows = []
    for model in a.models.split(","):
        peers = [p for p in PEERS[model] if f"{model}:{p}" not in a.skip.split(",")]
        who_all = ["bertpiece"] + peers
        for threads in (int(t) for t in a.threads.split(",")):
            rounds = []
            for k in range(a.repeats):
                r = {}
                for who in who_all:  # interleaved: the machine's load hits every trainer alike
                    before = load()
                    r[who] = run(who, model, a.corpus, threads, a.vocab_size)
                    r[who]["load"] = f"{before} -> {load()}"
                    if a.log:
                        with open(a.log, "a") as f:
                            f.write(json.dumps({"model": model, "threads": threads, "round": k, "who": who, **r[who]})
                                    + "\n")
                    print(model, threads, k, who, r[who], file=sys.stderr, flush=True)
                rounds.append(r)
            for who in who_all:
                sec = statistics.median(r[who]["seconds"] for r in rounds)
                ratio = statistics.median(r[who]["seconds"] / min(r[p]["seconds"] for p in peers)
                                          for r in rounds)
                cpu = statistics.median(r[who]["cpu"] for r in rounds)
                cpu_ratio = statistics.median(r[who]["cpu"] / min(r[p]["cpu"] for p in peers) for r in rounds)
                rss = max(r[who]["rss_mb"] for r in rounds)
                rows.append((model, threads, who, sec, ratio, cpu, cpu_ratio, rss, rounds[-1][who]["vocab"]))
    if a.markdown:
        print("| model | threads | trainer | seconds | × fastest peer | CPU s | CPU × fastest peer | peak RSS MB | vocab |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
        for model, threads, who, sec, ratio, cpu, cpu_ratio, rss, n in rows:
            print(f"| {model} | {threads} | {who} | {sec:.1f} | {ratio:.2f} | {cpu:.1f} | {cpu_ratio:.2f} | {rss} | {n:,} |")


if __name__ == "__main__":
    main()

"""Vocabulary training speed, memory and quality: bertpiece (hf mode, the
default, and likelihood mode) against HF tokenizers' WordPieceTrainer, same
options. (benches/train_quality.py compares the vocabularies' quality in
more depth.)

    python benches/bench_train.py --markdown

Each run is a fresh process (peak RSS: its VmHWM, imports included; wall time
measured inside the process around the training call alone, imports excluded); peers run
interleaved, repeated, and the median is reported. Options for all:
lowercase, vocab_size 30522, min_frequency 2, limit_alphabet 1000, [PAD]
[UNK] [CLS] [SEP] [MASK]; bertpiece counts with reference="tokenizers"
(HF's normalization). Threads: HF via RAYON_RS_NUM_CPUS, bertpiece via
num_threads.

Quality: each trainer learns from the first 90 % of a corpus's lines; the
last 10 % are tokenized with the vocabulary (bertpiece.FullTokenizer,
reference="tokenizers") for the tokens per word and the unknown-token rate.
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

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = (HERE.parent.parent / "shared" / "data" / "corpus")
if not CORPUS.exists():
    CORPUS = pathlib.Path("/work/shared/data/corpus")
VOCAB_SIZE = 30522

CHILD = r"""
import json, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
trainer, path, threads, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if trainer == "hf-tokenizers":
    from tokenizers import BertWordPieceTokenizer
    tok = BertWordPieceTokenizer(lowercase=True)
    start, cpu0 = time.perf_counter(), cpu()
    tok.train([path], vocab_size=%(size)d, min_frequency=2, limit_alphabet=1000, show_progress=False)
    seconds, cpu_seconds = time.perf_counter() - start, cpu() - cpu0
    vocab = tok.get_vocab()
    tokens = sorted(vocab, key=vocab.get)
else:
    import bertpiece
    algorithm = trainer.split("-", 1)[1]
    start, cpu0 = time.perf_counter(), cpu()
    tokens = bertpiece.train_wordpiece_from_files([path], %(size)d, algorithm=algorithm, reference="tokenizers",
                                                  min_frequency=2, limit_alphabet=1000, num_threads=threads)
    seconds, cpu_seconds = time.perf_counter() - start, cpu() - cpu0
if out != "-":
    open(out, "w", encoding="utf-8").write("".join(t + "\n" for t in tokens))
# Peak RSS of this program: VmHWM starts afresh at exec (wait4's ru_maxrss would include the
# parent's RSS, copied at fork).
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "tokens": len(tokens), "rss_mib": int(hwm.split()[1]) / 1024}))
""" % {"size": VOCAB_SIZE}

TRAINERS = ["hf-tokenizers", "bertpiece-likelihood", "bertpiece-hf"]


def run_one(trainer, path, threads, out="-"):
    env = dict(os.environ, RAYON_RS_NUM_CPUS=str(threads), RAYON_NUM_THREADS=str(threads))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, trainer, str(path), str(threads), str(out)],
                            stdout=subprocess.PIPE, env=env)
    stdout, _ = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"{trainer} on {path} failed ({proc.returncode})")
    return json.loads(stdout)


def split_corpus(paths, workdir, name):
    """(whole, train 90 %, held-out 10 %) files of the concatenated `paths`."""
    whole, train, held = (workdir / f"{name}{s}.txt" for s in ("", "-train", "-heldout"))
    with open(whole, "w", encoding="utf-8") as w, open(train, "w", encoding="utf-8") as t, \
            open(held, "w", encoding="utf-8") as h:
        for p in paths:
            lines = p.read_text(encoding="utf-8").split("\n")
            cut = len(lines) * 9 // 10
            w.write("\n".join(lines) + "\n")
            t.write("\n".join(lines[:cut]) + "\n")
            h.write("\n".join(lines[cut:]) + "\n")
    return whole, train, held


def quality(vocab_file, held_out):
    import bertpiece

    tok = bertpiece.FullTokenizer(str(vocab_file), reference="tokenizers")
    basic = bertpiece.BasicTokenizer(reference="tokenizers")
    words = tokens = unk = 0
    for line in held_out.read_text(encoding="utf-8").split("\n"):
        words += len(basic.tokenize(line))
        pieces = tok.tokenize(line)
        tokens += len(pieces)
        unk += pieces.count("[UNK]")
    return tokens / words, unk / tokens


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--corpora", default="en-large,ud-all")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-train-"))
    corpora = {}
    for name in args.corpora.split(","):
        paths = [CORPUS / "en-large.txt"] if name == "en-large" else sorted(CORPUS.glob("ud-*.txt"))
        corpora[name] = split_corpus(paths, work, name)

    rows = []
    for name, (whole, train, held) in corpora.items():
        for n in threads:
            runs = {t: [] for t in TRAINERS}
            for _ in range(args.repeats):
                for t in TRAINERS:  # interleaved: load on the machine hits every trainer alike
                    runs[t].append(run_one(t, whole, n))
            base = statistics.median(r["seconds"] for r in runs["hf-tokenizers"])
            for t in TRAINERS:
                sec = statistics.median(r["seconds"] for r in runs[t])
                rss = statistics.median(r["rss_mib"] for r in runs[t])
                cpu = statistics.median(r["cpu_seconds"] for r in runs[t])
                rows.append((name, n, t, sec, sec / base, cpu, rss))
                print(f"{name} threads={n} {t}: {sec:.2f} s ({sec / base:.2f}x HF), CPU {cpu:.2f} s, "
                      f"peak RSS {rss:.0f} MiB", file=sys.stderr)
    qrows = []
    for name, (whole, train, held) in corpora.items():
        for t in TRAINERS:
            out = work / f"{name}-{t}-vocab.txt"
            run_one(t, train, 2, out)
            tpw, unk = quality(out, held)
            qrows.append((name, t, tpw, unk))
            print(f"{name} {t}: {tpw:.4f} tokens/word, unk {100 * unk:.3f}%", file=sys.stderr)
    if args.markdown:
        print("| corpus | threads | trainer | wall (s) | vs HF | CPU (s) | peak RSS (MiB) |")
        print("|---|---|---|---|---|---|---|")
        for name, n, t, sec, ratio, cpu, rss in rows:
            print(f"| {name} | {n} | {t} | {sec:.2f} | {ratio:.2f}x | {cpu:.2f} | {rss:.0f} |")
        print()
        print("| corpus (train 90 %, held out 10 %) | trainer | tokens per word | unknown-token rate |")
        print("|---|---|---|---|")
        for name, t, tpw, unk in qrows:
            print(f"| {name} | {t} | {tpw:.4f} | {100 * unk:.3f} % |")


if __name__ == "__main__":
    main()

"""SentencePieceProcessor list encode: bertpiece against sentencepiece 0.2.3 on
the same .model and text, in the same run. The models are sentencepiece's own
Unigram and BPE (32,000 asked, nmt_nfkc) trained once on the text and cached
in --work; both libraries encode the text's lines as one list, `num_threads`
1 and 2, ids out. Rounds interleave the two (who goes first alternates); the
table gives median MB/s by wall time (with 2 threads wall time is what a user
waits) and by process CPU time (what a shared, loaded machine still measures
fairly: the ratio on 1 thread), bertpiece / sentencepiece ratios of both and
each library's model load time, then each library's speed-up from the
extra threads (wall) and what they cost (CPU time per call, many threads
over one); the ids are checked equal. The machine is
shared: the load average is printed at the start and the end.

    python benches/bench_sentencepiece.py [--corpus en-large.txt] [--mb 8] [--rounds 5] [--work .cache/bench_spm26]
        [--threads 1,2] [--out-type int|str] [--models unigram,bpe]
"""

import argparse
import hashlib
import io
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))


def read_lines(path, mb):
    with open(path, encoding="utf-8") as f:
        text = f.read(int(mb * 1_000_000))
    return [line for line in text.split("\n") if line]


def make_model(work, lines, model_type):
    import sentencepiece as spm

    path = os.path.join(work, f"{model_type}32k.model")
    if not os.path.exists(path):
        os.makedirs(work, exist_ok=True)
        buf = io.BytesIO()
        # hard_vocab_limit=False: the text's seed pieces may allow fewer than 32,000.
        spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=buf, vocab_size=32000,
                                       model_type=model_type, hard_vocab_limit=False, normalization_rule_name="nmt_nfkc",
                                       minloglevel=2, num_threads=2, input_sentence_size=0)
        with open(path, "wb") as f:
            f.write(buf.getvalue())
    return path


def digest(rows):
    h = hashlib.sha256()
    for row in rows:
        h.update(repr(row).encode())
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--work", default=os.path.join(os.path.dirname(HERE), ".cache", "bench_spm26"))
    ap.add_argument("--out-type", default="int", choices=["int", "str"], help="ids (default) or pieces out")
    ap.add_argument("--models", default="unigram,bpe")
    args = ap.parse_args()

    import sentencepiece as spm

    import bertpiece

    lines = read_lines(args.corpus, args.mb)
    size = sum(len(line.encode("utf-8")) for line in lines)
    threads = [int(t) for t in args.threads.split(",")]
    print(f"{len(lines):,} lines, {size / 1e6:.1f} MB")
    print(f"load average at start: {os.getloadavg()}", flush=True)
    table, scaling = [], []
    out_type = {"int": int, "str": str}[args.out_type]
    print(f"out_type={args.out_type}")
    for model_type in args.models.split(","):
        path = make_model(args.work, lines, model_type)
        engines, load_ms = {}, {}
        for name, cls in [("sentencepiece", spm.SentencePieceProcessor), ("bertpiece", bertpiece.SentencePieceProcessor)]:
            start = time.perf_counter()
            engines[name] = cls(model_file=path)
            load_ms[name] = (time.perf_counter() - start) * 1e3
        print(f"model {path} ({len(engines['bertpiece']):,} pieces)", flush=True)
        speeds, cpu_speeds, digests = {}, {}, {}
        for r in range(args.rounds):
            order = list(engines) if r % 2 == 0 else list(engines)[::-1]
            for t in threads:
                for name in order:
                    # The previous call's lists are freed here, not inside the next call's time.
                    rows = None
                    start, cpu = time.perf_counter(), time.process_time()
                    rows = engines[name].encode(lines, num_threads=t, out_type=out_type)
                    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
                    speeds.setdefault((name, t), []).append(size / seconds / 1e6)
                    cpu_speeds.setdefault((name, t), []).append(size / cpu / 1e6)
                    digests.setdefault(name, set()).add(digest(rows))
                    print(f"{model_type} round {r} {t}t {name}: {size / seconds / 1e6:.1f} MB/s", file=sys.stderr, flush=True)
        exact = digests["bertpiece"] == digests["sentencepiece"] and len(digests["bertpiece"]) == 1
        rows = None
        for name in engines:
            if len(threads) > 1:
                one, most = threads[0], threads[-1]
                wall = statistics.median(speeds[(name, most)]) / statistics.median(speeds[(name, one)])
                cost = statistics.median(cpu_speeds[(name, one)]) / statistics.median(cpu_speeds[(name, most)])
                scaling.append(f"| {model_type} | {name} | {most} / {one} | {wall:.2f}× | {cost:.2f}× |")
        for t in threads:
            a, b = statistics.median(speeds[("sentencepiece", t)]), statistics.median(speeds[("bertpiece", t)])
            ca, cb = statistics.median(cpu_speeds[("sentencepiece", t)]), statistics.median(cpu_speeds[("bertpiece", t)])
            table.append(f"| {model_type} | {t} | {a:.1f} | {b:.1f} | {b / a:.2f}× | {ca:.1f} | {cb:.1f} | {cb / ca:.2f}× "
                         f"| {'yes' if exact else 'NO'} | {load_ms['sentencepiece']:.0f} | {load_ms['bertpiece']:.0f} |")
    print(f"load average at end: {os.getloadavg()}\n")
    print("| model | threads | sentencepiece MB/s | bertpiece MB/s | bertpiece / sentencepiece "
          "| sentencepiece MB per CPU s | bertpiece MB per CPU s | bertpiece / sentencepiece (CPU) "
          "| ids equal | sentencepiece load ms | bertpiece load ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(table))
    if scaling:
        # Speed-up by wall time (meaningful only on idle cores) and the CPU time the extra threads cost.
        print("\n| model | library | threads | wall speed-up | CPU time per call, ratio |")
        print("|---|---|---|---|---|")
        print("\n".join(scaling))

if __name__ == "__main__":
    main()

"""Unigram (Metaspace, sentencepiece-converted files) speed: bertpiece.Tokenizer
against tokenizers 0.23.3, tokenizers 1.0.0rc3, tokie, kitoken and
sentencepiece on the same tokenizer.json and text, in the same run.

Two files, made once into --work: "plain" (HF's UnigramTrainer, vocabulary
32,000, Metaspace, trained on half of the text) and "xlmr" (sentencepiece
0.2.3 trained on the text, nmt_nfkc, 32,000 at most, converted as
transformers converts XLM-R: Precompiled + Strip + Replace, Metaspace;
sentencepiece runs on that .model); or, with --tokenizer [NAME=]FILE (repeatable),
those files instead (e.g. the ones benches/unigram_third_party.py converts from sentencepiece's own test
models, which no one here trained; sentencepiece is not run on them). --skip-mb N times the text from the
first full line after N MB into --corpus (20: en-large's last 8 MB, text no round here tuned on; the
trained files still learn from the first --mb MB). Every engine runs in its own subprocess
(benches/unigram_peers.py) with its venv's python, pinned to 1 or 2 cores
(taskset, RAYON_NUM_THREADS); engines are interleaved round by round and the
tables give medians. An engine whose ids (no special tokens) differ from
tokenizers 0.23.3's on any line is marked inexact and left out of the ratios.
NumPy is imported before any clock (the bulk calls return its arrays); "bulk
MB per CPU s" divides by the process's CPU time (all its threads), the figure
to compare when other tenants load the machine; "best per CPU s" is the same for
the engine's fastest mode by CPU time (the CPU ratios under the table use it).

    python benches/bench_unigram.py [--mb 8] [--skip-mb 0] [--rounds 3] [--threads 1,2] [--work /tmp/bench_unigram]
        [--tokenizer [NAME=]FILE ...] [--engines bertpiece,tokie,...]
"""

import argparse
import io
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from corpus_text import head  # noqa: E402
from peer_venvs import peer_python  # noqa: E402

VENV = os.environ.get("BENCH_VENV", sys.executable)  # bertpiece and tokenizers 0.23.3: the project's venv
VENV_TOK1 = os.environ.get("BENCH_VENV_TOK1") or peer_python("tok1")
VENV_PEERS = os.environ.get("BENCH_VENV_PEERS") or peer_python("all")
# (name shown, engine, python)
ENGINES = [
    ("bertpiece", "bertpiece", VENV),
    ("tokenizers 0.23.3", "hf", VENV),
    ("tokenizers 1.0.0rc3", "hf", VENV_TOK1),
    ("tokie", "tokie", VENV_PEERS),
    ("kitoken", "kitoken", VENV_PEERS),
    ("sentencepiece", "sentencepiece", VENV_PEERS),
]
MODES = ("one", "batch", "bulk")


def read_lines(path, mb):
    """The trained files' text (their first --mb MB, the last line possibly cut: as they were made)."""
    with open(path, encoding="utf-8") as f:
        text = f.read(int(mb * 1_000_000))
    return [line for line in text.split("\n") if line]


def make_files(work, corpus, mb):
    """(plain.json, xlmr.json, spm.model) in `work`, made once."""
    os.makedirs(work, exist_ok=True)
    plain, xlmr, model = (os.path.join(work, n) for n in ("plain.json", "xlmr.json", "spm.model"))
    lines = read_lines(corpus, mb)
    if not os.path.exists(plain):
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=32000, special_tokens=["<pad>", "</s>", "<unk>", "<s>"],
                                          unk_token="<unk>", show_progress=False)
        tok.train_from_iterator(lines[: len(lines) // 2], trainer)
        tok.save(plain)
    if not os.path.exists(xlmr):
        import sentencepiece as spm
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
        from transformers.convert_slow_tokenizer import SpmConverter, import_protobuf

        buf = io.BytesIO()
        # hard_vocab_limit=False: the text's seed pieces allow ~22,800 of the 32,000 asked.
        spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=buf, vocab_size=32000,
                                       model_type="unigram", character_coverage=0.9995, hard_vocab_limit=False,
                                       normalization_rule_name="nmt_nfkc", minloglevel=2, num_threads=2,
                                       input_sentence_size=0)
        with open(model, "wb") as f:
            f.write(buf.getvalue())
        proto = import_protobuf().ModelProto()
        proto.ParseFromString(buf.getvalue())
        tok = Tokenizer(models.Unigram([(p.piece, p.score) for p in proto.pieces], unk_id=proto.trainer_spec.unk_id))
        tok.normalizer = SpmConverter.normalizer(None, proto)
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
        bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)])
        tok.save(xlmr)
    return {"plain": (plain, "-"), "xlmr": (xlmr, model)}


def given_files(specs):
    """--tokenizer [NAME=]FILE values -> {name: (file, "-")} (no .model: sentencepiece is not run)."""
    out = {}
    for spec in specs:
        name, _, path = spec.rpartition("=")
        out[name or os.path.splitext(os.path.basename(path))[0]] = (path, "-")
    return out


def run(engine, python, files, corpus, mb, skip_mb, threads):
    cpus = ",".join(str(c) for c in range(threads))
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads), PYTHONPATH=os.path.join(REPO, "python"))
    cmd = ["taskset", "-c", cpus, python, os.path.join(HERE, "unigram_peers.py"), engine, files[0], files[1], corpus,
           str(mb), ",".join(MODES), str(skip_mb)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def fmt(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/work/shared/data/corpus/en-large.txt")
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--shapes", default="plain,xlmr")
    ap.add_argument("--work", default="/tmp/bench_unigram")
    ap.add_argument("--skip-mb", type=float, default=0, help="time the text from this many MB into --corpus "
                    "(20: en-large's last 8 MB, text no round here tuned on; the trained files still learn from the first --mb MB)")
    ap.add_argument("--tokenizer", action="append", default=[], metavar="[NAME=]FILE",
                    help="time this tokenizer.json (named NAME in the tables) instead of the trained shapes; repeatable")
    ap.add_argument("--engines", default=",".join(name for name, _, _ in ENGINES),
                    help="the engines to run (names as in the tables); tokenizers 0.23.3, the reference, always runs")
    args = ap.parse_args()
    if args.tokenizer:
        shapes = given_files(args.tokenizer)
        args.shapes = ",".join(shapes)
    else:
        shapes = make_files(args.work, args.corpus, args.mb)
    # tokenizers 0.23.3 always runs: its ids are the reference every other engine is checked against.
    engines = [e for e in ENGINES if e[0] in args.engines.split(",") + ["tokenizers 0.23.3"]]
    text = head(args.corpus, args.mb, args.skip_mb)
    print(f"text: {args.corpus} from {args.skip_mb} MB, {len(text.encode()) / 1e6:.2f} MB, {text.count(chr(10))} lines; "
          f"files: {', '.join(f'{k}={v[0]}' for k, v in shapes.items())}")
    results = {}  # (shape, threads, name) -> list of runs
    print(f"load average at start: {os.getloadavg()}", flush=True)
    for r in range(args.rounds):
        for threads in [int(t) for t in args.threads.split(",")]:
            for shape in args.shapes.split(","):
                order = engines[r % len(engines):] + engines[: r % len(engines)]  # interleave, rotating who goes first
                for name, engine, python in order:
                    if engine == "sentencepiece" and shapes[shape][1] == "-":
                        continue
                    out = run(engine, python, shapes[shape], args.corpus, args.mb, args.skip_mb, threads)
                    results.setdefault((shape, threads, name), []).append(out)
                    print(f"round {r} {shape} {threads}t {name}: {json.dumps(out)}", file=sys.stderr, flush=True)
    print(f"load average at end: {os.getloadavg()}\n")
    print("| file | threads | engine | ids = tokenizers 0.23.3 | one text MB/s | encode_batch MB/s | bulk MB/s "
          "| bulk MB per CPU s | best per CPU s | load ms | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    summary = {}
    for (shape, threads, name), runs in results.items():
        ok = [x for x in runs if "error" not in x]
        ref = [x for x in results.get((shape, threads, "tokenizers 0.23.3"), []) if "error" not in x]
        if not ok:
            print(f"| {shape} | {threads} | {name} | refused: {runs[0].get('error')} | – | – | – | – | – | – | – |")
            continue
        exact = bool(ref) and all(x["ids_sha256"] == ref[0]["ids_sha256"] for x in ok)
        speed = {m: (statistics.median(x["bytes"] / x[m + "_s"] / 1e6 for x in ok) if m + "_s" in ok[0] else None)
                 for m in MODES}
        # bulk MB per CPU second (all threads): the figure that holds under other tenants' load
        cpu = statistics.median(x["bytes"] / x["bulk_cpu_s"] / 1e6 for x in ok) if "bulk_cpu_s" in ok[0] else None
        per_cpu = {m: statistics.median(x["bytes"] / x[m + "_cpu_s"] / 1e6 for x in ok) for m in MODES
                   if m + "_cpu_s" in ok[0]}
        load = statistics.median(x["load_s"] for x in ok) * 1000
        rss = statistics.median(x["peak_rss_mb"] for x in ok)
        print(f"| {shape} | {threads} | {name} | {'yes' if exact else 'NO'} | {fmt(speed['one'])} | {fmt(speed['batch'])} "
              f"| {fmt(speed['bulk'])} | {fmt(cpu)} | {fmt(max(per_cpu.values()))} | {fmt(load, 0)} | {fmt(rss, 0)} |")
        summary[(shape, threads, name)] = {"exact": exact, "best": max(v for v in speed.values() if v),
                                           "best_cpu": max(per_cpu.values())}
    print()
    for shape in args.shapes.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            ours = summary.get((shape, threads, "bertpiece"))
            peers = [(v["best"], k[2]) for k, v in summary.items()
                     if k[:2] == (shape, threads) and k[2] != "bertpiece" and v["exact"]]
            if ours and peers:
                best, who = max(peers)
                print(f"{shape}, {threads} thread(s): bertpiece's best mode {ours['best']:.1f} MB/s, "
                      f"fastest exact peer {who} {best:.1f} MB/s: ratio {ours['best'] / best:.2f}")
                best, who = max((v["best_cpu"], k[2]) for k, v in summary.items()
                                if k[:2] == (shape, threads) and k[2] != "bertpiece" and v["exact"])
                print(f"{shape}, {threads} thread(s), per CPU second: bertpiece {ours['best_cpu']:.1f} MB, "
                      f"fastest exact peer {who} {best:.1f} MB: ratio {ours['best_cpu'] / best:.2f}")


if __name__ == "__main__":
    main()

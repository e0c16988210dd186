#!/usr/bin/env python3
"""Text -> ids throughput of bertpiece and its peers, measured in one run on the
same inputs.

Each (tokenizer, corpus, threads) case runs in a fresh interpreter, so load
time and peak RSS are its own; a corpus that encodes in under a second is
encoded again until a second has passed, and the median run counts. The whole
sweep is repeated `--rounds` times (default 3; the slow pure-Python references
run in the first only), one case after another, and each case reports its
median round: a slow spell of a shared machine then lands on one round of a
few cases instead of on all runs of one case.
bertpiece's per-thread word memo is emptied before every timed pass
(`_core._forget_words()`), so no pass is served words the memo learnt from the
same text in an earlier pass: each pass times text it has not seen. Reported:
MB/s (UTF-8 bytes of input per second of encoding), tokens/s, load time, peak RSS (and the RSS growth while
encoding, next to the size of the output arrays), and each case's time
relative to bertpiece's on the same corpus and thread count. Then four
bertpiece-only checks: load time of each bundled vocabulary, one 100 MB
string (no quadratic behaviour), 1 against all threads on en-large taking
turns in one process, and 10,000 UD sentences -> padded NumPy arrays
(max_length 128) against transformers' `BertTokenizer`.

    python benches/bench.py --markdown                   # all corpora in ../shared/data/corpus
    python benches/bench.py --corpus ../shared/data/corpus/en-large.txt --markdown

The model is chosen per corpus (`--model auto`): bert-base-uncased for English,
bert-base-chinese for Chinese, bert-base-multilingual-cased otherwise.
TensorFlow Text needs TensorFlow; point `--tf-python` (or BERTPIECE_BENCH_TF_PYTHON)
at an interpreter that has `tensorflow-text` if this one does not. Peers that
are not installed are skipped (and said so). The slow pure-Python references
run on the first --slow-bytes of each corpus only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPORA = sorted((ROOT.parent / "shared" / "data" / "corpus").glob("*.txt"))
SLOW = {"google-original", "transformers-legacy"}
BLINGFIRE_MODELS = {"bert-base-uncased": "bert_base_tok", "bert-base-cased": "bert_base_cased_tok",
                    "bert-base-multilingual-cased": "bert_multi_cased", "bert-base-chinese": "bert_chinese"}


# ----------------------------------------------------------------- workers
def load_case(case, model, vocab, lower, google_lower, threads):
    """Returns (encode(lines) -> number of ids) for `case`."""
    if case == "bertpiece":
        import bertpiece

        tok = bertpiece.BertTokenizer.from_pretrained(model)

        def encode(lines):
            bertpiece._core._forget_words()  # unseen text every pass (see the docstring)
            return len(tok.encode_batch(lines, add_special_tokens=False, num_threads=threads).ids)
        return encode
    if case == "hf-tokenizers":
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        from tokenizers import BertWordPieceTokenizer

        tok = BertWordPieceTokenizer(vocab, lowercase=lower)
        return lambda lines: sum(len(e.ids) for e in tok.encode_batch(lines, add_special_tokens=False))
    if case == "transformers":
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        import transformers

        transformers.logging.set_verbosity_error()
        tok = transformers.BertTokenizer.from_pretrained(_hf_dir(vocab, lower))
        # Padded NumPy arrays, 1,000 lines a call (one call for all of en-large
        # would pad 92k rows to its longest line).
        return lambda lines: sum(int(tok(lines[i:i + 1000], padding=True, return_tensors="np")["attention_mask"].sum())
                                 for i in range(0, len(lines), 1000))
    if case == "tf-text":
        import tensorflow as tf
        import tensorflow_text as tft

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        tokens = Path(vocab).read_text(encoding="utf-8").split("\n")
        tok = tft.FastBertTokenizer(vocab=tokens[:-1] if tokens[-1] == "" else tokens, suffix_indicator="##",
                                    token_out_type=tf.int64, lower_case_nfd_strip_accents=lower,
                                    unknown_token="[UNK]")
        return lambda lines: sum(int(tf.size(tok.tokenize(tf.constant(lines[i:i + 1000])).flat_values))
                                 for i in range(0, len(lines), 1000))
    if case == "flash-tokenizer":
        from flash_tokenizer import BertTokenizerFlash

        tok = BertTokenizerFlash(str(vocab), do_lower_case=lower).tokenizer
        return lambda lines: sum(map(len, tok.batch_encode(lines, "longest", -1, threads > 1)))
    if case == "blingfire":
        import blingfire

        h = blingfire.load_model(os.path.join(os.path.dirname(blingfire.__file__), BLINGFIRE_MODELS[model] + ".bin"))
        return lambda lines: sum(int((blingfire.text_to_ids(h, line, 4096, 100, True) != 0).sum()) for line in lines)
    if case == "google-original":
        sys.path.insert(0, str(ROOT / "python"))
        from bertpiece.references import load_google

        tok = load_google().FullTokenizer(str(vocab), do_lower_case=google_lower)
        return lambda lines: sum(len(tok.convert_tokens_to_ids(tok.tokenize(line))) for line in lines)
    if case == "transformers-legacy":
        from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

        tok = BertTokenizerLegacy(str(vocab), do_lower_case=lower)
        return lambda lines: sum(len(ids) for ids in tok(lines, add_special_tokens=False)["input_ids"])
    raise SystemExit(f"unknown case {case}")


def _hf_dir(vocab, lower):
    import tempfile

    d = tempfile.mkdtemp(prefix="bench-")
    Path(d, "vocab.txt").write_bytes(Path(vocab).read_bytes())
    Path(d, "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer",
                                                            "do_lower_case": lower}))
    return d


def worker(args):
    lines = Path(args.file).read_text(encoding="utf-8").split("\n")
    if args.max_bytes:
        kept, size = [], 0
        for line in lines:
            size += len(line.encode()) + 1
            if size > args.max_bytes:
                break
            kept.append(line)
        lines = kept
    nbytes = sum(len(line.encode()) + 1 for line in lines)
    t0 = time.perf_counter()
    encode = load_case(args.case, args.model, args.vocab, args.lower == "1", args.google_lower == "1", args.threads)
    t1 = time.perf_counter()
    encode(lines[:50])  # warm-up
    rss_before = _rss_now_mb()
    # Small corpora encode in milliseconds: repeat until a second has passed and take the median.
    times = []
    while not times or (sum(times) < 1.0 and len(times) < 25):
        t2 = time.perf_counter()
        ntokens = encode(lines)
        times.append(time.perf_counter() - t2)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"load_s": t1 - t0, "encode_s": sorted(times)[len(times) // 2], "runs": len(times),
                      "bytes": nbytes, "tokens": ntokens, "rss_mb": rss_mb, "rss_growth_mb": rss_mb - rss_before}))


def _rss_now_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def model_for(corpus, model):
    if model != "auto":
        return model
    if corpus.name in ("en-large.txt", "ud-en.txt"):
        return "bert-base-uncased"
    if corpus.name == "ud-zh.txt":
        return "bert-base-chinese"
    return "bert-base-multilingual-cased"


# ----------------------------------------------------------------- driver
def python_for(case, tf_python):
    return tf_python if case == "tf-text" and tf_python else sys.executable


def available(case, tf_python=None):
    module = {"hf-tokenizers": "tokenizers", "transformers": "transformers", "flash-tokenizer": "flash_tokenizer",
              "blingfire": "blingfire", "google-original": "bert", "transformers-legacy": "transformers",
              "tf-text": "tensorflow_text"}.get(case)
    if module is None:
        return True
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([python_for(case, tf_python), "-c", code]).returncode == 0


def run_case(case, file, model, threads, max_bytes, tf_python=None):
    import bertpiece

    entry = bertpiece.PRETRAINED[model]
    cmd = [python_for(case, tf_python), __file__, "--worker", case, "--file", str(file), "--model", model,
           "--vocab", str(bertpiece.vocab_path(model)), "--lower", str(int(entry.hf_do_lower_case)),
           "--google-lower", str(int(entry.do_lower_case)), "--threads", str(threads),
           "--max-bytes", str(max_bytes or 0)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        lines = [x for x in r.stderr.strip().splitlines() if "Error" in x or "error" in x]
        return {"error": (lines or [f"exit {r.returncode}"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


CHECKS = r"""
import json, os, random, resource, sys, time
from pathlib import Path
import numpy as np
import bertpiece
from bertpiece import _core
kind, corpus_dir = sys.argv[1], Path(sys.argv[2])
out = {}
if kind == "load":
    for name in bertpiece.PRETRAINED:
        path = str(bertpiece.vocab_path(name))
        core, full = [], []
        for _ in range(7):
            t = time.perf_counter(); _core.FullTokenizer(path, True); core.append(time.perf_counter() - t)
            t = time.perf_counter(); bertpiece.BertTokenizer.from_pretrained(name); full.append(time.perf_counter() - t)
        out[name] = {"core_ms": 1000 * sorted(core)[3], "bert_tokenizer_ms": 1000 * sorted(full)[3]}
elif kind == "big-string":
    text = (corpus_dir / "en-large.txt").read_text(encoding="utf-8")
    big = (text * (100_000_000 // len(text.encode()) + 1))[:100_000_000]
    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t = time.perf_counter(); b = tok.encode_batch([big], num_threads=1); dt = time.perf_counter() - t
    out = {"bytes": len(big.encode()), "encode_s": dt, "tokens": len(b.ids),
           "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "rss_before_mb": rss0}
elif kind == "scaling":
    # 1 and all threads on en-large, taking turns in one process (a slow spell
    # then hits both): the median of the per-turn ratios.
    lines = (corpus_dir / "en-large.txt").read_text(encoding="utf-8").split(chr(10))
    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    threads = os.cpu_count() or 1
    tok.encode_batch(lines[:50], add_special_tokens=False)
    def timed(n):
        _core._forget_words()
        t = time.perf_counter(); tok.encode_batch(lines, add_special_tokens=False, num_threads=n)
        return time.perf_counter() - t
    ratios, one, many = [], [], []
    for _ in range(7):
        a, b = timed(1), timed(threads)
        one.append(a); many.append(b); ratios.append(a / b)
    nbytes = sum(len(l.encode()) + 1 for l in lines)
    out = {"threads": threads, "ratio": sorted(ratios)[3], "one_mbs": nbytes / sorted(one)[3] / 1e6,
           "all_mbs": nbytes / sorted(many)[3] / 1e6}
elif kind.startswith("ud10k"):
    lines = [l for f in sorted(corpus_dir.glob("ud-*.txt")) for l in f.read_text(encoding="utf-8").split(chr(10)) if l]
    random.Random(0).shuffle(lines)
    lines = lines[:10_000]
    model = "bert-base-multilingual-cased"
    if kind == "ud10k-transformers":
        import tempfile, transformers
        transformers.logging.set_verbosity_error()
        d = tempfile.mkdtemp(); Path(d, "vocab.txt").write_bytes(Path(bertpiece.vocab_path(model)).read_bytes())
        tok = transformers.BertTokenizer.from_pretrained(d, do_lower_case=False)
    else:
        tok = bertpiece.BertTokenizer.from_pretrained(model)
    tok(lines[:100], max_length=128, truncation=True, padding="max_length", return_tensors="np")  # warm-up
    times = []
    for _ in range(3):
        _core._forget_words()  # unseen text every run, as in the main table
        t = time.perf_counter()
        enc = tok(lines, max_length=128, truncation=True, padding="max_length", return_tensors="np")
        times.append(time.perf_counter() - t)
    out = {"encode_s": sorted(times)[1], "shape": list(enc["input_ids"].shape),
           "bytes": sum(len(l.encode()) for l in lines), "ids_sum": int(enc["input_ids"].sum())}
print(json.dumps(out))
"""


def run_check(kind, corpus_dir):
    r = subprocess.run([sys.executable, "-c", CHECKS, kind, str(corpus_dir)], capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def median_run(results, key):
    """The median by `key` of the runs that did not fail (the last failure if all did)."""
    ok = sorted((x for x in results if "error" not in x), key=key)
    return ok[len(ok) // 2] if ok else results[-1]


def main():
    if "--serving" in sys.argv[1:]:  # per-call latency: benches/serving.py, which takes its own options
        import serving

        return serving.main([a for a in sys.argv[1:] if a != "--serving"])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--serving", action="store_true", help="run benches/serving.py (per-call latency) instead")
    ap.add_argument("--corpus", nargs="*", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--model", default="auto", help="a bundled model, or auto (by corpus language)")
    ap.add_argument("--cases", nargs="*", default=["bertpiece", "hf-tokenizers", "transformers", "tf-text",
                                                   "flash-tokenizer", "blingfire", "google-original",
                                                   "transformers-legacy"])
    ap.add_argument("--tf-python", default=os.environ.get("BERTPIECE_BENCH_TF_PYTHON"),
                    help="an interpreter with tensorflow-text (default: this one)")
    ap.add_argument("--slow-bytes", type=int, default=1_000_000, help="input cap for the pure-Python references")
    ap.add_argument("--no-checks", action="store_true", help="skip the load / 100 MB / padded-arrays checks")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--rounds", type=int, default=3, help="sweeps over all cases; each case counts its median run")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--vocab", help=argparse.SUPPRESS)
    ap.add_argument("--lower", help=argparse.SUPPRESS)
    ap.add_argument("--google-lower", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--max-bytes", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.case = args.worker
        return worker(args)

    all_threads = os.cpu_count() or 1
    cases = []
    for case in args.cases:
        if available(case, args.tf_python):
            cases.append(case)
        else:
            print(f"# {case}: not installed, skipped", file=sys.stderr)
    # The whole sweep `--rounds` times over, so that a slow spell of this
    # shared machine hits one run of a case, not all of them; each case then
    # counts its median run (by MB/s).
    runs = {}
    plan = []
    for file in args.corpus:
        model = model_for(file, args.model)
        for threads in sorted({1, all_threads}):
            for case in cases:
                if case in SLOW and threads != 1:
                    continue
                if case == "blingfire" and model not in BLINGFIRE_MODELS:
                    continue
                plan.append((file, model, threads, case))
    for r in range(args.rounds):
        for file, model, threads, case in plan:
            if case in SLOW and r > 0:
                continue  # a hundred times slower than the rest: one round says enough
            cap = args.slow_bytes if case in SLOW else 0
            res = run_case(case, file, model, threads, cap, args.tf_python)
            runs.setdefault((file.name, model, threads, case), []).append(res)
            print(json.dumps({"round": r, "corpus": file.name, "threads": threads, "case": case, **res}), file=sys.stderr)
    rows = []
    base = {}
    for (corpus, model, threads, case), results in runs.items():
        res = median_run(results, key=lambda x: x["bytes"] / x["encode_s"])
        rounds = sum("error" not in x for x in results)
        row = {"corpus": corpus, "model": model, "threads": threads, "case": case, "rounds": rounds, **res}
        if case == "bertpiece":
            base[(corpus, threads)] = res
        rows.append(row)
    for row in rows:
        b = base.get((row["corpus"], row["threads"]))
        if "error" not in row and b and "error" not in b:
            # time per byte relative to bertpiece's: how many times slower than bertpiece
            row["x_slower"] = (row["encode_s"] / row["bytes"]) / (b["encode_s"] / b["bytes"])
    checks = {}
    if not args.no_checks:
        corpus_dir = args.corpus[0].parent if args.corpus else ROOT.parent / "shared" / "data" / "corpus"
        for kind in ("load", "big-string", "scaling"):
            checks[kind] = run_check(kind, corpus_dir)
            print(json.dumps({kind: checks[kind]}), file=sys.stderr)
        # The two sides of the padded-arrays check take turns, `--rounds` times.
        for kind in ("ud10k-bertpiece", "ud10k-transformers"):
            checks[kind] = []
        for _ in range(args.rounds):
            for kind in ("ud10k-bertpiece", "ud10k-transformers"):
                checks[kind].append(run_check(kind, corpus_dir))
                print(json.dumps({kind: checks[kind][-1]}), file=sys.stderr)
        for kind in ("ud10k-bertpiece", "ud10k-transformers"):
            checks[kind] = median_run(checks[kind], key=lambda c: c["encode_s"])
    if args.markdown:
        print_markdown(rows, checks)


def print_markdown(rows, checks):
    print("| corpus | model | threads | tokenizer | MB/s | tokens/s | bertpiece speed-up | load ms | peak RSS MB "
          "| RSS growth MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['corpus']} | {r['model']} | {r['threads']} | {r['case']} | error: {r['error'][:60]} "
                  "| | | | | |")
            continue
        mbs = r["bytes"] / r["encode_s"] / 1e6
        tps = r["tokens"] / r["encode_s"]
        ratio = f"{r['x_slower']:.1f}×" if "x_slower" in r and r["case"] != "bertpiece" else ""
        print(f"| {r['corpus']} | {r['model']} | {r['threads']} | {r['case']} | {mbs:.2f} | {tps:,.0f} | {ratio} "
              f"| {r['load_s'] * 1000:.0f} | {r['rss_mb']:.0f} | {r['rss_growth_mb']:.0f} |")
    # bertpiece against the fastest peer, per corpus and thread count
    print()
    print("| corpus | threads | bertpiece MB/s | fastest peer | its MB/s | bertpiece / fastest peer |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for r in rows:
        if "error" not in r:
            groups.setdefault((r["corpus"], r["threads"]), []).append(r)
    for (corpus, threads), group in groups.items():
        ours = [r for r in group if r["case"] == "bertpiece"]
        peers = [r for r in group if r["case"] != "bertpiece"]
        if not ours or not peers:
            continue
        speed = lambda r: r["bytes"] / r["encode_s"] / 1e6  # noqa: E731
        best = max(peers, key=speed)
        print(f"| {corpus} | {threads} | {speed(ours[0]):.2f} | {best['case']} | {speed(best):.2f} | "
              f"{speed(ours[0]) / speed(best):.2f}× |")
    if checks:
        print()
        load = checks.get("load", {})
        if "error" not in load:
            print("| load (median of 7) | core `FullTokenizer` ms | `BertTokenizer.from_pretrained` ms |")
            print("|---|---|---|")
            for name, v in load.items():
                print(f"| {name} | {v['core_ms']:.1f} | {v['bert_tokenizer_ms']:.1f} |")
        sc = checks.get("scaling", {})
        if "error" not in sc and sc:
            print(f"\nen-large, 1 and {sc['threads']} threads taking turns in one process (7 turns, medians): "
                  f"{sc['one_mbs']:.1f} and {sc['all_mbs']:.1f} MB/s, {sc['ratio']:.2f}× per turn.")
        big = checks.get("big-string", {})
        if "error" not in big and big:
            print(f"\nOne 100 MB string (en-large repeated), 1 thread: {big['bytes'] / big['encode_s'] / 1e6:.1f} MB/s, "
                  f"{big['tokens']:,} ids, peak RSS {big['rss_mb']:.0f} MB (text alone: 100 MB).")
        ours, theirs = checks.get("ud10k-bertpiece", {}), checks.get("ud10k-transformers", {})
        if ours and theirs and "error" not in ours and "error" not in theirs:
            same = "same ids" if ours["ids_sum"] == theirs["ids_sum"] else "IDS DIFFER"
            print(f"\n10,000 UD sentences -> padded NumPy (max_length 128, truncation; {same}): bertpiece "
                  f"{ours['encode_s'] * 1000:.0f} ms, transformers {theirs['encode_s'] * 1000:.0f} ms: "
                  f"{theirs['encode_s'] / ours['encode_s']:.1f}× faster.")


if __name__ == "__main__":
    main()

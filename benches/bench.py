#!/usr/bin/env python3
"""Text -> ids throughput of bertpiece and its peers, measured in one run on the
same inputs.

Each (tokenizer, corpus, threads) case runs in a fresh interpreter, so load
time and peak RSS are its own. Reported: MB/s (UTF-8 bytes of input per
second of encoding), tokens/s, load time, peak RSS, and each case's time
relative to bertpiece's on the same corpus and thread count.

    python benches/bench.py                      # all corpora in ../shared/data/corpus
    python benches/bench.py --corpus ../shared/data/corpus/en-large.txt --markdown

Peers that are not installed are skipped (and said so). The slow pure-Python
references run on the first --slow-bytes of each corpus only.
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
def load_case(case, model, threads):
    """Returns (encode(lines) -> number of ids) for `case`."""
    import bertpiece

    vocab = bertpiece.vocab_path(model)
    lower = bertpiece.PRETRAINED[model].hf_do_lower_case
    if case == "bertpiece":
        tok = bertpiece.BertTokenizer.from_pretrained(model)
        return lambda lines: len(tok.encode_batch(lines, num_threads=threads).ids)
    if case == "bertpiece-google":
        tok = bertpiece.FullTokenizer.from_pretrained(model)
        return lambda lines: sum(len(tok.encode(line)) for line in lines)
    if case == "hf-tokenizers":
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        from tokenizers import BertWordPieceTokenizer

        tok = BertWordPieceTokenizer(vocab, lowercase=lower)
        return lambda lines: sum(len(e.ids) for e in tok.encode_batch(lines))
    if case == "transformers":
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        import transformers

        transformers.logging.set_verbosity_error()
        tok = transformers.BertTokenizer.from_pretrained(_hf_dir(vocab, lower))
        # Padded NumPy arrays, 1,000 lines a call (one call for all of en-large
        # would pad 92k rows to its longest line).
        return lambda lines: sum(int(tok(lines[i:i + 1000], padding=True, return_tensors="np")["attention_mask"].sum())
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
        sys.path.insert(0, str(ROOT / "tests"))
        from google_reference import load_google

        tok = load_google().FullTokenizer(str(vocab), do_lower_case=bertpiece.PRETRAINED[model].do_lower_case)
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
    encode = load_case(args.case, args.model, args.threads)
    t1 = time.perf_counter()
    encode(lines[:50])  # warm-up
    t2 = time.perf_counter()
    ntokens = encode(lines)
    t3 = time.perf_counter()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"load_s": t1 - t0, "encode_s": t3 - t2, "bytes": nbytes, "tokens": ntokens, "rss_mb": rss_mb}))


# ----------------------------------------------------------------- driver
def available(case):
    module = {"hf-tokenizers": "tokenizers", "transformers": "transformers", "flash-tokenizer": "flash_tokenizer",
              "blingfire": "blingfire", "google-original": "bert", "transformers-legacy": "transformers"}.get(case)
    if module is None:
        return True
    import importlib.util

    return importlib.util.find_spec(module) is not None


def run_case(case, file, model, threads, max_bytes):
    cmd = [sys.executable, __file__, "--worker", case, "--file", str(file), "--model", model,
           "--threads", str(threads), "--max-bytes", str(max_bytes or 0)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        lines = [x for x in r.stderr.strip().splitlines() if "Error" in x or "error" in x]
        return {"error": (lines or [f"exit {r.returncode}"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", nargs="*", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--model", default="bert-base-uncased")
    ap.add_argument("--cases", nargs="*", default=["bertpiece", "hf-tokenizers", "transformers", "flash-tokenizer",
                                                   "blingfire", "google-original", "transformers-legacy"])
    ap.add_argument("--slow-bytes", type=int, default=1_000_000, help="input cap for the pure-Python references")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--max-bytes", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.case = args.worker
        return worker(args)

    all_threads = os.cpu_count() or 1
    rows = []
    for case in args.cases:
        if not available(case):
            print(f"# {case}: not installed, skipped", file=sys.stderr)
    for file in args.corpus:
        for threads in sorted({1, all_threads}):
            base = None
            for case in [c for c in args.cases if available(c)]:
                if case in SLOW and threads != 1:
                    continue
                cap = args.slow_bytes if case in SLOW else 0
                res = run_case(case, file, args.model, threads, cap)
                if case == "bertpiece":
                    base = res
                row = {"corpus": file.name, "threads": threads, "case": case, **res}
                if "error" not in res and base and "error" not in base:
                    # time ratio per byte: how many times slower than bertpiece
                    row["x_slower"] = (res["encode_s"] / res["bytes"]) / (base["encode_s"] / base["bytes"])
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    if args.markdown:
        print("| corpus | threads | tokenizer | MB/s | tokens/s | vs bertpiece | load ms | peak RSS MB |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            if "error" in r:
                print(f"| {r['corpus']} | {r['threads']} | {r['case']} | error: {r['error'][:60]} | | | | |")
                continue
            mbs = r["bytes"] / r["encode_s"] / 1e6
            tps = r["tokens"] / r["encode_s"]
            ratio = f"{r['x_slower']:.2f}× time" if "x_slower" in r else ""
            print(f"| {r['corpus']} | {r['threads']} | {r['case']} | {mbs:.2f} | {tps:,.0f} | {ratio} | "
                  f"{r['load_s'] * 1000:.0f} | {r['rss_mb']:.0f} |")


if __name__ == "__main__":
    main()

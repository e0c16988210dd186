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
import subprocess
import sys
from pathlib import Path

from bench_checks import run_check  # benches/ is the script's directory, so on sys.path
from bench_markdown import print_markdown
from bench_worker import BLINGFIRE_MODELS, worker

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPORA = sorted((ROOT.parent / "shared" / "data" / "corpus").glob("*.txt"))
SLOW = {"google-original", "transformers-legacy"}


def model_for(corpus, model):
    if model != "auto":
        return model
    if corpus.name in ("en-large.txt", "ud-en.txt"):
        return "bert-base-uncased"
    if corpus.name == "ud-zh.txt":
        return "bert-base-chinese"
    return "bert-base-multilingual-cased"


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


if __name__ == "__main__":
    main()

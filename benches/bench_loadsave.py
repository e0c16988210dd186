#!/usr/bin/env python3
"""Load and save time (and peak memory) of bertpiece against HF tokenizers 0.23.3 /
transformers 5.24 on real-sized files: a 250,002-piece XLM-R-shaped Unigram and a
50,265-token RoBERTa-shaped byte-level BPE.

    python benches/bench_loadsave.py [--reps 5] [--cases xlmr250k,roberta50k] [--ops ...]

Files (built once, offline, cached in benches/.cache/loadsave/):
- xlmr250k: tests/auto_shapes.py's XLM-R folder (a sentencepiece Unigram of 3,002
  pieces trained on the UD samples, converted by transformers) scaled to 250,002
  pieces by made-up pieces (each real piece with a counter appended) with made-up
  f32 scores in [-20, -5] held as Python floats, as converters hold sentencepiece's
  scores; built by transformers' own XLMRobertaTokenizer(vocab=..., charsmap) and
  saved by its save_pretrained (a 250k sentencepiece training is too slow here).
- roberta50k: HF's BpeTrainer (byte-level, RoBERTa's settings) on the first 6 MB
  of /work/shared/data/corpus/en-large.txt at vocab 50,265, saved by
  transformers' RobertaTokenizer.save_pretrained.

Each (library, operation, file) runs in a fresh interpreter: one untimed warm-up,
then --reps timed runs; the median wall and CPU (process_time) time is printed, and the peak RSS growth over the
interpreter's after imports and setup (ru_maxrss; both libraries' auto operations import
transformers.AutoTokenizer in setup, which imports torch). Operations: Tokenizer.from_file,
to_str(), save(path), pickle.dumps+loads of a Tokenizer, AutoTokenizer.from_pretrained
(folder), save_pretrained, pickle.dumps+loads of the AutoTokenizer object.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, "benches", ".cache", "loadsave")
CORPUS = "/work/shared/data/corpus/en-large.txt"
OPS = ("from_file", "to_str", "save", "pickle", "auto_load", "save_pretrained", "auto_pickle")
LIBS = ("bertpiece", "hf")


def _build_xlmr(folder: str) -> None:
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import base64
    import random

    import numpy as np
    import transformers
    from auto_shapes import folder as shape_folder

    small = json.load(open(os.path.join(shape_folder("xlmr"), "tokenizer.json"), encoding="utf-8"))
    pieces = small["model"]["vocab"]  # [piece, score]; <s> <pad> </s> <unk> first, <mask> last
    charsmap = base64.b64decode(small["normalizer"]["precompiled_charsmap"])  # transformers takes the bytes
    specials, body, mask = pieces[:4], pieces[4:-1], pieces[-1]
    rng = random.Random(250002)
    vocab = [tuple(p) for p in specials] + [tuple(p) for p in body]
    seen = {p for p, _ in vocab}
    k = 0
    while len(vocab) < 250001:
        piece = body[k % len(body)][0] + str(k // len(body))
        k += 1
        if piece not in seen:
            seen.add(piece)
            vocab.append((piece, float(np.float32(rng.uniform(-20.0, -5.0)))))
    vocab.append(tuple(mask))
    tok = transformers.XLMRobertaTokenizer(vocab=vocab, _spm_precompiled_charsmap=charsmap)
    tok.save_pretrained(folder)


def _build_roberta(folder: str) -> None:
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    with open(CORPUS, encoding="utf-8") as f:
        text = f.read(6_000_000)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=50265, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                                  show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(text.splitlines(), trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    transformers.RobertaTokenizer(vocab=model["vocab"], merges=merges).save_pretrained(folder)


def case_folder(case: str) -> str:
    folder = os.path.join(CACHE, case)
    if not os.path.exists(os.path.join(folder, "tokenizer.json")):
        os.makedirs(folder, exist_ok=True)
        {"xlmr250k": _build_xlmr, "roberta50k": _build_roberta}[case](folder)
    return folder


def _one(lib: str, op: str, case: str, reps: int) -> dict:
    """Times `op` here (run in a fresh interpreter by `main`)."""
    folder = case_folder(case)
    path = os.path.join(folder, "tokenizer.json")
    if lib == "bertpiece":
        import bertpiece

        Tok, Auto = bertpiece.Tokenizer, bertpiece.AutoTokenizer
        if op.startswith("auto") or op == "save_pretrained":
            # The imports the HF column's setup does (transformers.AutoTokenizer imports torch when
            # installed, ~520 MB of RSS; bertpiece.AutoTokenizer's first load needs the same ones):
            # the peak counts the load, not an import both pay.
            import transformers

            transformers.AutoTokenizer
    else:
        import tokenizers
        import transformers

        Tok, Auto = tokenizers.Tokenizer, transformers.AutoTokenizer
    out = tempfile.mkdtemp(prefix="bench-loadsave-")
    tok = Tok.from_file(path) if op in ("to_str", "save", "pickle") else None
    auto = Auto.from_pretrained(folder) if op in ("save_pretrained", "auto_pickle") else None
    run = {
        "from_file": lambda: Tok.from_file(path),
        "to_str": lambda: tok.to_str(),
        "save": lambda: tok.save(os.path.join(out, "t.json")),
        "pickle": lambda: pickle.loads(pickle.dumps(tok)),
        "auto_load": lambda: Auto.from_pretrained(folder),
        "save_pretrained": lambda: auto.save_pretrained(out),
        "auto_pickle": lambda: pickle.loads(pickle.dumps(auto)),
    }[op]
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    run()
    times, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"ms": 1000 * statistics.median(times), "cpu_ms": 1000 * statistics.median(cpu),
            "peak_mb": (peak - base) / 1024}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--cases", default="xlmr250k,roberta50k")
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--one", nargs=3, metavar=("LIB", "OP", "CASE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(*args.one, args.reps)))
        return 0
    cases, ops = args.cases.split(","), args.ops.split(",")
    for case in cases:
        folder = case_folder(case)
        size = os.path.getsize(os.path.join(folder, "tokenizer.json")) / 1e6
        print(f"\n{case}: tokenizer.json {size:.1f} MB, load average {os.getloadavg()[0]:.1f}")
        print("| operation | bertpiece ms | HF ms | bertpiece / HF | CPU ms bertpiece / HF | CPU ratio "
              "| bertpiece peak MB | HF peak MB |")
        print("|---|---|---|---|---|---|---|---|")
        for op in ops:
            res = {}
            for lib in LIBS:
                proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--reps", str(args.reps),
                                       "--one", lib, op, case], capture_output=True, text=True)
                if proc.returncode != 0:
                    print(proc.stderr, file=sys.stderr)
                    return 1
                res[lib] = json.loads(proc.stdout.strip().splitlines()[-1])
            b, h = res["bertpiece"], res["hf"]
            print(f"| {op} | {b['ms']:.1f} | {h['ms']:.1f} | {b['ms'] / h['ms']:.2f}x | "
                  f"{b['cpu_ms']:.1f} / {h['cpu_ms']:.1f} | {b['cpu_ms'] / h['cpu_ms']:.2f}x | "
                  f"{b['peak_mb']:.0f} | {h['peak_mb']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

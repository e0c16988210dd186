#!/usr/bin/env python3
"""A BERT-shaped tokenizer.json through `bertpiece.Tokenizer` and
`bertpiece.AutoTokenizer` (issues 25 and 26): two builds of bertpiece taking
turns, and optionally nanotoken's `as_hf()` on the same file, in CPU time.

    python benches/ab_bert_shaped.py A_DIR B_DIR [--turns 5] [--lines 2000] [--nanotoken /path/to/python] [--texts ewt]
        [--bert-tokenizer]

A_DIR and B_DIR each hold a `bertpiece` package (a copy of `python/` with a
build's `_core.abi3.so`). The folder is what transformers 5.24 saves for
`BertTokenizer(vocab=<bundled bert-base-uncased.txt>)` (made once in
.cache/bert-shaped/). The texts: the first `--lines` non-empty lines of
en-large.txt, or with `--texts ewt` the 2,000 UD English-EWT sentences of
benches/bert_peers.py (`sentences()`). Cases, CPU time per call (µs):
- `bulk`: `Tokenizer.from_file(tokenizer.json).encode_batch_arrays(lines, num_threads=1)`, per line, the word
  memo emptied before each pass (nanotoken: `encode_batch` after `clear_cache()`);
- `encode`: `Tokenizer.encode(text)` (an `Encoding`) over 200 lines, per call (bertpiece only);
- `one`: `AutoTokenizer(folder)(text)` over 200 lines, per call;
- `padded B`: `AutoTokenizer(folder)(lines[:B], padding=True, truncation=True, max_length=128,
  return_tensors="np")`, B = 1, 8, 32, 256.
With `--bert-tokenizer`, B's `bertpiece.BertTokenizer` on the bundled vocabulary takes the same
calls too (engine "BertTokenizer": what AutoTokenizer's calls on the folder should cost).
Every turn runs one fresh interpreter per engine, pinned to CPU 0 (`taskset -c 0`), in
alternating order; each reports the median over 7 passes of its CPU time (`time.process_time`),
and the table gives the median over turns. Ids are checked equal between engines first
(nanotoken's against bertpiece's on every case).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus" / "en-large.txt"
if not CORPUS.exists():
    CORPUS = ROOT.parent.parent / "shared" / "data" / "corpus" / "en-large.txt"
FOLDER = ROOT / ".cache" / "bert-shaped" / "bert-base-uncased"
BATCHES = (1, 8, 32, 256)

WORKER = r"""
import hashlib, json, statistics, sys, time, warnings
warnings.filterwarnings("ignore")
engine, where, folder, corpus, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
if corpus.endswith("ud-en.txt"):  # (bert_peers.sentences(): the last 2,000 of the first 3,852 lines)
    lines = [s for s in open(corpus, encoding="utf-8").read().split("\n") if s][:3852][-2000:][:n]
else:
    lines = [l for l in open(corpus, encoding="utf-8").read().split("\n", 4 * n) if l.strip()][:n]
if engine in ("bertpiece", "bert"):
    sys.path.insert(0, where)
    import bertpiece
    if engine == "bert":
        tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path("bert-base-uncased"), do_lower_case=True)
    else:
        tok = bertpiece.AutoTokenizer.from_pretrained(folder)
    core = bertpiece.Tokenizer.from_file(folder + "/tokenizer.json")
    def bulk():
        bertpiece._core._forget_words()  # unseen words every pass, as nanotoken's clear_cache
        return core.encode_batch_arrays(lines, num_threads=1)
    bulk_ids = lambda: bulk().ids.tolist()
else:
    import nanotoken
    base = nanotoken.Tokenizer.from_json(open(folder + "/tokenizer.json", encoding="utf-8").read())
    tok = base.as_hf()
    def bulk():
        base.clear_cache()
        return base.encode_batch(lines, add_special_tokens=True)
    bulk_ids = lambda: bulk().ids.tolist()
def cpu(f, calls):
    times = []
    f()
    for _ in range(7):
        t = time.process_time()
        for _ in range(calls):
            f()
        times.append((time.process_time() - t) / calls * 1e6)
    return statistics.median(times)
out, check = {}, {}
out["bulk"] = cpu(bulk, 1) / len(lines)
check["bulk"] = hashlib.sha256(json.dumps(bulk_ids()).encode()).hexdigest()
few = lines[:200]
if engine in ("bertpiece", "bert"):
    out["encode"] = cpu(lambda: [core.encode(t) for t in few], 1) / len(few)
    check["encode"] = hashlib.sha256(json.dumps([core.encode(t).ids for t in few]).encode()).hexdigest()
out["one"] = cpu(lambda: [tok(t) for t in few], 1) / len(few)
check["one"] = hashlib.sha256(json.dumps([list(tok(t)["input_ids"]) for t in few]).encode()).hexdigest()
for b in (1, 8, 32, 256):
    texts = lines[:b]
    f = lambda: tok(texts, padding=True, truncation=True, max_length=128, return_tensors="np")
    out[f"padded {b}"] = cpu(f, max(2000 // b, 5))
    check[f"padded {b}"] = hashlib.sha256(f()["input_ids"].astype("int64").tobytes()).hexdigest()
print(json.dumps({"times": out, "check": check}))
"""


def make_folder() -> Path:
    if not (FOLDER / "tokenizer.json").exists():
        import warnings

        import transformers
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vocab = ROOT / "python" / "bertpiece" / "vocab" / "bert-base-uncased.txt"
            transformers.BertTokenizer(vocab=str(vocab)).save_pretrained(str(FOLDER))
    return FOLDER


def run(python: str, engine: str, where: str, folder: Path, lines: int, corpus: Path = CORPUS) -> dict:
    cmd = ["taskset", "-c", "0", python, "-c", WORKER, engine, where, str(folder), str(corpus), str(lines)]
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"{engine} ({where or python}) failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--nanotoken", help="a Python with nanotoken 0.1.0 installed (e.g. .cache/bert-peers/peers/bin/python)")
    parser.add_argument("--texts", choices=("en-large", "ewt"), default="en-large")
    parser.add_argument("--bert-tokenizer", action="store_true")
    args = parser.parse_args()
    corpus = CORPUS if args.texts == "en-large" else CORPUS.with_name("ud-en.txt")
    folder = make_folder()
    engines = [("A", sys.executable, "bertpiece", args.a), ("B", sys.executable, "bertpiece", args.b)]
    if args.nanotoken:
        engines.append(("nanotoken", args.nanotoken, "nanotoken", ""))
    if args.bert_tokenizer:
        engines.append(("BertTokenizer", sys.executable, "bert", args.b))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    results: dict[str, list[dict]] = {name: [] for name, *_ in engines}
    checks = {}
    for turn in range(args.turns):
        order = engines if turn % 2 == 0 else engines[::-1]
        for name, python, engine, where in order:
            r = run(python, engine, where, folder, args.lines, corpus)
            results[name].append(r["times"])
            checks[name] = r["check"]
    for name in checks:
        for case, digest in checks[name].items():
            if digest != checks["B"].get(case):
                print(f"ids differ: {name} vs B on {case}")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    cases = list(results["B"][0])
    names = [name for name, *_ in engines]
    head = " | ".join(f"{n} CPU µs" for n in names)
    ratios = " | ".join(f"B / {n}" for n in names if n != "B")
    print(f"\n| call | {head} | {ratios} |\n|---|" + "---|" * (len(names) + len(names) - 1))
    for case in cases:
        med = {n: statistics.median(r[case] for r in results[n]) if case in results[n][0] else None for n in names}
        cells = " | ".join("—" if med[n] is None else f"{med[n]:.2f}" for n in names)
        rat = " | ".join("—" if med[n] is None else f"{med['B'] / med[n]:.3f}×" for n in names if n != "B")
        print(f"| {case} | {cells} | {rat} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""BERT against its 2026 exact peers (issue 28), in one command:

    python benches/peers.py bert [--passes 15] [--bulk-mb 8] [--bulk-skip-mb 0] [--skip-bulk] [--skip-serving] [--no-transformers]

Peers, pinned and installed by this script into venvs under .cache/bert-peers/
(PyPI only; made once, remade when the pins change): nanotoken and tokie
beside bertpiece's own dependencies (bertpiece itself is imported from this
checkout's python/), and tokenizers 1.0.0rc3 in a second venv (it replaces
the 0.23 that transformers needs). transformers 5 runs in the project's own
venv (the interpreter running this script). The tokenizer.json every peer
loads is saved by transformers from the bundled bert-base-uncased vocabulary
(bert-base-multilingual-cased for the multilingual set).

Serving (microseconds per call, wall clock): the last 2,000 of the 3,852 UD
English-EWT sentences of ud-en.txt (as benches/serving.py). Cases: one text
(`tok(text)`, `tok.encode(text)`; tokie and tokenizers: `encode(text).ids`;
nanotoken: its `as_hf()` object), and padded NumPy batches of 1, 8, 32 and
256 (`tok(texts, padding=True, truncation=True, max_length=128,
return_tensors="np")`). bertpiece, nanotoken and tokie run in ONE process,
interleaved pass by pass (the machine is shared: a load spike hits all
three); transformers and tokenizers 1.0rc3 run in their own processes just
after. Per-call figures: median over `--passes` passes, of wall-clock time and of
the process's CPU time (all its threads; on a loaded machine wall clock
mostly measures the scheduler). Before timing, every
peer's ids are checked equal to bertpiece's on every input of the case.

Bulk (MB/s of UTF-8 input): the first `--bulk-mb` MB of en-large.txt (or those from
`--bulk-skip-mb` MB in: text the rounds did not tune on) with
bert-base-uncased, and all ud-*.txt but English and Chinese (Arabic, German,
Greek, Spanish, French, Hindi, Japanese, Korean, Russian, Vietnamese) with
bert-base-multilingual-cased; each engine's flat batch call, special tokens
added, at 1 and 2 threads, each (engine, threads) in a fresh interpreter
pinned to that many CPUs (taskset, RAYON_NUM_THREADS); word caches emptied
before every pass where the engine has a call for it (bertpiece, nanotoken);
median of `--bulk-passes`. Every engine's ids are checked equal to
bertpiece's (sha256 of all ids and row lengths).

Output: the tables (markdown) with bertpiece's ratio to each peer, and
`uptime` before and after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from corpus_text import head  # benches/ is the script's directory
from peer_venvs import peer_python

ROOT = Path(__file__).resolve().parent.parent
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")
CACHE = ROOT / ".cache" / "bert-peers"
BATCHES = [1, 8, 32, 256]
EWT_LINES = 3852
MULTI = ["ar", "de", "el", "es", "fr", "hi", "ja", "ko", "ru", "vi"]


# ------------------------------------------------------------------ setup (project venv)
def tokenizer_json(model):
    """tokenizer.json saved by transformers from the bundled vocabulary of `model`."""
    path = CACHE / f"{model}.json"
    if not path.exists():
        sys.path.insert(0, str(ROOT / "python"))
        import bertpiece
        import transformers

        CACHE.mkdir(parents=True, exist_ok=True)
        lower = "uncased" in model
        tok = transformers.BertTokenizer(vocab=bertpiece.vocab_path(model), do_lower_case=lower)
        tok.backend_tokenizer.save(str(path))
    return str(path)


def sentences():
    lines = [s for s in (DATA / "corpus" / "ud-en.txt").read_text(encoding="utf-8").split("\n") if s][:EWT_LINES]
    return lines[-2000:]


def bulk_text(name, mb, skip_mb=0.0):
    """(path, model) of a bulk set, written once under the cache; en-large's from `skip_mb` MB in."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / (f"bulk-{name}-{mb}.txt" if not skip_mb or name != "en-large" else f"bulk-{name}-{mb}-from-{skip_mb}.txt")
    if name == "en-large":
        model = "bert-base-uncased"
        if not path.exists():
            path.write_text(head(DATA / "corpus" / "en-large.txt", mb, skip_mb), encoding="utf-8")
    else:
        model = "bert-base-multilingual-cased"
        if not path.exists():
            parts = [(DATA / "corpus" / f"ud-{lang}.txt").read_text(encoding="utf-8") for lang in MULTI]
            path.write_text("".join(p if p.endswith("\n") else p + "\n" for p in parts), encoding="utf-8")
    return str(path), model


def run_worker(python, spec, threads=None, pythonpath=True):
    env = dict(os.environ, TOKENIZERS_PARALLELISM="true")
    if pythonpath:
        env["PYTHONPATH"] = str(ROOT / "python")
    cmd = [python, __file__, "--worker", json.dumps(spec)]
    if threads is not None:
        env.update(RAYON_NUM_THREADS=str(threads), RAYON_RS_NUM_CPUS=str(threads), BERTPIECE_NUM_THREADS=str(threads))
        cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:threads])
        cmd = ["taskset", "-c", cpus, *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1][:300]}


# ------------------------------------------------------------------ workers (peer venvs)
def load(engine, path, model):
    """{case: fn} of `engine`: "one", "encode", "padded" (a list of texts), "bulk" (lines -> (ids, lengths))."""
    if engine == "bertpiece":
        import bertpiece
        import numpy as np

        tok = bertpiece.BertTokenizer(vocab_file=bertpiece.vocab_path(model), do_lower_case="uncased" in model)

        def bulk(lines):
            bertpiece._core._forget_words()  # unseen words every pass
            b = tok.encode_batch(lines, add_special_tokens=True)
            return b.ids, np.diff(b.row_splits)
        return {"one": tok, "encode": tok.encode, "bulk": bulk,
                "padded": lambda x: tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")}
    if engine == "nanotoken":
        import nanotoken

        base = nanotoken.Tokenizer.from_json(open(path, encoding="utf-8").read())
        tok = base.as_hf()

        def bulk(lines):
            base.clear_cache()
            r = base.encode_batch(lines, add_special_tokens=True)
            return r.ids, r.lengths
        return {"one": tok, "encode": tok.encode, "bulk": bulk,
                "padded": lambda x: tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")}
    if engine == "tokie":
        import tokie

        tok = tokie.Tokenizer.from_json(path)
        one = lambda s: tok.encode(s).ids  # noqa: E731
        return {"one": one, "encode": one, "bulk": tok.encode_batch_flat}
    if engine == "tokenizers":
        import tokenizers

        tok = tokenizers.Tokenizer.from_file(path)
        one = lambda s: tok.encode(s).ids  # noqa: E731

        def bulk(lines):
            rows = [e.ids for e in tok.encode_batch(lines)]
            return [i for r in rows for i in r], [len(r) for r in rows]
        return {"one": one, "encode": one, "bulk": bulk, "version": tokenizers.__version__}
    if engine == "transformers":
        import transformers

        import bertpiece
        transformers.logging.set_verbosity_error()
        tok = transformers.BertTokenizer(vocab=bertpiece.vocab_path(model), do_lower_case="uncased" in model)
        return {"one": tok, "encode": tok.encode,
                "padded": lambda x: tok(x, padding=True, truncation=True, max_length=128, return_tensors="np")}
    raise ValueError(f"unknown engine {engine!r}")


def ids_of(case, out):
    """A call's ids as a plain value, to compare engines."""
    if case == "padded":
        return [out["input_ids"].tolist(), out["attention_mask"].tolist()]
    if case == "one" and not isinstance(out, list):
        return list(out["input_ids"])
    return [int(i) for i in out]


def serving_worker(spec):
    engines = {e: load(e, spec["tokenizer"], "bert-base-uncased") for e in spec["engines"]}
    texts, passes = sentences(), spec["passes"]
    cases = {"one": texts, "encode": texts}
    for b in BATCHES:  # about 2,000 texts per pass, 8 calls at least
        cases[f"padded {b}"] = [texts[i:i + b] for i in range(0, len(texts), b)][:max(8, 2000 // b)]
    result = {}
    for case, items in cases.items():
        kind = case.split()[0]
        fns = {e: fs[kind] for e, fs in engines.items() if kind in fs}
        if not fns:
            continue
        first = next(iter(fns))
        want = [ids_of(kind, fns[first](x)) for x in items]
        exact = {e: all(ids_of(kind, fn(x)) == w for x, w in zip(items, want)) for e, fn in fns.items()}
        times, cpu = {e: [] for e in fns}, {e: [] for e in fns}
        for _ in range(passes):
            for e, fn in fns.items():
                t, c = time.perf_counter(), time.process_time()
                for x in items:
                    fn(x)
                times[e].append((time.perf_counter() - t) / len(items) * 1e6)
                cpu[e].append((time.process_time() - c) / len(items) * 1e6)
        result[case] = {e: {"us": statistics.median(times[e]), "cpu_us": statistics.median(cpu[e]),
                            "exact_vs_" + first: exact[e]} for e in fns}
    return result


def bulk_worker(spec):
    fns = load(spec["engine"], spec["tokenizer"], spec["model"])
    with open(spec["text"], encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n") if line]
    size = sum(len(s.encode()) + 1 for s in lines)
    ids, lengths = fns["bulk"](lines)  # warm-up; its ids give the digest
    h = hashlib.sha256()
    h.update(bytes(memoryview(__import__("array").array("I", [int(i) for i in ids]))))
    h.update(bytes(memoryview(__import__("array").array("Q", [int(n) for n in lengths]))))
    times = []
    for _ in range(spec["passes"]):
        t = time.perf_counter()
        fns["bulk"](lines)
        times.append(time.perf_counter() - t)
    return {"mbs": size / statistics.median(times) / 1e6, "digest": h.hexdigest(), "version": fns.get("version")}


# ------------------------------------------------------------------ driver
def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def serving_tables(peers_py, tok1_py, args):
    path = tokenizer_json("bert-base-uncased")
    runs = [run_worker(peers_py, {"mode": "serving", "engines": ["bertpiece", "nanotoken", "tokie"],
                                  "tokenizer": path, "passes": args.passes})]
    if tok1_py:
        runs.append(run_worker(tok1_py, {"mode": "serving", "engines": ["tokenizers"], "tokenizer": path,
                                         "passes": args.passes}, pythonpath=False))
    if args.transformers:
        runs.append(run_worker(sys.executable, {"mode": "serving", "engines": ["bertpiece", "transformers"],
                                                "tokenizer": path, "passes": max(3, args.passes // 5)}))
    merged = {}
    for r in runs:
        if "error" in r:
            print(f"(a serving worker failed: {r['error']})")
            continue
        for case, by_engine in r.items():
            for e, v in by_engine.items():
                merged.setdefault(case, {}).setdefault(e, v)  # bertpiece: the figure of the peers' process
    cols = ["bertpiece", "nanotoken", "tokie", "tokenizers", "transformers"]
    for key, what in (("us", "µs per call (wall clock)"), ("cpu_us", "CPU µs per call (all the process's threads)")):
        print(f"\n| {what} | " + " | ".join(cols) + " | bertpiece / nanotoken | bertpiece / tokie |")
        print("|---" * (len(cols) + 3) + "|")
        for case, by_engine in merged.items():
            cells = [f"{by_engine[c][key]:.1f}" + ("" if all(v for k, v in by_engine[c].items() if k.startswith(
                "exact")) else " ≠") if c in by_engine else "—" for c in cols]
            bp = by_engine.get("bertpiece", {}).get(key)
            ratio = [f"{bp / by_engine[p][key]:.2f}×" if bp and p in by_engine else "—" for p in ("nanotoken", "tokie")]
            name = {"one": "one text: `tok(text)` (peers `encode(text).ids`)", "encode": "`tok.encode(text)`"}.get(
                case, case.replace("padded", "padded NumPy, max_length 128, batch of"))
            print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(ratio) + " |")
    print("(≠: ids differ from bertpiece's on some input; transformers and tokenizers 1.0rc3 run in their own "
          "processes, the rest interleaved in one. CPU time: what a loaded machine does not distort, "
          "as long as an engine's threads are busy, not waiting)")


def bulk_tables(peers_py, tok1_py, args):
    engines = [("bertpiece", peers_py), ("nanotoken", peers_py), ("tokie", peers_py)]
    if tok1_py:
        engines.append(("tokenizers", tok1_py))
    print("\n| bulk, MB/s | threads | " + " | ".join(e for e, _ in engines) + " | bertpiece / best peer |")
    print("|---" * (len(engines) + 3) + "|")
    for name in ("en-large", "multilingual"):
        text, model = bulk_text(name, args.bulk_mb, args.bulk_skip_mb)
        path = tokenizer_json(model)
        for threads in (1, 2):
            res = {e: run_worker(py, {"mode": "bulk", "engine": e, "tokenizer": path, "model": model, "text": text,
                                      "passes": args.bulk_passes}, threads=threads, pythonpath=e != "tokenizers")
                   for e, py in engines}
            want = res["bertpiece"].get("digest")
            cells = []
            for e, _ in engines:
                r = res[e]
                cells.append(f"error: {r['error'][:60]}" if "error" in r else
                             f"{r['mbs']:.1f}" + ("" if r["digest"] == want else " ≠"))
            peers = [res[e]["mbs"] for e, _ in engines[1:] if "mbs" in res[e] and res[e]["digest"] == want]
            ratio = f"{res['bertpiece']['mbs'] / max(peers):.2f}×" if peers and "mbs" in res["bertpiece"] else "—"
            print(f"| {name} ({model}) | {threads} | " + " | ".join(cells) + f" | {ratio} |")
    print("(≠: ids differ from bertpiece's; such a peer is left out of the ratio)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=15)
    ap.add_argument("--bulk-mb", type=float, default=8)
    ap.add_argument("--bulk-passes", type=int, default=5)
    ap.add_argument("--bulk-skip-mb", type=float, default=0,
                    help="en-large's bulk text from this many MB in (20: its last 8 MB, text no round here tuned on)")
    ap.add_argument("--skip-bulk", action="store_true")
    ap.add_argument("--skip-serving", action="store_true")
    ap.add_argument("--no-tokenizers-1", dest="tok1", action="store_false")
    ap.add_argument("--no-transformers", dest="transformers", action="store_false")
    args = ap.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        out = serving_worker(spec) if spec["mode"] == "serving" else bulk_worker(spec)
        print("RESULT " + json.dumps(out))
        return
    peers_py = peer_python("bert")
    tok1_py = peer_python("tok1") if args.tok1 else None
    print(f"load before: {uptime()}")
    if not args.skip_serving:
        serving_tables(peers_py, tok1_py, args)
    if not args.skip_bulk:
        bulk_tables(peers_py, tok1_py, args)
    print(f"\nload after: {uptime()}")


if __name__ == "__main__":
    main()

"""bench.py's four bertpiece-only checks, each in a fresh interpreter: load time of each bundled
vocabulary, one 100 MB string, 1 against all threads taking turns in one process, and 10,000 UD sentences
to padded NumPy arrays against transformers. Not run by itself."""

from __future__ import annotations

import json
import subprocess
import sys

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

"""Peer tokenizers run on the same tokenizer.json and text, each in a
subprocess with its own venv's python, pinned to `threads` CPUs (taskset and
RAYON_NUM_THREADS), so one library's thread pool or cache cannot help another.

One function per peer, each `peer(python, tokenizer_path, text_path, threads,
modes=..., repeat=...)`, returning the worker's JSON:

    {"name", "load_s", "peak_rss_mb", "modes": {mode: {"times": [s...], "digest", "tokens"}}}

or {"name", "error"} when the peer cannot load the file. Modes: "one" (encode
each line on its own), "batch" (the library's list call: encode_batch or
equivalent), "bulk" (its flat-array call, where it has one). Each mode runs
once untimed (warm-up; its ids give the digest), then `repeat` timed runs.
The digest (sha256 of every line's ids and lengths) is how a caller checks a
peer's ids equal to HF's before reporting its speed.
"""

from __future__ import annotations

import json
import os
import subprocess

WORKER = r'''
import array, hashlib, json, resource, sys, time
spec = json.loads(sys.argv[1])
THREADS = spec["threads"]
exec(spec["code"])

def digest(rows):
    h, n, lengths = hashlib.sha256(), 0, array.array("Q")
    for r in rows:
        h.update(array.array("I", r).tobytes())
        lengths.append(len(r))
        n += len(r)
    h.update(lengths.tobytes())
    return h.hexdigest(), n

def bulk_digest(flat, lengths):
    h = hashlib.sha256()
    h.update(array.array("I", flat).tobytes())
    h.update(array.array("Q", lengths).tobytes())
    return h.hexdigest(), len(flat)

with open(spec["text"], encoding="utf-8") as f:
    lines = [line for line in f.read().split("\n") if line]
t0 = time.perf_counter()
tok = load(spec["tokenizer"])
out = {"load_s": time.perf_counter() - t0, "modes": {}}
runs = {
    "one": ("one" in globals()) and (lambda: [one(tok, s) for s in lines]),
    "batch": ("batch" in globals()) and (lambda: batch(tok, lines)),
    "bulk": ("bulk" in globals()) and (lambda: bulk(tok, lines)),
}
for mode in spec["modes"]:
    run = runs.get(mode)
    if not run:
        continue
    result = run()
    d, n = bulk_digest(*result) if mode == "bulk" else digest(result)
    times = []
    for _ in range(spec["repeat"]):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    out["modes"][mode] = {"times": times, "digest": d, "tokens": n}
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(out))
'''


def run_worker(name, python, code, tokenizer, text, threads, modes=("one", "batch", "bulk"), repeat=1, env=None, timeout=1800):
    spec = {"code": code, "tokenizer": tokenizer, "text": text, "threads": threads, "modes": list(modes), "repeat": repeat}
    environ = dict(os.environ, RAYON_NUM_THREADS=str(threads), RAYON_RS_NUM_CPUS=str(threads),
                   TOKENIZERS_PARALLELISM="true", **(env or {}))
    cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:threads])
    cmd = ["taskset", "-c", cpus, python, "-c", WORKER, json.dumps(spec)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=environ, timeout=timeout)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return {"name": name, **json.loads(line[len("RESULT "):])}
    err = (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"name": name, "error": err[:300]}


HF_CODE = '''
from tokenizers import Tokenizer
def load(path): return Tokenizer.from_file(path)
def one(tok, s): return tok.encode(s, add_special_tokens=False).ids
def batch(tok, lines): return [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
'''


def hf_tokenizers(python, tokenizer, text, threads, **kw):
    """HF tokenizers (0.23.3 in the main venv, 1.0.0rc3 in its own: peer_venvs.peer_python("tok1"))."""
    return run_worker("tokenizers", python, HF_CODE, tokenizer, text, threads, **kw)


def bertpiece(python, tokenizer, text, threads, pythonpath=None, **kw):
    """bertpiece.Tokenizer (`pythonpath`: the checkout whose python/ to import)."""
    code = HF_CODE.replace("from tokenizers import Tokenizer", "from bertpiece import Tokenizer") + '''
def bulk(tok, lines):
    b = tok.encode_batch_arrays(lines, add_special_tokens=False, num_threads=THREADS)
    return b.ids, b.row_splits[1:] - b.row_splits[:-1]
'''
    env = {"PYTHONPATH": pythonpath} if pythonpath else None
    return run_worker("bertpiece", python, code, tokenizer, text, threads, env=env, **kw)


def fastokens(python, tokenizer, text, threads, **kw):
    code = '''
import array, fastokens
def load(path): return fastokens.Tokenizer.from_file(path)
def one(tok, s): return tok.encode(s, add_special_tokens=False).ids
def batch(tok, lines): return [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)]
def bulk(tok, lines):
    ids, splits = tok.encode_batch_flat(lines)
    ids, splits = array.array("I", ids), array.array("Q", splits)
    return ids, [splits[i + 1] - splits[i] for i in range(len(splits) - 1)]
'''
    return run_worker("fastokens", python, code, tokenizer, text, threads, **kw)


def gigatoken(python, tokenizer, text, threads, **kw):
    code = '''
import gigatoken
def load(path): return gigatoken.Tokenizer(path)
def one(tok, s): return tok.encode(s)
def batch(tok, lines): return tok.encode_batch_list(lines)
'''
    return run_worker("gigatoken", python, code, tokenizer, text, threads, **kw)


def kitoken(python, tokenizer, text, threads, **kw):
    code = '''
import kitoken
def load(path): return kitoken.Kitoken.from_tokenizers_file(path)
def one(tok, s): return tok.encode(s)
def batch(tok, lines): return tok.encode_all(lines)
'''
    return run_worker("kitoken", python, code, tokenizer, text, threads, **kw)


def tiktoken(python, tokenizer, text, threads, **kw):
    """tiktoken on the file's vocabulary as ranks (token id = rank) and GPT-2's pattern;
    exact only when id order is merge order (HF's trainer assigns them so)."""
    code = '''
import json, tiktoken
PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"""
def byte_chars():
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b); cs.append(256 + n); n += 1
    return {chr(c): b for b, c in zip(bs, cs)}
def load(path):
    cfg = json.load(open(path, encoding="utf-8"))
    inv, specials = byte_chars(), {t["content"] for t in cfg.get("added_tokens", [])}
    ranks = {bytes(inv[c] for c in t): i for t, i in cfg["model"]["vocab"].items() if t not in specials}
    return tiktoken.Encoding("bench", pat_str=PAT, mergeable_ranks=ranks, special_tokens={})
def one(tok, s): return tok.encode_ordinary(s)
def batch(tok, lines): return tok.encode_ordinary_batch(lines, num_threads=THREADS)
'''
    return run_worker("tiktoken", python, code, tokenizer, text, threads, **kw)


def nanotoken(python, tokenizer, text, threads, **kw):
    code = '''
import nanotoken
def load(path): return nanotoken.Tokenizer.from_json(open(path, encoding="utf-8").read())
def one(tok, s): return tok.encode(s, add_special_tokens=False)
def batch(tok, lines): return tok.encode_batch_list(lines, add_special_tokens=False)
'''
    return run_worker("nanotoken", python, code, tokenizer, text, threads, **kw)


def tokie(python, tokenizer, text, threads, **kw):
    code = '''
import tokie
def load(path): return tokie.Tokenizer.from_json(path)
def one(tok, s): return tok.encode(s).ids
def batch(tok, lines): return [e.ids for e in tok.encode_batch(lines)]
def bulk(tok, lines): return tok.encode_batch_flat(lines)
'''
    return run_worker("tokie", python, code, tokenizer, text, threads, **kw)


if __name__ == "__main__":
    # `python benches/peers.py bert`: issue 28's BERT tables (benches/bert_peers.py)
    import sys

    if sys.argv[1:2] != ["bert"]:
        sys.exit("usage: python benches/peers.py bert [options]   (see benches/bert_peers.py)")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bert_peers

    bert_peers.main(sys.argv[2:])

#!/usr/bin/env python3
"""Serving latency: microseconds per call of the calls a model server makes, for
bertpiece and its peers, at 1 thread and at all threads, in one run.

    python benches/serving.py                     # or: python benches/bench.py --serving
    python benches/serving.py --base /tmp/old     # plus another build (a copy of python/ with its _core)

Inputs (all real text, none of it seen before timing):
- sentences: real English sentences of multi-genre web text, the kind a
  server gets one at a time: the last `--sentences` (2,000) of the 3,852
  UD English-EWT sentences at the head of ud-en.txt (weblogs, newsgroups,
  e-mail, reviews, answers; CC BY-SA 4.0; median 75 bytes), a warm-up on the
  200 before them. `--sentences-from en-large` takes the last lines of
  en-large.txt instead (novel paragraphs, median 517 bytes: earlier tables);
- bulk: the first `--bulk-mb` (8) MB of en-large.txt, one call for all of it;
- document: the en-large.txt lines after the bulk part, joined by "\\n" into
  one string of `--doc-mb` (2) MB;
- no-space script: Thai Wikipedia titles (`pythainlp/corpus/wikipedia_titles_th.txt`
  from the PyPI package pythainlp 5.4.0, CC-BY-SA-4.0, Thai Wikipedia dump of
  2023-11-21), consecutive titles joined without a separator into rows of at
  most 90 code points (one space-free word each, under BERT's 100-character
  limit), `--thai-mb` (4) MB of them, encoded with bert-base-multilingual-cased.
  Give another file with `--thai`.

Each (tokenizer, threads) runs in a fresh interpreter. A per-call figure is
the median over `--passes` passes of (pass time / calls); MB/s is UTF-8 input
bytes per second, median of passes. bertpiece's word memo is emptied before
every pass (`_core._forget_words()`), as in bench.py. Threads: bertpiece
through BERTPIECE_NUM_THREADS (and `num_threads=`), HF tokenizers and
transformers through RAYON_NUM_THREADS, flash-tokenizer's `parallel` flag.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# ../shared next to the checkout (or next to its worktree directory).
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")
CORPUS = DATA / "corpus" / "en-large.txt"
VOCAB = DATA / "vocab"
PEERS = ["bertpiece", "transformers", "hf-tokenizers", "flash-tokenizer"]
BATCHES = [1, 8, 32, 256]


# ------------------------------------------------------------------ inputs
EWT_LINES = 3852  # ud-en.txt: UD English-EWT dev + test first, then PUD (../shared/data/README.md)


def inputs(args):
    lines = [s for s in CORPUS.read_text(encoding="utf-8").split("\n") if s]
    if args.sentences_from == "ewt":
        sentences = [s for s in (DATA / "corpus" / "ud-en.txt").read_text(encoding="utf-8").split("\n") if s]
        sentences = sentences[:EWT_LINES]
    else:
        sentences = lines
    held = sentences[-args.sentences:]
    warm = sentences[-args.sentences - 200:-args.sentences]
    bulk, size, k = [], 0, 0
    while size < args.bulk_mb * 1e6:
        bulk.append(lines[k])
        size += len(lines[k].encode()) + 1
        k += 1
    doc, size = [], 0
    while size < args.doc_mb * 1e6:
        doc.append(lines[k])
        size += len(lines[k].encode()) + 1
        k += 1
    return held, warm, bulk, "\n".join(doc), thai_rows(args)


def thai_rows(args):
    path = args.thai
    if path is None:
        spec = importlib.util.find_spec("pythainlp")
        if spec is None:
            return []
        path = Path(spec.origin).parent / "corpus" / "wikipedia_titles_th.txt"
    titles = [t for t in Path(path).read_text(encoding="utf-8").split("\n") if t and not t.startswith("#")]
    rows, row, size = [], "", 0
    for t in titles:
        if len(row) + len(t) > 90:
            rows.append(row)
            size += len(row.encode()) + 1
            if size > args.thai_mb * 1e6:
                break
            row = ""
        row += t
    return rows


def mb(texts):
    return sum(len(t.encode()) + 1 for t in texts) / 1e6


# ------------------------------------------------------------------ timing
def per_call_us(fn, items, passes, reset):
    times = []
    for _ in range(passes):
        reset()
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        times.append((time.perf_counter() - t0) / len(items) * 1e6)
    return statistics.median(times)


def mb_per_s(fn, arg, size_mb, passes, reset):
    times = []
    for _ in range(passes):
        reset()
        t0 = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - t0)
    return size_mb / statistics.median(times)


# ------------------------------------------------------------------ peers
def calls(peer, threads, thai):
    """{name: fn} for `peer`; names a peer cannot run are left out. With
    `thai`, the multilingual-cased model (no-space rows) instead."""
    model = "bert-base-multilingual-cased" if thai else "bert-base-uncased"
    vocab, lower = str(VOCAB / f"{model}.txt"), not thai
    np_kw = dict(padding=True, truncation=True, max_length=128, return_tensors="np")
    if peer == "bertpiece":
        import bertpiece

        tok = bertpiece.BertTokenizer.from_pretrained(model)
        core = tok._core
        special = (tok.cls_token_id, tok.sep_token_id)
        return {
            "call": lambda t: tok(t)["input_ids"],
            "core encode": core.encode,
            "call np": lambda b: tok(b, **np_kw)["input_ids"],
            "core padded": lambda b: core.encode_padded(b, special=special, max_length=128, num_threads=threads),
            "encode_batch": lambda b: tok.encode_batch(b, max_length=128, truncation=True, num_threads=threads),
            "bulk lists": lambda ts: tok(ts)["input_ids"],
            "bulk numpy": lambda ts: tok.encode_batch(ts, num_threads=threads),
            "doc": lambda d: tok(d)["input_ids"],
            "doc stride": lambda d: tok(d, max_length=512, stride=128, truncation=True,
                                        return_overflowing_tokens=True)["input_ids"],
            "doc offsets": lambda d: tok(d, return_offsets_mapping=True)["offset_mapping"],
            "doc core encode": core.encode,
            "doc encode_batch": lambda d: tok.encode_batch([d], num_threads=threads),
        }
    if peer == "transformers":
        import tempfile

        import transformers

        transformers.logging.set_verbosity_error()
        d = tempfile.mkdtemp(prefix="serving-")
        Path(d, "vocab.txt").write_bytes(Path(vocab).read_bytes())
        Path(d, "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer", "do_lower_case": lower}))
        tok = transformers.BertTokenizer.from_pretrained(d)
        return {
            "call": lambda t: tok(t)["input_ids"],
            "call np": lambda b: tok(b, **np_kw)["input_ids"],
            "bulk lists": lambda ts: tok(ts)["input_ids"],
            "bulk numpy": lambda ts: [tok(ts[i:i + 1000], padding=True, return_tensors="np") for i in range(0, len(ts), 1000)],
            "doc": lambda d: tok(d)["input_ids"],
            "doc stride": lambda d: tok(d, max_length=512, stride=128, truncation=True,
                                        return_overflowing_tokens=True)["input_ids"],
            "doc offsets": lambda d: tok(d, return_offsets_mapping=True)["offset_mapping"],
        }
    if peer == "hf-tokenizers":
        from tokenizers import BertWordPieceTokenizer

        tok = BertWordPieceTokenizer(vocab, lowercase=lower)
        padded = BertWordPieceTokenizer(vocab, lowercase=lower)
        padded.enable_truncation(128)
        padded.enable_padding()
        return {
            "core encode": lambda t: tok.encode(t).ids,
            "call np": lambda b: __import__("numpy").array([e.ids for e in padded.encode_batch(b)]),
            "encode_batch": lambda b: padded.encode_batch(b),
            "bulk lists": lambda ts: [e.ids for e in tok.encode_batch(ts)],
            "doc core encode": lambda d: tok.encode(d).ids,
            "doc offsets": lambda d: tok.encode(d).offsets,
            "doc encode_batch": lambda d: tok.encode_batch([d]),
        }
    if peer == "flash-tokenizer":
        from flash_tokenizer import BertTokenizerFlash

        tok = BertTokenizerFlash(vocab, do_lower_case=lower).tokenizer
        return {
            "core encode": lambda t: tok.encode(t, "longest", -1),
            "encode_batch": lambda b: tok.batch_encode(b, "longest", 128, threads > 1),
            "bulk lists": lambda ts: tok.batch_encode(ts, "longest", -1, threads > 1),
        }
    raise SystemExit(f"unknown peer {peer}")


def worker(args):
    held, warm, bulk, doc, thai = inputs(args)
    reset = lambda: None  # noqa: E731
    if args.worker == "bertpiece":
        from bertpiece import _core

        reset = _core._forget_words
    out = {}
    fns = calls(args.worker, args.threads, thai=False)
    for name in ("call", "core encode"):
        if name in fns:
            fns[name](warm[0])
            out[name] = per_call_us(fns[name], held, args.passes, reset)
    # The fixed cost of a call: one short text ("hello world", 2 word pieces).
    short = [["hello world"]] * len(held)
    for name in ("core padded", "encode_batch"):
        if name in fns:
            out[f"{name} short"] = per_call_us(fns[name], short, args.passes, reset)
    for name in ("call np", "core padded", "encode_batch"):
        if name in fns:
            fns[name](warm[:32])
            for k in BATCHES:
                batches = [held[i:i + k] for i in range(0, len(held) - k + 1, k)]
                out[f"{name} b{k}"] = per_call_us(fns[name], batches, args.passes, reset)
    for name in ("bulk lists", "bulk numpy"):
        if name in fns:
            fns[name](warm)
            out[name] = mb_per_s(fns[name], bulk, mb(bulk), args.bulk_passes, reset)
    for name in ("doc", "doc stride", "doc offsets", "doc core encode", "doc encode_batch"):
        if name in fns:
            out[name] = mb_per_s(fns[name], doc, mb([doc]) - 1e-6, args.doc_passes, reset)
    if thai:
        fns = calls(args.worker, args.threads, thai=True)
        name = {"bertpiece": "bulk numpy", "transformers": "bulk numpy"}.get(args.worker, "bulk lists")
        fns[name](thai[:100])
        out["thai"] = mb_per_s(fns[name], thai, mb(thai), args.bulk_passes, reset)
    print(json.dumps(out))


# ------------------------------------------------------------------ driver
ROWS = [("`tok(text)[\"input_ids\"]` (lists), µs", "call"),
        ("core `encode(text)` / HF `encode(text).ids` / flash `encode`, µs", "core encode")] + \
       [(f"`tok(batch of {k}, padding, max_length=128, np)` / HF padded encode_batch → np, µs", f"call np b{k}") for k in BATCHES] + \
       [(f"core `encode_padded(batch of {k})` (inside `tok(...)`), µs", f"core padded b{k}") for k in BATCHES] + \
       [("fixed cost: core `encode_padded([\"hello world\"])`, µs", "core padded short"),
        ("fixed cost: `encode_batch([\"hello world\"])` / flash `batch_encode`, µs", "encode_batch short")] + \
       [(f"`encode_batch(batch of {k}, max_length=128)` / flash `batch_encode`, µs", f"encode_batch b{k}") for k in BATCHES] + \
       [("bulk: `tok(texts)` lists / HF, flash lists, MB/s", "bulk lists"),
        ("bulk: `encode_batch(texts)` NumPy / transformers np in 1,000-line calls, MB/s", "bulk numpy"),
        ("2 MB doc: `tok(doc)`, MB/s", "doc"),
        ("2 MB doc: `tok(doc, max_length=512, stride=128, overflowing)`, MB/s", "doc stride"),
        ("2 MB doc: `tok(doc, return_offsets_mapping=True)` / HF `encode(doc).offsets`, MB/s", "doc offsets"),
        ("2 MB doc: core `encode(doc)` / HF `encode(doc).ids`, MB/s", "doc core encode"),
        ("2 MB doc: `encode_batch([doc])`, MB/s", "doc encode_batch"),
        ("Thai rows (multilingual-cased) → NumPy / lists, MB/s", "thai")]


def available(peer):
    module = {"hf-tokenizers": "tokenizers", "flash-tokenizer": "flash_tokenizer", "bertpiece-base": "bertpiece"}.get(peer, peer)
    return importlib.util.find_spec(module) is not None


def run(args):
    all_threads = len(os.sched_getaffinity(0))
    results = {}
    for threads in sorted({1, all_threads}):
        for peer in args.peers + (["bertpiece-base"] if args.base else []):
            if not available(peer):
                print(f"# {peer}: not installed, skipped", file=sys.stderr)
                continue
            env = dict(os.environ, BERTPIECE_NUM_THREADS=str(threads), RAYON_NUM_THREADS=str(threads),
                       TOKENIZERS_PARALLELISM="true" if threads > 1 else "false")
            if peer == "bertpiece-base":  # another build of bertpiece, first on the path
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(args.base), env.get("PYTHONPATH")]))
            cmd = [sys.executable, __file__, "--worker", peer.removesuffix("-base"), "--threads", str(threads)] + args.pass_on
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if p.returncode:
                print(f"# {peer} x{threads} failed:\n{p.stderr[-2000:]}", file=sys.stderr)
                continue
            results[(peer, threads)] = json.loads(p.stdout.strip().splitlines()[-1])
            print(f"# {peer} x{threads}: done", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({f"{p} x{t}": r for (p, t), r in results.items()}, indent=1))
    peers = args.peers + (["bertpiece-base"] if args.base else [])
    cols = [(p, t) for t in sorted({1, all_threads}) for p in peers if (p, t) in results]
    print("| call | " + " | ".join(f"{p} ×{t}" for p, t in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for label, key in ROWS:
        cells = [results[c].get(key) for c in cols]
        if any(v is not None for v in cells):
            print(f"| {label} | " + " | ".join("–" if v is None else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
                                              for v in cells) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peers", nargs="*", default=PEERS)
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--sentences-from", choices=["ewt", "en-large"], default="ewt",
                    help="the per-call inputs: UD English-EWT sentences, or en-large.txt lines")
    ap.add_argument("--passes", type=int, default=5, help="passes over the sentences (per-call figures)")
    ap.add_argument("--bulk-passes", type=int, default=3, help="passes over the bulk and Thai inputs")
    ap.add_argument("--doc-passes", type=int, default=7,
                    help="passes over the 2 MB document (a pass takes 10-25 ms for bertpiece: more passes steady the median)")
    ap.add_argument("--bulk-mb", type=float, default=8)
    ap.add_argument("--doc-mb", type=float, default=2)
    ap.add_argument("--thai-mb", type=float, default=4)
    ap.add_argument("--thai", type=Path, help="no-space text, one title or phrase per line")
    ap.add_argument("--json", help="also write the raw figures here")
    ap.add_argument("--base", type=Path, help="also run the bertpiece package in this directory (another build: "
                                              "a copy of python/ with its _core) as the column bertpiece-base")
    ap.add_argument("--markdown", action="store_true", help="(the table is always Markdown)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.pass_on = [f"--sentences={args.sentences}", f"--sentences-from={args.sentences_from}", f"--passes={args.passes}", f"--bulk-passes={args.bulk_passes}",
                    f"--doc-passes={args.doc_passes}",
                    f"--bulk-mb={args.bulk_mb}", f"--doc-mb={args.doc_mb}", f"--thai-mb={args.thai_mb}"] + \
                   ([f"--thai={args.thai}"] if args.thai else [])
    if args.worker:
        worker(args)
    else:
        run(args)


if __name__ == "__main__":
    main()

"""Benchmark `bertpiece encode` (text -> Parquet of input_ids) against a
straightforward Hugging Face `tokenizers` + pyarrow script doing the same job.

Each run is its own subprocess; its wall time and peak RSS (os.wait4's
ru_maxrss, this child only) are measured from here. The corpus is repeated
×1 and ×10 (files generated in a temporary directory) to show that memory
stays flat while the input grows. Both outputs are compared row by row
(streamed) so the comparison is of the same job.

    python benches/bench_encode.py                      # full run: en-large.txt ×1 and ×10
    python benches/bench_encode.py --scales 1 --limit-mb 2   # quick check that it works
    python benches/bench_encode.py --scales 1 --corpus samples/sample.txt   # without ../shared

The default corpus is ../shared/data/corpus/en-large.txt next to the checkout (not in this
repository); without it the script stops with one line naming the path.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

DEFAULT_CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "corpus",
                              "en-large.txt")
BATCH = 10_000


def hf_worker(src: str, dst: str, vocab: str) -> None:
    """The baseline: BertWordPieceTokenizer.encode_batch in batches, a
    list<int32> column built from the Python lists, ParquetWriter per batch."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(vocab, lowercase=True)
    schema = pa.schema([("input_ids", pa.list_(pa.int32()))])
    with open(src, encoding="utf-8", newline="\n") as f, pq.ParquetWriter(dst, schema) as writer:
        while True:
            lines = [line[:-1] if line.endswith("\n") else line for line in (f.readline() for _ in range(BATCH))
                     if line]
            if not lines:
                break
            ids = [e.ids for e in tok.encode_batch(lines)]
            writer.write_table(pa.table({"input_ids": pa.array(ids, type=pa.list_(pa.int32()))}, schema=schema))


def measure(cmd: list) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one subprocess."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"failed ({proc.returncode}): {shlex.join(cmd)}")
    return seconds, usage.ru_maxrss / 1024  # Linux: KiB


def same_ids(a: str, b: str) -> int:
    """Rows compared (raises if the two Parquet files differ), streaming batches."""
    import pyarrow.parquet as pq

    def rows(path):
        for rb in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=["input_ids"]):
            yield from rb.column(0).to_pylist()

    n = 0
    sentinel = object()
    it_b = rows(b)
    for row in rows(a):
        other = next(it_b, sentinel)
        if other is sentinel or row != other:
            raise SystemExit(f"outputs differ at row {n}: {a} vs {b}")
        n += 1
    if next(it_b, sentinel) is not sentinel:
        raise SystemExit(f"{b} has more rows than {a}")
    return n


def make_input(corpus: str, scale: int, limit_mb: float | None, tmp: str) -> str:
    path = os.path.join(tmp, f"corpus-x{scale}.txt")
    with open(corpus, "rb") as f:
        data = f.read(int(limit_mb * 2**20)) if limit_mb else f.read()
    if limit_mb and b"\n" in data:
        data = data[:data.rindex(b"\n") + 1]  # whole lines only
    with open(path, "wb") as out:
        for _ in range(scale):
            out.write(data)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.normpath(DEFAULT_CORPUS))
    ap.add_argument("--scales", default="1,10", help="comma-separated repeat counts (default 1,10)")
    ap.add_argument("--limit-mb", type=float, help="use only the first N MB of the corpus (quick checks)")
    ap.add_argument("--model", default="bert-base-uncased")
    ap.add_argument("--no-verify", action="store_true", help="skip comparing the two outputs row by row")
    ap.add_argument("--hf-worker", nargs=3, metavar=("SRC", "DST", "VOCAB"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.hf_worker:
        hf_worker(*args.hf_worker)
        return 0

    if not os.path.isfile(args.corpus):  # the default is ../shared/data/corpus, outside this repository
        raise SystemExit(f"bench_encode.py: corpus not found: {args.corpus} (the benchmark corpus in "
                         "../shared/data/corpus next to the checkout; or pass --corpus FILE, e.g. samples/sample.txt)")
    import bertpiece

    if args.model != "bert-base-uncased":
        raise SystemExit("the HF baseline here is the lowercasing BertWordPieceTokenizer: use bert-base-uncased")
    vocab = bertpiece.vocab_path(args.model)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-encode-") as tmp:
        for scale in (int(s) for s in args.scales.split(",")):
            src = make_input(args.corpus, scale, args.limit_mb, tmp)
            mb = os.path.getsize(src) / 1e6
            ours, theirs = os.path.join(tmp, "bertpiece.parquet"), os.path.join(tmp, "hf.parquet")
            runs = {
                "bertpiece encode": [sys.executable, "-m", "bertpiece", "encode", src, "-o", ours, "--model",
                                     args.model, "--quiet", "--overwrite"],
                "tokenizers + pyarrow": [sys.executable, os.path.abspath(__file__), "--hf-worker", src, theirs, vocab],
            }
            for name, cmd in runs.items():
                seconds, rss = measure(cmd)
                results.append((name, scale, mb, seconds, rss))
                print(f"{name} ×{scale}: {seconds:.2f} s, {rss:.0f} MB peak RSS", file=sys.stderr)
            if not args.no_verify:
                n = same_ids(ours, theirs)
                print(f"×{scale}: outputs identical ({n:,} rows)", file=sys.stderr)
            for path in (src, ours, theirs):
                os.remove(path)

    print(f"\nCommand: `{shlex.join([sys.executable, *sys.argv])}`  (cores: {os.cpu_count()})\n")
    print("| system | input | size (MB) | time (s) | MB/s | peak RSS (MB) |")
    print("|---|---|---:|---:|---:|---:|")
    for name, scale, mb, seconds, rss in results:
        print(f"| {name} | corpus ×{scale} | {mb:.1f} | {seconds:.2f} | {mb / seconds:.1f} | {rss:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

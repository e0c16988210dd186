"""Throughput (MB/s) of ids with offsets against ids alone, on one long document.

Three documents: 2 MB of en-large.txt lines after its first 8 MB, joined by
"\\n" (as benches/serving.py builds its document), with bert-base-uncased;
ud-ru.txt and ud-zh.txt joined by "\\n" with bert-base-multilingual-cased.
Per document, in the same process and run: the core's `encode_offsets`
(ids, offsets and word indices: what `return_offsets_mapping`, `stride` and
`return_overflowing_tokens` need), `encode_batch([doc], return_offsets=True)`
and `encode_batch([doc])` (ids only, the one-pass encoder); then the calls
users make: `tok(doc, return_offsets_mapping=True)` and a stride window
(`max_length=512, stride=128, truncation=True, return_overflowing_tokens=True`). Medians of
`--passes` passes; every thread's word memo is emptied before each pass.

    python benches/bench_offsets.py            # --passes 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = next((p for p in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data") if p.is_dir()),
            ROOT.parent / "shared" / "data")
CORPUS = DATA / "corpus"


def documents(doc_mb: float, skip_mb: float):
    lines = [s for s in (CORPUS / "en-large.txt").read_text(encoding="utf-8").split("\n") if s]
    k, size = 0, 0
    while size < skip_mb * 1e6:
        size += len(lines[k].encode()) + 1
        k += 1
    doc, size = [], 0
    while size < doc_mb * 1e6 and k < len(lines):
        doc.append(lines[k])
        size += len(lines[k].encode()) + 1
        k += 1
    yield "en-large 2MB", "bert-base-uncased", "\n".join(doc)
    for lang in ("ru", "zh"):
        text = "\n".join(s for s in (CORPUS / f"ud-{lang}.txt").read_text(encoding="utf-8").split("\n") if s)
        yield f"ud-{lang}", "bert-base-multilingual-cased", text


def median_mb_per_s(fn, doc, passes, reset):
    size = len(doc.encode()) / 1e6
    times = []
    for _ in range(passes):
        reset()
        start = time.perf_counter()
        out = fn(doc)
        times.append(time.perf_counter() - start)
        del out  # freeing the result (Python lists) is not timed
    return size / statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--doc-mb", type=float, default=2)
    ap.add_argument("--skip-mb", type=float, default=8)
    args = ap.parse_args(argv)

    import bertpiece
    from bertpiece import _core

    print(f"bertpiece from {bertpiece.__file__}")
    print("| document | MB | encode_offsets MB/s | encode_batch offsets MB/s | encode_batch ids MB/s | encode_offsets / ids "
          "| call offsets MB/s | call stride MB/s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, model, doc in documents(args.doc_mb, args.skip_mb):
        tok = bertpiece.BertTokenizer.from_pretrained(model)
        core = tok._core
        offsets = median_mb_per_s(core.encode_offsets, doc, args.passes, _core._forget_words)
        batch_offsets = median_mb_per_s(lambda d: tok.encode_batch([d], return_offsets=True), doc, args.passes,
                                        _core._forget_words)
        ids = median_mb_per_s(lambda d: tok.encode_batch([d]), doc, args.passes, _core._forget_words)
        call = median_mb_per_s(lambda d: tok(d, return_offsets_mapping=True), doc, args.passes, _core._forget_words)
        stride = median_mb_per_s(lambda d: tok(d, max_length=512, stride=128, truncation=True,
                                               return_overflowing_tokens=True), doc, args.passes, _core._forget_words)
        print(f"| {name} ({model}) | {len(doc.encode()) / 1e6:.2f} | {offsets:.1f} | {batch_offsets:.1f} | "
              f"{ids:.1f} | {offsets / ids:.2f} | {call:.1f} | {stride:.1f} |", flush=True)


if __name__ == "__main__":
    main()

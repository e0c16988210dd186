#!/usr/bin/env python3
"""Where one call of bertpiece.AutoTokenizer spends its time (docs/benchmarks/auto-tokenizer.md):
for the RoBERTa, XLM-R, T5 and MPNet shapes of tests/auto_shapes.py, CPU time of this
thread (thread_time) per call, medians of interleaved passes over UD English sentences, of

- the core alone: `pipeline_encode_ids` (one text's ids, what `tok(text)` takes from it) and
  `pipeline_encode_padded` of one text (what a padded batch of 1 takes);
- bertpiece's `PipelineTokenizer.encode` (an `Encoding`: tokens, offsets, words) and HF
  tokenizers 0.23's `Tokenizer.encode` of the same tokenizer.json;
- the whole calls `tok(text)` and `tok([text], padding=True, truncation=True, max_length=128,
  return_tensors="np")` of bertpiece.AutoTokenizer and transformers.AutoTokenizer.

    python benches/auto_parts.py [--passes 7] [--calls 200] [--shapes roberta,xlmr,t5,mpnet]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "python"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--shapes", default="roberta,xlmr,t5,mpnet")
    args = parser.parse_args()

    import tokenizers
    import transformers

    import bertpiece
    from auto_shapes import folder
    from bertpiece._core import pipeline_encode_ids, pipeline_encode_padded
    from bpe_shapes import DATA, ud_lines

    lines = [line for line in ud_lines(os.path.join(DATA, "ud-en.txt")) if line.strip()]
    warm, lines = lines[:300], lines[300:]
    pad = {"padding": True, "truncation": True, "max_length": 128, "return_tensors": "np"}
    print("| shape | part | CPU µs per call |\n|---|---|---|")
    for shape in args.shapes.split(","):
        path = folder(shape)
        hf = transformers.AutoTokenizer.from_pretrained(path)
        bp = bertpiece.AutoTokenizer.from_pretrained(path)
        hf_json = tokenizers.Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
        bp([warm[0]], **pad)  # the plan's settings (truncation to 128, padding) on the backend
        core, settings = bp._tokenizer._core, bp._tokenizer._settings
        pad_id = bp.pad_token_id
        parts = {
            "core: pipeline_encode_ids": lambda t: pipeline_encode_ids(core, settings, t, True),
            "core: pipeline_encode_padded of 1": lambda t: pipeline_encode_padded(core, settings, [t], pad_id=pad_id,
                                                                                  num_threads=1),
            "bertpiece PipelineTokenizer.encode (Encoding)": lambda t: core.encode(([t], None), False, True, settings),
            "tokenizers 0.23 Tokenizer.encode": hf_json.encode,
            "bertpiece tok(text)": bp,
            "transformers tok(text)": hf,
            "bertpiece padded batch of 1": lambda t: bp([t], **pad),
            "transformers padded batch of 1": lambda t: hf([t], **pad),
        }
        for f in parts.values():
            for text in warm:
                f(text)
        times = {name: [] for name in parts}
        for k in range(args.passes):
            order = list(parts) if k % 2 == 0 else list(parts)[::-1]
            for name in order:
                f, chunk = parts[name], [lines[(k * args.calls + i) % len(lines)] for i in range(args.calls)]
                t0 = time.thread_time()
                for text in chunk:
                    f(text)
                times[name].append((time.thread_time() - t0) / args.calls * 1e6)
        for name in parts:
            print(f"| {shape} | {name} | {statistics.median(times[name]):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

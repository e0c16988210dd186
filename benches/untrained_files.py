"""Byte-level BPE files no one here trained, written into a cache directory for
the bulk benches (bench_pipeline.py --tokenizer, cpu_bulk_bpe_peers.py --tokenizer):

- GPT-2's and Whisper's multilingual ranks (the openai-whisper sdist) in three
  shapes each: GPT-2's own (ByteLevel, no prefix space), RoBERTa's (prefix
  space, RobertaProcessing) and what transformers' TikTokenConverter makes
  (Split regex + ByteLevel without its regex, ignore_merges);
- CLIP's whole file (the open-clip-torch wheel's vocabulary and 48894 merges,
  as transformers' CLIPConverter builds it: NFC + Replace + Lowercase, Split +
  ByteLevel, "</w>").

The builders are the tests' own (tests/test_third_party_models.py's
byte_level_json, tests/test_pipeline_clip_full.py's clip_full_json), imported,
so the benches time the files the tests check against tokenizers 0.23.3.
Run with the project's venv (transformers, tokenizers):

    python benches/untrained_files.py [--cache DIR]     # prints one path per line
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache", "untrained_files")
NAMES = ("gpt2", "multilingual")
SHAPES = ("gpt2", "roberta", "tiktoken-converted")


def files(cache=CACHE):
    """{label: path} of every file, building those not in `cache` yet."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    out = {}
    os.makedirs(cache, exist_ok=True)
    builders = [(f"{name}-ranks-{shape}", (lambda name=name, shape=shape: _byte_level(name, shape)))
                for name in NAMES for shape in SHAPES]
    builders.append(("clip", _clip))
    for label, build in builders:
        path = os.path.join(cache, f"{label}.json")
        if not os.path.exists(path):
            text = build()
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
        out[label] = path
    return out


def _byte_level(name, shape):
    from test_third_party_models import byte_level_json

    return byte_level_json(name, shape)


def _clip():
    from test_pipeline_clip_full import clip_full_json

    return clip_full_json(True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=CACHE)
    args = ap.parse_args()
    for label, path in files(args.cache).items():
        print(f"{label}\t{path}")


if __name__ == "__main__":
    main()

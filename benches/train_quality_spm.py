"""bertpiece.SentencePieceTrainer against sentencepiece's own trainer: the same
call (sentencepiece's defaults: nmt_nfkc, character_coverage 0.9995, <unk> <s>
</s>), the same vocabulary size, on held-out text; both .model files encoded by
the sentencepiece library. Tokens per byte: lower is better.

    python benches/train_quality_spm.py [--markdown]

Each UD file (tests/data/ud-*.txt) is split by lines: the first 80 % trains,
the last 20 % is held out.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import sentencepiece as spm  # noqa: E402

import bertpiece  # noqa: E402

CASES = [("en", "unigram", 2000), ("de", "unigram", 2000), ("ru", "unigram", 2000),
         ("en", "bpe", 2000), ("de", "bpe", 2000), ("ru", "bpe", 2000)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for lang, model_type, size in CASES:
            lines = (ROOT / "tests" / "data" / f"ud-{lang}.txt").read_text(encoding="utf-8").splitlines()
            cut = len(lines) * 4 // 5
            train = pathlib.Path(tmp) / f"{lang}.txt"
            train.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
            held_out = lines[cut:]
            nbytes = sum(len(line.encode("utf-8")) for line in held_out)
            result = {}
            for name, trainer in (("bertpiece", bertpiece.SentencePieceTrainer), ("spm", spm.SentencePieceTrainer)):
                prefix = str(pathlib.Path(tmp) / f"{name}-{lang}-{model_type}")
                options = {"minloglevel": 2}
                start = time.perf_counter()
                trainer.train(input=str(train), model_prefix=prefix, vocab_size=size, model_type=model_type, **options)
                seconds = time.perf_counter() - start
                sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
                result[name] = (sum(len(sp.encode(line)) for line in held_out) / nbytes, seconds)
            for name, (tpb, seconds) in result.items():
                rows.append((f"ud-{lang}", model_type, size, name, tpb, tpb / result["spm"][0] - 1, seconds))
    if args.markdown:
        print("| corpus | model | vocab | trainer | held-out tokens/byte | vs spm | seconds |")
        print("|---|---|---:|---|---:|---:|---:|")
        for corpus, model, size, name, tpb, rel, seconds in rows:
            print(f"| {corpus} | {model} | {size:,} | {name} | {tpb:.4f} | {rel:+.2%} | {seconds:.1f} |")
    else:
        for row in rows:
            print(*row, sep="\t")


if __name__ == "__main__":
    main()

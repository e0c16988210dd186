"""How deterministic is HF tokenizers' BpeTrainer? Trains the same corpus
several times (fresh processes, RAYON_NUM_THREADS 1 and 2) and prints how
many distinct vocabularies/merge lists came out, and whether bertpiece's
equals them. Usage: python benches/bpe_hf_spread.py [--runs N] CORPUS...
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys
from tokenizers import Tokenizer, models, trainers, pre_tokenizers, normalizers
kind, path, vocab_size, options = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
texts = open(path, encoding="utf-8").read().splitlines()
tok = Tokenizer(models.BPE())
if kind == "byte":
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    options.setdefault("initial_alphabet", pre_tokenizers.ByteLevel.alphabet())
else:
    tok.normalizer = normalizers.BertNormalizer(lowercase=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False, **options))
model = json.loads(tok.to_str())["model"]
print(json.dumps([model["vocab"], model["merges"]]))
"""


def ours(kind, path, vocab_size, options):
    from bertpiece.trainers import BpeTrainer, ByteLevelBpeTrainer, train_bpe_from_iterator

    texts = open(path, encoding="utf-8").read().splitlines()
    trainer = (ByteLevelBpeTrainer if kind == "byte" else BpeTrainer)(vocab_size, show_progress=False, **options)
    model = train_bpe_from_iterator(texts, trainer).to_json()["model"]
    return json.dumps([model["vocab"], model["merges"]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--runs", type=int, default=3, help="runs per thread count")
    ap.add_argument("--vocab-size", type=int, default=1000)
    ap.add_argument("--options", default="{}", help="BpeTrainer options as JSON")
    args = ap.parse_args()
    for path in args.corpora:
        for kind in ("char", "byte"):
            size = args.vocab_size + (256 if kind == "byte" else 0)
            outs = []
            for threads in ("1", "2"):
                env = {**os.environ, "RAYON_NUM_THREADS": threads}
                for _ in range(args.runs):
                    outs.append(subprocess.run([sys.executable, "-c", CHILD, kind, path, str(size), args.options],
                                               env=env, capture_output=True, text=True, check=True).stdout.strip())
            digests = {hashlib.sha1(o.encode()).hexdigest()[:10] for o in outs}
            mine = ours(kind, path, size, json.loads(args.options))
            print(f"{os.path.basename(path)} {kind} vocab {size}: {len(outs)} HF runs, {len(digests)} distinct; "
                  f"bertpiece equal to HF: {mine in outs}")


if __name__ == "__main__":
    main()

"""Unigram vocabulary quality: bertpiece's UnigramTrainer against HF
tokenizers' UnigramTrainer and sentencepiece's trainer, same vocabulary size,
on held-out text (not trained on).

    python benches/train_quality_unigram.py [--markdown] [--en-large-mb 3]

Each UD file (tests/data/ud-*.txt) is split by lines: the first 80 % trains,
the last 20 % is held out; en-large: the first N MB train, the next N/5 MB
are held out. Every trainer gets <unk>, <s>, </s> as its first three tokens
(sentencepiece's defaults) and keeps every character (spm:
character_coverage=1.0, normalization "identity", so all three see the same
characters). Metrics on the held-out lines:

* tokens per byte: each tokenizer's own encoder (HF tokenizers for HF and
  bertpiece, the sentencepiece library for spm); lower is better;
* log-likelihood per byte: Σ log P(word) (every segmentation, the model's own
  piece scores) over the held-out Metaspace words whose characters all three
  vocabularies hold (the share is printed); higher is better.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from bertpiece.oracle_train_unigram import count_words  # noqa: E402
from bertpiece.trainers import UnigramTrainer, train_unigram_from_iterator  # noqa: E402
from bertpiece.trainers_unigram import log_likelihood  # noqa: E402

SPECIALS = ["<unk>", "<s>", "</s>"]
CORPUS = pathlib.Path("/work/shared/data/corpus/en-large.txt")


def ours(train, size):
    t = train_unigram_from_iterator(train, UnigramTrainer(vocab_size=size, special_tokens=SPECIALS,
                                                          unk_token="<unk>", show_progress=False))
    from tokenizers import Tokenizer
    return t.pieces, Tokenizer.from_str(t.to_str())


def hf(train, size):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    import json
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(train, trainers.UnigramTrainer(vocab_size=size, special_tokens=SPECIALS,
                                                           unk_token="<unk>", show_progress=False))
    return [tuple(p) for p in json.loads(tok.to_str())["model"]["vocab"]], tok


def spm(train, size):
    import sentencepiece as sp
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "train.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(train) + "\n")
        sp.SentencePieceTrainer.train(input=path, model_prefix=os.path.join(d, "m"), vocab_size=size,
                                      model_type="unigram", character_coverage=1.0,
                                      normalization_rule_name="identity", input_sentence_size=0, hard_vocab_limit=False,
                                      minloglevel=2, num_threads=2)
        proc = sp.SentencePieceProcessor(model_file=os.path.join(d, "m.model"))
    pieces = [(proc.id_to_piece(i), proc.get_score(i)) for i in range(proc.get_piece_size())]

    class Enc:
        def encode(self, text):
            return type("E", (), {"ids": proc.encode(text)})()
    return pieces, Enc()


def measure(name, train, held, size):
    held_words = count_words(held)
    nbytes = sum(len(line.encode()) for line in held)
    models = {who: fn(train, size) for who, fn in (("bertpiece", ours), ("HF", hf), ("spm", spm))}
    chars = [set(p for p, _ in pieces if len(p) == 1) for pieces, _ in models.values()]
    common = {w: n for w, n in held_words.items() if all(set(w) <= c for c in chars)}
    share = sum(len(w) * n for w, n in common.items()) / max(1, sum(len(w) * n for w, n in held_words.items()))
    common_bytes = sum(len(w.encode()) * n for w, n in common.items())
    rows = []
    for who, (pieces, enc) in models.items():
        tokens = sum(len(enc.encode(line).ids) for line in held)
        ll = log_likelihood([(p, s) for p, s in pieces if p not in SPECIALS], common)
        rows.append((name, size, who, tokens / nbytes, ll / common_bytes, share))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--langs", default="en,de,fr,es,ru,el")
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--en-large-mb", type=float, default=3.0)
    ap.add_argument("--en-large-size", type=int, default=8000)
    a = ap.parse_args()
    rows = []
    for lang in a.langs.split(","):
        if not lang:
            continue
        lines = (ROOT / "tests" / "data" / f"ud-{lang}.txt").read_text(encoding="utf-8").splitlines()
        cut = len(lines) * 4 // 5
        rows += measure(f"ud-{lang}", lines[:cut], lines[cut:], a.size)
        print(rows[-3:], file=sys.stderr)
    if a.en_large_mb > 0 and CORPUS.exists():
        with open(CORPUS, encoding="utf-8") as f:
            train, held, size = [], [], 0
            for line in f:
                line = line.rstrip("\n")
                size += len(line) + 1
                if size <= a.en_large_mb * 1e6:
                    train.append(line)
                elif size <= a.en_large_mb * 1.2e6:
                    held.append(line)
                else:
                    break
        rows += measure(f"en-large {a.en_large_mb:g} MB", train, held, a.en_large_size)
    if a.markdown:
        print("| corpus | vocab | trainer | held-out tokens/byte | vs best | log-lik./byte | vs best | words scored |")
        print("|---|---:|---|---:|---:|---:|---:|---:|")
    for k in range(0, len(rows), 3):
        group = rows[k:k + 3]
        best_tpb = min(r[3] for r in group if r[2] != "bertpiece")
        best_ll = max(r[4] for r in group if r[2] != "bertpiece")
        for name, size, who, tpb, ll, share in group:
            d_tpb, d_ll = tpb / best_tpb - 1, (ll - best_ll) / abs(best_ll)
            if a.markdown:
                print(f"| {name} | {size:,} | {who} | {tpb:.4f} | {d_tpb:+.2%} | {ll:.4f} | {d_ll:+.2%} | {share:.1%} |")
            else:
                print(name, size, who, f"{tpb:.4f}", f"{d_tpb:+.2%}", f"{ll:.4f}", f"{d_ll:+.2%}", f"{share:.1%}")


if __name__ == "__main__":
    main()

"""Held-out quality of trained vocabularies: tokens per word on text the
vocabulary was not trained on, for each training algorithm (and variant) and,
on English, bert-base-uncased's own vocabulary.

    python benches/train_quality.py --markdown

Corpora (from /work/shared/data/corpus, or --corpus DIR):

* en-large: trained on its first ~8 MB (whole lines; --en-mb), measured on
  its last ~1 MB (other books), vocab_size 30522 — sizes kept practical on
  two shared cores;
* ud-XX (each of the twelve UD files, the same files as tests/data/ud-*.txt):
  trained on the first 90 % of the lines, measured on the last 10 %,
  vocab_size 8000 (a 30522-token vocabulary of a 300 KB corpus is mostly
  whole words, for every algorithm);
* ud-all: the twelve training parts together, vocab_size 30522, measured on
  the twelve held-out parts together.

Every vocabulary is trained with reference="google", lowercase,
min_frequency 2 (unless the variant says otherwise), limit_alphabet 1000,
and measured with bertpiece.FullTokenizer(reference="google"): tokens per
word = WordPiece tokens / BasicTokenizer words of the held-out lines, and the
unknown-token rate per word. "vs hf" is tokens per word relative to
algorithm="hf" on the same corpus.

--whole-en also trains each algorithm with its defaults on the whole of
en-large (vocab_size 30522, as `bertpiece train en-large.txt` does) and
encodes the whole file with the result (bertpiece.BertTokenizer, no special
tokens): the issue's "1.8x longer sequences" measurement (not held out).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_CORPUS = pathlib.Path("/work/shared/data/corpus")
if not DEFAULT_CORPUS.exists():
    DEFAULT_CORPUS = HERE.parent / "tests" / "data"

# name -> train_wordpiece options beyond the common ones.
TRAINERS = {
    "hf": {"algorithm": "hf"},
    "likelihood": {"algorithm": "likelihood"},
    "likelihood-min100": {"algorithm": "likelihood", "min_frequency": 100},
}
COMMON = {"reference": "google", "do_lower_case": True, "min_frequency": 2, "limit_alphabet": 1000}


def split_lines(lines, fraction=0.9):
    cut = int(len(lines) * fraction)
    return lines[:cut], lines[cut:]


def corpora(directory, en_mb, names):
    """{name: (training lines, held-out lines, vocab_size)}."""
    out = {}
    if "en-large" in names:
        lines = (directory / "en-large.txt").read_text(encoding="utf-8").split("\n")
        train, size = [], 0
        for line in lines:
            if size >= en_mb * 1_000_000:
                break
            train.append(line)
            size += len(line.encode("utf-8")) + 1
        held, size = [], 0
        for line in reversed(lines[len(train):]):
            if size >= 1_000_000:
                break
            held.append(line)
            size += len(line.encode("utf-8")) + 1
        out["en-large"] = (train, held[::-1], 30522)
    all_train, all_held = [], []
    for path in sorted(directory.glob("ud-*.txt")):
        train, held = split_lines(path.read_text(encoding="utf-8").split("\n"))
        all_train += train
        all_held += held
        if path.stem in names or "ud" in names:
            out[path.stem] = (train, held, 8000)
    if "ud-all" in names:
        out["ud-all"] = (all_train, all_held, 30522)
    return out


def tokens_per_word(vocab_file, held):
    import bertpiece

    tok = bertpiece.FullTokenizer(str(vocab_file), reference="google")
    basic = bertpiece.BasicTokenizer(reference="google")
    words = tokens = unk = 0
    for line in held:
        words += len(basic.tokenize(line))
        pieces = tok.tokenize(line)
        tokens += len(pieces)
        unk += pieces.count("[UNK]")
    return tokens / words, unk / words


def whole_en(directory, trainers):
    """[(vocabulary, size, tokens encoding all of en-large)] for vocabularies trained on all of it."""
    import bertpiece

    path = directory / "en-large.txt"
    lines = path.read_text(encoding="utf-8").split("\n")
    work = pathlib.Path(tempfile.mkdtemp(prefix="train-quality-whole-"))
    vocabs = {}
    for t in trainers:
        if set(TRAINERS[t]) == {"algorithm"}:  # the algorithm with its own defaults
            vocabs[t] = bertpiece.train_wordpiece_from_files(path, 30522, **TRAINERS[t]).save(work / f"{t}.txt")
    vocabs["bert-base-uncased"] = bertpiece.vocab_path("bert-base-uncased")
    out = []
    for name, vocab_file in vocabs.items():
        tok = bertpiece.BertTokenizer(vocab=str(vocab_file))
        ids = 0
        for k in range(0, len(lines), 2000):
            ids += sum(map(len, tok(lines[k:k + 2000], add_special_tokens=False)["input_ids"]))
        out.append((name, len(tok), ids))
        print(f"all of en-large, {name}: {ids:,} tokens", file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    ap.add_argument("--corpora", default="en-large,ud,ud-all",
                    help="comma-separated: en-large, ud (every ud-XX), ud-XX, ud-all")
    ap.add_argument("--en-mb", type=float, default=8.0, help="MB of en-large to train on (default 8)")
    ap.add_argument("--trainers", default=",".join(TRAINERS), help="comma-separated, of: " + ", ".join(TRAINERS))
    ap.add_argument("--whole-en", action="store_true", help="also encode all of en-large (see above)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    import bertpiece

    work = pathlib.Path(tempfile.mkdtemp(prefix="train-quality-"))
    trainers = [t.strip() for t in args.trainers.split(",")]
    rows = []
    for name, (train, held, size) in corpora(args.corpus, args.en_mb, set(args.corpora.split(","))).items():
        results = {}
        for t in trainers:
            start = time.monotonic()
            vocab = bertpiece.train_wordpiece(train, size, **{**COMMON, **TRAINERS[t]})
            seconds = time.monotonic() - start
            out = vocab.save(work / f"{name}-{t}.txt")
            results[t] = (*tokens_per_word(out, held), len(vocab), seconds)
        if name in ("en-large", "ud-en"):
            path = bertpiece.vocab_path("bert-base-uncased")
            results["bert-base-uncased (not trained here)"] = (*tokens_per_word(path, held), 30522, None)
        base = results["hf"][0] if "hf" in results else None
        for t, (tpw, unk, n, seconds) in results.items():
            ratio = tpw / base if base else float("nan")
            rows.append((name, t, n, tpw, ratio, unk, seconds))
            print(f"{name} {t}: {n} tokens, {tpw:.4f} tokens/word ({ratio:.3f}x hf), unk/word {100 * unk:.3f}%"
                  + ("" if seconds is None else f", {seconds:.1f} s"), file=sys.stderr)
    if args.markdown and rows:
        print("| corpus | vocabulary | size | tokens per word | vs hf | unknown per word |")
        print("|---|---|---|---|---|---|")
        for name, t, n, tpw, ratio, unk, _ in rows:
            print(f"| {name} | {t} | {n} | {tpw:.4f} | {ratio:.3f}× | {100 * unk:.2f} % |")
    if args.whole_en:
        rows = whole_en(args.corpus, trainers)
        if args.markdown:
            print()
            print("| vocabulary (trained on all of en-large) | size | tokens encoding all of en-large |")
            print("|---|---|---|")
            for name, n, ids in rows:
                print(f"| {name} | {n} | {ids:,} |")


if __name__ == "__main__":
    main()

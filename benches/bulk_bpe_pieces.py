"""What the byte-level BPE bulk call's word cache sees on a text, per tokenizer
file (no timing): GPT-2's pieces of the first --mb MB of en-large (one text per
line, split by tokenizers' own pre-tokenizer), how many are distinct, how many
the model splits into several tokens, and a simulation of the cache's short
and mid tables (src/fast_bytelevel/cache.rs: the same hashes, open addressing
up to half full, doubling, re-placing in slot order) counting the lookups that
find their word in its home slot, which the scanner's loop answers inline,
without and with the out-of-line lookup moving a word found past its home slot
into it. Used by docs/benchmarks/bpe-bulk-round9.md.

    python benches/bulk_bpe_pieces.py [--tokenizer FILE ...] [--mb 8]
"""

import argparse
import collections
import glob
import os

from tokenizers import Tokenizer

from bertpiece.oracle_bpe import BYTE_CHAR, CHAR_BYTE  # GPT-2's byte <-> char table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = "/work/shared/data/corpus/en-large.txt"
M64 = (1 << 64) - 1


def home_hash(word):
    """cache.rs's hash of a word of 2 to 16 bytes (before the table's mask), and its table."""
    n = len(word)
    if n <= 8:
        return (((int.from_bytes(word, "little") ^ n) * 0x9E3779B97F4A7C15) & M64) >> 32, "short"
    k0, k1 = int.from_bytes(word[:8], "little"), int.from_bytes(word[8:], "little")
    return (((((k0 * 0x9E3779B97F4A7C15) & M64) ^ k1 ^ n) * 0xD6E8FEB86659FD93) & M64) >> 32, "mid"


class Table:
    """cache.rs's `Table`: linear probing, grown (doubled, from 1,024 slots) before it passes half full."""

    def __init__(self, hashes):
        self.hashes, self.slots, self.words = hashes, [], 0

    def home(self, w):
        return self.hashes[w][0] & (len(self.slots) - 1)

    def place(self, w):
        i, mask = self.home(w), len(self.slots) - 1
        while self.slots[i] is not None:
            i = (i + 1) & mask
        self.slots[i] = w

    def insert(self, w):
        if 2 * (self.words + 1) > len(self.slots):
            old, self.slots = self.slots, [None] * max(2 * len(self.slots), 1024)
            for x in old:
                if x is not None:
                    self.place(x)
        self.place(w)
        self.words += 1

    def get(self, w, promote):
        """None if missing, else whether it was in its home slot (moved there after, with `promote`)."""
        if not self.slots:
            return None
        home = i = self.home(w)
        while (x := self.slots[i]) is not None:
            if x == w:
                if promote and i != home:
                    self.slots[i], self.slots[home] = self.slots[home], self.slots[i]
                return i == home
            i = (i + 1) & (len(self.slots) - 1)
        return None


def main():
    ap = argparse.ArgumentParser()
    default = sorted(glob.glob(os.path.join(ROOT, ".cache", "bench_pipeline", "*.json")))
    ap.add_argument("--tokenizer", nargs="+", default=default)
    ap.add_argument("--mb", type=float, default=8)
    args = ap.parse_args()
    with open(CORPUS, encoding="utf-8") as f:
        text = f.read(int(args.mb * 1_000_000))
    lines = text[: text.rfind("\n") + 1].split("\n")[:-1]
    for path in args.tokenizer:
        tok = Tokenizer.from_file(path)
        seq = [bytes(CHAR_BYTE[c] for c in w) for line in lines for w, _ in tok.pre_tokenizer.pre_tokenize_str(line)]
        counts = collections.Counter(seq)
        tokens = {w: len(tok.model.tokenize("".join(BYTE_CHAR[b] for b in w))) for w in counts}
        several = sum(c for w, c in counts.items() if tokens[w] > 1)
        total = len(seq)
        print(f"{os.path.basename(path)}: {total} pieces, {len(counts)} distinct; "
              f"{sum(c * tokens[w] for w, c in counts.items()) / total:.3f} tokens a piece; "
              f"pieces of several tokens {100 * several / total:.2f}% ({sum(tokens[w] > 1 for w in counts)} distinct)")
        hashes = {w: home_hash(w) for w in counts if 2 <= len(w) <= 16}
        for promote in (False, True):
            tables = {"short": Table(hashes), "mid": Table(hashes)}
            for rnd in range(3):  # the first call fills the cache; the bulk call's later ones are the steady state
                c = collections.Counter()
                for w in seq:
                    if w not in hashes:
                        c["one byte or over 16"] += 1
                        continue
                    t = tables[hashes[w][1]]
                    found = t.get(w, promote)
                    if found is None:
                        t.insert(w)
                    c["missing" if found is None else "home" if found else "past home"] += 1
            print(f"  {'moved home' if promote else 'left in place'}, third call: "
                  + ", ".join(f"{k} {100 * v / total:.2f}%" for k, v in sorted(c.items())))


if __name__ == "__main__":
    main()

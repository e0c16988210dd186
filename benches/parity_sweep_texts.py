"""The texts benches/parity_sweep.py compares on: whole corpora, and the tests' synthetic texts built to
overflow every word cache and edge lines (tests/scale_texts.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from scale_texts import edge_lines, synthetic_lines  # noqa: E402

CORPUS = "/work/shared/data/corpus"


def corpus_lines(name):
    """Every line of a corpus file (its newline dropped; empty lines kept, as a user's list would have them)."""
    with open(os.path.join(CORPUS, name), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def texts(name, synthetic_words=1_000_000):
    """Lines of the text named `name`: en-large, ud-XX, ud (all twelve), synthetic, edge."""
    if name == "ud":
        return [line for f in sorted(os.listdir(CORPUS)) if f.startswith("ud-") for line in corpus_lines(f)]
    if name == "synthetic":
        return synthetic_lines(synthetic_words)
    if name == "edge":
        return edge_lines()
    return corpus_lines(name + ".txt")


TEXT_NAMES = ("en-large", "ud", "synthetic", "edge")

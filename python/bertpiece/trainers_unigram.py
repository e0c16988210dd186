"""The Unigram trainer with HF tokenizers' API: `UnigramTrainer` (same names
and defaults as ``tokenizers.trainers.UnigramTrainer`` 0.23), trained by
`train_unigram_from_files` (paths) or `train_unigram_from_iterator` (texts)
into a `TrainedUnigram` whose `save()` writes the tokenizer.json HF's users
build around a trained Unigram model (``Metaspace()`` pre-tokenizer and
decoder, no normalizer), which ``tokenizers.Tokenizer.from_file`` and
`bertpiece.Tokenizer` load. Words are counted as ``Metaspace()`` splits
them. The algorithm (seeds, EM, pruning) and where it follows HF or
sentencepiece: docs/train-unigram.md; its specification: `oracle_train_unigram`.
Also importable from `bertpiece.trainers`.
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Callable, Iterable, List, Optional, Tuple

from . import _core
from ._atomic_write import write_text_atomically
from ._train_args import _count, _file_batches, _initial_alphabet, _special_tokens, _text, feed_counter, text_batches

__all__ = ["UnigramTrainer", "TrainedUnigram", "train_unigram_from_files", "train_unigram_from_iterator"]

METASPACE = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}


class UnigramTrainer:
    """HF's ``UnigramTrainer`` options, by the same names and defaults.
    `initial_alphabet`: strings of which, as in HF, only the first character
    counts. `seed_size`: the seed pieces EM starts from (HF's default)."""

    def __init__(self, vocab_size: int = 8000, show_progress: bool = True, special_tokens: Iterable[str] = (),
                 shrinking_factor: float = 0.75, unk_token: Optional[str] = None, max_piece_length: int = 16,
                 n_sub_iterations: int = 2, initial_alphabet: Iterable[str] = (), seed_size: int = 1_000_000):
        self.vocab_size = _count("vocab_size", vocab_size, minimum=1)
        self.show_progress = bool(show_progress)
        self.special_tokens, self._special_added = _special_tokens(special_tokens)
        if isinstance(shrinking_factor, bool) or not isinstance(shrinking_factor, (int, float)) \
                or not 0.0 < shrinking_factor < 1.0:
            # HF takes any float; 1 or more never shrinks (its loop never ends), 0 or less empties the vocabulary
            raise ValueError(f"shrinking_factor must be a number between 0 and 1 (exclusive), got {shrinking_factor!r}")
        self.shrinking_factor = float(shrinking_factor)
        self.unk_token = _text("unk_token", unk_token, optional=True)
        self.max_piece_length = _count("max_piece_length", max_piece_length, minimum=1)
        self.n_sub_iterations = _count("n_sub_iterations", n_sub_iterations, minimum=1)
        self.initial_alphabet = _initial_alphabet(initial_alphabet)
        self.seed_size = _count("seed_size", seed_size, minimum=1)

    def __repr__(self):
        names = ("vocab_size", "special_tokens", "shrinking_factor", "unk_token", "max_piece_length",
                 "n_sub_iterations", "initial_alphabet", "seed_size")
        return f"UnigramTrainer({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    def _options(self):
        return dict(special_tokens=self.special_tokens, shrinking_factor=self.shrinking_factor,
                    unk_token=self.unk_token, max_piece_length=self.max_piece_length,
                    n_sub_iterations=self.n_sub_iterations, initial_alphabet=self.initial_alphabet,
                    seed_size=self.seed_size)


class TrainedUnigram:
    """A trained Unigram model: `pieces` ([(piece, log probability)] in id
    order; special tokens score 0.0), `unk_id`, `vocab` ({piece: id}),
    `stats`; `to_str()` / `save(path)` give its tokenizer.json."""

    def __init__(self, pieces, unk_id, trainer, stats):
        self.pieces: List[Tuple[str, float]] = [(p, s) for p, s in pieces]
        self.unk_id: Optional[int] = unk_id
        self.vocab = {p: i for i, (p, _) in enumerate(self.pieces)}
        self.trainer, self.stats = trainer, stats

    def to_json(self) -> dict:
        added = [{"id": self.vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                  "normalized": False, "special": True} for t, _ in self.pieces[:self.stats["special_tokens"]]]
        model = {"type": "Unigram", "unk_id": self.unk_id, "vocab": [[p, s] for p, s in self.pieces],
                 "byte_fallback": False}
        return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
                "pre_tokenizer": dict(METASPACE), "post_processor": None, "decoder": dict(METASPACE), "model": model}

    def to_str(self, pretty: bool = False) -> str:
        if pretty:
            return json.dumps(self.to_json(), ensure_ascii=False, indent=2)
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))

    def save(self, path, pretty: bool = True) -> str:
        """Writes tokenizer.json whole or not at all (an error leaves `path` untouched). Returns the path."""
        return write_text_atomically(path, self.to_str(pretty), prefix=".tokenizer-")


def _progress_printer(trainer, progress):
    if progress is not None or not trainer.show_progress or not sys.stderr.isatty():
        return progress
    from .terminal.progress import LiveLine

    line = LiveLine("bertpiece.UnigramTrainer")

    def show(stage, done, total):
        if stage == "em":
            line.show("EM", None, [f"{done:,} pieces (target {total:,})", f"{line.elapsed():.0f} s"])
        elif stage == "done":
            line.close("done", None, [f"{done:,} tokens", f"{line.elapsed():.0f} s"])
        else:
            line.show("counting", None, [f"{done:,} texts", f"{line.elapsed():.0f} s"])
    return show


def train_counts(counter, trainer: UnigramTrainer, batches, *, num_threads=None, progress=None) -> TrainedUnigram:
    """Feeds `batches` (lists of str) to `counter` (a `_core.MetaspaceCounter`)
    and trains `trainer` on the counts: the step a tokenizer's own
    ``train(files, trainer)`` reuses."""
    if not isinstance(trainer, UnigramTrainer):
        raise TypeError(f"trainer must be a bertpiece.trainers.UnigramTrainer, not {type(trainer).__name__}")
    start = time.monotonic()
    texts = feed_counter(counter, batches, num_threads=num_threads, progress=progress)
    report = None if progress is None else (lambda size, target: progress("em", size, target))
    pieces, unk_id, rounds = counter.train_unigram(_core.UnigramOptions(trainer.vocab_size, **trainer._options()),
                                                   num_threads=num_threads, progress=report)
    if progress is not None:
        progress("done", len(pieces), trainer.vocab_size)
    words, unique = counter.stats()
    specials = len(dict.fromkeys(trainer.special_tokens + ([trainer.unk_token] if trainer.unk_token else [])))
    stats = {"texts": texts, "words": words, "unique_words": unique, "special_tokens": specials, "rounds": rounds,
             "vocab_size": len(pieces), "seconds": round(time.monotonic() - start, 3)}
    return TrainedUnigram(pieces, unk_id, trainer, stats)


def train_unigram_from_iterator(texts: Iterable[str], trainer: UnigramTrainer, *, num_threads: Optional[int] = None,
                                progress: Optional[Callable[[str, int, Optional[int]], None]] = None
                                ) -> TrainedUnigram:
    """Trains on texts (str), as HF's ``Tokenizer.train_from_iterator(texts,
    trainer)`` with a ``Metaspace()`` pre-tokenizer. `progress(stage, done,
    total)`: stage "count" (texts so far), "em" (pieces after an EM step,
    vocab_size), "done" (the vocabulary's size)."""
    batches = text_batches(texts, "train_unigram_from_files")
    return train_counts(_core.MetaspaceCounter(), trainer, batches, num_threads=num_threads,
                        progress=_progress_printer(trainer, progress))


def train_unigram_from_files(paths, trainer: UnigramTrainer, **options) -> TrainedUnigram:
    """Trains on files, as HF's ``Tokenizer.train(files, trainer)``: a .txt
    file (or - for stdin) gives one text per line *with* its line ending, as
    HF reads it; .jsonl/.parquet (and .gz/.zst) give one text per record. A
    line of invalid UTF-8 is a ValueError naming the file and line.
    `options`: those of `train_unigram_from_iterator`."""
    from .training import _file_paths

    files = _file_paths(paths)
    unknown = set(options) - {"num_threads", "progress"}
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    return train_counts(_core.MetaspaceCounter(), trainer, _file_batches(files),
                        num_threads=options.get("num_threads"),
                        progress=_progress_printer(trainer, options.get("progress")))


def log_likelihood(pieces, word_counts) -> float:
    """Σ count x log P(word) under the Unigram model `pieces` (all segmentations;
    for the quality bench and tests)."""
    from .oracle_train_unigram import log_add

    scores = dict(pieces)
    longest = max(len(p) for p in scores)
    total = 0.0
    for word, n in word_counts.items():
        alpha = [0.0] + [-math.inf] * len(word)
        for j in range(1, len(word) + 1):
            for i in range(max(0, j - longest), j):
                s = scores.get(word[i:j])
                if s is not None and alpha[i] > -math.inf:
                    alpha[j] = alpha[i] + s if alpha[j] == -math.inf else log_add(alpha[j], alpha[i] + s)
        total += n * alpha[-1]
    return total

"""BPE trainers with HF tokenizers' API: `BpeTrainer` (same names and
defaults as ``tokenizers.trainers.BpeTrainer`` 0.23) and
`ByteLevelBpeTrainer`, trained by `train_bpe_from_files` (paths) or
`train_bpe_from_iterator` (texts) into a `TrainedBpe` whose `save()` writes
a tokenizer.json that ``tokenizers.Tokenizer.from_file`` loads.

Why a byte-level trainer class: in HF, byte-level BPE is a `BpeTrainer`
with ``initial_alphabet=ByteLevel.alphabet()`` *plus* a ByteLevel
pre-tokenizer set on the `Tokenizer`. Here there is no tokenizer object to
carry the pre-tokenizer, so the trainer carries it: `ByteLevelBpeTrainer`
counts GPT-2 pre-tokens mapped through GPT-2's byte table and writes the
GPT-2/RoBERTa tokenizer.json; `BpeTrainer` counts words as HF's
`CharBPETokenizer` does (BertNormalizer + BertPreTokenizer). The seam for a
future ``bertpiece.Tokenizer.train(files, trainer)``: `train_counts(counter,
trainer)` trains on any counter object (a tokenizer would feed its own
pre-tokens) and `TrainedBpe` holds the vocabulary and merges to build the
model from. The merge algorithm, exactness and speed: docs/train-bpe.md.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Iterable, List, Optional

from . import _core
from ._atomic_write import write_text_atomically
from ._bpe_json import POST_PROCESSORS, dumps, tokenizer_json
from ._train_args import _count, _file_batches, _text, bpe_options, feed_counter, set_bpe_options, text_batches

__all__ = ["WordPieceTrainer", "WordLevelTrainer", "BpeTrainer", "ByteLevelBpeTrainer", "TrainedBpe", "train_bpe_from_files", "train_bpe_from_iterator",
           "UnigramTrainer", "TrainedUnigram", "train_unigram_from_files", "train_unigram_from_iterator"]

class BpeTrainer:
    """HF's ``BpeTrainer`` options, by the same names and defaults. Words are
    counted as HF's `CharBPETokenizer` splits them (BertNormalizer +
    BertPreTokenizer; the normalization is an option of the train functions).
    `initial_alphabet`: strings of which, as in HF, only the first character counts."""

    byte_level = False

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Iterable[str] = (), limit_alphabet: Optional[int] = None,
                 initial_alphabet: Iterable[str] = (), continuing_subword_prefix: Optional[str] = None,
                 end_of_word_suffix: Optional[str] = None, max_token_length: Optional[int] = None):
        set_bpe_options(self, vocab_size, min_frequency, show_progress, special_tokens, limit_alphabet,
                        initial_alphabet, continuing_subword_prefix, end_of_word_suffix)
        self.max_token_length = _count("max_token_length", max_token_length, optional=True, minimum=1)

    def __repr__(self):
        names = ("vocab_size", "min_frequency", "special_tokens", "limit_alphabet", "continuing_subword_prefix",
                 "end_of_word_suffix", "max_token_length")
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    def _options(self):
        return bpe_options(self, self.max_token_length)


class ByteLevelBpeTrainer(BpeTrainer):
    """Byte-level BPE (GPT-2, RoBERTa): HF's `BpeTrainer` with
    ``initial_alphabet=ByteLevel.alphabet()`` (the default here) on the pre-tokens
    of ``ByteLevel(add_prefix_space=add_prefix_space)`` (GPT-2's regex, bytes
    mapped to characters). `add_prefix_space` defaults to False, as in GPT-2's
    and RoBERTa's tokenizer.json (HF's ``ByteLevel()`` alone defaults to True)."""

    byte_level = True

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Iterable[str] = (), limit_alphabet: Optional[int] = None,
                 initial_alphabet: Optional[Iterable[str]] = None, continuing_subword_prefix: Optional[str] = None,
                 end_of_word_suffix: Optional[str] = None, max_token_length: Optional[int] = None,
                 add_prefix_space: bool = False):
        if initial_alphabet is None:
            initial_alphabet = _core.ByteLevelCounter.alphabet()
        super().__init__(vocab_size, min_frequency, show_progress, special_tokens, limit_alphabet, initial_alphabet,
                         continuing_subword_prefix, end_of_word_suffix, max_token_length)
        self.add_prefix_space = bool(add_prefix_space)


class TrainedBpe:
    """A trained BPE model: `tokens` (id order), `merges` (rank order), `vocab`
    ({token: id}), `stats`; `to_str()` / `save(path)` give its tokenizer.json."""

    def __init__(self, tokens, merges, trainer, *, unk_token, post_processor, normalization, stats):
        self.tokens: List[str] = tokens
        self.merges = [tuple(m) for m in merges]
        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.trainer, self.unk_token, self.post_processor = trainer, unk_token, post_processor
        self.normalization, self.stats = normalization, stats

    def to_json(self) -> dict:
        return tokenizer_json(self)

    def to_str(self, pretty: bool = False) -> str:
        return dumps(self.to_json(), pretty)

    def save(self, path, pretty: bool = True) -> str:
        """Writes tokenizer.json whole or not at all (an error leaves `path` untouched). Returns the path."""
        return write_text_atomically(path, self.to_str(pretty), prefix=".tokenizer-")


def _check(trainer, unk_token, post_processor):
    if not isinstance(trainer, BpeTrainer):
        raise TypeError(f"trainer must be a bertpiece.trainers.BpeTrainer, not {type(trainer).__name__}")
    if unk_token is not None:
        _text("unk_token", unk_token)
        if unk_token not in trainer.special_tokens:
            raise ValueError(f"unk_token {unk_token!r} must be one of the trainer's special_tokens")
    if post_processor not in POST_PROCESSORS:
        raise ValueError(f"post_processor must be one of {POST_PROCESSORS}, got {post_processor!r}")
    if post_processor == "roberta":
        missing = [t for t in ("<s>", "</s>") if t not in trainer.special_tokens]
        if missing or not trainer.byte_level:
            raise ValueError("post_processor='roberta' needs a ByteLevelBpeTrainer with '<s>' and '</s>' in "
                             "special_tokens")


def _counter(trainer, lowercase, strip_accents, handle_chinese_chars):
    if trainer.byte_level:
        return _core.ByteLevelCounter(add_prefix_space=trainer.add_prefix_space)
    return _core.WordCounter(reference="tokenizers", do_lower_case=lowercase, strip_accents=strip_accents,
                             tokenize_chinese_chars=handle_chinese_chars)


def _progress_printer(trainer, progress):
    if progress is not None or not trainer.show_progress or not sys.stderr.isatty():
        return progress
    from .terminal.progress import LiveLine

    line = LiveLine(f"bertpiece.{type(trainer).__name__}")

    def show(stage, done, total):
        if stage == "merge":
            line.show("merging", done / total if total else None, [f"{done:,}/{total:,} tokens",
                                                                   f"{line.elapsed():.0f} s"])
        elif stage == "done":
            # the final frame (the vocabulary's size: below vocab_size when the merges ran out)
            line.close("done", None, [f"{done:,} tokens", f"{line.elapsed():.0f} s"])
        else:
            line.show("counting", None, [f"{done:,} texts", f"{line.elapsed():.0f} s"])
    return show


def train_counts(counter, trainer, batches, *, unk_token=None, post_processor="gpt2", normalization=None,
                 num_threads=None, progress=None) -> TrainedBpe:
    """Feeds `batches` (lists of str) to `counter` and trains `trainer` on
    the counts: the step a tokenizer's own ``train(files, trainer)`` reuses."""
    start = time.monotonic()
    texts = feed_counter(counter, batches, num_threads=num_threads, progress=progress)
    report = None if progress is None else (lambda done, total: progress("merge", done, total))
    tokens, merges, alphabet = counter.train_bpe(_core.BpeOptions(trainer.vocab_size, **trainer._options()), progress=report)
    if progress is not None:
        progress("done", len(tokens), trainer.vocab_size)
    stats = counter.stats()
    stats = {"texts": texts, "words": stats[0], "unique_words": stats[-1], "alphabet": alphabet,
             "merges": len(merges), "vocab_size": len(tokens), "seconds": round(time.monotonic() - start, 3)}
    return TrainedBpe(tokens, merges, trainer, unk_token=unk_token,
                      post_processor=post_processor if trainer.byte_level else None,
                      normalization=normalization, stats=stats)


def _train(batches, trainer, *, unk_token, post_processor, lowercase, strip_accents, handle_chinese_chars,
           num_threads, progress):
    _check(trainer, unk_token, post_processor)
    normalization = {"lowercase": bool(lowercase), "strip_accents": strip_accents,
                     "handle_chinese_chars": bool(handle_chinese_chars)}
    counter = _counter(trainer, lowercase, strip_accents, handle_chinese_chars)
    return train_counts(counter, trainer, batches, unk_token=unk_token, post_processor=post_processor,
                        normalization=normalization, num_threads=num_threads,
                        progress=_progress_printer(trainer, progress))


def train_bpe_from_iterator(texts: Iterable[str], trainer: BpeTrainer, *, unk_token: Optional[str] = None,
                            post_processor: Optional[str] = "gpt2", lowercase: bool = False,
                            strip_accents: Optional[bool] = None, handle_chinese_chars: bool = True,
                            num_threads: Optional[int] = None,
                            progress: Optional[Callable[[str, int, Optional[int]], None]] = None) -> TrainedBpe:
    """Trains on texts (str), as HF's ``Tokenizer.train_from_iterator(texts, trainer)``.

    `unk_token`: the model's unknown token (one of the special tokens; default
    none, as HF's ``BPE()``). `post_processor`: "gpt2", "roberta" or None
    (byte-level only). `lowercase`, `strip_accents`, `handle_chinese_chars`:
    the BertNormalizer of a character-level `BpeTrainer` (ignored byte-level).
    `progress(stage, done, total)`: stage "count" (texts), "merge"
    (vocabulary size), "done"."""
    return _train(text_batches(texts, "train_bpe_from_files"), trainer, unk_token=unk_token, post_processor=post_processor, lowercase=lowercase,
                  strip_accents=strip_accents, handle_chinese_chars=handle_chinese_chars, num_threads=num_threads,
                  progress=progress)


def train_bpe_from_files(paths, trainer: BpeTrainer, **options) -> TrainedBpe:
    """Trains on files, as HF's ``Tokenizer.train(files, trainer)``: a .txt
    file (or - for stdin) gives one text per line *with* its line ending, as
    HF reads it (byte-level BPE learns "Ċ" for "\\n"); .jsonl/.parquet (and
    .gz/.zst) give one text per record. A line of invalid UTF-8 is a
    ValueError naming the file and line, as in HF. `options`: those of
    `train_bpe_from_iterator`."""
    from .training import _file_paths

    files = _file_paths(paths)
    return _train(_file_batches(files), trainer, **{"unk_token": None, "post_processor": "gpt2",
                                                    "lowercase": False, "strip_accents": None,
                                                    "handle_chinese_chars": True, "num_threads": None,
                                                    "progress": None, **options})


# Unigram (HF's UnigramTrainer) lives in its own module; it is imported here so
# that bertpiece.trainers holds every trainer, as tokenizers.trainers does.
from .trainers_unigram import (TrainedUnigram, UnigramTrainer, train_unigram_from_files,  # noqa: E402
                               train_unigram_from_iterator)
from .trainers_words import WordLevelTrainer, WordPieceTrainer  # noqa: E402

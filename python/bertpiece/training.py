"""Train a WordPiece vocabulary (`vocab.txt`) on your own corpus.

`train_wordpiece` counts the words of the corpus with the same normalization
and pre-tokenization as the tokenizer that will use the vocabulary (the Rust
core's encoding path, in parallel, streaming), then builds the vocabulary:

* ``algorithm="likelihood"`` (default): WordPiece's score
  ``count(ab) / (count(a) * count(b))``, exact and deterministic; specified
  by `bertpiece.oracle_train`.
* ``algorithm="hf"``: HF tokenizers' ``WordPieceTrainer`` (it merges by pair
  frequency, BPE-style), step for step. See docs/train.md for what "the same
  as HF" means given that HF's own result varies from run to run.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Callable, Iterable, Optional, Union

from . import _core

DEFAULT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
ALGORITHMS = ("likelihood", "hf")
_BATCH = 1_000  # texts per feed: larger batches only cost memory (measured on en-large)


class WordPieceVocab(list):
    """The trained vocabulary: a list of tokens in id order, plus `save()` and `stats`."""

    def __init__(self, tokens, stats):
        super().__init__(tokens)
        self.stats = stats

    def save(self, path: Union[str, os.PathLike]) -> str:
        """Writes `vocab.txt` (one token per line, in id order), which `FullTokenizer`,
        `BertTokenizer` and transformers load directly. The file appears whole or
        not at all (written to a temporary file, then renamed). Returns the path."""
        path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".vocab-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
                f.write("".join(t + "\n" for t in self))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return path


def train_wordpiece(
    files_or_texts,
    vocab_size: int = 30522,
    *,
    algorithm: str = "likelihood",
    reference: Optional[str] = None,
    do_lower_case: bool = True,
    strip_accents: Optional[bool] = None,
    tokenize_chinese_chars: bool = True,
    min_frequency: int = 2,
    limit_alphabet: Optional[int] = 1000,
    initial_alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = DEFAULT_SPECIAL_TOKENS,
    unused_tokens: int = 0,
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: Optional[int] = None,
    num_threads: Optional[int] = None,
    progress: Optional[Callable[[str, int, Optional[int]], None]] = None,
) -> WordPieceVocab:
    """Trains a WordPiece vocabulary of at most `vocab_size` tokens.

    `files_or_texts`: a path (str or os.PathLike: .txt, .jsonl with a "text"
    field, .parquet with a "text" column, optionally .gz/.zst), or an iterable
    whose items are texts (str) or paths (os.PathLike, e.g. pathlib.Path).

    Normalization options are those of the tokenizer that will use the
    vocabulary (`reference` defaults to "google", or "tokenizers" for
    ``algorithm="hf"``). `max_input_chars_per_word`: longer words are not
    counted (default: the reference's limit for "likelihood", none for "hf",
    which has none). `progress(stage, done, total)` is called with stage
    "count" (texts) and "merge" (vocabulary size).
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: expected one of {ALGORITHMS}")
    if reference is None:
        reference = "tokenizers" if algorithm == "hf" else "google"
    for name, value in (("vocab_size", vocab_size), ("min_frequency", min_frequency), ("unused_tokens", unused_tokens)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if limit_alphabet is not None and (isinstance(limit_alphabet, bool) or not isinstance(limit_alphabet, int)
                                       or limit_alphabet < 0):
        raise ValueError(f"limit_alphabet must be a non-negative integer or None, got {limit_alphabet!r}")
    special_tokens = list(special_tokens)
    for t in special_tokens:
        if not isinstance(t, str) or not t or t != t.strip() or any(c in t for c in "\n\r"):
            raise ValueError(f"special tokens must be non-empty strings without surrounding whitespace or "
                             f"line breaks, got {t!r}")
    return _train(_batches(files_or_texts), vocab_size, algorithm=algorithm, reference=reference,
                  do_lower_case=do_lower_case, strip_accents=strip_accents,
                  tokenize_chinese_chars=tokenize_chinese_chars, min_frequency=min_frequency,
                  limit_alphabet=limit_alphabet, initial_alphabet=initial_alphabet, special_tokens=special_tokens,
                  unused_tokens=unused_tokens, continuing_subword_prefix=continuing_subword_prefix,
                  max_input_chars_per_word=max_input_chars_per_word, num_threads=num_threads, progress=progress)


def _train(batches, vocab_size, *, algorithm, reference, do_lower_case, strip_accents, tokenize_chinese_chars,
           min_frequency, limit_alphabet, initial_alphabet, special_tokens, unused_tokens, continuing_subword_prefix,
           max_input_chars_per_word, num_threads, progress):
    """`train_wordpiece` on checked options and `batches` of (texts, invalid-UTF-8 lines)."""
    if max_input_chars_per_word is None and algorithm == "likelihood":
        max_input_chars_per_word = 200 if reference == "google" else 100
    start = time.monotonic()
    counter = _core.WordCounter(reference=reference, do_lower_case=do_lower_case, strip_accents=strip_accents,
                                tokenize_chinese_chars=tokenize_chinese_chars,
                                max_input_chars_per_word=max_input_chars_per_word)
    texts_done, invalid = 0, 0
    for batch, bad in batches:
        counter.feed(batch, num_threads=num_threads)
        texts_done += len(batch)
        invalid += bad
        if progress is not None:
            progress("count", texts_done, None)
    words, skipped, unique = counter.stats()
    report = None if progress is None else (lambda done, total: progress("merge", done, total))
    tokens, alphabet, merges = counter.train(
        vocab_size, algorithm=algorithm, special_tokens=special_tokens, unused_tokens=unused_tokens,
        min_frequency=min_frequency, limit_alphabet=limit_alphabet, initial_alphabet=list(initial_alphabet),
        continuing_subword_prefix=continuing_subword_prefix, progress=report)
    stats = {"algorithm": algorithm, "texts": texts_done, "words": words, "unique_words": unique,
             "long_words_skipped": skipped, "invalid_utf8_lines": invalid, "alphabet": alphabet, "merges": merges,
             "vocab_size": len(tokens), "seconds": round(time.monotonic() - start, 3)}
    return WordPieceVocab(tokens, stats)


class Batches:
    """Input already in batches: an iterable of `(texts, invalid-UTF-8 lines)`
    (what the CLI passes, to report its own progress while reading)."""

    def __init__(self, batches):
        self.batches = batches


def _batches(files_or_texts):
    """Batches of texts, each with its count of lines that had invalid UTF-8."""
    if isinstance(files_or_texts, Batches):
        yield from files_or_texts.batches
        return
    if isinstance(files_or_texts, (str, os.PathLike)):
        yield from read_file(os.fspath(files_or_texts))
        return
    pending = []
    for item in files_or_texts:
        if isinstance(item, str):
            pending.append(item)
            if len(pending) >= _BATCH:
                yield pending, 0
                pending = []
        elif isinstance(item, os.PathLike):
            if pending:
                yield pending, 0
                pending = []
            yield from read_file(os.fspath(item))
        else:
            raise TypeError(f"expected texts (str) or paths (os.PathLike), got {type(item).__name__}")
    if pending:
        yield pending, 0


def read_file(path: str, batch_size: int = _BATCH):
    """Batches of one input file, read as `bertpiece encode` reads it (invalid
    UTF-8 bytes dropped and the lines counted)."""
    from .cli import UserError
    from .cli.io_formats import Source

    if path != "-" and not os.path.exists(path):
        raise FileNotFoundError(2, f"no such file: {path}", path)
    try:
        source = Source(path, want_extra=False)
        for batch in source.batches(batch_size):
            yield batch.texts, batch.invalid_utf8
    except UserError as e:
        raise ValueError(str(e)) from None

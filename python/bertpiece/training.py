"""Train a WordPiece vocabulary (`vocab.txt`) on your own corpus.

`train_wordpiece` (texts) and `train_wordpiece_from_files` (paths) count the
words of the corpus with the same normalization and pre-tokenization as the
tokenizer that will use the vocabulary (the Rust core's encoding path, in
parallel, streaming), then build the vocabulary:

* ``algorithm="hf"`` (default): HF tokenizers' ``WordPieceTrainer`` (it
  merges by pair frequency, BPE-style), step for step, deterministic. See
  docs/train.md for what "the same as HF" means given that HF's own result
  varies from run to run.
* ``algorithm="likelihood"``: WordPiece's textbook score
  ``count(ab) / (count(a) * count(b))``, exact and deterministic; specified
  by `bertpiece.oracle_train`. It favours rare pairs: 1.46x the held-out
  tokens per word of "hf" on English (benches/train_quality.py).
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Callable, Iterable, Optional, Union

from . import _core
from ._atomic_write import write_text_atomically

DEFAULT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
ALGORITHMS = ("hf", "likelihood")
_BATCH = 1_000  # texts per feed: larger batches only cost memory (measured on en-large)
# Text items checked for being the path of an existing file (a warning): a
# file-system lookup costs about as much as counting a sentence, so only the
# first ones (a list of paths is caught at its first item).
_CHECKED_TEXTS = 1_000


class WordPieceVocab(list):
    """The trained vocabulary: a list of tokens in id order, plus `save()` and `stats`."""

    def __init__(self, tokens, stats):
        super().__init__(tokens)
        self.stats = stats

    def save(self, path: Union[str, os.PathLike]) -> str:
        """Writes `vocab.txt` (one token per line, in id order), which `FullTokenizer`,
        `BertTokenizer` and transformers load directly. The file appears whole or
        not at all (written to a temporary file, then renamed), with the mode
        `open(path, "w")` would give it (0o666 less the umask). Returns the path."""
        return write_text_atomically(path, "".join(t + "\n" for t in self), prefix=".vocab-")


def train_wordpiece(
    files_or_texts,
    vocab_size: int = 30522,
    *,
    algorithm: str = "hf",
    reference: Optional[str] = None,
    do_lower_case: bool = True,
    strip_accents: Optional[bool] = None,
    tokenize_chinese_chars: bool = True,
    min_frequency: int = 2,
    limit_alphabet: Optional[int] = 1000,
    initial_alphabet: Iterable[str] = (),
    special_tokens: Iterable[str] = DEFAULT_SPECIAL_TOKENS,
    unk_token: str = "[UNK]",
    unused_tokens: int = 0,
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: Optional[int] = None,
    num_threads: Optional[int] = None,
    progress: Optional[Callable[[str, int, Optional[int]], None]] = None,
) -> WordPieceVocab:
    """Trains a WordPiece vocabulary of at most `vocab_size` tokens on texts.

    `files_or_texts`: an iterable of texts (str). For files use
    `train_wordpiece_from_files`; still accepted here (older code): a single
    path (str or os.PathLike), and os.PathLike items (e.g. pathlib.Path)
    among the texts. A str item is always a text: one that is the path of an
    existing file (among the first 1,000 items) gets a UserWarning.

    `algorithm`: "hf" (default; HF's WordPieceTrainer, merging the most
    frequent pair) or "likelihood" (the textbook WordPiece score, which
    favours rare pairs: longer sequences, see docs/train.md).

    Normalization options are those of the tokenizer that will use the
    vocabulary (`reference` defaults to "tokenizers", HF's, or "google" for
    ``algorithm="likelihood"``). `max_input_chars_per_word`: longer words are
    not counted (default: none for "hf", which has none; the reference's limit
    for "likelihood"). `progress(stage, done, total)` is called with stage
    "count" (texts) and "merge" (vocabulary size).

    Every token is one line of vocab.txt, so `special_tokens`,
    `initial_alphabet` and `continuing_subword_prefix` must not hold
    whitespace (ValueError); `unk_token` must be one of `special_tokens`
    (tokenizers loading the vocabulary need it). A text holding a lone
    surrogate is a ValueError naming it.
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
    special_tokens, initial_alphabet = check_token_options(special_tokens, unk_token, initial_alphabet,
                                                           continuing_subword_prefix)
    return _train(_batches(files_or_texts, check_paths=True), vocab_size, algorithm=algorithm, reference=reference,
                  do_lower_case=do_lower_case, strip_accents=strip_accents,
                  tokenize_chinese_chars=tokenize_chinese_chars, min_frequency=min_frequency,
                  limit_alphabet=limit_alphabet, initial_alphabet=initial_alphabet, special_tokens=special_tokens,
                  unused_tokens=unused_tokens, continuing_subword_prefix=continuing_subword_prefix,
                  max_input_chars_per_word=max_input_chars_per_word, num_threads=num_threads, progress=progress)


def train_wordpiece_from_files(paths, vocab_size: int = 30522, **options) -> WordPieceVocab:
    """Trains a WordPiece vocabulary on the contents of files, as HF's
    ``Tokenizer.train(files, trainer)`` does (`train_wordpiece` takes texts,
    as ``train_from_iterator``): separate calls, so a path is never trained on
    as a text nor a text opened as a file.

    `paths`: a path (str or os.PathLike) or an iterable of them: .txt (one
    text per line), .jsonl (the "text" field), .parquet (the "text" column),
    each optionally .gz or .zst. `options`: those of `train_wordpiece`.
    """
    return train_wordpiece(Batches(_file_batches(paths)), vocab_size, **options)


def _file_batches(paths):
    """Batches of the files `paths`, all checked (type, existence) before any is read."""
    for path in _file_paths(paths):
        yield from read_file(path)


def _file_paths(paths):
    """`paths` (a path or an iterable of them) as a list of str, each checked: type, existence."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    elif isinstance(paths, (bytes, bytearray)):
        raise TypeError("paths must be a path (str or os.PathLike) or an iterable of paths, not bytes")
    paths = list(paths)
    for k, path in enumerate(paths):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"paths[{k}] must be a path (str or os.PathLike), not {type(path).__name__}")
        if os.fspath(path) != "-" and not os.path.exists(path):
            raise FileNotFoundError(2, f"no such file: {os.fspath(path)}", os.fspath(path))
    return [os.fspath(path) for path in paths]


API_NAMES = {"special_tokens": "special_tokens", "unk_token": "unk_token", "initial_alphabet": "initial_alphabet",
             "prefix": "continuing_subword_prefix"}


def check_token_options(special_tokens, unk_token, initial_alphabet, prefix, names=API_NAMES):
    """`(special_tokens, initial_alphabet)` as lists, or the error naming the
    argument (by `names`: the CLI passes its flags). vocab.txt holds one token
    per line, and its readers split lines at more than "\\n" (transformers at
    "\\r", `str.splitlines` at "\\x0b", "\\x85", "\\u2028"...) and strip
    whitespace at the ends (Google: `str.strip`, HF tokenizers: `trim_end`), so
    no token may hold whitespace (`str.isspace`, a superset of Rust's); BERT's
    pre-tokenization never makes one either."""
    if isinstance(special_tokens, str):
        raise TypeError(f"{names['special_tokens']} must be a list of strings, not a single str")
    special_tokens = list(special_tokens)
    for k, token in enumerate(special_tokens):
        _check_string(f"{names['special_tokens']}[{k}]", token, allow_empty=False)
    _check_string(names["unk_token"], unk_token, allow_empty=False)
    if unk_token not in special_tokens:
        raise ValueError(f"{names['special_tokens']} must include the unknown token {unk_token!r}: bertpiece and "
                         f"transformers cannot load or encode with a vocabulary without it (name yours with "
                         f"{names['unk_token']})")
    initial_alphabet = list(initial_alphabet)
    for k, char in enumerate(initial_alphabet):
        where = f"{names['initial_alphabet']}[{k}]"
        _check_string(where, char, allow_empty=False)
        if len(char) != 1:
            raise ValueError(f"{where} must be a single character, got {char!r}")
    _check_string(names["prefix"], prefix, allow_empty=True)
    return special_tokens, initial_alphabet


def _check_string(name, value, *, allow_empty):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if not value and not allow_empty:
        raise ValueError(f"{name} must not be empty (it would be an empty line of vocab.txt)")
    for position, char in enumerate(value):
        if char.isspace():
            raise ValueError(f"{name}={value!r} holds whitespace (U+{ord(char):04X} at position {position}): "
                             f"vocab.txt holds one token per line, and its readers split or strip there")
        if "\ud800" <= char <= "\udfff":
            raise ValueError(f"{name}={value!r} holds a lone surrogate (U+{ord(char):04X} at position {position}), "
                             f"which is not valid Unicode text")


def _train(batches, vocab_size, *, algorithm, reference, do_lower_case, strip_accents, tokenize_chinese_chars,
           min_frequency, limit_alphabet, initial_alphabet, special_tokens, unused_tokens, continuing_subword_prefix,
           max_input_chars_per_word, num_threads, progress):
    """`train_wordpiece` on checked options and `batches` of (texts, invalid-UTF-8 lines, origin)."""
    if max_input_chars_per_word is None and algorithm == "likelihood":
        max_input_chars_per_word = 200 if reference == "google" else 100
    start = time.monotonic()
    counter = _core.WordCounter(reference=reference, do_lower_case=do_lower_case, strip_accents=strip_accents,
                                tokenize_chinese_chars=tokenize_chinese_chars,
                                max_input_chars_per_word=max_input_chars_per_word)
    texts_done, invalid = 0, 0
    for batch, bad, origin in batches:
        try:
            counter.feed(batch, num_threads=num_threads)
        except UnicodeEncodeError:
            error = _surrogate_error(batch, origin)
            if error is None:
                raise
            raise error from None
        texts_done += len(batch)
        invalid += bad
        if progress is not None:
            progress("count", texts_done, None)
    words, skipped, unique = counter.stats()
    report = None if progress is None else (lambda done, total: progress("merge", done, total))
    tokens, alphabet, merges = counter.train(
        vocab_size, algorithm=algorithm, special_tokens=special_tokens, unused_tokens=unused_tokens,
        min_frequency=min_frequency, limit_alphabet=limit_alphabet, initial_alphabet=initial_alphabet,
        continuing_subword_prefix=continuing_subword_prefix, progress=report)
    stats = {"algorithm": algorithm, "texts": texts_done, "words": words, "unique_words": unique,
             "long_words_skipped": skipped, "invalid_utf8_lines": invalid, "alphabet": alphabet, "merges": merges,
             "vocab_size": len(tokens), "seconds": round(time.monotonic() - start, 3)}
    return WordPieceVocab(tokens, stats)


def _surrogate_error(texts, origin):
    """The error for the first text of a batch holding a lone surrogate;
    `origin` is `(None, index of the batch's first text in files_or_texts)`,
    or `(a file's path, the lines before the batch)`."""
    from .batch import SurrogateError, first_surrogate

    found = first_surrogate(texts)
    if found is None:
        return None
    k, position, char = found
    where, first = origin
    if where == "-":
        where = "stdin"
    place = f"files_or_texts[{first + k}]" if where is None else f"{where}: line {first + k + 1}"
    return SurrogateError(f"{place} holds a lone surrogate (U+{ord(char):04X} at position {position}), which is "
                          f"not valid Unicode text; no vocabulary can hold it")


class Batches:
    """Input already in batches: an iterable of `(texts, invalid-UTF-8 lines,
    (path, rows before the batch))` (what the CLI passes, to report its own
    progress while reading)."""

    def __init__(self, batches):
        self.batches = batches


def _batches(files_or_texts, check_paths=False):
    """Batches of texts, each with its count of lines that had invalid UTF-8
    and its origin (`(None, index of its first text)` for texts given as str).
    `check_paths`: warn at the first of the first `_CHECKED_TEXTS` str items
    that is the path of an existing file."""
    if isinstance(files_or_texts, Batches):
        yield from files_or_texts.batches
        return
    if isinstance(files_or_texts, (str, os.PathLike)):
        yield from read_file(os.fspath(files_or_texts))
        return
    pending, index = [], 0  # index: the items before `pending`
    unchecked = _CHECKED_TEXTS if check_paths else 0
    for item in files_or_texts:
        if isinstance(item, str):
            if unchecked:
                unchecked -= 1
                if item and os.path.isfile(item):
                    unchecked = 0
                    _warn_path_as_text(item, index + len(pending))
            pending.append(item)
            if len(pending) >= _BATCH:
                yield pending, 0, (None, index)
                index += len(pending)
                pending = []
        elif isinstance(item, os.PathLike):
            if pending:
                yield pending, 0, (None, index)
                index += len(pending)
                pending = []
            yield from read_file(os.fspath(item))
            index += 1
        else:
            raise TypeError(f"expected texts (str) or paths (os.PathLike), got {type(item).__name__}")
    if pending:
        yield pending, 0, (None, index)


def _warn_path_as_text(item, k):
    # stacklevel 5: past this function, _batches (a generator run by _train), _train and train_wordpiece.
    warnings.warn(f"files_or_texts[{k}] = {item!r} is the path of an existing file, but train_wordpiece trains on "
                  f"it as a text (the name, not the file's contents); to train on files use "
                  f"bertpiece.train_wordpiece_from_files([...])", UserWarning, stacklevel=5)


def read_file(path: str, batch_size: int = _BATCH):
    """Batches of one input file, read as `bertpiece encode` reads it (invalid
    UTF-8 bytes dropped and the lines counted), with their origin."""
    from ._errors import UserError
    from .input_formats import Source

    if path != "-" and not os.path.exists(path):
        raise FileNotFoundError(2, f"no such file: {path}", path)
    try:
        source = Source(path, want_extra=False)
        rows = 0
        for batch in source.batches(batch_size):
            yield batch.texts, batch.invalid_utf8, (path, rows)
            rows += len(batch.texts)
    except UserError as e:
        raise ValueError(str(e)) from None

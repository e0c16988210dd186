"""Argument checks and input batching shared by the trainers
(`bertpiece.trainers`, `bertpiece.trainers_unigram`): option values,
texts in batches, files as HF's `Tokenizer.train(files)` reads them."""

from __future__ import annotations

import os

_BATCH = 1_000


def _count(name, value, *, optional=False, minimum=0):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}{' or None' if optional else ''}, got {value!r}")
    return value


def _text(name, value, *, optional=False):
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str{' or None' if optional else ''}, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise ValueError(f"{name}={value!r} holds a lone surrogate, which is not valid Unicode text")
    return value


def _special_tokens(values):
    """HF's `special_tokens`: a list of str or AddedToken. Returns (their
    contents, the values as given) — the trainer reads the contents, and
    `Tokenizer.train` adds the values (AddedToken options kept, as HF)."""
    from .tokenizers_api.added_tokens import _is_added_token

    if isinstance(values, str):
        raise TypeError("special_tokens must be a list of strings, not a single str")
    given = list(values)
    names = [_text(f"special_tokens[{k}]", t.content if _is_added_token(t) else t) for k, t in enumerate(given)]
    return names, given


def _initial_alphabet(values):
    """HF's `initial_alphabet`: strings of which only the first character counts; sorted, each once."""
    if isinstance(values, str):
        raise TypeError("initial_alphabet must be a list of strings, not a single str")
    return sorted({_text(f"initial_alphabet[{k}]", c)[0] for k, c in enumerate(values)})


def set_bpe_options(trainer, vocab_size, min_frequency, show_progress, special_tokens, limit_alphabet,
                    initial_alphabet, continuing_subword_prefix, end_of_word_suffix):
    """Checks the options HF's BpeTrainer and WordPieceTrainer share and sets them on `trainer`."""
    trainer.vocab_size = _count("vocab_size", vocab_size)
    trainer.min_frequency = _count("min_frequency", min_frequency)
    trainer.show_progress = bool(show_progress)
    trainer.special_tokens, trainer._special_added = _special_tokens(special_tokens)
    trainer.limit_alphabet = _count("limit_alphabet", limit_alphabet, optional=True)
    trainer.initial_alphabet = _initial_alphabet(initial_alphabet)
    trainer.continuing_subword_prefix = _text("continuing_subword_prefix", continuing_subword_prefix, optional=True)
    trainer.end_of_word_suffix = _text("end_of_word_suffix", end_of_word_suffix, optional=True)


def bpe_options(trainer, max_token_length):
    """The keyword arguments of `_core.BpeOptions` (after vocab_size) for a BPE-family trainer."""
    return dict(min_frequency=trainer.min_frequency, special_tokens=trainer.special_tokens,
                limit_alphabet=trainer.limit_alphabet, initial_alphabet=trainer.initial_alphabet,
                continuing_subword_prefix=trainer.continuing_subword_prefix,
                end_of_word_suffix=trainer.end_of_word_suffix, max_token_length=max_token_length)


def text_batches(texts, files_function):
    """`texts` (an iterable of str) in lists of `_BATCH`; a str, bytes or path is
    a TypeError pointing to `files_function`."""
    if isinstance(texts, (str, bytes, os.PathLike)):
        raise TypeError(f"texts must be an iterable of str (for files use {files_function})")

    def batches():
        batch = []
        for k, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{k}] must be a str, not {type(text).__name__}")
            batch.append(text)
            if len(batch) == _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch
    return batches()


def feed_counter(counter, batches, *, num_threads=None, progress=None) -> int:
    """Feeds every batch (a list of str) to a counter of the core, reporting
    ("count", texts so far, None); returns how many texts it read."""
    texts = 0
    for batch in batches:
        counter.feed(batch, num_threads=num_threads)
        texts += len(batch)
        if progress is not None:
            progress("count", texts, None)
    return texts


def _file_batches(paths):
    from ._errors import UserError
    from .input_formats import Source
    from .training import read_file

    for path in paths:
        try:
            source = Source(path, want_extra=False)
        except UserError as e:
            raise ValueError(str(e)) from None
        if source.kind != "txt":
            for texts, _, _ in read_file(path, _BATCH):
                yield texts
            continue
        try:
            yield from _lines_with_endings(source._open_binary(), "stdin" if path == "-" else path)
        finally:
            source.close()


def _lines_with_endings(stream, where):
    """Batches of the lines of a binary stream, each with its "\n" (HF's `lines_with_ending`)."""
    batch = []
    for number, line in enumerate(stream, 1):
        try:
            batch.append(line.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise ValueError(f"{where}: line {number} is not valid UTF-8 ({e.reason} at byte {e.start})") from None
        if len(batch) == _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch

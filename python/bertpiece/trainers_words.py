"""`WordPieceTrainer` and `WordLevelTrainer` with HF tokenizers' names and
defaults (``tokenizers.trainers`` 0.23.3), for ``bertpiece.Tokenizer.train``
(tokenizers_api/training.py). Also importable from `bertpiece.trainers`.

WordPieceTrainer is what HF's is: a BPE trainer whose
`continuing_subword_prefix` defaults to "##"; the WordPiece vocabulary is the
trained BPE vocabulary, in its id order. WordLevelTrainer keeps the words
themselves, most frequent first (ties by code points), after the special tokens.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional

from ._train_args import _count, _special_tokens, bpe_options, set_bpe_options

__all__ = ["WordPieceTrainer", "WordLevelTrainer", "word_level_vocab"]


class WordPieceTrainer:
    """HF's ``WordPieceTrainer`` options, by the same names and defaults
    (`initial_alphabet`: strings of which, as in HF, only the first character counts)."""

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Iterable[str] = (), limit_alphabet: Optional[int] = None,
                 initial_alphabet: Iterable[str] = (), continuing_subword_prefix: Optional[str] = "##",
                 end_of_word_suffix: Optional[str] = None):
        set_bpe_options(self, vocab_size, min_frequency, show_progress, special_tokens, limit_alphabet,
                        initial_alphabet, continuing_subword_prefix, end_of_word_suffix)

    def __repr__(self):
        names = ("vocab_size", "min_frequency", "special_tokens", "limit_alphabet", "continuing_subword_prefix",
                 "end_of_word_suffix")
        return f"WordPieceTrainer({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    def _options(self):
        # The BPE trainer HF's WordPieceTrainer wraps (no max_token_length there).
        return bpe_options(self, None)


class WordLevelTrainer:
    """HF's ``WordLevelTrainer`` options, by the same names and defaults."""

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Iterable[str] = ()):
        self.vocab_size = _count("vocab_size", vocab_size)
        self.min_frequency = _count("min_frequency", min_frequency)
        self.show_progress = bool(show_progress)
        self.special_tokens, self._special_added = _special_tokens(special_tokens)

    def __repr__(self):
        names = ("vocab_size", "min_frequency", "special_tokens")
        return f"WordLevelTrainer({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"


def _code_points(word: str) -> List[int]:
    return [ord(c) for c in word]


def word_level_vocab(counts: Dict[str, int], trainer: WordLevelTrainer) -> Dict[str, int]:
    """HF's WordLevelTrainer on word counts: the special tokens, then the words
    counted at least `min_frequency` times, most frequent first, ties by code
    points (Rust's String order); the first `vocab_size` get ids 0, 1, ... A
    special token that is also a word keeps the word's later id, leaving a hole,
    as HF (measured: tokenizers 0.23.3 assigns both and the later one wins)."""
    words = sorted((w for w, n in counts.items() if n >= trainer.min_frequency),
                   key=lambda w: (-counts[w], _code_points(w)))
    vocab: Dict[str, int] = {}
    for i, token in enumerate((trainer.special_tokens + words)[:trainer.vocab_size]):
        vocab[token] = i
    return vocab

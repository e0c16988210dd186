"""Google BERT's `tokenization.py` API, backed by the Rust core.

Names, signatures and defaults follow Google's module (as shipped in
`bert-tensorflow` 1.0.4), so `import bertpiece as tokenization` works in old
BERT code. Keyword-only extras add transformers' BasicTokenizer options and a
`reference` switch ("google" or "transformers") naming whose output to match.
The tokenizers are immutable: settings are fixed at construction.
"""

from __future__ import annotations

import collections
import numbers
import os
import re
from functools import cached_property
from typing import Iterable, Optional

import sys

import unicodedata2

from . import _core, _google_flag, _pickle
from ._frozen import FrozenInvVocab, FrozenVocab, Immutable
from .pretrained import pretrained, vocab_path

REFERENCES = ("google", "transformers", "tokenizers")


def convert_to_unicode(text):
    """`str` as is; `bytes` decoded as UTF-8 ignoring invalid bytes."""
    if isinstance(text, str):
        return text
    if isinstance(text, bytes):
        return text.decode("utf-8", "ignore")
    raise TypeError(f"Unsupported string type: {type(text).__name__} (expected str or bytes)")


def printable_text(text):
    """Text suitable for print or logging (Python 3: the same as convert_to_unicode)."""
    return convert_to_unicode(text)


def load_vocab(vocab_file, reference="google"):
    """A vocab.txt file as an OrderedDict token -> id, as `reference`'s load_vocab reads it."""
    return collections.OrderedDict(_core.load_vocab(_path(vocab_file), reference))


def convert_by_vocab(vocab, items):
    """Looks each item up in `vocab` (KeyError on a missing one, like Google's)."""
    return [vocab[item] for item in items]


def convert_tokens_to_ids(vocab, tokens):
    return convert_by_vocab(vocab, tokens)


def convert_ids_to_tokens(inv_vocab, ids):
    return convert_by_vocab(inv_vocab, ids)


def whitespace_tokenize(text):
    """`text.strip().split()`, with str.isspace() at bertpiece's pinned Unicode version."""
    return _core.whitespace_tokenize(convert_to_unicode(text))


_CHECKPOINT_RE = re.compile(r"^.*?([A-Za-z0-9_-]+)/bert_model.ckpt")
_LOWER_MODELS = {"uncased_L-24_H-1024_A-16", "uncased_L-12_H-768_A-12",
                 "multilingual_L-12_H-768_A-12", "chinese_L-12_H-768_A-12"}
_CASED_MODELS = {"cased_L-12_H-768_A-12", "cased_L-24_H-1024_A-16", "multi_cased_L-12_H-768_A-12"}


def validate_case_matches_checkpoint(do_lower_case, init_checkpoint):
    """ValueError when `do_lower_case` contradicts a Google checkpoint's name (same check as Google's)."""
    m = _CHECKPOINT_RE.match(init_checkpoint) if init_checkpoint else None
    if m is None:
        return
    name = m.group(1)
    expected = True if name in _LOWER_MODELS else False if name in _CASED_MODELS else None
    if expected is not None and bool(do_lower_case) != expected:
        kind = "lowercased" if expected else "cased"
        raise ValueError(
            f"You passed in `--do_lower_case={bool(do_lower_case)}` with `--init_checkpoint={init_checkpoint}`. "
            f"However, `{name}` seems to be a {kind} model, so you should pass in "
            f"`--do_lower_case={expected}` so that the fine-tuning matches how the model was pre-training. "
            "If this error is wrong, please just comment out this check.")


def _path(vocab_file):
    """A str path from str, bytes or os.PathLike (Google's tf.gfile takes all three)."""
    if not isinstance(vocab_file, (str, bytes, os.PathLike)):
        raise TypeError(f"vocab_file must be a path (str, bytes or os.PathLike), got {type(vocab_file).__name__}")
    return os.fsdecode(vocab_file)


def _flag(name, value):
    """Google's code only tests `if do_lower_case:`, so 0/1 work there: accept bools and integers
    (NumPy's too), refuse anything else (a string like "False" would silently mean True)."""
    if isinstance(value, (bool, numbers.Integral)):
        return bool(value)
    np = sys.modules.get("numpy")  # (not imported: value cannot be a NumPy bool)
    if np is not None and isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"{name} must be a bool (or 0/1), got {type(value).__name__}")


def _check_reference(reference):
    if reference not in REFERENCES:
        raise ValueError(f"unknown reference {reference!r}: expected one of {', '.join(map(repr, REFERENCES))}")


class FullTokenizer(Immutable):
    """Basic tokenization followed by WordPiece, like Google's `FullTokenizer`.

    `reference="google"` (default) matches Google's tokenization.py;
    `reference="transformers"` matches transformers' pure-Python BertTokenizer
    (all C* removed, NFC, `rstrip("\\n")` vocab lines, 100-character words);
    `reference="tokenizers"` matches Hugging Face tokenizers' BertNormalizer,
    BertPreTokenizer and WordPiece (what transformers 5's BertTokenizer runs).
    """

    def __init__(self, vocab_file, do_lower_case=True, *, reference="google", never_split=None,
                 tokenize_chinese_chars=True, strip_accents=None, do_split_on_punc=True,
                 preserve_unused_tokens=None, max_input_chars_per_word=None, unk_token="[UNK]"):
        _check_reference(reference)
        self.vocab_file = _path(vocab_file)
        self.do_lower_case = do_lower_case = _flag("do_lower_case", do_lower_case)
        self.reference = reference
        self.unk_token = unk_token
        self.max_input_chars_per_word = (
            max_input_chars_per_word if max_input_chars_per_word is not None
            else 200 if reference == "google" else 100)  # transformers and tokenizers: 100
        self._options = dict(never_split=list(never_split) if never_split else None,
                             tokenize_chinese_chars=tokenize_chinese_chars, strip_accents=strip_accents,
                             do_split_on_punc=do_split_on_punc, preserve_unused_tokens=preserve_unused_tokens)
        self._bind(_core.FullTokenizer(self.vocab_file, do_lower_case, reference=reference,
                                       max_input_chars_per_word=self.max_input_chars_per_word,
                                       unk_token=unk_token, **self._settled_options(bool(preserve_unused_tokens))))

    def _settled_options(self, preserve):
        return dict(self._options, preserve_unused_tokens=preserve)

    def _bind(self, core):
        """Sets the compiled core (last: the object is read-only from then on) and, when
        preserve_unused_tokens is None, where to read Google's flag."""
        preserve = self._options["preserve_unused_tokens"]
        self._flags = _follows_flag(self.reference, preserve)
        self._cores = {bool(preserve): core}
        self._core = core

    def _core_now(self):
        """The core for Google's flag's value now: one per value, the second compiled (from the
        vocabulary in memory, as Google reads the file once) when the flag first changes."""
        if self._flags is None:
            return self._core
        preserve = _google_flag.current(self._flags)
        core = self._cores.get(preserve)
        if core is None:
            core = self._cores[preserve] = _core.FullTokenizer.from_entries(
                self._core.vocab_entries(), self.do_lower_case, reference=self.reference,
                max_input_chars_per_word=self.max_input_chars_per_word, unk_token=self.unk_token,
                **self._settled_options(preserve))
        return core

    @classmethod
    def from_pretrained(cls, name, do_lower_case=None, **kwargs):
        """A tokenizer over a bundled vocabulary (see `bertpiece.PRETRAINED`).

        `do_lower_case=None` uses the casing the checkpoint was trained with.
        """
        entry = pretrained(name)
        lower = entry.do_lower_case if do_lower_case is None else do_lower_case
        return cls(vocab_path(entry.name), lower, **kwargs)

    def tokenize(self, text):
        return self._core_now().tokenize(text)

    def encode(self, text):
        """Token ids of `text` (tokenize + convert_tokens_to_ids in one call)."""
        return self._core_now().encode(text)

    @cached_property
    def vocab(self):
        """The vocabulary, read-only (TypeError on a change: see `_frozen`)."""
        return FrozenVocab(self._core.vocab_entries())

    @cached_property
    def inv_vocab(self):
        return FrozenInvVocab({v: k for k, v in self.vocab.items()})

    @cached_property
    def basic_tokenizer(self):
        return BasicTokenizer(self.do_lower_case, self.vocab, reference=self.reference, **self._options)

    @cached_property
    def wordpiece_tokenizer(self):
        return WordpieceTokenizer(self.vocab, self.unk_token, self.max_input_chars_per_word)

    def convert_tokens_to_ids(self, tokens):
        return convert_by_vocab(self.vocab, tokens)

    def convert_ids_to_tokens(self, ids):
        return convert_by_vocab(self.inv_vocab, ids)

    def __len__(self):
        return len(self._core)

    def __repr__(self):
        return (f"FullTokenizer(vocab_file={self.vocab_file!r}, do_lower_case={self.do_lower_case!r}, "
                f"reference={self.reference!r}, vocab_size={len(self)})")

    def __reduce__(self):
        # Pickles the vocabulary entries and settings; the Rust core is rebuilt (see _pickle.py).
        return _pickle.reduce_full_tokenizer(self)


class BasicTokenizer(Immutable):
    """Cleaning, CJK spacing, lowercasing/accent stripping and punctuation splitting.

    `vocab` is only used with `preserve_unused_tokens=True` (Google's flag of
    that name): `[unusedN]` tokens in it are kept whole.
    """

    def __init__(self, do_lower_case=True, vocab=tuple(), *, never_split: Optional[Iterable[str]] = None,
                 tokenize_chinese_chars=True, strip_accents=None, do_split_on_punc=True,
                 preserve_unused_tokens=None, reference="google"):
        _check_reference(reference)
        self.do_lower_case = do_lower_case = _flag("do_lower_case", do_lower_case)
        self.vocab, self._source = _frozen_vocab(vocab), (vocab, len(vocab))
        self.never_split = set(never_split) if never_split else set()
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.strip_accents = strip_accents
        self.do_split_on_punc = do_split_on_punc
        self.reference = reference
        self.preserve_unused_tokens = preserve_unused_tokens  # kept for pickling
        self._flags = _follows_flag(reference, preserve_unused_tokens)
        self._cores = {}
        self._core = self._core_for(bool(preserve_unused_tokens))

    def _core_for(self, preserve):
        core = self._cores.get(preserve)
        if core is None:
            core = _core.BasicTokenizer(
                self.do_lower_case, reference=self.reference, never_split=list(self.never_split),
                tokenize_chinese_chars=self.tokenize_chinese_chars, strip_accents=self.strip_accents,
                do_split_on_punc=self.do_split_on_punc,
                preserve_unused=[t for t in self.vocab if isinstance(t, str)] if preserve else None)
            self._cores[preserve] = core
        return core

    def tokenize(self, text, never_split=None):
        """Basic tokens of `text`; `never_split` adds tokens to keep whole for this call."""
        _check_source(self)
        core = self._core if self._flags is None else self._core_for(_google_flag.current(self._flags))
        return core.tokenize(text, list(never_split) if never_split else None)

    def __reduce__(self):
        return _pickle.reduce_basic_tokenizer(self)


class WordpieceTokenizer(Immutable):
    """Greedy longest-match-first WordPiece over the keys of `vocab`."""

    def __init__(self, vocab, unk_token="[UNK]", max_input_chars_per_word=200):
        if unk_token not in vocab:
            raise ValueError(f"the unknown token {unk_token!r} is not in the vocabulary")
        self.vocab, self._source = _frozen_vocab(vocab), (vocab, len(vocab))
        self.unk_token = unk_token
        self.max_input_chars_per_word = max_input_chars_per_word
        self._core = _core.WordpieceTokenizer([t for t in vocab if isinstance(t, str)], unk_token,
                                              max_input_chars_per_word)

    def tokenize(self, text):
        """WordPiece tokens of each whitespace-separated word of `text`."""
        _check_source(self)
        return self._core.tokenize(text)

    def __reduce__(self):
        return _pickle.reduce_wordpiece_tokenizer(self)


def _follows_flag(reference, preserve_unused_tokens):
    """absl's FLAGS when `preserve_unused_tokens=None` means Google's flag (see _google_flag), else None."""
    if preserve_unused_tokens is None and reference == "google":
        return _google_flag.flag_values()
    return None


def _frozen_vocab(vocab):
    """A read-only copy of a `vocab` argument (see `_frozen`)."""
    if isinstance(vocab, dict):
        return vocab if isinstance(vocab, FrozenVocab) else FrozenVocab(vocab)
    return frozenset(vocab) if isinstance(vocab, (set, frozenset)) else tuple(vocab)


def _check_source(tok):
    # Google's class keeps the caller's vocabulary object and sees changes to
    # it; ours was built from a copy: a change of size is refused, not ignored.
    source, size = tok._source
    if len(source) != size:
        raise RuntimeError(f"the vocabulary given to this {type(tok).__name__} changed size after construction "
                           f"({size} -> {len(source)} entries), which bertpiece does not follow (Google's does): "
                           f"build a new {type(tok).__name__} from it")


# Google's character classes, which its own tokenization_test.py calls
# directly: Google's code line for line, with the pinned Unicode version's
# categories (unicodedata2) instead of the interpreter's.
def _is_whitespace(char):
    """Google's `_is_whitespace`: space, \\t, \\n, \\r or a Zs character."""
    if char == " " or char == "\t" or char == "\n" or char == "\r":
        return True
    return unicodedata2.category(char) == "Zs"


def _is_control(char):
    """Google's `_is_control`: a Cc or Cf character other than \\t, \\n, \\r."""
    if char == "\t" or char == "\n" or char == "\r":
        return False
    return unicodedata2.category(char) in ("Cc", "Cf")


def _is_punctuation(char):
    """Google's `_is_punctuation`: ASCII non-alphanumeric symbols and every P* character."""
    cp = ord(char)
    if (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126):
        return True
    return unicodedata2.category(char).startswith("P")

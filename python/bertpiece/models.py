"""``bertpiece.models``: tokenizers 0.23.3's model classes (BPE, WordPiece, WordLevel,
Unigram), with its names, arguments, defaults, attributes, JSON and vocabulary-file
readers (see bertpiece.tokenizers_api.components). Training: ``Tokenizer.train`` with
``bertpiece.trainers`` (docs/train-tokenizer.md)."""

from __future__ import annotations

import json
import os
import struct
import warnings
from typing import Any, Dict, List, Optional, Tuple, Union

from .tokenizers_api.components import Model, attr, check_bool, check_str, check_uint

__all__ = ["Model", "BPE", "Unigram", "WordLevel", "WordPiece"]

Path = Union[str, "os.PathLike[str]"]
# Rust's char::is_whitespace, which tokenizers' trim_end uses (str.isspace differs on \x1c-\x1f).
_RUST_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


_UNSET: Any = object()  # an option not given (tokenizers treats None given as a wrong type)


def _ignore_unknown(kwargs: Dict[str, Any]) -> None:
    for k in kwargs:
        warnings.warn(f"Ignored unknown kwarg option {k}", stacklevel=3)  # tokenizers prints this


def _opt_str(name: str, value: Any) -> Optional[str]:
    return None if value is None else check_str(name, value)


def _lines(path: Path) -> List[str]:
    # Rust's BufRead::lines: split at \n, drop one \r before it, no empty last line.
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _vocab_dict(name: str, vocab: Any) -> Dict[str, int]:
    if not isinstance(vocab, dict):
        raise TypeError(f"{name}: '{type(vocab).__name__}' object is not an instance of 'dict'")
    for token, id in vocab.items():
        check_str(name, token)
        if isinstance(id, bool) or not isinstance(id, int) or not 0 <= id < 2**32:
            raise TypeError(f"{name}[{token!r}]: expected an id in 0..2**32, got {id!r}")
    return dict(vocab)


def _json_vocab(path: Path) -> Dict[str, int]:
    with open(path, encoding="utf-8") as f:
        try:
            return _vocab_dict("vocab", json.load(f))
        except (TypeError, json.JSONDecodeError) as e:
            raise ValueError(f"Error while reading vocab file {os.fspath(path)!r}: {e}") from None


class _VocabLookup:
    """token_to_id / id_to_token over a {token: id} vocabulary, as tokenizers' models."""

    _state: Dict[str, Any]

    def token_to_id(self, token: str) -> Optional[int]:
        return self._state["vocab"].get(token)

    def id_to_token(self, id: int) -> Optional[str]:
        for token, i in self._state["vocab"].items():
            if i == id:
                return token
        return None


def _dropout(name: str, value: Any) -> Optional[float]:
    if value is None:
        return None
    if not isinstance(value, (int, float)):
        raise TypeError(f"{name}: must be real number, not {type(value).__name__}")
    return float(value)


def _dropout_range(value: Optional[float]) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        # tokenizers raises Exception; ValueError is one.
        raise ValueError("Error while initializing BPE: Dropout should be between 0 and 1, inclusive")


class BPE(_VocabLookup, Model):
    """Byte-pair encoding. ``dropout`` > 0 is refused when the model is used
    (attached to a Tokenizer): it is random."""

    _type = "BPE"

    def __init__(
        self, vocab: Optional[Dict[str, int]] = None, merges: Optional[List[Tuple[str, str]]] = None, *,
        cache_capacity: Any = _UNSET, dropout: Optional[float] = None, unk_token: Optional[str] = None,
        continuing_subword_prefix: Any = _UNSET, end_of_word_suffix: Any = _UNSET, fuse_unk: Any = _UNSET,
        byte_fallback: bool = False, ignore_merges: bool = False, **kwargs: Any,
    ) -> None:
        # As tokenizers: options given as None are refused, except dropout and unk_token.
        _ignore_unknown(kwargs)
        if (vocab is None) != (merges is None):
            raise ValueError("`vocab` and `merges` must be both specified")
        if cache_capacity is not _UNSET:
            check_uint("cache_capacity", cache_capacity)
        prefix = None if continuing_subword_prefix is _UNSET else check_str("continuing_subword_prefix", continuing_subword_prefix)
        state: Dict[str, Any] = {
            "type": self._type, "dropout": _dropout("dropout", dropout), "unk_token": _opt_str("unk_token", unk_token),
            "continuing_subword_prefix": prefix,
            "end_of_word_suffix": None if end_of_word_suffix is _UNSET else check_str("end_of_word_suffix", end_of_word_suffix),
            "fuse_unk": False if fuse_unk is _UNSET else check_bool("fuse_unk", fuse_unk),
            "byte_fallback": check_bool("byte_fallback", byte_fallback),
            "ignore_merges": check_bool("ignore_merges", ignore_merges),
        }
        _dropout_range(state["dropout"])  # checked when built, after the options' types
        vocab = _vocab_dict("vocab", {} if vocab is None else vocab)
        state["vocab"] = vocab
        state["merges"] = self._merges([] if merges is None else merges, vocab, prefix or "")
        self._init(state)

    @staticmethod
    def _merges(merges: Any, vocab: Dict[str, int], prefix: str) -> List[List[str]]:
        if not isinstance(merges, list):
            raise TypeError(f"merges: '{type(merges).__name__}' object is not an instance of 'list'")
        out: List[Tuple[str, str]] = []
        for k, pair in enumerate(merges):
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise TypeError(f"merges[{k}]: expected a tuple of two str, got {pair!r}")
            a, b = pair
            # tokenizers builds the merged token as a + b less the prefix's length in bytes
            # (and panics where b is shorter or the cut splits a char); bertpiece says which merge.
            tail = b.encode("utf-8")[len(prefix.encode("utf-8")):]
            try:
                if len(b.encode("utf-8")) < len(prefix.encode("utf-8")):
                    raise UnicodeDecodeError("utf-8", b"", 0, 0, "shorter than the prefix")
                merged = a + tail.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(
                    f"merges[{k}]: {b!r} cannot lose continuing_subword_prefix {prefix!r} (tokenizers panics)"
                ) from None
            for token in (a, b, merged):
                if token not in vocab:
                    raise ValueError(f"Error while initializing BPE: Token `{token}` out of vocabulary (merges[{k}])")
            out.append((a, b))
        # A repeated merge keeps its last rank, as tokenizers' merge map does.
        rank = {pair: k for k, pair in enumerate(out)}
        return [list(pair) for pair in sorted(rank, key=rank.__getitem__)]

    @property
    def dropout(self) -> Optional[float]:
        d = self._state["dropout"]
        # tokenizers keeps an f32: 0.1 reads back as 0.10000000149011612.
        return None if d is None else struct.unpack("f", struct.pack("f", d))[0]

    @dropout.setter
    def dropout(self, value: Optional[float]) -> None:
        # tokenizers checks the range only in the constructor.
        self._set("dropout", _dropout("dropout", value))

    unk_token = attr("unk_token", _opt_str)
    continuing_subword_prefix = attr("continuing_subword_prefix", _opt_str)
    end_of_word_suffix = attr("end_of_word_suffix", _opt_str)
    fuse_unk = attr("fuse_unk", check_bool)
    byte_fallback = attr("byte_fallback", check_bool)
    ignore_merges = attr("ignore_merges", check_bool)

    @staticmethod
    def read_file(vocab: Path, merges: Path) -> Tuple[Dict[str, int], List[Tuple[str, str]]]:
        """A vocab.json and a merges.txt, as tokenizers reads them."""
        words = _json_vocab(vocab)
        pairs = []
        for k, line in enumerate(_lines(merges)):
            if line.startswith("#version"):
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise ValueError(f"Error while reading vocab & merges files: Merges text file invalid at line {k + 1}")
            pairs.append((parts[0], parts[1]))
        return words, pairs

    @classmethod
    def from_file(cls, vocab: Path, merges: Path, **kwargs: Any) -> "BPE":
        words, pairs = cls.read_file(vocab, merges)
        return cls(words, pairs, **kwargs)


class WordPiece(_VocabLookup, Model):
    _type = "WordPiece"

    def __init__(
        self, vocab: Optional[Dict[str, int]] = None, *, unk_token: str = "[UNK]",
        max_input_chars_per_word: int = 100, continuing_subword_prefix: str = "##", **kwargs: Any,
    ) -> None:
        _ignore_unknown(kwargs)
        self._init({
            "type": self._type, "unk_token": check_str("unk_token", unk_token),
            "continuing_subword_prefix": check_str("continuing_subword_prefix", continuing_subword_prefix),
            "max_input_chars_per_word": check_uint("max_input_chars_per_word", max_input_chars_per_word),
            "vocab": _vocab_dict("vocab", {} if vocab is None else vocab),
        })

    unk_token = attr("unk_token", check_str)
    continuing_subword_prefix = attr("continuing_subword_prefix", check_str)
    max_input_chars_per_word = attr("max_input_chars_per_word", check_uint)

    @staticmethod
    def read_file(vocab: Path) -> Dict[str, int]:
        """A vocab.txt, one token a line (id = line number; a repeated token keeps its last)."""
        return {line.rstrip(_RUST_WHITESPACE): k for k, line in enumerate(_lines(vocab))}

    @classmethod
    def from_file(cls, vocab: Path, **kwargs: Any) -> "WordPiece":
        return cls(cls.read_file(vocab), **kwargs)


class WordLevel(_VocabLookup, Model):
    _type = "WordLevel"

    def __init__(self, vocab: Optional[Dict[str, int]] = None, unk_token: Optional[str] = None) -> None:
        self._init({
            "type": self._type, "vocab": _vocab_dict("vocab", {} if vocab is None else vocab),
            "unk_token": "<unk>" if unk_token is None else check_str("unk_token", unk_token),
        })

    unk_token = attr("unk_token", check_str)

    @staticmethod
    def read_file(vocab: Path) -> Dict[str, int]:
        """A vocab.json."""
        return _json_vocab(vocab)

    @classmethod
    def from_file(cls, vocab: Path, unk_token: Optional[str] = None) -> "WordLevel":
        return cls(cls.read_file(vocab), unk_token)


class Unigram(Model):
    """sentencepiece's unigram model. ``alpha``/``nbest_size`` (sampling, random)
    are refused when given (NotImplementedError)."""

    _type = "Unigram"

    def __init__(
        self, vocab: Optional[List[Tuple[str, float]]] = None, unk_id: Optional[int] = None,
        byte_fallback: Optional[bool] = None, alpha: Optional[float] = None, nbest_size: Optional[int] = None,
    ) -> None:
        if alpha is not None or nbest_size is not None:
            raise NotImplementedError("Unigram: alpha/nbest_size (subword sampling) is not supported")
        fallback = False if byte_fallback is None else check_bool("byte_fallback", byte_fallback)
        if vocab is None and unk_id is not None:
            raise ValueError("`vocab` and `unk_id` must be both specified")
        if vocab is None:
            # tokenizers' default: a single <unk> (byte_fallback ignored).
            self._init({"type": self._type, "unk_id": 0, "vocab": [["<unk>", 0.0]], "byte_fallback": False})
            return
        if not isinstance(vocab, list):
            raise TypeError(f"vocab: '{type(vocab).__name__}' object is not an instance of 'list'")
        pieces = []
        for k, item in enumerate(vocab):
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                    and isinstance(item[1], (int, float))):
                raise TypeError(f"vocab[{k}]: expected a tuple (str, float), got {item!r}")
            pieces.append([item[0], float(item[1])])
        if unk_id is not None and check_uint("unk_id", unk_id) >= len(pieces):
            raise ValueError("Error while loading Unigram: The `unk_id` is larger than vocabulary size")
        self._init({"type": self._type, "unk_id": unk_id, "vocab": pieces, "byte_fallback": fallback})

    @property
    def alpha(self) -> None:
        """Subword sampling's alpha: always None here (sampling is refused)."""
        return None

    @alpha.setter
    def alpha(self, value: Optional[float]) -> None:
        if value is not None:
            raise NotImplementedError("Unigram: alpha (subword sampling) is not supported")

    @property
    def nbest_size(self) -> None:
        """Subword sampling's nbest_size: always None here (sampling is refused)."""
        return None

    @nbest_size.setter
    def nbest_size(self, value: Optional[int]) -> None:
        if value is not None:
            raise NotImplementedError("Unigram: nbest_size (subword sampling) is not supported")

    def token_to_id(self, token: str) -> Optional[int]:
        # The last piece of that text, as tokenizers' token_to_ids map keeps it.
        found = None
        for k, (piece, _) in enumerate(self._state["vocab"]):
            if piece == token:
                found = k
        return found

    def id_to_token(self, id: int) -> Optional[str]:
        vocab = self._state["vocab"]
        return vocab[id][0] if 0 <= id < len(vocab) else None

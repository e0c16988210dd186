"""A drop-in for transformers' `BertTokenizer`, backed by the Rust core.

`reference="tokenizers"` (default) gives the model inputs of transformers 5's
`BertTokenizer` (Hugging Face tokenizers: BertNormalizer, BertPreTokenizer,
WordPiece, TemplateProcessing, the Rust truncation and padding rules);
`reference="transformers"` those of transformers' pure-Python
`BertTokenizerLegacy` (Python `truncate_sequences`, `pad`);
`reference="google"` uses Google's basic/WordPiece semantics with the
tokenizers-mode post-processing.

Names, signatures and defaults follow transformers. See docs/bert_tokenizer.md.
"""

from __future__ import annotations

import collections
import json
import os
import re
import warnings
from typing import Any, NamedTuple, Optional

from . import _core
from .pretrained import PRETRAINED, pretrained, vocab_path

VERY_LARGE_INTEGER = int(1e30)  # transformers' "no model_max_length"
LARGE_INTEGER = int(1e20)

PADDING_STRATEGIES = ("longest", "max_length", "do_not_pad")
TRUNCATION_STRATEGIES = ("only_first", "only_second", "longest_first", "do_not_truncate")
SPECIAL_TOKEN_NAMES = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_REFERENCES = ("google", "transformers", "tokenizers")

VOCAB_FILE = "vocab.txt"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_FILE = "special_tokens_map.json"
ADDED_TOKENS_FILE = "added_tokens.json"


class InputTypeError(TypeError, ValueError):
    """A bad input value: a TypeError (like HF tokenizers) that is also a
    ValueError (what transformers' Python tokenizer raises)."""


class CharSpan(NamedTuple):
    start: int
    end: int


class TokenSpan(NamedTuple):
    start: int
    end: int


def _new_core(vocab_file, entries, do_lower_case, **kwargs):
    """The Rust tokenizer over a vocab file or in-memory (token, id) entries."""
    if entries is not None:
        return _core.FullTokenizer.from_entries(entries, do_lower_case, **kwargs)
    return _core.FullTokenizer(vocab_file, do_lower_case, **kwargs)


class AddedToken:
    """transformers/tokenizers' AddedToken (content plus matching flags)."""

    def __init__(self, content, single_word=False, lstrip=False, rstrip=False, special=False, normalized=None):
        self.content = str(content)
        self.single_word = single_word
        self.lstrip = lstrip
        self.rstrip = rstrip
        self.special = special
        self.normalized = (not special) if normalized is None else normalized

    def __str__(self):
        return self.content

    def __repr__(self):
        return (f"AddedToken({self.content!r}, rstrip={self.rstrip}, lstrip={self.lstrip}, "
                f"single_word={self.single_word}, normalized={self.normalized}, special={self.special})")

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.content)

    def to_dict(self):
        return {"content": self.content, "single_word": self.single_word, "lstrip": self.lstrip,
                "rstrip": self.rstrip, "normalized": self.normalized, "special": self.special}


# ---------------------------------------------------------------------------
# BatchEncoding
# ---------------------------------------------------------------------------

class _Row:
    """Per-row metadata that transformers keeps in tokenizers' Encoding."""

    __slots__ = ("tokens", "words", "seq_ids", "offsets")

    def __init__(self, tokens, words, seq_ids, offsets):
        self.tokens, self.words, self.seq_ids, self.offsets = tokens, words, seq_ids, offsets


class BatchEncoding(collections.UserDict):
    """The output of `BertTokenizer.__call__`: a dict of model inputs plus
    token/word/character alignment (in "tokenizers" and "google" modes)."""

    def __init__(self, data=None, rows=None, tensor_type=None, prepend_batch_axis=False):
        super().__init__(data or {})
        self._rows = rows
        self.convert_to_tensors(tensor_type, prepend_batch_axis)

    # dict-like access: enc.input_ids
    def __getattr__(self, item):
        if item.startswith("_") or item == "data":
            raise AttributeError(item)
        try:
            return self.data[item]
        except KeyError:
            raise AttributeError(item) from None

    def __getstate__(self):
        return {"data": self.data, "_rows": self._rows}

    def __setstate__(self, state):
        self.data = state["data"]
        self._rows = state["_rows"]

    @property
    def is_fast(self):
        return self._rows is not None

    @property
    def n_sequences(self):
        if not self._rows:
            return None
        return max((s for s in self._rows[0].seq_ids if s is not None), default=-1) + 1 or None

    def _row(self, i):
        if self._rows is None:
            raise ValueError(
                "word_ids() is not available when using non-fast tokenizers (e.g. instance of a `XxxTokenizerFast`"
                " class). (bertpiece: reference='transformers' has no alignment, like BertTokenizerLegacy)")
        return self._rows[i]

    def tokens(self, batch_index=0):
        return list(self._row(batch_index).tokens)

    def word_ids(self, batch_index=0):
        return list(self._row(batch_index).words)

    def words(self, batch_index=0):
        return self.word_ids(batch_index)

    def sequence_ids(self, batch_index=0):
        return list(self._row(batch_index).seq_ids)

    def _two(self, a, b):
        return (0, a) if b is None else (a, b)

    def token_to_sequence(self, batch_or_token_index, token_index=None):
        b, t = self._two(batch_or_token_index, token_index)
        row = self._row(b)
        return row.seq_ids[t if t >= 0 else len(row.seq_ids) + t]

    def token_to_word(self, batch_or_token_index, token_index=None):
        b, t = self._two(batch_or_token_index, token_index)
        row = self._row(b)
        return row.words[t if t >= 0 else len(row.words) + t]

    def token_to_chars(self, batch_or_token_index, token_index=None):
        b, t = self._two(batch_or_token_index, token_index)
        row = self._row(b)
        t = t if t >= 0 else len(row.offsets) + t
        if row.words[t] is None:  # special and padding tokens have no characters
            return None
        return CharSpan(*row.offsets[t])

    def char_to_token(self, batch_or_char_index, char_index=None, sequence_index=0):
        b, c = self._two(batch_or_char_index, char_index)
        row = self._row(b)
        for i, ((s, e), seq) in enumerate(zip(row.offsets, row.seq_ids)):
            if seq == sequence_index and s <= c < e:
                return i
        return None

    def word_to_tokens(self, batch_or_word_index, word_index=None, sequence_index=0):
        b, w = self._two(batch_or_word_index, word_index)
        row = self._row(b)
        idx = [i for i, (wd, seq) in enumerate(zip(row.words, row.seq_ids)) if wd == w and seq == sequence_index]
        return TokenSpan(idx[0], idx[-1] + 1) if idx else None

    def word_to_chars(self, batch_or_word_index, word_index=None, sequence_index=0):
        span = self.word_to_tokens(batch_or_word_index, word_index, sequence_index)
        if span is None:
            return None
        b = batch_or_word_index if word_index is not None else 0
        row = self._row(b)
        return CharSpan(row.offsets[span.start][0], row.offsets[span.end - 1][1])

    def char_to_word(self, batch_or_char_index, char_index=None, sequence_index=0):
        t = self.char_to_token(batch_or_char_index, char_index, sequence_index)
        if t is None:
            return None
        b = batch_or_char_index if char_index is not None else 0
        return self._row(b).words[t]

    def convert_to_tensors(self, tensor_type=None, prepend_batch_axis=False):
        if tensor_type is None:
            return self
        tensor_type = getattr(tensor_type, "value", tensor_type)
        if tensor_type == "pt":
            try:
                import torch
            except ImportError:
                raise ImportError("return_tensors='pt' needs PyTorch: pip install torch") from None
            as_tensor = torch.tensor
        elif tensor_type == "np":
            import numpy as np

            def as_tensor(value):
                return np.asarray(value)
        else:
            raise ValueError(f"Unsupported return_tensors {tensor_type!r}: expected None, 'np' or 'pt'")
        for key, value in list(self.data.items()):
            if prepend_batch_axis:
                value = [value]
            try:
                self.data[key] = as_tensor(value)
            except Exception as exc:
                raise ValueError(
                    f"Unable to create tensor for {key!r}, you should probably activate truncation and/or padding "
                    "with 'padding=True' 'truncation=True' to have batched tensors with the same length.") from exc
        return self

    def to(self, device):
        return self

    def __repr__(self):
        return repr(self.data)


# ---------------------------------------------------------------------------
# Sequences: ids with offsets and word indices, before special tokens
# ---------------------------------------------------------------------------

class _Seq:
    __slots__ = ("ids", "offsets", "words")

    def __init__(self, ids, offsets, words):
        self.ids, self.offsets, self.words = ids, offsets, words

    def __len__(self):
        return len(self.ids)

    def window(self, start, stop):
        return _Seq(self.ids[start:stop], self.offsets[start:stop], self.words[start:stop])


def _hf_windows(seq, max_len, stride, direction):
    """tokenizers' Encoding::truncate: the kept window first, then the overflowing ones."""
    n = len(seq)
    if max_len >= n:
        return [seq]
    if max_len == 0:
        return [seq.window(0, 0), seq]
    if stride >= max_len:
        raise ValueError(f"`stride` must be strictly less than `max_len={max_len}` (note that `max_len` may be shorter "
                         "than the max length of the original model, as it subtracts the number of special characters")
    step = max_len - stride
    ranges = []
    if direction == "right":
        for start in range(0, n, step):
            stop = min(start + max_len, n)
            ranges.append((start, stop))
            if stop == n:
                break
    else:
        for stop in range(n - 1, -1, -step):
            stop += 1
            start = max(stop - max_len, 0)
            if start < stop:
                ranges.append((start, stop))
                if start == 0:
                    break
    return [seq.window(a, b) for a, b in ranges]


def _hf_truncate(a, b, max_length, strategy, stride, direction):
    """tokenizers' truncate_encodings: (windows of a, windows of b or None)."""
    if max_length == 0:
        return _hf_windows(a, 0, stride, direction), (_hf_windows(b, 0, stride, direction) if b is not None else None)
    total = len(a) + (len(b) if b is not None else 0)
    if total <= max_length:
        return [a], ([b] if b is not None else None)
    to_remove = total - max_length
    if strategy == "longest_first":
        if b is None:
            return _hf_windows(a, total - to_remove, stride, direction), None
        n1, n2 = len(a), len(b)
        swap = n1 > n2
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > max_length else max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        if swap:
            n1, n2 = n2, n1
        return _hf_windows(a, n1, stride, direction), _hf_windows(b, n2, stride, direction)
    if strategy == "only_second" and b is None:
        raise ValueError("Truncation error: Second sequence not provided")
    target = a if strategy == "only_first" else b
    if len(target) <= to_remove:
        raise ValueError("Truncation error: Sequence to truncate too short to respect the provided max_length")
    wins = _hf_windows(target, len(target) - to_remove, stride, direction)
    return (wins, [b] if b is not None else None) if strategy == "only_first" else ([a], wins)


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------

class BertTokenizer:
    """transformers' `BertTokenizer`, computed by bertpiece's Rust core.

    `reference="tokenizers"` (default): transformers 5 `BertTokenizer`
    (Hugging Face tokenizers); `"transformers"`: `BertTokenizerLegacy`;
    `"google"`: Google's tokenization with the tokenizers-mode API.
    """

    vocab_files_names = {"vocab_file": VOCAB_FILE, "tokenizer_file": TOKENIZER_FILE}
    padding_side = "right"
    truncation_side = "right"
    is_fast = True

    def __init__(self, vocab_file=None, do_lower_case=True, do_basic_tokenize=True, never_split=None,
                 unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]",
                 tokenize_chinese_chars=True, strip_accents=None, model_max_length=VERY_LARGE_INTEGER,
                 padding_side="right", truncation_side="right", clean_up_tokenization_spaces=None, *,
                 reference="tokenizers", vocab=None, additional_special_tokens=None, extra_special_tokens=None,
                 max_input_chars_per_word=None, **kwargs):
        if reference not in _REFERENCES:
            raise ValueError(f"unknown reference {reference!r}: expected one of {', '.join(map(repr, _REFERENCES))}")
        if padding_side not in ("right", "left"):
            raise ValueError(f"Padding side should be selected between 'right' and 'left', current value: {padding_side}")
        if truncation_side not in ("right", "left"):
            raise ValueError(
                f"Truncation side should be selected between 'right' and 'left', current value: {truncation_side}")
        self.reference = reference
        self.legacy = reference == "transformers"
        self.is_fast = not self.legacy
        self.do_lower_case = do_lower_case
        self.do_basic_tokenize = do_basic_tokenize
        self.never_split = list(never_split) if never_split else None
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.strip_accents = strip_accents
        self.model_max_length = model_max_length if model_max_length is not None else VERY_LARGE_INTEGER
        self.padding_side = padding_side
        self.truncation_side = truncation_side
        if clean_up_tokenization_spaces is None:
            clean_up_tokenization_spaces = self.legacy  # transformers 5: legacy True, tokenizers False
        self.clean_up_tokenization_spaces = clean_up_tokenization_spaces
        self.split_special_tokens = bool(kwargs.pop("split_special_tokens", False))
        self.name_or_path = kwargs.pop("name_or_path", "")
        self.vocab_file = os.fspath(vocab_file) if vocab_file is not None else None
        self.pad_token_type_id = 0

        entries = None
        if vocab is not None:
            if isinstance(vocab, (str, os.PathLike)):
                self.vocab_file = os.fspath(vocab)
            else:
                entries = [(str(t), int(i)) for t, i in dict(vocab).items()]
        if self.vocab_file is None and entries is None:
            raise ValueError("BertTokenizer needs a vocab_file (or use BertTokenizer.from_pretrained)")
        if self.vocab_file is not None and not os.path.isfile(self.vocab_file):
            raise ValueError(f"Can't find a vocabulary file at path '{self.vocab_file}'. To load a bundled vocabulary "
                             "use `BertTokenizer.from_pretrained(name)`")
        if max_input_chars_per_word is None:
            max_input_chars_per_word = 200 if reference == "google" else 100
        self.max_input_chars_per_word = max_input_chars_per_word
        core_kwargs = dict(reference=reference, tokenize_chinese_chars=tokenize_chinese_chars,
                           strip_accents=strip_accents, max_input_chars_per_word=max_input_chars_per_word,
                           unk_token=str(unk_token))
        if self.legacy and self.never_split:
            core_kwargs["never_split"] = self.never_split
        self._core = _new_core(self.vocab_file, entries, do_lower_case, **core_kwargs)
        self._vocab = dict(self._core.vocab_entries())
        self._ids_to_tokens = {}
        for tok, i in self._vocab.items():
            self._ids_to_tokens.setdefault(i, tok)
        self._wordpiece = None
        if self.legacy and not do_basic_tokenize:
            self._wordpiece = _core.WordpieceTokenizer(list(self._vocab), str(unk_token), max_input_chars_per_word)

        # added tokens: content -> (id, AddedToken); special tokens first, like transformers
        self._added: dict[str, tuple[int, AddedToken]] = {}
        self._added_by_id: dict[int, AddedToken] = {}
        self._special = {}
        for name, value in zip(SPECIAL_TOKEN_NAMES, (unk_token, sep_token, pad_token, cls_token, mask_token)):
            self._special[name] = str(value) if value is not None else None
        extra = list(extra_special_tokens or []) + list(additional_special_tokens or [])
        self._extra_special = []
        for value in extra:
            if str(value) not in self._extra_special:
                self._extra_special.append(str(value))
        for added in kwargs.pop("added_tokens_decoder", None) or []:
            self._add_one(added, special=added.special)
        self._add_tokens([AddedToken(v, special=True, normalized=False) if not isinstance(v, AddedToken) else v
                          for v in self._special.values() if v is not None], special_tokens=True)
        self._add_tokens([AddedToken(v, special=True, normalized=False) for v in self._extra_special],
                         special_tokens=True)
        self.init_kwargs = {"do_lower_case": do_lower_case, **kwargs}

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path, *init_inputs, reference="tokenizers", **kwargs):
        """A bundled vocabulary by name (`bertpiece.PRETRAINED`), a directory with
        vocab.txt (+ tokenizer_config.json, special_tokens_map.json, added_tokens.json)
        and/or tokenizer.json, or the path of a vocab.txt or tokenizer.json file."""
        name = os.fspath(pretrained_model_name_or_path)
        if name in PRETRAINED:
            entry = pretrained(name)
            kwargs.setdefault("do_lower_case", entry.do_lower_case)
            return cls(vocab_path(name), *init_inputs, reference=reference, name_or_path=name, **kwargs)
        if os.path.isfile(name):
            if name.endswith(".json"):
                return cls._from_tokenizer_json(name, {}, reference=reference, **kwargs)
            return cls(name, *init_inputs, reference=reference, **kwargs)
        if not os.path.isdir(name):
            raise OSError(f"Can't load tokenizer for {name!r}: not a bundled vocabulary ({', '.join(PRETRAINED)}), "
                          "nor a directory, nor a vocab.txt / tokenizer.json file (bertpiece does not download).")
        config = {}
        cfg_path = os.path.join(name, CONFIG_FILE)
        if os.path.isfile(cfg_path):
            with open(cfg_path, encoding="utf-8") as f:
                config = json.load(f)
        stm_path = os.path.join(name, SPECIAL_TOKENS_MAP_FILE)
        if os.path.isfile(stm_path):
            with open(stm_path, encoding="utf-8") as f:
                for key, value in json.load(f).items():
                    config.setdefault(key, value["content"] if isinstance(value, dict) and "content" in value else value)
        for key in ("tokenizer_class", "auto_map", "backend", "is_local", "local_files_only", "name_or_path",
                    "processor_class", "tokenizer_file", "vocab_file"):
            config.pop(key, None)
        for key in SPECIAL_TOKEN_NAMES:
            if isinstance(config.get(key), dict):
                config[key] = config[key]["content"]
        added_dec = config.pop("added_tokens_decoder", None) or {}
        added = [(int(i), AddedToken(**{k: v for k, v in d.items() if k != "__type"}))
                 for i, d in added_dec.items()]
        at_path = os.path.join(name, ADDED_TOKENS_FILE)
        if os.path.isfile(at_path):
            with open(at_path, encoding="utf-8") as f:
                for tok, i in json.load(f).items():
                    if all(a.content != tok for _, a in added):
                        added.append((int(i), AddedToken(tok)))
        config.update(kwargs)
        tj_path = os.path.join(name, TOKENIZER_FILE)
        vocab_file = os.path.join(name, VOCAB_FILE)
        if os.path.isfile(tj_path) and not (reference == "transformers" and os.path.isfile(vocab_file)):
            return cls._from_tokenizer_json(tj_path, config, reference=reference, name_or_path=name)
        if not os.path.isfile(vocab_file):
            raise OSError(f"no {VOCAB_FILE} or {TOKENIZER_FILE} in {name!r}")
        config["added_tokens_decoder"] = [a for _, a in sorted(added, key=lambda p: p[0])]
        tok = cls(vocab_file, *init_inputs, reference=reference, name_or_path=name, **config)
        for i, a in added:
            if tok._added.get(a.content, (None,))[0] not in (None, i):
                pass  # ids of added tokens are re-derived from the vocabulary, as transformers does
        return tok

    @classmethod
    def _from_tokenizer_json(cls, path, config, reference="tokenizers", **kwargs):
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: not valid JSON ({exc})") from None

        def need(obj, key, where, kind=None):
            if not isinstance(obj, dict) or key not in obj:
                raise ValueError(f"{path}: missing field {where}.{key}")
            value = obj[key]
            if kind is not None and not isinstance(value, kind):
                raise ValueError(f"{path}: field {where}.{key} must be {kind.__name__}, got {type(value).__name__}")
            return value

        if not isinstance(data, dict):
            raise ValueError(f"{path}: top level must be an object")
        model = need(data, "model", "tokenizer", dict)
        mtype = model.get("type", "WordPiece")
        if mtype != "WordPiece":
            raise ValueError(f"{path}: field model.type must be 'WordPiece', got {mtype!r}")
        vocab = need(model, "vocab", "model", dict)
        for tok, i in vocab.items():
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise ValueError(f"{path}: field model.vocab[{tok!r}] must be a non-negative integer, got {i!r}")
        prefix = model.get("continuing_subword_prefix", "##")
        if prefix != "##":
            raise ValueError(f"{path}: field model.continuing_subword_prefix must be '##', got {prefix!r}")
        opts = dict(config)
        opts["unk_token"] = opts.get("unk_token", need(model, "unk_token", "model", str))
        mic = model.get("max_input_chars_per_word", 100)
        if not isinstance(mic, int) or isinstance(mic, bool):
            raise ValueError(f"{path}: field model.max_input_chars_per_word must be an integer, got {mic!r}")
        opts["max_input_chars_per_word"] = mic
        norm = data.get("normalizer")
        if norm is not None:
            if not isinstance(norm, dict) or norm.get("type") != "BertNormalizer":
                raise ValueError(f"{path}: field normalizer.type must be 'BertNormalizer', got "
                                 f"{norm.get('type') if isinstance(norm, dict) else norm!r}")
            if norm.get("clean_text", True) is not True:
                raise ValueError(f"{path}: field normalizer.clean_text must be true")
            for key, opt in (("lowercase", "do_lower_case"), ("handle_chinese_chars", "tokenize_chinese_chars")):
                value = norm.get(key, True)
                if not isinstance(value, bool):
                    raise ValueError(f"{path}: field normalizer.{key} must be a boolean, got {value!r}")
                opts[opt] = value
            sa = norm.get("strip_accents")
            if sa is not None and not isinstance(sa, bool):
                raise ValueError(f"{path}: field normalizer.strip_accents must be a boolean or null, got {sa!r}")
            opts["strip_accents"] = sa
        pre = data.get("pre_tokenizer")
        if pre is not None and (not isinstance(pre, dict) or pre.get("type") != "BertPreTokenizer"):
            raise ValueError(f"{path}: field pre_tokenizer.type must be 'BertPreTokenizer', got "
                             f"{pre.get('type') if isinstance(pre, dict) else pre!r}")
        post = data.get("post_processor")
        if post is not None:
            ptype = post.get("type") if isinstance(post, dict) else None
            if ptype == "TemplateProcessing":
                specials = need(post, "special_tokens", "post_processor", dict)
                single = need(post, "single", "post_processor", list)
                pair = need(post, "pair", "post_processor", list)
                names = [p["SpecialToken"]["id"] for p in single + pair if isinstance(p, dict) and "SpecialToken" in p]
                seqs = [(next(iter(p)), p[next(iter(p))].get("id"), p[next(iter(p))].get("type_id"))
                        for p in single + pair if isinstance(p, dict) and p]
                if len(single) != 3 or len(pair) != 5 or len(names) != 5 or names[0] != names[2] \
                        or names[1] != names[3] or names[3] != names[4] \
                        or [s[2] for s in seqs] != [0, 0, 0, 0, 0, 0, 1, 1]:
                    raise ValueError(f"{path}: field post_processor.single/pair must be BERT's template "
                                     "'[CLS] $A [SEP]' / '[CLS] $A [SEP] $B:1 [SEP]:1'")
                for n in (names[0], names[1]):
                    if n not in specials:
                        raise ValueError(f"{path}: field post_processor.special_tokens misses {n!r}")
                opts.setdefault("cls_token", names[0])
                opts.setdefault("sep_token", names[1])
            elif ptype == "BertProcessing":
                opts.setdefault("cls_token", need(post, "cls", "post_processor", list)[0])
                opts.setdefault("sep_token", need(post, "sep", "post_processor", list)[0])
            else:
                raise ValueError(f"{path}: field post_processor.type must be 'TemplateProcessing' or "
                                 f"'BertProcessing', got {ptype!r}")
        dec = data.get("decoder")
        if dec is not None and (not isinstance(dec, dict) or dec.get("type") != "WordPiece"):
            raise ValueError(f"{path}: field decoder.type must be 'WordPiece', got "
                             f"{dec.get('type') if isinstance(dec, dict) else dec!r}")
        added = data.get("added_tokens") or []
        if not isinstance(added, list):
            raise ValueError(f"{path}: field added_tokens must be a list")
        added_tokens = []
        for k, a in enumerate(added):
            if not isinstance(a, dict):
                raise ValueError(f"{path}: field added_tokens[{k}] must be an object")
            content = need(a, "content", f"added_tokens[{k}]", str)
            tid = need(a, "id", f"added_tokens[{k}]", int)
            added_tokens.append((tid, AddedToken(content, a.get("single_word", False), a.get("lstrip", False),
                                                 a.get("rstrip", False), a.get("special", False),
                                                 a.get("normalized", not a.get("special", False)))))
        opts["added_tokens_decoder"] = [t for _, t in sorted(added_tokens, key=lambda p: p[0])]
        opts.update(kwargs)
        # added tokens outside the model vocabulary keep their tokenizer.json ids
        model_vocab = dict(vocab)
        tok = cls(None, vocab=model_vocab, reference=reference, **opts)
        for tid, a in added_tokens:
            if a.content in tok._added and tok._added[a.content][0] != tid and a.content not in model_vocab:
                old = tok._added[a.content][0]
                del tok._added_by_id[old]
                tok._added[a.content] = (tid, a)
                tok._added_by_id[tid] = a
        tok._refresh_matcher()
        return tok

    # ------------------------------------------------------------ added tokens
    def _next_id(self):
        size = len(self._vocab)
        ids = [i for i, _ in self._added.values()]
        top = max(ids) if ids else None
        if top is None:
            return size
        return top + 1 if top >= size or size == 0 else size

    def _add_one(self, token, special):
        if not isinstance(token, AddedToken):
            token = AddedToken(str(token), special=special, normalized=not special)
        if not token.content:
            return 0
        if token.content in self._added:
            i, old = self._added[token.content]
            if special and not old.special:
                old.special = True
            return 0
        tid = self._vocab.get(token.content)
        if tid is None:
            tid = self._next_id()
        self._added[token.content] = (tid, token)
        self._added_by_id[tid] = token
        return 1

    def _add_tokens(self, new_tokens, special_tokens=False):
        n = 0
        for t in new_tokens:
            if self.legacy and not special_tokens and self.do_lower_case and not (
                    isinstance(t, AddedToken) and t.special):
                # BertTokenizerLegacy lowercases non-special added tokens when do_lower_case
                t = AddedToken(str(t).lower(), normalized=True) if not isinstance(t, AddedToken) else AddedToken(
                    t.content.lower(), t.single_word, t.lstrip, t.rstrip, t.special, t.normalized)
            n += self._add_one(t, special_tokens)
        self._refresh_matcher()
        return n

    def _refresh_matcher(self):
        contents = sorted(self._added, key=len, reverse=True)
        self._matcher = re.compile("|".join(map(re.escape, contents))) if contents else None
        self._special_contents = [c for c in self._added if self._added[c][1].special]
        self._special_matcher = (re.compile("|".join(map(re.escape, sorted(self._special_contents, key=len,
                                                                              reverse=True))))
                                 if self._special_contents else None)

    def add_tokens(self, new_tokens, special_tokens=False):
        """Adds tokens matched whole in the raw text and never split. Returns how many were new."""
        if not new_tokens:
            return 0
        if isinstance(new_tokens, (str, AddedToken)):
            new_tokens = [new_tokens]
        return self._add_tokens(new_tokens, special_tokens=special_tokens)

    def add_special_tokens(self, special_tokens_dict, replace_extra_special_tokens=True):
        """transformers' add_special_tokens: `{"cls_token": ..., "additional_special_tokens": [...]}`."""
        n = 0
        for key, value in special_tokens_dict.items():
            if key in ("additional_special_tokens", "extra_special_tokens"):
                values = [str(v) for v in value]
                if replace_extra_special_tokens:
                    self._extra_special = []
                for v in values:
                    if v not in self._extra_special:
                        self._extra_special.append(v)
                n += self._add_tokens([AddedToken(v, special=True, normalized=False) if not isinstance(v, AddedToken)
                                       else v for v in value], special_tokens=True)
            elif key in SPECIAL_TOKEN_NAMES or key in ("bos_token", "eos_token"):
                self._special[key] = str(value)
                tok = value if isinstance(value, AddedToken) else AddedToken(str(value), special=True, normalized=False)
                n += self._add_tokens([tok], special_tokens=True)
            else:
                raise ValueError(f"Key {key} is not a special token")
        return n

    def get_added_vocab(self):
        return {c: i for c, (i, _) in sorted(self._added.items(), key=lambda kv: kv[1][0])}

    @property
    def added_tokens_encoder(self):
        return self.get_added_vocab()

    @property
    def added_tokens_decoder(self):
        return {i: t for i, t in sorted(self._added_by_id.items())}

    # ------------------------------------------------------- special tokens
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        special = self.__dict__.get("_special", {})
        if name in special:
            return special[name]
        if name.endswith("_id") and name[:-3] in special:
            tok = special[name[:-3]]
            return None if tok is None else self.convert_tokens_to_ids(tok)
        if name in ("bos_token", "eos_token"):
            return None
        if name in ("bos_token_id", "eos_token_id"):
            return None
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in SPECIAL_TOKEN_NAMES and "_special" in self.__dict__:
            self._special[name] = None if value is None else str(value)
            if value is not None:
                self._add_tokens([AddedToken(str(value), special=True, normalized=False)], special_tokens=True)
            return
        object.__setattr__(self, name, value)

    @property
    def special_tokens_map(self):
        out = {k: v for k, v in self._special.items() if v is not None}
        if self._extra_special:
            out["additional_special_tokens"] = list(self._extra_special)
        return out

    @property
    def additional_special_tokens(self):
        return list(self._extra_special)

    @property
    def all_special_tokens(self):
        out = []
        for v in list(self._special.values()) + self._extra_special:
            if v is not None and v not in out:
                out.append(v)
        return out

    @property
    def all_special_ids(self):
        return self.convert_tokens_to_ids(self.all_special_tokens)

    # ---------------------------------------------------------------- vocab
    @property
    def vocab_size(self):
        return len(self._vocab)

    @property
    def vocab(self):
        return self.get_vocab()

    def get_vocab(self):
        out = dict(self._vocab)
        for c, (i, _) in self._added.items():
            out[c] = i
        return out

    def __len__(self):
        if self.legacy:
            return len(set(self._vocab) | set(self._added))
        return len(self.get_vocab())

    def _token_to_id(self, token):
        if token in self._added:
            return self._added[token][0]
        return self._vocab.get(token)

    def _id_to_token(self, index):
        t = self._added_by_id.get(index)
        if t is not None:
            return t.content
        return self._ids_to_tokens.get(index)

    def convert_tokens_to_ids(self, tokens):
        if tokens is None:
            return None
        if isinstance(tokens, str):
            i = self._token_to_id(tokens)
            return self._token_to_id(self.unk_token) if i is None else i
        return [self.convert_tokens_to_ids(t) for t in tokens]

    def convert_ids_to_tokens(self, ids, skip_special_tokens=False):
        if isinstance(ids, int):
            t = self._id_to_token(ids)
            return self.unk_token if t is None and self.legacy else t
        skip = set(self.all_special_ids) if skip_special_tokens else ()
        out = []
        for i in ids:
            i = int(i)
            if i in skip:
                continue
            t = self._id_to_token(i)
            out.append(self.unk_token if t is None and self.legacy else t)
        return out

    # ------------------------------------------------------------- encoding
    def _split_added(self, text, split_special):
        """Raw text cut at added tokens: [(start, end, added_or_None)] (leftmost-longest match)."""
        matcher = self._matcher
        if split_special:
            contents = [c for c in self._added if not self._added[c][1].special]
            matcher = re.compile("|".join(map(re.escape, sorted(contents, key=len, reverse=True)))) if contents \
                else None
        if matcher is None:
            return [(0, len(text), None)]
        pieces, pos = [], 0
        for m in matcher.finditer(text):
            if m.start() > pos:
                pieces.append((pos, m.start(), None))
            pieces.append((m.start(), m.end(), m.group()))
            pos = m.end()
        if pos < len(text):
            pieces.append((pos, len(text), None))
        return pieces

    def _encode_text(self, text, word_offset=0, fixed_word=None, split_special=None):
        """One string -> _Seq (ids, offsets in code points of `text`, word indices)."""
        if split_special is None:
            split_special = self.split_special_tokens
        ids, offsets, words = [], [], []
        nword = word_offset
        for start, end, added in self._split_added(text, split_special):
            if added is not None:
                ids.append(self._added[added][0])
                offsets.append((start, end))
                words.append(fixed_word if fixed_word is not None else nword)
                nword += 1
                continue
            pids, poffs, pwords = self._core.encode_offsets(text[start:end])
            ids.extend(pids)
            offsets.extend((s + start, e + start) for s, e in poffs)
            if fixed_word is not None:
                words.extend([fixed_word] * len(pids))
            else:
                words.extend(w + nword for w in pwords)
                if pwords:
                    nword += max(pwords) + 1
        return _Seq(ids, offsets, words)

    def _encode_one(self, text, is_split_into_words):
        if is_split_into_words:
            parts = [self._encode_text(w, fixed_word=i) for i, w in enumerate(text)]
            return _Seq([i for p in parts for i in p.ids], [o for p in parts for o in p.offsets],
                        [w for p in parts for w in p.words])
        return self._encode_text(text)

    def _legacy_tokenize(self, text):
        """BertTokenizerLegacy.tokenize: added-token trie split, then basic + WordPiece."""
        out = []
        for start, end, added in self._split_added(text, self.split_special_tokens):
            piece = text[start:end]
            if added is not None:
                out.append(added)
            elif piece:
                out.extend(self._wordpiece.tokenize(piece) if self._wordpiece is not None
                           else self._core.tokenize(piece))
        return out

    def tokenize(self, text, pair=None, add_special_tokens=False, **kwargs):
        """Token strings of `text` (no special tokens unless asked)."""
        if self.legacy:
            return self._legacy_tokenize(text)
        enc = self(text, pair, add_special_tokens=add_special_tokens, **kwargs)
        return enc.tokens()

    def _tokens_of(self, ids):
        return [self._id_to_token(i) for i in ids]

    # ---------------------------------------------------------- strategies
    def _strategies(self, padding, truncation, max_length, pad_to_multiple_of, verbose=True):
        if max_length is not None and padding is False and truncation is None:
            truncation = "longest_first"
        if padding is True:
            if verbose and max_length is not None and truncation in (None, False, "do_not_truncate"):
                warnings.warn("`max_length` is ignored when `padding`=`True` and there is no truncation strategy. "
                              "To pad to max length, use `padding='max_length'`.")
            padding_strategy = "longest"
        elif padding is False or padding is None:
            padding_strategy = "do_not_pad"
        else:
            padding_strategy = getattr(padding, "value", padding)
            if padding_strategy not in PADDING_STRATEGIES:
                raise ValueError(f"{padding} is not a valid PaddingStrategy, please select one of "
                                 f"{list(PADDING_STRATEGIES)}")
        if truncation is True:
            truncation_strategy = "longest_first"
        elif truncation is False or truncation is None:
            truncation_strategy = "do_not_truncate"
        else:
            truncation_strategy = getattr(truncation, "value", truncation)
            if truncation_strategy not in TRUNCATION_STRATEGIES:
                raise ValueError(f"{truncation} is not a valid TruncationStrategy, please select one of "
                                 f"{list(TRUNCATION_STRATEGIES)}")
        if max_length is None:
            if padding_strategy == "max_length":
                if self.model_max_length > LARGE_INTEGER:
                    padding_strategy = "do_not_pad"
                else:
                    max_length = self.model_max_length
            if truncation_strategy != "do_not_truncate":
                if self.model_max_length > LARGE_INTEGER:
                    truncation_strategy = "do_not_truncate"
                else:
                    max_length = self.model_max_length
        if padding_strategy != "do_not_pad" and (self.pad_token is None or self.pad_token_id is None
                                                 or self.pad_token_id < 0):
            raise ValueError(
                "Asking to pad but the tokenizer does not have a padding token. Please select a token to use as "
                "`pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via "
                "`tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.")
        if (truncation_strategy != "do_not_truncate" and padding_strategy != "do_not_pad"
                and pad_to_multiple_of is not None and max_length is not None and max_length % pad_to_multiple_of):
            raise ValueError("Truncation and padding are both activated but truncation length "
                             f"({max_length}) is not a multiple of pad_to_multiple_of ({pad_to_multiple_of}).")
        return padding_strategy, truncation_strategy, max_length

    # --------------------------------------------------------------- __call__
    def __call__(self, text=None, text_pair=None, text_target=None, text_pair_target=None, *,
                 add_special_tokens=True, padding=False, truncation=None, max_length=None, stride=0,
                 is_split_into_words=False, pad_to_multiple_of=None, padding_side=None, return_tensors=None,
                 return_token_type_ids=None, return_attention_mask=None, return_overflowing_tokens=False,
                 return_special_tokens_mask=False, return_offsets_mapping=False, return_length=False,
                 verbose=True, split_special_tokens=None, **kwargs):
        if text is None and text_target is not None:
            text, text_pair = text_target, text_pair_target
        if text is None:
            raise ValueError("You need to specify either `text` or `text_target`.")
        if kwargs:
            raise TypeError(f"unexpected keyword arguments: {', '.join(sorted(kwargs))}")
        padding_strategy, truncation_strategy, max_length = self._strategies(
            padding, truncation, max_length, pad_to_multiple_of, verbose)
        if padding_side is not None and padding_side not in ("left", "right"):
            raise ValueError(f"Padding side should be selected between 'right' and 'left', current value: {padding_side}")
        if return_tensors is not None and getattr(return_tensors, "value", return_tensors) == "pt":
            try:
                import torch  # noqa: F401
            except ImportError:
                raise ImportError("return_tensors='pt' needs PyTorch: pip install torch") from None
        batched, items = self._batch_items(text, text_pair, is_split_into_words)
        split_special = self.split_special_tokens if split_special_tokens is None else split_special_tokens
        opts = dict(add_special_tokens=add_special_tokens, padding_strategy=padding_strategy,
                    truncation_strategy=truncation_strategy, max_length=max_length, stride=stride,
                    is_split_into_words=is_split_into_words, pad_to_multiple_of=pad_to_multiple_of,
                    padding_side=padding_side or self.padding_side, return_tensors=return_tensors,
                    return_token_type_ids=return_token_type_ids, return_attention_mask=return_attention_mask,
                    return_overflowing_tokens=return_overflowing_tokens,
                    return_special_tokens_mask=return_special_tokens_mask,
                    return_offsets_mapping=return_offsets_mapping, return_length=return_length,
                    split_special=split_special)
        if self.legacy:
            if return_offsets_mapping:
                raise NotImplementedError(
                    "return_offset_mapping is not available when using Python tokenizers. To use this feature, change "
                    "your tokenizer to one deriving from transformers.PreTrainedTokenizerFast. (bertpiece: use "
                    "reference='tokenizers')")
            return self._call_legacy(batched, items, **opts)
        return self._call_fast(batched, items, **opts)

    @staticmethod
    def _check_text(value, where, is_split_into_words):
        if isinstance(value, str):
            if is_split_into_words:
                raise InputTypeError(f"{where}: expected a list of words (is_split_into_words=True), got a str")
            return
        if is_split_into_words and isinstance(value, (list, tuple)):
            for k, w in enumerate(value):
                if not isinstance(w, str):
                    raise InputTypeError(f"{where}[{k}]: expected str, got {type(w).__name__}")
            return
        raise InputTypeError(f"{where}: expected str, got {type(value).__name__}")

    def _batch_items(self, text, text_pair, is_split_into_words):
        """(batched, [(a, b_or_None)]) with every element checked."""
        if is_split_into_words:
            batched = isinstance(text, (list, tuple)) and bool(text) and isinstance(text[0], (list, tuple))
        else:
            batched = isinstance(text, (list, tuple))
        if not batched:
            self._check_text(text, "text", is_split_into_words)
            if text_pair is not None:
                self._check_text(text_pair, "text_pair", is_split_into_words)
            return False, [(text, text_pair)]
        if isinstance(text_pair, str):
            raise InputTypeError("when tokenizing batches of text, `text_pair` must be a list or tuple with the same "
                                 "length as `text`.")
        if text_pair is not None and len(text) != len(text_pair):
            raise ValueError(f"batch length of `text`: {len(text)} does not match batch length of `text_pair`: "
                             f"{len(text_pair)}.")
        items = []
        for k, item in enumerate(text):
            pair = text_pair[k] if text_pair is not None else None
            if pair is None and isinstance(item, tuple if is_split_into_words else (list, tuple)):
                if len(item) != 2:
                    raise InputTypeError(f"text[{k}]: expected a str or a pair (a, b), got a {type(item).__name__} "
                                         f"of length {len(item)}")
                item, pair = item
                self._check_text(item, f"text[{k}][0]", is_split_into_words)
                self._check_text(pair, f"text[{k}][1]", is_split_into_words)
            else:
                self._check_text(item, f"text[{k}]", is_split_into_words)
                if pair is not None:
                    self._check_text(pair, f"text_pair[{k}]", is_split_into_words)
            items.append((item, pair))
        return True, items

    # -------------------------------------------------- tokenizers-mode path
    def _call_fast(self, batched, items, *, add_special_tokens, padding_strategy, truncation_strategy, max_length,
                   stride, is_split_into_words, pad_to_multiple_of, padding_side, return_tensors,
                   return_token_type_ids, return_attention_mask, return_overflowing_tokens,
                   return_special_tokens_mask, return_offsets_mapping, return_length, split_special):
        saved, self.split_special_tokens = self.split_special_tokens, split_special
        try:
            encoded = [(self._encode_one(a, is_split_into_words),
                        self._encode_one(b, is_split_into_words) if b is not None else None) for a, b in items]
        finally:
            self.split_special_tokens = saved
        cls_id, sep_id = self.cls_token_id, self.sep_token_id
        all_rows = []  # per input: list of rows (ids, type_ids, special, offsets, words, seq_ids)
        for a, b in encoded:
            n_added = (2 if b is None else 3) if add_special_tokens else 0
            if truncation_strategy != "do_not_truncate" and max_length is not None:
                limit = max_length - n_added
                if limit < 0:  # tokenizers: usize underflow, no truncation happens
                    a_w, b_w = [a], ([b] if b is not None else None)
                else:
                    a_w, b_w = _hf_truncate(a, b, limit, truncation_strategy, stride, self.truncation_side)
            else:
                a_w, b_w = [a], ([b] if b is not None else None)
            if b_w is None:
                combos = [(x, None) for x in a_w]
            else:
                combos = [(a_w[0], b_w[0])]
                for x in a_w[1:]:
                    combos.append((x, b_w[0]))
                    combos.extend((x, y) for y in b_w[1:])
                combos.extend((a_w[0], y) for y in b_w[1:])
            rows = []
            for x, y in combos:
                ids, types, special, offs, words, seqs = [], [], [], [], [], []

                def put(tid, type_id, spec, off, word, seq):
                    ids.append(tid), types.append(type_id), special.append(spec)
                    offs.append(off), words.append(word), seqs.append(seq)

                if add_special_tokens:
                    put(cls_id, 0, 1, (0, 0), None, None)
                for k in range(len(x)):
                    put(x.ids[k], 0, 0, x.offsets[k], x.words[k], 0)
                if add_special_tokens:
                    put(sep_id, 0, 1, (0, 0), None, None)
                if y is not None:
                    for k in range(len(y)):
                        put(y.ids[k], 1, 0, y.offsets[k], y.words[k], 1)
                    if add_special_tokens:
                        put(sep_id, 1, 1, (0, 0), None, None)
                rows.append([ids, types, special, offs, words, seqs, [1] * len(ids)])
            if not return_overflowing_tokens:
                del rows[1:]
            all_rows.append(rows)
        if padding_strategy != "do_not_pad":
            # tokenizers' pad_encodings: the target comes from the main rows; overflow rows pad to it too
            target = max_length if padding_strategy == "max_length" else max((len(r[0][0]) for r in all_rows),
                                                                               default=0)
            if pad_to_multiple_of and target % pad_to_multiple_of:
                target += pad_to_multiple_of - target % pad_to_multiple_of
            fills = (self.pad_token_id, self.pad_token_type_id, 1, (0, 0), None, None, 0)
            for rows in all_rows:
                for r in rows:
                    n = target - len(r[0])
                    if n > 0:
                        for k, f in enumerate(fills):
                            r[k] = (r[k] + [f] * n) if padding_side == "right" else ([f] * n + r[k])
        columns = [("input_ids", 0, True), ("token_type_ids", 1, return_token_type_ids is not False),
                   ("attention_mask", 6, return_attention_mask is not False),
                   ("special_tokens_mask", 2, return_special_tokens_mask),
                   ("offset_mapping", 3, return_offsets_mapping)]
        data = {name: [] for name, _, wanted in columns if wanted}
        if return_length:
            data["length"] = []
        meta, mapping = [], []
        for k, rows in enumerate(all_rows):
            for r in rows:
                for name, col, wanted in columns:
                    if wanted:
                        data[name].append(r[col])
                if return_length:
                    data["length"].append(len(r[0]))
                meta.append(_Row(self._tokens_of(r[0]), r[4], r[5], r[3]))
                mapping.append(k)
        if return_overflowing_tokens:
            data["overflow_to_sample_mapping"] = mapping
        out = BatchEncoding(data, meta, tensor_type=return_tensors)
        if not batched and return_tensors is None and not return_overflowing_tokens:
            out = BatchEncoding({k: (v[0] if v and isinstance(v[0], list) else v) for k, v in out.data.items()}, meta)
        return out

    # --------------------------------------------------- legacy-mode path
    def _legacy_ids(self, text, is_split_into_words):
        if is_split_into_words:
            return self.convert_tokens_to_ids([t for w in text for t in self._legacy_tokenize(w)])
        return self.convert_tokens_to_ids(self._legacy_tokenize(text))

    def _legacy_truncate(self, ids, pair_ids, num_tokens_to_remove, strategy, stride):
        """transformers' PythonBackend.truncate_sequences."""
        if num_tokens_to_remove <= 0:
            return ids, pair_ids, []
        overflowing = []
        if strategy == "only_first" or (strategy == "longest_first" and pair_ids is None):
            window_len = min(len(ids), stride + num_tokens_to_remove)
            if self.truncation_side == "left":
                overflowing = ids[:window_len]
                ids = ids[num_tokens_to_remove:]
            else:
                overflowing = ids[-window_len:]
                ids = ids[:-num_tokens_to_remove]
        elif strategy == "longest_first":
            len_ids, len_pair = len(ids), len(pair_ids) if pair_ids else 0
            first_remove = min(abs(len_pair - len_ids), num_tokens_to_remove)
            second_remove = num_tokens_to_remove - first_remove
            if len_ids > len_pair:
                ids_to_move = first_remove + second_remove // 2
                pair_ids_to_move = second_remove - second_remove // 2
            else:
                ids_to_move = second_remove // 2
                pair_ids_to_move = first_remove + second_remove - (second_remove // 2)
            if self.truncation_side == "right":
                ids = ids[:-ids_to_move] if ids_to_move > 0 else ids
                pair_ids = pair_ids[:-pair_ids_to_move] if pair_ids and pair_ids_to_move > 0 else pair_ids
            else:
                ids = ids[ids_to_move:]
                pair_ids = pair_ids[pair_ids_to_move:] if pair_ids else None
        elif strategy == "only_second" and pair_ids:
            window_len = min(len(pair_ids), stride + num_tokens_to_remove)
            if self.truncation_side == "right":
                overflowing = pair_ids[-window_len:]
                pair_ids = pair_ids[:-num_tokens_to_remove]
            else:
                overflowing = pair_ids[:window_len]
                pair_ids = pair_ids[num_tokens_to_remove:]
        return ids, pair_ids, overflowing

    def _legacy_pad(self, enc, target, padding_side, return_attention_mask):
        """transformers' _pad (one example) to `target` (None: no padding)."""
        n = len(enc["input_ids"])
        if return_attention_mask and "attention_mask" not in enc:
            enc["attention_mask"] = [1] * n
        if target is None or target <= n:
            return enc
        d = target - n
        right = padding_side == "right"

        def pad(values, fill):
            return values + [fill] * d if right else [fill] * d + values

        if return_attention_mask:
            enc["attention_mask"] = pad(enc["attention_mask"], 0)
        if "token_type_ids" in enc:
            enc["token_type_ids"] = pad(enc["token_type_ids"], self.pad_token_type_id)
        if "special_tokens_mask" in enc:
            enc["special_tokens_mask"] = pad(enc["special_tokens_mask"], 1)
        enc["input_ids"] = pad(enc["input_ids"], self.pad_token_id)
        return enc

    def _call_legacy(self, batched, items, *, add_special_tokens, padding_strategy, truncation_strategy, max_length,
                     stride, is_split_into_words, pad_to_multiple_of, padding_side, return_tensors,
                     return_token_type_ids, return_attention_mask, return_overflowing_tokens,
                     return_special_tokens_mask, return_offsets_mapping, return_length, split_special):
        saved, self.split_special_tokens = self.split_special_tokens, split_special
        try:
            encoded = [(self._legacy_ids(a, is_split_into_words),
                        self._legacy_ids(b, is_split_into_words) if b is not None else None) for a, b in items]
        finally:
            self.split_special_tokens = saved
        if return_token_type_ids is None:
            return_token_type_ids = False  # BertTokenizerLegacy.model_input_names: input_ids, attention_mask
        want_mask = True if return_attention_mask is None else return_attention_mask
        outs = []
        for ids, pair_ids in encoded:
            if return_overflowing_tokens and truncation_strategy == "longest_first" and pair_ids is not None:
                raise ValueError(
                    "Not possible to return overflowing tokens for pair of sequences with the `longest_first`. "
                    "Please select another truncation strategy than `longest_first`, for instance `only_second` or "
                    "`only_first`.")
            pair = pair_ids is not None
            num_special = (3 if pair else 2) if add_special_tokens else 0
            total_len = len(ids) + len(pair_ids or []) + num_special
            overflowing = []
            if truncation_strategy != "do_not_truncate" and max_length and total_len > max_length:
                ids, pair_ids, overflowing = self._legacy_truncate(ids, pair_ids, total_len - max_length,
                                                                   truncation_strategy, stride)
            if add_special_tokens:
                seq = self.build_inputs_with_special_tokens(ids, pair_ids)
                types = self.create_token_type_ids_from_sequences(ids, pair_ids)
            else:
                seq = ids + (pair_ids if pair_ids else [])
                types = [0] * len(seq)
            enc = {"input_ids": seq}
            if return_token_type_ids:
                enc["token_type_ids"] = types
            if return_special_tokens_mask:
                enc["special_tokens_mask"] = (self.get_special_tokens_mask(ids, pair_ids) if add_special_tokens
                                              else [0] * len(seq))
            if return_overflowing_tokens and not return_tensors and overflowing:
                enc["overflowing_tokens"] = overflowing
                enc["num_truncated_tokens"] = total_len - max_length if max_length else 0
            outs.append(enc)
        if not batched:
            enc = outs[0]
            if padding_strategy != "do_not_pad" or want_mask:
                target = None
                if padding_strategy == "longest":
                    target = len(enc["input_ids"])
                elif padding_strategy == "max_length":
                    target = max_length
                if target is not None and pad_to_multiple_of and target % pad_to_multiple_of:
                    target = (target // pad_to_multiple_of + 1) * pad_to_multiple_of
                self._legacy_pad(enc, target, padding_side, want_mask)
            if return_length:
                enc["length"] = len(enc["input_ids"])
            return BatchEncoding(enc, None, tensor_type=return_tensors, prepend_batch_axis=True)
        for enc in outs:
            if return_length:
                enc["length"] = len(enc["input_ids"])
        if return_tensors and return_overflowing_tokens:
            for enc in outs:
                enc.pop("overflowing_tokens", None)
                enc.pop("num_truncated_tokens", None)
        if any("overflowing_tokens" in e for e in outs):
            # transformers' batch `pad` fails (AssertionError) when only some rows overflow: fill the others
            for enc in outs:
                enc.setdefault("overflowing_tokens", [])
                enc.setdefault("num_truncated_tokens", 0)
        target = None
        if padding_strategy == "longest":
            target = max((len(e["input_ids"]) for e in outs), default=0)
        elif padding_strategy == "max_length":
            target = max_length
        if target is not None and pad_to_multiple_of and target % pad_to_multiple_of:
            target = (target // pad_to_multiple_of + 1) * pad_to_multiple_of
        for enc in outs:
            self._legacy_pad(enc, target, padding_side, want_mask)
        data = {}
        for enc in outs:
            for key, value in enc.items():
                data.setdefault(key, []).append(value)
        if not outs:
            data = {"input_ids": []}
            if want_mask:
                data["attention_mask"] = []
        return BatchEncoding(data, None, tensor_type=return_tensors)

    # ---------------------------------------------------- transformers-4 API
    def encode(self, text, text_pair=None, add_special_tokens=True, padding=False, truncation=None, max_length=None,
               stride=0, padding_side=None, return_tensors=None, **kwargs):
        enc = self(text, text_pair, add_special_tokens=add_special_tokens, padding=padding, truncation=truncation,
                   max_length=max_length, stride=stride, padding_side=padding_side, return_tensors=return_tensors,
                   **kwargs)
        return enc["input_ids"]

    def encode_plus(self, text, text_pair=None, **kwargs):
        return self(text, text_pair, **kwargs)

    def batch_encode_plus(self, batch_text_or_text_pairs, **kwargs):
        return self(list(batch_text_or_text_pairs), **kwargs)

    # ------------------------------------------------------- special tokens
    def build_inputs_with_special_tokens(self, token_ids_0, token_ids_1=None):
        cls, sep = [self.cls_token_id], [self.sep_token_id]
        if token_ids_1 is None:
            return cls + list(token_ids_0) + sep
        return cls + list(token_ids_0) + sep + list(token_ids_1) + sep

    def get_special_tokens_mask(self, token_ids_0, token_ids_1=None, already_has_special_tokens=False):
        if already_has_special_tokens:
            if token_ids_1 is not None:
                raise ValueError("You should not supply a second sequence if the provided sequence of ids is already "
                                 "formatted with special tokens for the model.")
            special = set(self.all_special_ids)
            return [1 if t in special else 0 for t in token_ids_0]
        if token_ids_1 is None:
            return [1] + [0] * len(token_ids_0) + [1]
        return [1] + [0] * len(token_ids_0) + [1] + [0] * len(token_ids_1) + [1]

    def create_token_type_ids_from_sequences(self, token_ids_0, token_ids_1=None):
        if token_ids_1 is None:
            return [0] * (len(token_ids_0) + 2)
        return [0] * (len(token_ids_0) + 2) + [1] * (len(token_ids_1) + 1)

    def num_special_tokens_to_add(self, pair=False):
        return 3 if pair else 2

    # ------------------------------------------------------------- decoding
    @staticmethod
    def clean_up_tokenization(out_string):
        return (out_string.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" 's", "'s")
                .replace(" 've", "'ve").replace(" 're", "'re"))

    @staticmethod
    def _wordpiece_decode(tokens):
        """tokenizers' WordPiece decoder (prefix "##", cleanup=True), token by token."""
        out = []
        for i, tok in enumerate(tokens):
            if i != 0:
                tok = tok[2:] if tok.startswith("##") else " " + tok
            tok = (tok.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                   .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" do not", " don't")
                   .replace(" 's", "'s").replace(" 've", "'ve").replace(" 're", "'re"))
            out.append(tok)
        return "".join(out)

    def convert_tokens_to_string(self, tokens):
        if self.legacy:
            return " ".join(tokens).replace(" ##", "").strip()
        return self._wordpiece_decode(tokens)

    def decode(self, token_ids, skip_special_tokens=False, clean_up_tokenization_spaces=None, **kwargs):
        if isinstance(token_ids, dict):
            token_ids = token_ids["input_ids"]
        if hasattr(token_ids, "tolist"):
            token_ids = token_ids.tolist()
        if isinstance(token_ids, int):
            token_ids = [token_ids]
        if token_ids and isinstance(token_ids[0], list):
            return self.batch_decode(token_ids, skip_special_tokens, clean_up_tokenization_spaces, **kwargs)
        if self.legacy:
            text = self.convert_tokens_to_string(self.convert_ids_to_tokens(list(token_ids), skip_special_tokens))
        else:
            special = {self._added[c][0] for c in self._special_contents} if skip_special_tokens else ()
            toks = []
            for i in token_ids:
                i = int(i)
                t = self._id_to_token(i)
                if t is None or i in special:
                    continue
                toks.append(t)
            text = self._wordpiece_decode(toks)
        cleanup = self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None \
            else clean_up_tokenization_spaces
        return self.clean_up_tokenization(text) if cleanup else text

    def batch_decode(self, sequences, skip_special_tokens=False, clean_up_tokenization_spaces=None, **kwargs):
        if hasattr(sequences, "tolist"):
            sequences = sequences.tolist()
        return [self.decode(s, skip_special_tokens, clean_up_tokenization_spaces, **kwargs) for s in sequences]

    # --------------------------------------------------------------- saving
    def _vocab_lines(self):
        by_id = sorted(self._vocab.items(), key=lambda kv: kv[1])
        return [t for t, _ in by_id]

    def save_vocabulary(self, save_directory, filename_prefix=None):
        save_directory = os.fspath(save_directory)
        if os.path.isdir(save_directory):
            path = os.path.join(save_directory, (filename_prefix + "-" if filename_prefix else "") + VOCAB_FILE)
        else:
            path = (filename_prefix + "-" if filename_prefix else "") + save_directory
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for tok in self._vocab_lines():
                f.write(tok + "\n")
        return (path,)

    def _tokenizer_json(self):
        added = [{"id": i, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
                  "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special}
                 for i, t in sorted(self._added_by_id.items())]
        cls, sep = self.cls_token, self.sep_token

        def special(name, type_id):
            return {"SpecialToken": {"id": name, "type_id": type_id}}

        def seq(name, type_id):
            return {"Sequence": {"id": name, "type_id": type_id}}

        return {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": self.tokenize_chinese_chars, "strip_accents": self.strip_accents,
                           "lowercase": self.do_lower_case},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [special(cls, 0), seq("A", 0), special(sep, 0)],
                "pair": [special(cls, 0), seq("A", 0), special(sep, 0), seq("B", 1), special(sep, 1)],
                "special_tokens": {cls: {"id": cls, "ids": [self.cls_token_id], "tokens": [cls]},
                                   sep: {"id": sep, "ids": [self.sep_token_id], "tokens": [sep]}}},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": self.unk_token, "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": self.max_input_chars_per_word, "vocab": dict(self._vocab)},
        }

    def save_pretrained(self, save_directory, legacy_format=None, filename_prefix=None, **kwargs):
        """Writes vocab.txt, tokenizer_config.json, special_tokens_map.json and, except in
        reference="transformers" mode, tokenizer.json; transformers loads the directory."""
        save_directory = os.fspath(save_directory)
        if os.path.isfile(save_directory):
            raise OSError(f"Provided path ({save_directory}) should be a directory, not a file")
        os.makedirs(save_directory, exist_ok=True)
        files = []
        config = {
            "added_tokens_decoder": {str(i): t.to_dict() for i, t in sorted(self._added_by_id.items())},
            "clean_up_tokenization_spaces": self.clean_up_tokenization_spaces,
            "do_basic_tokenize": self.do_basic_tokenize,
            "do_lower_case": self.do_lower_case,
            "model_max_length": self.model_max_length,
            "never_split": self.never_split,
            "strip_accents": self.strip_accents,
            "tokenize_chinese_chars": self.tokenize_chinese_chars,
            "padding_side": self.padding_side,
            "truncation_side": self.truncation_side,
            "tokenizer_class": "BertTokenizerLegacy" if self.legacy else "BertTokenizer",
        }
        config.update({k: v for k, v in self._special.items() if v is not None})
        if self._extra_special:
            config["extra_special_tokens"] = list(self._extra_special)
        path = os.path.join(save_directory, (filename_prefix + "-" if filename_prefix else "") + CONFIG_FILE)
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        files.append(path)
        files.extend(self.save_vocabulary(save_directory, filename_prefix))
        if not self.legacy:
            path = os.path.join(save_directory, (filename_prefix + "-" if filename_prefix else "") + TOKENIZER_FILE)
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(self._tokenizer_json(), indent=2, ensure_ascii=False) + "\n")
            files.append(path)
        return tuple(files)

    def __repr__(self):
        return (f"BertTokenizer(name_or_path={self.name_or_path!r}, reference={self.reference!r}, "
                f"vocab_size={self.vocab_size}, do_lower_case={self.do_lower_case!r}, "
                f"model_max_length={self.model_max_length}, padding_side={self.padding_side!r}, "
                f"truncation_side={self.truncation_side!r}, special_tokens={self.special_tokens_map})")

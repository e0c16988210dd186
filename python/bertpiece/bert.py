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

import functools
import os
import re
import warnings

from . import _core
from .added_tokens import SPECIAL_TOKEN_NAMES, AddedToken
from .batch import encode_batch as _encode_batch
from .batch_call import call_batch
from .bert_files import TOKENIZER_FILE, VOCAB_FILE, TokenizerFiles
from .bert_legacy import LegacyEncoding
from .encoding import BatchEncoding, _Row
from .tokenization import REFERENCES
from .truncation import _hf_truncate, _Seq

VERY_LARGE_INTEGER = int(1e30)  # transformers' "no model_max_length"
LARGE_INTEGER = int(1e20)

PADDING_STRATEGIES = ("longest", "max_length", "do_not_pad")
TRUNCATION_STRATEGIES = ("only_first", "only_second", "longest_first", "do_not_truncate")


class InputTypeError(TypeError, ValueError):
    """A bad input value: a TypeError (like HF tokenizers) that is also a
    ValueError (what transformers' Python tokenizer raises)."""


def _new_core(vocab_file, entries, do_lower_case, **kwargs):
    """The Rust tokenizer over a vocab file or in-memory (token, id) entries."""
    if entries is not None:
        return _core.FullTokenizer.from_entries(entries, do_lower_case, **kwargs)
    return _core.FullTokenizer(vocab_file, do_lower_case, **kwargs)


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------

class BertTokenizer(TokenizerFiles, LegacyEncoding):
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
        if reference not in REFERENCES:
            raise ValueError(f"unknown reference {reference!r}: expected one of {', '.join(map(repr, REFERENCES))}")
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

    # The vocabulary as Python dicts, built on first use: loading stays the
    # core's work (a 119k-entry dict would double the load time).
    @functools.cached_property
    def _vocab(self):
        return dict(self._core.vocab_entries())

    @functools.cached_property
    def _ids_to_tokens(self):
        out = {}
        for tok, i in self._vocab.items():
            out.setdefault(i, tok)
        return out

    # ------------------------------------------------------------ added tokens
    def _next_id(self):
        size = len(self._core)
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
        tid = self._core.token_to_id(token.content)
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

    def _has_added_token(self, text):
        """Whether `text` holds an added or special token (matched in the raw text)."""
        return self._matcher is not None and self._matcher.search(text) is not None

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
        return len(self._core)

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
        return self._core.token_to_id(token) if isinstance(token, str) else self._vocab.get(token)

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
                import torch  # noqa: F401  (only checks that it is installed)
            except ImportError:
                raise ImportError("return_tensors='pt' needs PyTorch: pip install torch") from None
        batched, items = self._batch_items(text, text_pair, is_split_into_words)
        if truncation_strategy != "do_not_truncate" and add_special_tokens and max_length is not None:
            # transformers does not check this: HF silently skips truncation, the
            # legacy tokenizer empties the sequences. Both are wrong model inputs.
            n_special = self.num_special_tokens_to_add(pair=any(b is not None for _, b in items))
            if max_length < n_special:
                raise ValueError(f"max_length={max_length} is smaller than the {n_special} special tokens added "
                                 "to each sequence; use a larger max_length or add_special_tokens=False")
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
        if text_pair is None and not is_split_into_words and all(type(t) is str for t in text):
            return True, [(t, None) for t in text]  # the common case, checked in one pass
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
                   return_special_tokens_mask, return_offsets_mapping, return_length, split_special, pad_to=None):
        if batched and not is_split_into_words and pad_to is None:
            # Batches of single texts: the core's batch path (all cores, NumPy, no object per token).
            out = call_batch(self, items, add_special_tokens=add_special_tokens, padding_strategy=padding_strategy,
                             truncation_strategy=truncation_strategy, max_length=max_length,
                             pad_to_multiple_of=pad_to_multiple_of, padding_side=padding_side,
                             return_tensors=return_tensors, return_token_type_ids=return_token_type_ids,
                             return_attention_mask=return_attention_mask,
                             return_overflowing_tokens=return_overflowing_tokens,
                             return_special_tokens_mask=return_special_tokens_mask,
                             return_offsets_mapping=return_offsets_mapping, return_length=return_length,
                             split_special=split_special)
            if out is not None:
                return out
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
            if pad_to is not None:  # the batch path's lazy rows: the width the batch was padded to
                target = pad_to
            elif padding_strategy == "max_length":
                target = max_length
            else:
                target = max((len(r[0][0]) for r in all_rows), default=0)
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

    # ---------------------------------------------------- transformers-4 API
    def encode(self, text, text_pair=None, add_special_tokens=True, padding=False, truncation=None, max_length=None,
               stride=0, padding_side=None, return_tensors=None, **kwargs):
        enc = self(text, text_pair, add_special_tokens=add_special_tokens, padding=padding, truncation=truncation,
                   max_length=max_length, stride=stride, padding_side=padding_side, return_tensors=return_tensors,
                   **kwargs)
        return enc["input_ids"]

    def encode_batch(self, texts, *, add_special_tokens=True, max_length=None, truncation=False,
                     return_offsets=False, num_threads=None):
        """Encodes many texts on all cores (GIL released) into NumPy arrays.

        Returns an `EncodedBatch`: `ids` (int32, every row back to back),
        `row_splits` (int64, row `i` is `ids[row_splits[i]:row_splits[i+1]]`)
        and, with `return_offsets=True`, `offsets` (int32, `(n, 2)`). Rows equal
        `self(texts, add_special_tokens=..., truncation=..., max_length=...)["input_ids"]`.
        `num_threads` (or the BERTPIECE_NUM_THREADS environment variable)
        defaults to all cores.
        """
        if self.legacy and return_offsets:
            raise NotImplementedError("offsets are not available with reference='transformers' "
                                      "(BertTokenizerLegacy has none); use reference='tokenizers'")
        if not self.do_basic_tokenize or self.split_special_tokens:
            raise NotImplementedError("encode_batch needs do_basic_tokenize=True and split_special_tokens=False; "
                                      "use __call__")
        return _encode_batch(self, texts, add_special_tokens=add_special_tokens, max_length=max_length,
                             truncation=truncation, return_offsets=return_offsets, num_threads=num_threads)

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

    def __repr__(self):
        return (f"BertTokenizer(name_or_path={self.name_or_path!r}, reference={self.reference!r}, "
                f"vocab_size={self.vocab_size}, do_lower_case={self.do_lower_case!r}, "
                f"model_max_length={self.model_max_length}, padding_side={self.padding_side!r}, "
                f"truncation_side={self.truncation_side!r}, special_tokens={self.special_tokens_map})")

    def __reduce__(self):
        # Pickles the vocabulary entries and instance state; the Rust core is rebuilt (see _pickle.py).
        from ._pickle import reduce_bert_tokenizer
        return reduce_bert_tokenizer(self)

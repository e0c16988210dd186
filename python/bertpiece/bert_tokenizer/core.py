"""`bertpiece.BertTokenizer`: transformers' `BertTokenizer`, computed by the Rust core.

`reference="tokenizers"` (default) gives the model inputs of transformers 5's
`BertTokenizer` (Hugging Face tokenizers: BertNormalizer, BertPreTokenizer,
WordPiece, TemplateProcessing, the Rust truncation and padding rules);
`reference="transformers"` those of transformers' pure-Python
`BertTokenizerLegacy` (Python `truncate_sequences`, `pad`);
`reference="google"` uses Google's basic/WordPiece semantics with the
tokenizers-mode post-processing.

This class needs no transformers; `bertpiece.BertTokenizer` is the subclass
in `transformers_base.py` when transformers is installed. The parts, one
file each: `tokens.py` (special and added tokens, conversions), `call.py`
(`__call__`), `general.py` (its exact path), `batch_call.py` (its batch
path), `serving.py` (its one-crossing serving cases), `legacy.py` (legacy mode's truncation and padding), `decode.py` (post-processing and decoding),
`files.py` (from_pretrained / save_pretrained), `hf_backend.py`
(backend_tokenizer, train_new_from_iterator). See docs/bert_tokenizer.md.
"""

from __future__ import annotations

import copy
import os

from ..batch import encode_batch as _encode_batch
from ..batch import surrogate_error
from ..tokenization import REFERENCES
from .added_tokens import AddedToken
from . import serving
from .call import Calls
from .decode import PostProcessing
from .engine import Engine
from .epochs import Epoch
from .files import TOKENIZER_FILE, VOCAB_FILE, TokenizerFiles
from .general import GeneralPath
from .hf_backend import HfBackendExtras
from .legacy import LegacyEncoding
from .tokens import SpecialTokens
from .truncation import _Seq

VERY_LARGE_INTEGER = int(1e30)  # transformers' "no model_max_length"


def _is_word_char(ch):
    # HF tokenizers' single_word boundary: alphanumeric or "_"
    return ch.isalnum() or ch == "_"


class BertTokenizer(SpecialTokens, Calls, GeneralPath, PostProcessing, LegacyEncoding, TokenizerFiles,
                    HfBackendExtras):
    """transformers' `BertTokenizer`, computed by bertpiece's Rust core.

    `reference="tokenizers"` (default): transformers 5 `BertTokenizer`
    (Hugging Face tokenizers); `"transformers"`: `BertTokenizerLegacy`;
    `"google"`: Google's tokenization with the tokenizers-mode API.
    """

    vocab_files_names = {"vocab_file": VOCAB_FILE, "tokenizer_file": TOKENIZER_FILE}
    model_input_names = ["input_ids", "token_type_ids", "attention_mask"]
    padding_side = "right"
    truncation_side = "right"

    def __init__(self, vocab_file=None, do_lower_case=True, do_basic_tokenize=True, never_split=None,
                 unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]", cls_token="[CLS]", mask_token="[MASK]",
                 tokenize_chinese_chars=True, strip_accents=None, model_max_length=VERY_LARGE_INTEGER,
                 padding_side="right", truncation_side="right", clean_up_tokenization_spaces=None, *,
                 reference="tokenizers", vocab=None, additional_special_tokens=None, extra_special_tokens=None,
                 max_input_chars_per_word=None, merges=None, **kwargs):
        if reference not in REFERENCES:
            raise ValueError(f"unknown reference {reference!r}: expected one of {', '.join(map(repr, REFERENCES))}")
        for side, value in (("Padding", padding_side), ("Truncation", truncation_side)):
            if value not in ("right", "left"):
                raise ValueError(f"{side} side should be selected between 'right' and 'left', current value: {value}")
        self.reference = reference
        self.legacy = reference == "transformers"
        if clean_up_tokenization_spaces is None:
            clean_up_tokenization_spaces = self.legacy  # transformers 5: legacy True, tokenizers False
        if max_input_chars_per_word is None:
            max_input_chars_per_word = 200 if reference == "google" else 100
        if extra_special_tokens is None and additional_special_tokens is not None:
            extra_special_tokens = additional_special_tokens
        added_tokens_decoder = kwargs.pop("added_tokens_decoder", None)
        # transformers keeps every argument in init_kwargs (save_pretrained writes them)
        init_kwargs = dict(do_lower_case=do_lower_case, do_basic_tokenize=do_basic_tokenize, never_split=never_split,
                           unk_token=unk_token, sep_token=sep_token, pad_token=pad_token, cls_token=cls_token,
                           mask_token=mask_token, tokenize_chinese_chars=tokenize_chinese_chars,
                           strip_accents=strip_accents, model_max_length=model_max_length,
                           padding_side=padding_side, truncation_side=truncation_side,
                           clean_up_tokenization_spaces=clean_up_tokenization_spaces, reference=reference,
                           extra_special_tokens=extra_special_tokens,
                           max_input_chars_per_word=max_input_chars_per_word, **kwargs)
        if "model_input_names" not in kwargs:
            # BertTokenizerLegacy returns no token_type_ids unless asked
            kwargs["model_input_names"] = ["input_ids", "attention_mask"] if self.legacy else self.model_input_names
        named = {"unk_token": unk_token, "sep_token": sep_token, "pad_token": pad_token, "cls_token": cls_token,
                 "mask_token": mask_token}
        for key in ("bos_token", "eos_token"):
            if key in kwargs:
                named[key] = kwargs.pop(key)
        self._init_base(init_kwargs, dict(kwargs, model_max_length=model_max_length, padding_side=padding_side,
                                          truncation_side=truncation_side,
                                          clean_up_tokenization_spaces=clean_up_tokenization_spaces))
        self.add_prefix_space = kwargs.get("add_prefix_space", False)  # kept, as transformers; unused by BERT
        self.do_lower_case = do_lower_case
        self.do_basic_tokenize = do_basic_tokenize
        self.never_split = list(never_split) if never_split else None
        self.tokenize_chinese_chars = tokenize_chinese_chars
        self.strip_accents = strip_accents
        self.max_input_chars_per_word = max_input_chars_per_word
        self.vocab_file = os.fspath(vocab_file) if vocab_file is not None else None

        entries = None
        if vocab is not None:
            if isinstance(vocab, (str, os.PathLike)):
                self.vocab_file = os.fspath(vocab)
            elif isinstance(vocab, dict):
                entries = [(str(t), int(i)) for t, i in vocab.items()]
            else:  # tokens, or (token, score) pairs, in id order (transformers' extracted vocabularies)
                entries = [(t if isinstance(t, str) else str(t[0]), i) for i, t in enumerate(vocab)]
        if merges:
            raise ValueError("BERT's WordPiece has no merges: `merges` must be empty")
        if self.vocab_file is None and entries is None:
            raise ValueError("BertTokenizer needs a vocab_file (or use BertTokenizer.from_pretrained)")
        if self.vocab_file is not None and not os.path.isfile(self.vocab_file):
            raise ValueError(f"Can't find a vocabulary file at path '{self.vocab_file}'. To load a bundled vocabulary "
                             "use `BertTokenizer.from_pretrained(name)`")
        core_kwargs = dict(reference=reference, tokenize_chinese_chars=tokenize_chinese_chars,
                           strip_accents=strip_accents, max_input_chars_per_word=max_input_chars_per_word,
                           unk_token=str(unk_token))
        if self.legacy and self.never_split:
            core_kwargs["never_split"] = self.never_split
        self._engine = Engine.build(self.vocab_file, entries, do_lower_case,
                                    self.legacy and not do_basic_tokenize, **core_kwargs)

        # Added tokens: those saved with the model first, in id order, then the
        # special tokens not among them, as transformers adds them.
        self._init_special_tokens(named, extra_special_tokens)
        if isinstance(added_tokens_decoder, dict):
            added_tokens_decoder = [token for _, token in sorted(
                ((self._check_id(i, "added_tokens_decoder key", strict=False), t) for i, t in added_tokens_decoder.items()),
                key=lambda p: p[0])]
        for added in added_tokens_decoder or []:
            added = AddedToken.coerce(added, False)
            self._add_one(added, special=added.special)
        specials = [v for v in named.values() if v is not None]
        self._add_tokens([self._special_to_add(v) for v in specials], special_tokens=True)
        self._add_tokens([self._special_to_add(v) for v in self._extra_special_tokens], special_tokens=True)
        # from here on every change starts a new epoch (epochs.py): calls' lazy rows keep their state
        self.__dict__["_epoch"] = Epoch()

    def _special_to_add(self, value):
        """A special token of the constructor as the reference adds it: a str already among the
        added tokens (from_pretrained's file) keeps that token's flags, made special by HF
        (BertTokenizerLegacy leaves an added str as it is); a new str is special, not normalized."""
        if not isinstance(value, str):
            return AddedToken.coerce(value, True)
        if self.legacy:
            return value
        return self._added[value][1] if value in self._added else AddedToken(value, special=True, normalized=False)

    def _init_base(self, init_kwargs, kwargs):
        """The state transformers' PreTrainedTokenizerBase.__init__ sets (the
        transformers subclass runs that __init__ itself instead)."""
        self.init_inputs = ()
        self.init_kwargs = copy.deepcopy(init_kwargs)
        self.name_or_path = kwargs.pop("name_or_path", "")
        self._processor_class = kwargs.pop("processor_class", None)
        self._pad_token_type_id = 0
        self.verbose = kwargs.pop("verbose", False)
        self.model_max_length = kwargs.pop("model_max_length", None) or VERY_LARGE_INTEGER
        self.padding_side = kwargs.pop("padding_side", self.padding_side)
        self.truncation_side = kwargs.pop("truncation_side", self.truncation_side)
        self.model_input_names = list(kwargs.pop("model_input_names", self.model_input_names))
        self.clean_up_tokenization_spaces = kwargs.pop("clean_up_tokenization_spaces", False)
        self.split_special_tokens = kwargs.pop("split_special_tokens", False)
        self.chat_template = kwargs.pop("chat_template", None)
        if isinstance(self.chat_template, (list, tuple)):  # tokenizer_config.json's list of {"name", "template"}
            self.chat_template = {t["name"]: t["template"] for t in self.chat_template}
        self.deprecation_warnings = {}
        self.backend = kwargs.pop("backend", self._backend_name())

    def _backend_name(self):
        # transformers' `backend` says whose semantics a tokenizer has (its code
        # and tests branch on it): HF tokenizers', or a Python ("custom") one
        return "custom" if self.legacy else "tokenizers"

    # The derived state (engine.py), read through these names everywhere
    _core = property(lambda self: self._engine.core)
    _wordpiece = property(lambda self: self._engine.wordpiece)
    _vocab = property(lambda self: self._engine.vocab_dict())
    _ids_to_tokens = property(lambda self: self._engine.ids_dict())

    @property
    def is_fast(self):
        """True in the modes with offsets and word ids (as transformers' tokenizers-backed class)."""
        return not self.legacy

    # transformers' TokenizersBackend lets add_bos_token / add_eos_token replace
    # the post-processor with "bos $A eos", which for BERT drops [CLS] and
    # [SEP]: BERT's layout is fixed here. Without a bos/eos token both stay
    # False, as there.
    @property
    def add_bos_token(self):
        return False

    @add_bos_token.setter
    def add_bos_token(self, value):
        self._refuse_template_change("bos", value)

    @property
    def add_eos_token(self):
        return False

    @add_eos_token.setter
    def add_eos_token(self, value):
        self._refuse_template_change("eos", value)

    def _refuse_template_change(self, which, value):
        if value and getattr(self, f"{which}_token") is not None:
            raise NotImplementedError(f"add_{which}_token=True would replace BERT's [CLS] ... [SEP] layout "
                                      f"(transformers then drops [CLS] and [SEP]); bertpiece keeps BERT's layout")

    @property
    def max_len_single_sentence(self):
        return self.model_max_length - self.num_special_tokens_to_add(pair=False)

    @property
    def max_len_sentences_pair(self):
        return self.model_max_length - self.num_special_tokens_to_add(pair=True)

    # ------------------------------------------------------------- encoding
    def _split_added(self, text, split_special):
        """Raw text cut at added tokens: [(start, end, added_or_None)] (leftmost-longest
        match; an AddedToken's single_word, lstrip and rstrip as HF's added vocabulary)."""
        matcher = self._nonspecial_matcher if split_special else self._matcher
        if not matcher:
            return [(0, len(text), None)]
        pieces, pos = [], 0
        for start, end, content in matcher.finditer(text):
            token = self._added[content][1]
            if token.single_word and ((start > 0 and _is_word_char(text[start - 1]))
                                      or (end < len(text) and _is_word_char(text[end]))):
                continue  # inside a word: not this token (HF discards the match)
            if token.lstrip:
                while start > pos and text[start - 1].isspace():
                    start -= 1
            if token.rstrip:
                while end < len(text) and text[end].isspace():
                    end += 1
            if start > pos:
                pieces.append((pos, start, None))
            pieces.append((start, end, content))
            pos = end
        if pos < len(text):
            pieces.append((pos, len(text), None))
        return pieces

    def _encode_text(self, text, word_offset=0, fixed_word=None, split_special=None, no_added=False):
        """One string -> _Seq (ids, offsets in code points of `text`, word indices)."""
        if split_special is None:
            split_special = self.split_special_tokens
        if self.reference == "tokenizers" and not text.isascii():
            error = surrogate_error([text], "text")  # HF tokenizers refuses a lone surrogate
            if error is not None:
                raise error
        ids, offsets, words = [], [], []
        strings = {}  # position -> token string, where it is not the token's content
        nword = word_offset
        for start, end, added in ([(0, len(text), None)] if no_added else self._split_added(text, split_special)):
            if added is not None:
                tid, token = self._added[added]
                if end - start != len(added):  # lstrip/rstrip: HF's token is the matched text
                    matched = text[start:end]
                    string = "".join(" " if c.isspace() else c for c in matched) \
                        if token.normalized else matched  # (BertNormalizer: whitespace is " ")
                    if token.normalized and tid in self._token_strings:  # (matched in the normalized text)
                        k = matched.find(added)
                        string = string[:k] + self._token_strings[tid] + string[k + len(added):]
                    strings[len(ids)] = string
                elif tid in self._token_strings and not token.normalized:
                    strings[len(ids)] = added  # HF's normalized form outlived the flag: it decodes, not matches
                ids.append(tid)
                offsets.append((start, end))
                words.append(fixed_word if fixed_word is not None else nword)
                nword += 1
                continue
            pids, poffs, pwords = self._core.encode_offsets(text[start:end] if start or end < len(text) else text)
            ids += pids
            offsets += poffs if start == 0 else [(s + start, e + start) for s, e in poffs]
            if fixed_word is not None:
                words += [fixed_word] * len(pids)
            else:
                words += pwords if nword == 0 else [w + nword for w in pwords]
                if pwords:
                    nword += pwords[-1] + 1  # word indices only grow
        return _Seq(ids, offsets, words, [strings.get(k) for k in range(len(ids))] if strings else None)

    def _encode_one(self, text, is_split_into_words, split_special=None):
        if is_split_into_words:
            parts = [self._encode_text(w, fixed_word=i, split_special=split_special) for i, w in enumerate(text)]
            strings = [s for p in parts for s in (p.strings or [None] * len(p))] \
                if any(p.strings for p in parts) else None
            return _Seq([i for p in parts for i in p.ids], [o for p in parts for o in p.offsets],
                        [w for p in parts for w in p.words], strings)
        return self._encode_text(text, split_special=split_special)

    def tokenize(self, text, pair=None, add_special_tokens=False, **kwargs):
        """Token strings of `text` (no special tokens unless asked)."""
        if self.legacy:
            return self._legacy_tokenize(text, kwargs.get("split_special_tokens"))
        enc = self(text, pair, add_special_tokens=add_special_tokens, **kwargs)
        return enc.tokens()

    def _encode_without_added_tokens(self, text):
        """`text` as plain text, no added token (special or not) matched: what
        transformers' `encode_marked_chat` uses for control tokens in user input
        (tokenizers mode: the normalizer, pre-tokenizer and model alone, as there)."""
        if self.legacy:
            return self.encode(text, add_special_tokens=False, split_special_tokens=True)
        return self._encode_text(text, split_special=True, no_added=True).ids

    def _tokens_of(self, ids):
        return [self._id_to_token(i) for i in ids]

    # ---------------------------------------------------- transformers-4 API
    def encode(self, text, text_pair=None, add_special_tokens=True, padding=False, truncation=None, max_length=None,
               stride=0, padding_side=None, return_tensors=None, **kwargs):
        if (type(text) is str and text_pair is None and padding is False and truncation is None and max_length is None
                and stride == 0 and padding_side is None and return_tensors is None and not kwargs):
            ids = serving.one_ids(self, text, add_special_tokens)  # the encode fast path (serving.py)
            if ids is not None:
                return ids
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

    def __repr__(self):
        return (f"BertTokenizer(name_or_path={self.name_or_path!r}, reference={self.reference!r}, "
                f"vocab_size={self.vocab_size}, do_lower_case={self.do_lower_case!r}, "
                f"model_max_length={self.model_max_length}, padding_side={self.padding_side!r}, "
                f"truncation_side={self.truncation_side!r}, special_tokens={self.special_tokens_map})")

    def __reduce__(self):
        # Pickles the vocabulary entries and instance state; the Rust core is rebuilt (see _pickle.py).
        from .._pickle import reduce_bert_tokenizer
        return reduce_bert_tokenizer(self)

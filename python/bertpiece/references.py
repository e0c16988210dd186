"""The REAL reference tokenizers bertpiece reproduces, loaded at run time, and
where their Unicode data differs from bertpiece's pinned data.

Used by `bertpiece parity` and by the test suite (tests/google_reference.py).

- ``google``: ``bert.tokenization`` from the ``bert-tensorflow`` package (1.0.4).
  It imports TensorFlow only for ``tf.gfile.GFile`` in ``load_vocab``; when
  TensorFlow is not installed a minimal stand-in goes into ``sys.modules`` whose
  ``GFile`` reads the way TF's does (UTF-8, lines split on "\\n" only: TF does no
  universal-newline translation, and the bert-base-chinese vocab has U+2028).
- ``transformers``: ``transformers.BertTokenizerLegacy`` (the pure-Python one).
- ``tokenizers``: a Hugging Face ``tokenizers.Tokenizer`` with BertNormalizer,
  BertPreTokenizer and WordPiece (no added tokens, no post-processor).
- ``oracle``: ``bertpiece.oracle`` (pure Python, Google semantics).

Google's and transformers' code read the *interpreter's* Unicode data, so on a
Python whose Unicode version is not bertpiece's pinned one they differ from
bertpiece exactly on text holding a code point whose data changed:
`unicode_version_diff()` computes that set.

This module does not import the Rust extension, so the tests can use it (via
a package stub) even when the extension is not built.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import sys
import types
import unicodedata
from typing import Callable, FrozenSet, List, Tuple

# name -> (pip package to install, import name of its module)
REFERENCES = {
    "google": "bert-tensorflow",
    "transformers": "transformers",
    "tokenizers": "tokenizers",
    "oracle": None,  # ships with bertpiece
}
# What each side of `bertpiece parity --reference NAME` runs.
LABELS = {
    "google": ("bert.tokenization.FullTokenizer (bert-tensorflow)",
               "bertpiece.FullTokenizer(reference='google')"),
    "transformers": ("transformers.BertTokenizerLegacy",
                     "bertpiece.BertTokenizer(reference='transformers')"),
    "tokenizers": ("tokenizers.Tokenizer(WordPiece) + BertNormalizer + BertPreTokenizer",
                   "bertpiece.FullTokenizer(reference='tokenizers')"),
    "oracle": ("bertpiece.oracle.FullTokenizer(reference='google')",
               "bertpiece.FullTokenizer(reference='google')"),
}
# References that read the running interpreter's Unicode data (so Unicode-version
# differences can explain a difference); the oracle and HF tokenizers use fixed tables.
INTERPRETER_UNICODE = frozenset({"google", "transformers"})

# import name of a missing module -> the pip package that provides it
_PIP_PACKAGES = {"bert": "bert-tensorflow", "absl": "absl-py", "six": "six",
                 "transformers": "transformers", "tokenizers": "tokenizers"}
# The modules each reference imports (the ones `load_reference` needs), checked without importing them.
_MODULES = {"google": ("bert.tokenization", "absl.flags", "six"), "transformers": ("transformers",),
            "tokenizers": ("tokenizers",), "oracle": ()}
# What to install for each, from PyPI (bertpiece itself is not there, so not its parity extra).
INSTALL = {"google": 'pip install "bert-tensorflow==1.0.4" absl-py six', "transformers": 'pip install "transformers>=5,<6"',
           "tokenizers": "pip install tokenizers", "oracle": None}

Encoder = Callable[[str], Tuple[List[str], List[int]]]


def missing_package(reference: str):
    """The pip package `reference` needs that is missing here, or None when it can be loaded.
    The one availability check, shared by `bertpiece info` and `bertpiece parity`; it finds the
    modules without running them (cheap: transformers is not imported)."""
    for module in _MODULES[reference]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package missing or broken
            found = False
        if not found:
            return _PIP_PACKAGES[module.split(".")[0]]
    return None


class ReferenceMissing(ImportError):
    """The reference library is not installed; `package` is the missing one. The
    message names the package the reference is known by and what to install."""

    def __init__(self, reference: str, package: str):
        needs = REFERENCES[reference] or package
        missing = "" if package == needs else f", missing {package}"
        super().__init__(f"--reference {reference} needs {needs} (not installed{missing}): {INSTALL[reference]}")
        self.reference = reference
        self.package = package


def _import(reference: str, module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = (e.name or module).split(".")[0]
        raise ReferenceMissing(reference, _PIP_PACKAGES.get(top, REFERENCES[reference] or top)) from None


# --------------------------------------------------------------------------
# Google (bert-tensorflow)
# --------------------------------------------------------------------------

def _install_tensorflow_stand_in() -> None:
    def GFile(path, mode="r"):
        if "b" in mode:
            return open(path, mode)
        return open(path, mode, encoding="utf-8", newline="\n")

    gfile = types.SimpleNamespace(GFile=GFile, Open=GFile)
    v1 = types.ModuleType("tensorflow.compat.v1")
    compat = types.ModuleType("tensorflow.compat")
    tf = types.ModuleType("tensorflow")
    for module, name, value in ((v1, "gfile", gfile), (compat, "v1", v1), (tf, "compat", compat),
                                (tf, "gfile", gfile), (tf, "__bertpiece_stand_in__", True)):
        setattr(module, name, value)
    sys.modules.update({"tensorflow": tf, "tensorflow.compat": compat, "tensorflow.compat.v1": v1})


@functools.lru_cache(maxsize=None)
def load_google():
    """The real ``bert.tokenization`` module (cached); ReferenceMissing if not installed."""
    stand_in = False
    try:
        importlib.import_module("tensorflow.compat.v1")
    except ImportError:
        _install_tensorflow_stand_in()
        stand_in = True
    try:
        flags = _import("google", "absl.flags")
        tokenization = _import("google", "bert.tokenization")
    finally:
        if stand_in:
            # bert.tokenization keeps its own reference; nothing else may take the
            # stand-in for TensorFlow (datasets and transformers probe for it)
            for name in ("tensorflow", "tensorflow.compat", "tensorflow.compat.v1"):
                sys.modules.pop(name, None)
    # The module reads FLAGS.preserve_unused_tokens; absl refuses reads before parsing.
    flags.FLAGS.mark_as_parsed()
    return tokenization


# --------------------------------------------------------------------------
# One encoder per reference: text -> (tokens, ids)
# --------------------------------------------------------------------------

def load_reference(reference: str, vocab_file: str, do_lower_case: bool) -> Encoder:
    """The real `reference` library's tokens and ids of a text (no special tokens added)."""
    if reference == "google":
        tok = load_google().FullTokenizer(vocab_file, do_lower_case=do_lower_case)
        return _tokens_then_ids(tok.tokenize, tok.convert_tokens_to_ids)
    if reference == "transformers":
        transformers = _import("transformers", "transformers")
        tok = transformers.BertTokenizerLegacy(vocab_file, do_lower_case=do_lower_case)
        return _tokens_then_ids(tok.tokenize, tok.convert_tokens_to_ids)
    if reference == "tokenizers":
        _import("tokenizers", "tokenizers")
        from tokenizers import Tokenizer
        from tokenizers.models import WordPiece
        from tokenizers.normalizers import BertNormalizer
        from tokenizers.pre_tokenizers import BertPreTokenizer

        tok = Tokenizer(WordPiece.from_file(vocab_file, unk_token="[UNK]", max_input_chars_per_word=100))
        tok.normalizer = BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                        lowercase=do_lower_case)
        tok.pre_tokenizer = BertPreTokenizer()

        def encode(text: str) -> Tuple[List[str], List[int]]:
            enc = tok.encode(text, add_special_tokens=False)
            return enc.tokens, enc.ids
        return encode
    if reference == "oracle":
        from . import oracle

        tok = oracle.FullTokenizer(vocab_file, do_lower_case=do_lower_case, reference="google")
        return _tokens_then_ids(tok.tokenize, tok.convert_tokens_to_ids)
    raise ValueError(f"unknown reference {reference!r}: expected one of {', '.join(REFERENCES)}")


def load_bertpiece(reference: str, vocab_file: str, do_lower_case: bool) -> Encoder:
    """bertpiece's exact counterpart of `load_reference(reference, ...)`."""
    import bertpiece

    if reference == "transformers":
        # BertTokenizerLegacy.tokenize matches special tokens ("[MASK]") in the raw
        # text first; bertpiece.BertTokenizer's legacy mode does the same.
        bert = bertpiece.BertTokenizer(vocab_file, do_lower_case=do_lower_case, reference="transformers")
        return _tokens_then_ids(bert.tokenize, bert.convert_tokens_to_ids)
    if reference not in REFERENCES:
        raise ValueError(f"unknown reference {reference!r}: expected one of {', '.join(REFERENCES)}")
    tok = bertpiece.FullTokenizer(vocab_file, do_lower_case, reference="google" if reference == "oracle" else reference)
    # `encode` plus an id -> token lookup is ~2x faster than `tokenize` (no new str
    # per token) and exact: every id the core returns names one vocabulary token.
    inv = tok.inv_vocab

    def encode(text: str) -> Tuple[List[str], List[int]]:
        ids = tok.encode(text)
        return [inv[i] for i in ids], ids
    return encode


def _tokens_then_ids(tokenize, to_ids) -> Encoder:
    def encode(text: str) -> Tuple[List[str], List[int]]:
        tokens = tokenize(text)
        return tokens, to_ids(tokens)
    return encode


# --------------------------------------------------------------------------
# Unicode-version differences (interpreter vs pinned data)
# --------------------------------------------------------------------------

def _sigma_class_interpreter(ch: str) -> str:
    # ("1" + c + "Σ").lower() ends in final sigma iff c is cased and not
    # case-ignorable; ("A" + c + "Σ") iff c is case-ignorable or cased.
    if ("1" + ch + "\u03a3").lower()[-1] == "\u03c2":
        return "cased"
    if ("A" + ch + "\u03a3").lower()[-1] == "\u03c2":
        return "ignorable"
    return "other"


@functools.lru_cache(maxsize=None)
def unicode_version_diff() -> FrozenSet[int]:
    """Code points where the interpreter's Unicode data (stdlib ``unicodedata``,
    ``str.lower``, ``str.isspace``, re ``\\d``, the Final_Sigma classes) differs from
    the pinned data (unicodedata2 + ``_strtables``) in anything the tokenizer uses.
    Empty when both are the same Unicode version (then no scan is needed)."""
    import unicodedata2

    from . import _strtables as tables

    if unicodedata.unidata_version == tables.UNICODE_VERSION == unicodedata2.unidata_version:
        return frozenset()
    lower, space = tables.LOWER, tables.SPACE
    cased, ignorable, decimal = tables.CASED, tables.CASE_IGNORABLE, tables.DECIMAL
    digit = re.compile(r"\d")
    diff = set()
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        pinned_sigma = "ignorable" if cp in ignorable else "cased" if cp in cased else "other"
        if (
            unicodedata.category(ch) != unicodedata2.category(ch)
            or unicodedata.decomposition(ch) != unicodedata2.decomposition(ch)
            or unicodedata.combining(ch) != unicodedata2.combining(ch)
            or ch.lower() != lower.get(cp, ch)
            or ch.isspace() != (cp in space)
            or bool(digit.match(ch)) != (cp in decimal)
            or _sigma_class_interpreter(ch) != pinned_sigma
        ):
            diff.add(cp)
    return frozenset(diff)


def unicode_version_codepoints(text: str) -> List[int]:
    """Sorted code points of `text` (or of its NFD / lowercased forms, under either
    Unicode data) whose data differs between the interpreter and the pinned data."""
    diff = unicode_version_diff()
    if not diff:
        return []
    import unicodedata2

    from . import oracle

    forms = {text}
    for norm in (unicodedata.normalize, unicodedata2.normalize):
        forms.add(norm("NFD", text))
        forms.add(norm("NFD", text.lower()))
        forms.add(norm("NFD", oracle._lower(text)))
    return sorted({ord(ch) for form in forms for ch in form if ord(ch) in diff})


def explained_by_unicode_version(text: str) -> bool:
    """True if `text` holds a code point whose Unicode data differs (see above)."""
    return bool(unicode_version_codepoints(text))


def codepoint_label(cp: int) -> str:
    """``U+XXXX NAME`` (the name from the newer of the two Unicode versions)."""
    import unicodedata2

    ch = chr(cp)
    name = unicodedata2.name(ch, None) or unicodedata.name(ch, None) or "<unnamed>"
    return f"U+{cp:04X} {name}"

"""Loads the REAL Google BERT tokenizer (bert-tensorflow 1.0.4, ``bert.tokenization``)
without TensorFlow, and computes where this interpreter's Unicode data differs
from the oracle's pinned data.

``bert/tokenization.py`` imports TensorFlow only for ``tf.gfile.GFile`` in
``load_vocab``; when TensorFlow is not installed we put a minimal stand-in in
``sys.modules`` whose ``GFile`` reads the way TF's does (UTF-8 text, lines split on
"\\n" only: TF does no universal-newline translation, and the bert-base-chinese
vocab contains U+2028).
"""

import functools
import importlib
import os
import re
import sys
import types
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_DIR = os.path.join(ROOT, "python")
VOCAB_DIR = os.path.join(PYTHON_DIR, "bertpiece", "vocab")
DATA_DIR = os.path.join(ROOT, "tests", "data")


def _install_tensorflow_stand_in():
    def GFile(path, mode="r"):
        if "b" in mode:
            return open(path, mode)
        return open(path, mode, encoding="utf-8", newline="\n")

    gfile = types.SimpleNamespace(GFile=GFile, Open=GFile)
    v1 = types.ModuleType("tensorflow.compat.v1")
    v1.gfile = gfile
    compat = types.ModuleType("tensorflow.compat")
    compat.v1 = v1
    tf = types.ModuleType("tensorflow")
    tf.compat = compat
    tf.gfile = gfile
    tf.__bertpiece_stand_in__ = True
    sys.modules.update(
        {"tensorflow": tf, "tensorflow.compat": compat, "tensorflow.compat.v1": v1}
    )


@functools.lru_cache(maxsize=None)
def load_google():
    """The real ``bert.tokenization`` module (cached)."""
    try:
        importlib.import_module("tensorflow.compat.v1")
    except ImportError:
        _install_tensorflow_stand_in()
    from absl import flags

    tokenization = importlib.import_module("bert.tokenization")
    # The module reads FLAGS.preserve_unused_tokens; absl refuses reads before parsing.
    flags.FLAGS.mark_as_parsed()
    return tokenization


def load_oracle():
    """``bertpiece.oracle`` from this repo, even if the Rust extension is not built.

    ``bertpiece/__init__.py`` imports ``bertpiece._core``; the oracle does not need
    it, so when the package cannot be imported we load the package directory
    without running its ``__init__``.
    """
    try:
        return importlib.import_module("bertpiece.oracle")
    except ImportError:
        for name in [m for m in sys.modules if m == "bertpiece" or m.startswith("bertpiece.")]:
            del sys.modules[name]
        package = types.ModuleType("bertpiece")
        package.__path__ = [os.path.join(PYTHON_DIR, "bertpiece")]
        sys.modules["bertpiece"] = package
        return importlib.import_module("bertpiece.oracle")


def _sigma_class_interpreter(ch):
    # ("1" + c + "Σ").lower() ends in final sigma iff c is cased and not
    # case-ignorable; ("A" + c + "Σ") iff c is case-ignorable or cased.
    if ("1" + ch + "\u03a3").lower()[-1] == "\u03c2":
        return "cased"
    if ("A" + ch + "\u03a3").lower()[-1] == "\u03c2":
        return "ignorable"
    return "other"


@functools.lru_cache(maxsize=None)
def unicode_version_diff():
    """Code points where the interpreter's Unicode data (stdlib ``unicodedata``,
    ``str.lower``, ``str.isspace``, re ``\\d``, the Final_Sigma classes) differs from
    the oracle's pinned data (unicodedata2 + ``_strtables``) in anything the
    tokenizer uses.  Empty when both are the same Unicode version."""
    import unicodedata2

    oracle = load_oracle()
    tables = sys.modules["bertpiece._strtables"]
    lower, space = tables.LOWER, tables.SPACE
    cased, ignorable, decimal = tables.CASED, tables.CASE_IGNORABLE, tables.DECIMAL
    digit = re.compile(r"\d")
    assert oracle.UNICODE_VERSION == unicodedata2.unidata_version

    diff = set()
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        if cp in ignorable:
            pinned_sigma = "ignorable"
        elif cp in cased:
            pinned_sigma = "cased"
        else:
            pinned_sigma = "other"
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


def explained_by_unicode_version(text):
    """True if `text` (or its NFD / lowercased forms, under either Unicode data)
    contains a code point whose data differs between interpreter and pinned data."""
    import unicodedata2

    diff = unicode_version_diff()
    oracle = load_oracle()
    forms = {text}
    for norm in (unicodedata.normalize, unicodedata2.normalize):
        forms.add(norm("NFD", text))
        forms.add(norm("NFD", text.lower()))
        forms.add(norm("NFD", oracle._lower(text)))
    return any(ord(ch) in diff for form in forms for ch in form)


def vocab_path(name):
    return os.path.join(VOCAB_DIR, name + ".txt")


def data_files():
    return sorted(f for f in os.listdir(DATA_DIR) if f.startswith("ud-") and f.endswith(".txt"))


def read_lines(filename):
    """Lines of a corpus file (split on "\\n" only, like the corpora were written)."""
    with open(os.path.join(DATA_DIR, filename), encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\n") for line in f]

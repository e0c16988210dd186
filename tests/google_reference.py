"""Test helpers: the REAL Google BERT tokenizer (bert-tensorflow 1.0.4,
``bert.tokenization``, loaded without TensorFlow), where this interpreter's Unicode
data differs from the oracle's pinned data (both from ``bertpiece.references``),
the oracle, and the test corpora in tests/data.
"""

import importlib
import os
import sys
import threading
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_DIR = os.path.join(ROOT, "python")
VOCAB_DIR = os.path.join(PYTHON_DIR, "bertpiece", "vocab")
DATA_DIR = os.path.join(ROOT, "tests", "data")


def _import_without_core(module):
    """`module` (a submodule of bertpiece that does not need the Rust extension)
    from this repo, even if the extension is not built.

    ``bertpiece/__init__.py`` imports ``bertpiece._core``; when the package cannot
    be imported we load the package directory without running its ``__init__``.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        for name in [m for m in sys.modules if m == "bertpiece" or m.startswith("bertpiece.")]:
            del sys.modules[name]
        package = types.ModuleType("bertpiece")
        package.__path__ = [os.path.join(PYTHON_DIR, "bertpiece")]
        sys.modules["bertpiece"] = package
        return importlib.import_module(module)


def load_oracle():
    """``bertpiece.oracle`` from this repo, even if the Rust extension is not built."""
    return _import_without_core("bertpiece.oracle")


# The loader of the real Google tokenizer and the Unicode-version helpers live in
# the package (``bertpiece parity`` uses them too): one copy.
_references = _import_without_core("bertpiece.references")
load_google = _references.load_google
unicode_version_diff = _references.unicode_version_diff
explained_by_unicode_version = _references.explained_by_unicode_version


# vocab name -> do_lower_case the model was trained with
VOCABS = {
    "bert-base-uncased": True,
    "bert-base-cased": False,
    "bert-base-multilingual-cased": False,
    "bert-base-chinese": True,
}


def vocab_path(name):
    return os.path.join(VOCAB_DIR, name + ".txt")


def data_files():
    return sorted(f for f in os.listdir(DATA_DIR) if f.startswith("ud-") and f.endswith(".txt"))


def errors_in_threads(work, n=8):
    """Runs `work` on `n` threads at once; returns what they raised."""
    errors = []

    def run():
        try:
            work()
        except Exception as e:  # reported by the caller
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def sample_lines(n_per_file):
    """About `n_per_file` evenly spaced non-empty lines of every UD file."""
    lines = []
    for name in data_files():
        text = [line for line in read_lines(name) if line.strip()]
        lines.extend(text[:: max(1, len(text) // n_per_file)][:n_per_file])
    return lines


def read_lines(filename):
    """Lines of a corpus file (split on "\\n" only, like the corpora were written)."""
    with open(os.path.join(DATA_DIR, filename), encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\n") for line in f]

"""Sizes that cannot be allocated (a huge `max_length`, `pad_to_multiple_of` or
`stride`) raise a clean Python exception from every entry point, under a
memory limit too: never a Rust panic (`PanicException`), never an abort or
another signal. Each sweep runs in a child process whose address space is
capped (RLIMIT_AS), so an allocation that would succeed on a big machine
fails there the way it fails on a small one."""

import json
import re
import subprocess
import sys
import textwrap

import pytest

from memory_cap import run_capped
from preloaded import run_python

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")

HUGE = [10**9, 2**31, 2**40, 2**62, 2**63 - 1, 2**64]
CLEAN = {"MemoryError", "ValueError", "OverflowError"}

CHILD = """
import json, resource, sys, warnings
import numpy as np
import bertpiece
from bertpiece import _core
tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
texts = ["hello world", "a second, longer row of text"]
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * resource.getpagesize()
limit = used + (3 << 30)  # 3 GiB above what the interpreter already maps
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
warnings.simplefilter("ignore")
HUGE = json.loads(sys.argv[1])
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except BaseException as e:  # PanicException derives from BaseException
        out[name] = type(e).__name__
        assert type(e).__name__ not in ("SystemExit", "KeyboardInterrupt")
special = (tok.cls_token_id, tok.sep_token_id)
for n in HUGE:
    CASES
print(json.dumps(out))
"""

CASES = {
    "batch": """
    attempt(f"call batch max_length={n}", lambda: tok(texts, max_length=n, padding="max_length", truncation=True,
                                                       return_tensors="np"))
    attempt(f"call batch-of-one max_length={n}", lambda: tok(texts[:1], max_length=n, padding="max_length",
                                                              return_tensors="np"))
    attempt(f"call batch pad_to_multiple_of={n}", lambda: tok(texts, padding=True, pad_to_multiple_of=n,
                                                               return_tensors="np"))
    attempt(f"call batch lists max_length={n}", lambda: tok(texts, max_length=n, truncation=True))
    attempt(f"encode_batch max_length={n}", lambda: tok.encode_batch(texts, max_length=n, truncation=True))
    attempt(f"core encode_padded pad_to={n}", lambda: tok._core.encode_padded(texts, special=special, pad_to=n))
    attempt(f"core encode_padded pad_to_multiple_of={n}",
            lambda: tok._core.encode_padded(texts, special=special, pad_to_multiple_of=n))
    attempt(f"core encode_batch max_length={n}", lambda: tok._core.encode_batch(texts, special=special, max_length=n))
    attempt(f"core encode_padded_block pad_to={n}", lambda: _core.encode_padded_block(tok._core, texts, special, pad_to=n))
    attempt(f"core encode_padded_block pad_to_multiple_of={n}",
            lambda: _core.encode_padded_block(tok._core, texts, special, pad_to_multiple_of=n))
    attempt(f"core encode_to_lists max_length={n}", lambda: _core.encode_to_lists(tok._core, texts, special, n))
    """,
    "single": """
    attempt(f"call single max_length={n}", lambda: tok(texts[1], max_length=n, padding="max_length",
                                                        return_tensors="np"))
    attempt(f"call single pad_to_multiple_of={n}", lambda: tok(texts[1], padding=True, pad_to_multiple_of=n))
    attempt(f"call stride={n}", lambda: tok(texts[1], max_length=8, stride=n, truncation=True,
                                            return_overflowing_tokens=True))
    attempt(f"call batch stride={n}", lambda: tok(texts, max_length=8, stride=n, truncation=True,
                                                  return_overflowing_tokens=True))
    """,
}


def sweep(kind):
    code = CHILD.replace("    CASES", textwrap.indent(textwrap.dedent(CASES[kind]), "    "))
    # a child process (tests/preloaded.py: forked from a preloaded interpreter) whose cap is set above
    # what it maps, as a fresh interpreter's would be
    r = run_python(["-c", code, json.dumps(HUGE)], text=True, timeout=300)
    assert r.returncode == 0, f"child ended with {r.returncode} (a negative code is a signal):\n{r.stderr[-3000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_batch_entry_points_raise_clean_errors_under_a_memory_limit():
    out = sweep("batch")
    bad = {k: v for k, v in out.items() if v not in CLEAN | {"ok"}}
    assert not bad, bad
    # Padding to a width that cannot be allocated is refused, not attempted.
    for n in HUGE:
        assert out[f"core encode_padded pad_to={n}"] in CLEAN
        assert out[f"call batch max_length={n}"] in CLEAN
        assert out[f"core encode_padded_block pad_to={n}"] in CLEAN


def test_the_padded_batch_error_names_the_argument():
    import bertpiece
    from bertpiece import _core

    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    special = (tok.cls_token_id, tok.sep_token_id)
    with pytest.raises(MemoryError, match="max_length=4611686018427387904"):
        tok._core.encode_padded(["hello"], special=special, pad_to=2**62)
    with pytest.raises(MemoryError, match="pad_to_multiple_of=4611686018427387904"):
        tok._core.encode_padded(["hello"], special=special, pad_to_multiple_of=2**62)
    with pytest.raises(MemoryError, match="max_length"):
        tok(["hello", "world"], max_length=2**62, padding="max_length", return_tensors="np")
    with pytest.raises(MemoryError, match="pad_to_multiple_of=4611686018427387904"):
        _core.encode_padded_block(tok._core, ["hello"], special, pad_to_multiple_of=2**62)
    # Past what a size can hold, or below zero: the error names the argument too.
    with pytest.raises(OverflowError, match="max_length=18446744073709551616 is too large"):
        tok._core.encode_padded(["hello"], special=special, pad_to=2**64)
    with pytest.raises(OverflowError, match="pad_to_multiple_of=18446744073709551616 is too large"):
        tok._core.encode_padded(["hello"], special=special, pad_to_multiple_of=2**64)
    with pytest.raises(OverflowError, match="max_length=36893488147419103232 is too large"):
        tok._core.encode_batch(["hello"], special=special, max_length=2**65)
    with pytest.raises(ValueError, match="max_length must be >= 0, got -1"):
        tok._core.encode_batch(["hello"], max_length=-1)
    with pytest.raises(TypeError, match="max_length must be an int or None, not float"):
        tok._core.encode_batch(["hello"], max_length=1.5)


def test_single_text_and_stride_entry_points_raise_clean_errors_under_a_memory_limit():
    out = sweep("single")
    bad = {k: v for k, v in out.items() if v not in CLEAN | {"ok"}}
    assert not bad, bad


@pytest.mark.parametrize("extra", [["--max-length", str(2**62)], ["--max-length", str(2**64)],
                                   ["--max-length", "16", "--stride", str(2**62)]])
def test_cli_huge_sizes_end_with_a_message(tmp_path, extra):
    src = tmp_path / "in.txt"
    src.write_text("hello world\na second row\n")
    # a fresh interpreter: the cap is absolute, and a preloaded one (tests/preloaded.py) maps more
    limit = "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30)); " \
            "sys.argv = ['bertpiece'] + sys.argv[1:]; runpy.run_module('bertpiece', run_name='__main__')"
    r = subprocess.run([sys.executable, "-c", limit, "encode", str(src), "-o", str(tmp_path / "o.npy"), *extra],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode >= 0, r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr


# A document too large for the memory left: every entry point that allocates
# in proportion to its input raises MemoryError (the Rust core's buffers grow
# fallibly, the Python lists are made through CPython's constructors with
# their failure kept) instead of aborting the process (Rust's allocation
# failure handler) or panicking. 16 MiB of "a " (8M tokens; 32 MiB for the
# windows, whose Python rows are small) under a cap of 80 MiB above what the
# child maps once the document exists.
DOCUMENT_SETUP = """
import bertpiece
TOKENIZERS
doc = "a " * (REPEATS << 20)
"""

# Each tokenizer a call may use: only those the call names are made (BertTokenizer imports
# transformers, ~1.5 s per child).
DOCUMENT_TOKENIZERS = {
    ("tok",): 'tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")',
    ("full", "basic", "wordpiece"): 'full = bertpiece.FullTokenizer(bertpiece.vocab_path("bert-base-uncased"))\n'
                                    'basic, wordpiece = full.basic_tokenizer, full.wordpiece_tokenizer',
    ("protected",): 'protected = bertpiece.FullTokenizer(bertpiece.vocab_path("bert-base-uncased"), never_split=["[X]"])',
}
DOCUMENT_CALLS = {
    "call": "tok(doc)",
    "call offsets": "tok(doc, return_offsets_mapping=True)",
    "call overflow windows": "tok(doc, truncation=True, max_length=512, stride=128, return_overflowing_tokens=True)",
    "call batch special_tokens_mask": "tok([doc, 'hi'], return_special_tokens_mask=True)",
    "call batch padded offsets": "tok([doc, 'hi'], padding=True, return_offsets_mapping=True, return_tensors='np')",
    "encode_batch offsets": "tok.encode_batch([doc], return_offsets=True)",
    # two documents: one (32 MiB of ids) now fits, its block's buffer being the output itself
    "encode_batch two threads": "tok.encode_batch([doc, doc, doc[:1 << 20]], num_threads=2)",
    "FullTokenizer.tokenize": "full.tokenize(doc)",
    "FullTokenizer.encode": "full.encode(doc)",
    "FullTokenizer.encode never_split": "protected.encode(doc)",
    "core encode_offsets": "full._core.encode_offsets(doc)",
    "BasicTokenizer.tokenize": "basic.tokenize(doc)",
    "WordpieceTokenizer.tokenize": "wordpiece.tokenize(doc)",
}


# Six entry points (one per kind of path: the call, its windows, two threads, the core's encode and offsets,
# WordPiece) in `make test`, the other seven in `make test-slow`: each child takes 1-4 s.
QUICK_DOCUMENT_CALLS = ("call", "call overflow windows", "encode_batch two threads", "FullTokenizer.encode",
                        "core encode_offsets", "WordpieceTokenizer.tokenize")


@pytest.mark.parametrize("name", [n if n in QUICK_DOCUMENT_CALLS else pytest.param(n, marks=pytest.mark.slow)
                                  for n in DOCUMENT_CALLS])
def test_a_document_too_large_for_memory_is_a_memory_error(name):
    repeats = 16 if "windows" in name else 8
    call = DOCUMENT_CALLS[name]
    made = [line for names, line in DOCUMENT_TOKENIZERS.items() if any(re.search(rf"\b{n}\b", call) for n in names)]
    setup = DOCUMENT_SETUP.replace("TOKENIZERS", "\n".join(made)).replace("REPEATS", str(repeats))
    out = run_capped(setup, call, 80)  # capped above its own mapping: see sweep()
    assert out.startswith("MemoryError"), out

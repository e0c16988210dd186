"""Shared helpers of the `bertpiece encode` tests (test_cli_encode*.py)."""

from __future__ import annotations

import os

import numpy as np
import pyarrow.parquet as pq

from bertpiece import BertTokenizer
from bertpiece.cli import main
from bertpiece.cli.encode import read_bin
from preloaded import run_python

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
UNCASED, CASED = "bert-base-uncased", "bert-base-cased"


def data_lines(name, n=25):
    with open(os.path.join(DATA, name), encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\n") for line in f][:n]


# Real sentences in several scripts, plus the awkward cases: empty lines,
# added-token text, whitespace-only, a long line (for truncation/stride).
TEXTS = (data_lines("ud-en.txt") + data_lines("ud-de.txt", 8) + data_lines("ud-zh.txt", 8)
         + data_lines("ud-ru.txt", 8) + ["", "   ", "a [MASK] b", "", " ".join(data_lines("ud-fr.txt", 6))])

_TOKS = {}


def tok(name=UNCASED, **kwargs):
    key = (name, tuple(sorted(kwargs.items())))
    if key not in _TOKS:
        _TOKS[key] = BertTokenizer.from_pretrained(name, **kwargs)
    return _TOKS[key]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def write_txt(path, texts, newline="\n"):
    with open(path, "wb") as f:
        f.write(newline.join(texts).encode("utf-8") + newline.encode())
    return str(path)


def encode(capsys, *argv):
    """Runs `bertpiece encode` in-process; returns (exit code, stderr)."""
    code = main(["encode", *map(str, argv)])
    return code, capsys.readouterr().err


def parquet_rows(path, column="input_ids"):
    return pq.read_table(path).column(column).to_pylist()


def npy_rows(path):
    ids = np.load(path)
    splits = np.load(str(path)[:-4] + ".row_splits.npy")
    assert ids.dtype == np.int32 and splits.dtype == np.int64 and splits[0] == 0 and splits[-1] == len(ids)
    return [ids[a:b].tolist() for a, b in zip(splits[:-1], splits[1:])]


def bin_rows(path):
    ids, splits = read_bin(path)
    return [ids[a:b].tolist() for a, b in zip(splits[:-1], splits[1:])]


def subprocess_encode(*argv, **kwargs):
    """`python -m bertpiece encode ARGV` in another process (a forked child of tests/preloaded.py's server: the
    same status and output as a fresh interpreter's)."""
    return run_python(["-m", "bertpiece", "encode", *map(str, argv)], **kwargs)


def leftovers(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir() if ".partial" in p.name)

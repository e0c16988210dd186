"""User mistakes on the command line (issue 24): an output naming an input, too
many --threads, a refused --resume, out-of-range integers. Each ends in one
plain line, never a traceback or a destroyed corpus."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from bertpiece.cli import main
from bertpiece.cli.outputs import _AppendFile
from encode_helpers import TEXTS, encode, write_txt
from preloaded import run_python
from terminal import SRC


def _run(*argv, cwd=None):
    """`python -m bertpiece ARGV` (in a forked child of tests/preloaded.py's server: the same status and output)."""
    return run_python(["-m", "bertpiece", *map(str, argv)], text=True, cwd=cwd, env={"PYTHONPATH": SRC, "PATH": ""})


# ------------------------------------------------- outputs over inputs
@pytest.mark.parametrize("how", ["same name", "symlink", "hard link", "summary json"])
def test_train_never_writes_over_its_corpus(tmp_path, capsys, how):
    """`train corpus.txt -o corpus.txt --overwrite` replaced the corpus with the vocabulary."""
    corpus = tmp_path / "corpus.txt"
    other = tmp_path / "other.txt"
    for path in (corpus, other):
        write_txt(path, TEXTS)
    before = corpus.read_bytes()
    out, extra = tmp_path / "vocab.txt", []
    if how == "same name":
        out = corpus
    elif how == "symlink":
        os.symlink(corpus, out)
    elif how == "hard link":
        os.link(corpus, out)
    else:
        extra = ["--summary-json", str(corpus)]
    code = main(["train", str(other), str(corpus), "-o", str(out), "--vocab-size", "300", "--overwrite", *extra])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is the input file" in err and "Traceback" not in err
    assert corpus.read_bytes() == before


def test_encode_summary_json_is_not_the_input(tmp_path, capsys):
    src = tmp_path / "in.txt"
    write_txt(src, TEXTS)
    before = src.read_bytes()
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy", "--summary-json", src)
    assert code == 2 and "is the input file" in err and err.count("\n") == 1
    assert src.read_bytes() == before


def test_encode_output_hard_linked_to_the_input(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    os.link(src, tmp_path / "o.bin")
    code, err = encode(capsys, src, "-o", tmp_path / "o.bin", "--overwrite")
    assert code == 2 and "is the input file" in err


# ------------------------------------------------------------ --threads
@pytest.mark.parametrize("command", ["encode", "train"])
def test_too_many_threads_is_a_plain_note(tmp_path, command):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    out = tmp_path / ("o.npy" if command == "encode" else "v.txt")
    extra = ["--vocab-size", "600"] if command == "train" else []
    proc = _run(command, src, "-o", out, "--threads", 100_000, *extra)
    assert proc.returncode == 0, proc.stderr
    note = re.compile(r"bertpiece: --threads 100000 is more than the (\d+) CPUs this process may use; using \1")
    first, *rest = proc.stderr.splitlines()
    assert note.fullmatch(first), proc.stderr
    assert "Warning" not in proc.stderr and ".py" not in proc.stderr
    assert all(line.startswith(f"bertpiece {command}:") for line in rest)


# --------------------------------------------------------------- --resume
def _interrupted(tmp_path, capsys, monkeypatch, *options):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    out = tmp_path / "o.npy"
    real_write = _AppendFile.write
    calls = []

    def write_then_die(self, array):  # die like a killed process after some checkpoints
        calls.append(1)
        if len(calls) > 12:
            raise KeyboardInterrupt
        real_write(self, array)

    monkeypatch.setattr(_AppendFile, "write", write_then_die)
    argv = ["encode", src, "-o", str(out), "--batch-size", "2", "--checkpoint-every", "1", *options]
    assert main(argv) == 130 and "--resume" in capsys.readouterr().err
    monkeypatch.setattr(_AppendFile, "write", real_write)
    return src, out, argv


@pytest.mark.parametrize("change, message", [
    (["--max-length", "64"], "--max-length was not given, now 64"),
    (["--no-special-tokens"], "--no-special-tokens was false, now true"),
    (["--model", "bert-base-cased"], '--model was "bert-base-uncased", now "bert-base-cased"'),
])
def test_refused_resume_says_what_differs(tmp_path, capsys, monkeypatch, change, message):
    src, out, argv = _interrupted(tmp_path, capsys, monkeypatch)
    assert main([*argv, "--resume", *change]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "--overwrite" in err, err
    assert main([*argv, "--resume"]) == 0  # the same command still resumes


def test_refused_resume_names_a_changed_input(tmp_path, capsys, monkeypatch):
    src, out, argv = _interrupted(tmp_path, capsys, monkeypatch)
    with open(src, "ab") as f:
        f.write(b"one more line\n")
    assert main([*argv, "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"the input {src} changed since (size" in err and "bytes)" in err, err


# --------------------------------------------------- integer option ranges
BIG = str(2**64)


@pytest.mark.parametrize("argv", [
    ["train", "c.txt", "-o", "v.txt", "--vocab-size", BIG],
    ["train", "c.txt", "-o", "v.txt", "--vocab-size", "-1"],
    ["train", "c.txt", "-o", "v.txt", "--min-frequency", BIG],
    ["train", "c.txt", "-o", "v.txt", "--limit-alphabet", BIG],
    ["train", "c.txt", "-o", "v.txt", "--unused-tokens", BIG],
    ["train", "c.txt", "-o", "v.txt", "--max-input-chars-per-word", BIG],
    ["train", "c.txt", "-o", "v.txt", "--threads", BIG],
    ["train", "c.txt", "-o", "v.txt", "--threads", "0"],
    ["encode", "c.txt", "-o", "o.npy", "--max-length", BIG],
    ["encode", "c.txt", "-o", "o.npy", "--batch-size", BIG],
    ["encode", "c.txt", "-o", "o.npy", "--checkpoint-every", BIG],
    ["encode", "c.txt", "-o", "o.npy", "--threads", BIG],
    ["encode", "c.txt", "-o", "o.npy", "--stride", BIG, "--max-length", "8"],
    ["encode", "c.txt", "-o", "o.npy", "--stride", "-1", "--max-length", "8"],
    ["parity", "c.txt", "--reference", "oracle", "--show", BIG],
    ["parity", "c.txt", "--reference", "oracle", "--show", "\u00b2"],  # str.isdigit() is true for "²"
])
def test_integer_options_out_of_range_are_usage_errors(tmp_path, argv):
    write_txt(tmp_path / "c.txt", TEXTS)
    proc = _run(*argv, cwd=tmp_path)
    option = next(a for a in argv if a.startswith("--") and argv[argv.index(a) + 1] in (BIG, "-1", "0", "\u00b2"))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"argument {option}: " in proc.stderr and f"bertpiece {argv[0]}: error:" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["c.txt"]


# ------------------------------------------------------ nothing left behind
def test_commands_leave_no_temporary_files(tmp_path):
    """Every temporary file lives in OUTPUT.partial/ (encode) or next to the output (train)
    and is gone afterwards; nothing goes to TMPDIR. (A guard: no command left any.)"""
    work, tmp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmp.mkdir()
    write_txt(work / "c.txt", TEXTS)
    env = {"PYTHONPATH": SRC, "PATH": "", "TMPDIR": str(tmp)}
    for argv in (["encode", "c.txt", "-o", "a.parquet"], ["encode", "-", "-o", "b.npy"],
                 ["encode", "c.txt", "-o", "c.bin", "--max-length", "8", "--stride", "2"],
                 ["train", "c.txt", "-o", "v.txt", "--vocab-size", "600"],
                 ["parity", "c.txt", "--reference", "oracle"], ["tokenize", "hello"]):
        stdin = (work / "c.txt").read_bytes() if "-" in argv else None
        # a fresh interpreter: what its start-up (imports included) writes to TMPDIR is part of the point
        proc = subprocess.run([sys.executable, "-m", "bertpiece", *argv], input=stdin, capture_output=True,
                              cwd=work, env=env)
        assert proc.returncode == 0, proc.stderr
    assert os.listdir(tmp) == []
    assert sorted(os.listdir(work)) == ["a.parquet", "b.npy", "b.row_splits.npy", "c.bin", "c.idx", "c.txt",
                                        "v.txt"]

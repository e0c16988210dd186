"""`bertpiece encode`: atomic output, kill-and-resume, and every bad input
(one-line error, exit status 2, no temporary files left)."""

from __future__ import annotations

import errno
import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from bertpiece.cli import main
from bertpiece.cli.outputs import ParquetPartsWriter, _AppendFile
from encode_helpers import (DATA, TEXTS, bin_rows, encode, leftovers, npy_rows, parquet_rows, read_bytes,
                            subprocess_encode, tok, write_txt)


# ------------------------------------------------------------------- resume
def big_input(path, mb=3):
    chunk = b"".join(read_bytes(os.path.join(DATA, f)) for f in ("ud-en.txt", "ud-de.txt", "ud-ru.txt"))
    with open(path, "wb") as f:
        for _ in range(mb * 2**20 // len(chunk) + 1):
            f.write(chunk)
    return str(path)


@pytest.mark.parametrize("fmt", ["parquet", "bin"])
def test_kill_and_resume_is_byte_identical(tmp_path, fmt):
    src = big_input(tmp_path / "big.txt")
    out = tmp_path / f"out.{fmt}"
    argv = [src, "-o", out, "--batch-size", 200, "--checkpoint-every", 1, "--threads", 1, "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "bertpiece", "encode", *map(str, argv)],
                            stderr=subprocess.DEVNULL)
    state = tmp_path / f"out.{fmt}.partial" / "state.json"
    deadline = time.monotonic() + 60
    while not state.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.1)  # a few more parts, but well before the end (the whole run takes seconds)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed: make the input bigger"
    assert not out.exists() and not (tmp_path / "out.idx").exists()
    assert json.loads(state.read_text())["counters"]["rows_in"] > 0
    refused = subprocess_encode(*argv)  # a partial run is never silently overwritten
    assert refused.returncode == 2 and b"--resume" in refused.stderr
    resumed = subprocess_encode(*argv, "--resume", "--summary-json", tmp_path / "s.json")
    assert resumed.returncode == 0, resumed.stderr
    assert not (tmp_path / f"out.{fmt}.partial").exists()
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["resumed_from_row"] > 0
    n_lines = read_bytes(src).count(b"\n")
    assert summary["rows_in"] == summary["rows_out"] == n_lines
    fresh = tmp_path / f"fresh.{fmt}"
    full = subprocess_encode(*[fresh if a == out else a for a in argv])
    assert full.returncode == 0, full.stderr
    assert out.read_bytes() == fresh.read_bytes()
    if fmt == "bin":
        assert (tmp_path / "out.idx").read_bytes() == (tmp_path / "fresh.idx").read_bytes()


def test_resume_refuses_changed_options(tmp_path, capsys, monkeypatch):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    out = tmp_path / "o.npy"
    real_write = _AppendFile.write
    calls = []

    def write_then_die(self, array):  # die like a killed process after the first checkpoint
        calls.append(1)
        if len(calls) > 12:
            raise KeyboardInterrupt
        real_write(self, array)

    monkeypatch.setattr(_AppendFile, "write", write_then_die)
    code = main(["encode", src, "-o", str(out), "--batch-size", "2", "--checkpoint-every", "1"])
    assert code == 130 and "--resume" in capsys.readouterr().err and not out.exists()
    assert len(calls) > 12 and os.path.exists(str(out) + ".partial/state.json")
    monkeypatch.setattr(_AppendFile, "write", real_write)
    code, err = encode(capsys, src, "-o", out, "--batch-size", 2, "--checkpoint-every", 1, "--resume",
                       "--no-special-tokens")
    assert code == 2 and "cannot resume" in err
    code, err = encode(capsys, src, "-o", out, "--batch-size", 2, "--checkpoint-every", 1, "--resume")
    assert code == 0, err
    assert npy_rows(out) == tok()(TEXTS)["input_ids"]
    code, err = encode(capsys, src, "-o", tmp_path / "fresh.npy", "--batch-size", 2, "--checkpoint-every", 1)
    assert code == 0, err
    assert out.read_bytes() == (tmp_path / "fresh.npy").read_bytes()
    assert (tmp_path / "o.row_splits.npy").read_bytes() == (tmp_path / "fresh.row_splits.npy").read_bytes()


def test_resume_jsonl_passthrough_with_stride(tmp_path, capsys, monkeypatch):
    """Resuming mid-file keeps the passthrough schema fixed by the first batch."""
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"text": t, "k": i, "tag": None if i % 4 else "x"}) + "\n"
                           for i, t in enumerate(TEXTS)))
    argv = [src, "--max-length", 12, "--stride", 3, "--batch-size", 3, "--checkpoint-every", 2, "--offsets"]
    real_write = ParquetPartsWriter.write
    calls = []

    def write_then_die(self, *args):
        calls.append(1)
        if len(calls) == 9:
            raise KeyboardInterrupt
        real_write(self, *args)

    monkeypatch.setattr(ParquetPartsWriter, "write", write_then_die)
    code, _ = encode(capsys, *argv, "-o", tmp_path / "o.parquet")
    assert code == 130 and not (tmp_path / "o.parquet").exists()
    monkeypatch.setattr(ParquetPartsWriter, "write", real_write)
    code, err = encode(capsys, *argv, "-o", tmp_path / "o.parquet", "--resume")
    assert code == 0 and "resumed at row" in err, err
    code, err = encode(capsys, *argv, "-o", tmp_path / "fresh.parquet")
    assert code == 0, err
    assert (tmp_path / "o.parquet").read_bytes() == (tmp_path / "fresh.parquet").read_bytes()
    table = pq.read_table(tmp_path / "o.parquet")
    enc = tok()(TEXTS, truncation=True, max_length=12, stride=3, return_overflowing_tokens=True)
    assert table.column("input_ids").to_pylist() == enc["input_ids"]
    assert table.column("k").to_pylist() == enc["overflow_to_sample_mapping"]


# -------------------------------------------------------------- bad input
@pytest.mark.parametrize("setup, argv, message", [
    (None, ["missing.txt", "-o", "o.npy"], "cannot read missing.txt"),
    (None, [".", "-o", "o.npy"], "unknown input type"),
    ("dir.txt", ["dir.txt", "-o", "o.npy"], "not a regular file"),
    ("in.csv", ["in.csv", "-o", "o.npy"], "unknown input type"),
    ("in.txt", ["in.txt", "-o", "o.csv"], "unknown output type"),
    ("in.jsonl", ["in.jsonl", "-o", "o.parquet", "--field", "body"], "no field 'body'"),
    ("in.parquet", ["in.parquet", "-o", "o.parquet", "--column", "body"], "no column 'body'"),
    ("in.txt", ["in.txt", "-o", "exists.npy"], "already exists"),
    ("in.txt", ["in.txt", "-o", "nodir/o.npy"], "does not exist"),
    ("in.txt", ["in.txt", "-o", "in.txt/o.npy"], "does not exist"),
    ("in.txt", ["in.txt", "-o", "o.npy", "--stride", "2"], "need --max-length"),
    ("in.txt", ["in.txt", "-o", "o.npy", "--max-length", "8", "--stride", "6"], "--stride must be smaller"),
    ("in.txt", ["in.txt", "-o", "o.npy", "--offsets"], "need a .parquet output"),
    ("in.txt", ["in.txt", "-o", "o.npy", "--vocab", "nope.txt"], "cannot load the vocabulary"),
    ("in.txt", ["-", "-o", "o.npy", "--resume"], "stdin"),
    ("bad.jsonl", ["bad.jsonl", "-o", "o.npy"], "line 2: invalid JSON"),
    ("bad.parquet", ["bad.parquet", "-o", "o.npy"], "cannot read bad.parquet"),
])
def test_bad_input_is_one_line_error(tmp_path, capsys, monkeypatch, setup, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("a\nb\n")
    (tmp_path / "exists.npy").write_bytes(b"old")
    (tmp_path / "dir.txt").mkdir()
    (tmp_path / "in.csv").write_text("a\n")
    (tmp_path / "in.jsonl").write_text('{"text": "a"}\n')
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": \n')
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    pq.write_table(pa.table({"text": ["a"]}), tmp_path / "in.parquet")
    code, err = encode(capsys, *argv)
    assert code == 2
    assert err.startswith("bertpiece: error: ") and err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err
    assert leftovers(tmp_path) == []
    assert (tmp_path / "exists.npy").read_bytes() == b"old"


def test_bad_input_subprocess(tmp_path):
    proc = subprocess_encode(tmp_path / "missing.jsonl", "-o", tmp_path / "o.parquet")
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("bertpiece: error: cannot read") and b"Traceback" not in proc.stderr


def test_overwrite(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    (tmp_path / "o.parquet").write_bytes(b"old")
    code, err = encode(capsys, src, "-o", tmp_path / "o.parquet", "--overwrite")
    assert code == 0, err
    assert parquet_rows(tmp_path / "o.parquet") == tok()(TEXTS)["input_ids"]


@pytest.mark.parametrize("fmt", ["parquet", "npy"])
def test_full_disk(tmp_path, capsys, monkeypatch, fmt):
    src = write_txt(tmp_path / "in.txt", TEXTS * 3)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if fmt == "parquet":
        monkeypatch.setattr(ParquetPartsWriter, "write", full)
    else:
        monkeypatch.setattr(_AppendFile, "write", full)
    code, err = encode(capsys, src, "-o", tmp_path / f"o.{fmt}", "--batch-size", 5)
    assert code == 2 and err.startswith("bertpiece: error: ") and "disk full" in err and err.count("\n") == 1
    assert leftovers(tmp_path) == [] and not (tmp_path / f"o.{fmt}").exists()


def test_unwritable_directory(tmp_path, capsys, monkeypatch):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    real_mkdir = os.mkdir

    def denied(path, *args, **kwargs):  # tests may run as root, where chmod does not deny writes
        if str(path).endswith(".partial"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", denied)
    code, err = encode(capsys, src, "-o", tmp_path / "o.parquet")
    assert code == 2 and "cannot write to" in err and "Permission denied" in err
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.parametrize("module, argv, message", [
    ("pyarrow", ["in.txt", "-o", "o.parquet"], 'pip install pyarrow zstandard'),
    ("pyarrow", ["in.parquet", "-o", "o.npy"], 'pip install pyarrow zstandard'),
    ("zstandard", ["in.txt.zst", "-o", "o.npy"], 'pip install pyarrow zstandard'),
])
def test_missing_optional_dependency(tmp_path, capsys, monkeypatch, module, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("a\n")
    (tmp_path / "in.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(b"a\n"))
    pq.write_table(pa.table({"text": ["a"]}), tmp_path / "in.parquet")
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    if module == "pyarrow":
        monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, err = encode(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_npy_and_bin_need_no_pyarrow(tmp_path, capsys, monkeypatch):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, err = encode(capsys, src, "-o", tmp_path / "o.bin")
    assert code == 0, err
    assert bin_rows(tmp_path / "o.bin") == tok()(TEXTS)["input_ids"]


def test_disk_full_while_assembling_parquet(tmp_path, capsys, monkeypatch):
    src = write_txt(tmp_path / "in.txt", TEXTS)

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_batch", full)
    code, err = encode(capsys, src, "-o", tmp_path / "o.parquet", "--batch-size", 5)
    assert code == 2 and "disk full" in err and err.count("\n") == 1
    assert leftovers(tmp_path) == [] and not (tmp_path / "o.parquet").exists()


def test_unreadable_input(tmp_path, capsys, monkeypatch):
    from bertpiece import input_formats as io_formats

    src = write_txt(tmp_path / "in.txt", TEXTS)

    def denied(path, *args, **kwargs):  # root can read any file, so the refusal is simulated
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(io_formats, "open", denied, raising=False)
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy")
    assert code == 2 and err == f"bertpiece: error: cannot read {src}: Permission denied\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("lines, message", [
    (['{"text": "a"}', '{"text": "b", "late": 1}'], "field 'late' appears after row 1"),
    (['{"text": "a", "n": 1}', '{"text": "b", "n": "x"}'], "differs from the first batch"),
    (['{"text": "a"}', '["text"]'], "line 2: expected a JSON object"),
    (['{"text": "a", "n": null}', '{"text": "b", "n": 2}'], "field 'n' is null in every row of the first batch"),
    (['{"text": null}'], "field 'text' is NoneType, not a string"),
    (['{"text": "a", "input_ids": 1}'], "clashes with an output column"),
])
def test_bad_jsonl_rows(tmp_path, capsys, lines, message):
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n")
    code, err = encode(capsys, tmp_path / "in.jsonl", "-o", tmp_path / "o.parquet", "--batch-size", 1)
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert leftovers(tmp_path) == [] and not (tmp_path / "o.parquet").exists()


def test_null_parquet_text(tmp_path, capsys):
    pq.write_table(pa.table({"text": ["a", None]}), tmp_path / "in.parquet")
    code, err = encode(capsys, tmp_path / "in.parquet", "-o", tmp_path / "o.npy")
    assert code == 2 and "row 2: column 'text' is null" in err
    assert leftovers(tmp_path) == []


def test_corrupt_and_truncated_compressed_input(tmp_path, capsys):
    raw = ("\n".join(TEXTS) + "\n").encode() * 20
    cases = {"bad.txt.gz": b"not gzip at all", "bad.txt.zst": b"not zstd at all",
             "cut.txt.gz": gzip.compress(raw)[:-30], "cut.jsonl.zst": zstandard.ZstdCompressor().compress(
                 "".join(json.dumps({"text": t}) + "\n" for t in TEXTS * 20).encode())[:-30]}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        code, err = encode(capsys, tmp_path / name, "-o", tmp_path / "o.npy")
        assert code == 2 and err.startswith(f"bertpiece: error: cannot read {tmp_path / name}: "), err
        assert err.count("\n") == 1 and leftovers(tmp_path) == [] and not (tmp_path / "o.npy").exists()

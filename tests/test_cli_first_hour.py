"""First-hour friction of the command line (issue 17): --version, the input
never overwritten, one message on Ctrl-C, a progress bar that fits the
terminal and shows the assembly phase, --help pointing at what a pip user has."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time

import pyarrow.parquet as pq
import pytest

import bertpiece
from bertpiece.cli import encode as encode_cli
from bertpiece.cli import DOCS_URL, main
from bertpiece.terminal.progress import Progress, Summary, Counters
from encode_helpers import TEXTS, encode, write_txt


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"bertpiece {bertpiece.__version__} (Unicode {bertpiece.UNICODE_VERSION})\n"
    proc = subprocess.run([sys.executable, "-m", "bertpiece", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("bertpiece ")


@pytest.mark.parametrize("name,out", [("same.parquet", "same.parquet"), ("c.txt", "c.npy")])
def test_input_is_never_the_output(tmp_path, capsys, name, out):
    """`encode same.parquet -o same.parquet --overwrite` used to replace the corpus with its ids."""
    import pyarrow as pa

    src = tmp_path / name
    if name.endswith(".parquet"):
        pq.write_table(pa.table({"text": TEXTS}), src)
    else:
        write_txt(src, TEXTS)
    target = src if out == name else tmp_path / out
    if target != src:  # the input reached under the output's name: a link
        os.symlink(src, target)
    before = src.read_bytes()
    code, err = encode(capsys, src, "-o", target, "--overwrite")
    assert code == 2 and err.count("\n") == 1 and "is the input file" in err and "Traceback" not in err
    assert src.read_bytes() == before
    assert not (tmp_path / f"{out}.partial").exists()


def test_companion_file_as_input_is_refused(tmp_path, capsys):
    src = tmp_path / "o.row_splits.npy"
    write_txt(src, TEXTS)
    before = src.read_bytes()
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy", "--overwrite")
    assert code == 2 and "is the input file" in err and src.read_bytes() == before


def test_ctrl_c_prints_one_message(tmp_path, capsys, monkeypatch):
    src = write_txt(tmp_path / "in.txt", TEXTS)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(encode_cli, "encode_rows", interrupted)
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy")
    assert code == 130
    assert err == "bertpiece: interrupted; rerun the same command with --resume to continue\n"
    assert (tmp_path / "o.npy.partial").is_dir()


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("columns", [20, 50, 80, 200])
def test_progress_line_fits_the_terminal(monkeypatch, columns):
    """A line as wide as the terminal wraps, and every redraw then stacks a new line."""
    monkeypatch.setenv("COLUMNS", str(columns))
    stream = Terminal()
    bar = Progress(10**9, stream=stream)
    for rows in (10, 12_345_678):
        bar.update(rows, rows * 10, force=True)
    bar.close()
    drawn = [line.removesuffix("\x1b[K") for line in stream.getvalue().rstrip("\n").split("\r")[1:]]
    assert len(drawn) == 2 and all(len(line) <= columns - 1 for line in drawn)
    assert "12,345,678 rows" in drawn[1] or columns < 40
    if columns >= 200:  # (at 80 the mocked 1,017,461.8 MB/s leaves no room for the bar)
        assert drawn[1].startswith("encoding  [") and "ETA" in drawn[1]


def test_progress_phase_ticks_while_the_output_is_assembled(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    stream = Terminal()
    bar = Progress(1000, stream=stream)
    bar.update(7, 1000, force=True)
    with bar.phase("assembling out.parquet"):
        time.sleep(1.2)
    bar.close()
    frames = stream.getvalue().split("\r")[2:]
    assert len(frames) >= 3  # redrawn while the block runs: visibly alive
    assert all("100.0%" in f and "assembling out.parquet" in f and "ETA" not in f for f in frames)
    assert re.search(r"assembling out\.parquet 1 s", stream.getvalue())


def test_bar_and_summary_measure_mb_per_s_the_same_way(monkeypatch):
    """Both: input bytes after the resume point over wall time since the run started."""
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    stream = Terminal()
    bar = Progress(None, stream=stream, start=100.0, base_bytes=2_000_000)
    clock[0] = 102.0
    bar.update(5, 12_000_000, force=True)
    summary = Summary(Counters(rows_in=5), seconds=2.0, input_bytes=12_000_000 - 2_000_000)
    assert "5.0 MB/s" in stream.getvalue() and summary.as_dict()["mb_per_s"] == 5.0


def test_encode_help_points_to_what_is_installed(capsys):
    with pytest.raises(SystemExit):
        main(["encode", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    # docs/ is not in the wheel: --help links the documentation online (test_cli_install_hints.py).
    assert out.count("docs/") == out.count(DOCS_URL) == 1
    assert ".row_splits.npy" in out and ".idx" in out and "pip install pyarrow zstandard" in out

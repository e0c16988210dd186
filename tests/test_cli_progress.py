"""What the long commands (encode, train, parity) show while they run (issue 24):
one live line that fits the terminal at any width from 40 columns, redrawn in
place; a few plain lines when stderr is not a terminal; one summary whose
figures are the last frame's, wrapped between figures at narrow widths."""

from __future__ import annotations

import re

import pytest

from bertpiece.terminal import progress
from bertpiece.terminal.text import width
from preloaded import run_python
from terminal import REPO, SRC, run_on_terminal, screen_rows, widest

DATA = __import__("encode_helpers").DATA


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """~2 MB of real sentences in several scripts (a second or so per command)."""
    lines = []
    for name in ("ud-en.txt", "ud-de.txt", "ud-ru.txt", "ud-zh.txt"):
        with open(f"{DATA}/{name}", encoding="utf-8") as f:
            lines += f.read().split("\n")[:3000]
    path = tmp_path_factory.mktemp("progress") / "corpus.txt"
    path.write_text("\n".join(lines * 3) + "\n", encoding="utf-8")
    return path


def _commands(corpus, out_dir):
    return {
        "encode": ["encode", corpus, "-o", out_dir / "ids.parquet", "--batch-size", "1000"],
        "train": ["train", corpus, "-o", out_dir / "vocab.txt", "--vocab-size", "3000"],
        # a third of the corpus: HF's tokenizer, the reference here, runs at ~2 MB/s
        "parity": ["parity", _third(corpus), "--reference", "tokenizers"],
    }


def _third(corpus):
    """The corpus's first third (its lines once, not three times), next to it."""
    third = corpus.with_name("third.txt")
    if not third.exists():
        lines = corpus.read_text(encoding="utf-8").split("\n")
        third.write_text("\n".join(lines[:len(lines) // 3]) + "\n", encoding="utf-8")
    return third


def _frames(output: str):
    """The live line's frames (drawn after a carriage return) and the other rows."""
    rows = screen_rows(output)
    return [r for r in rows if re.match(r"(encoding|counting|merging|comparing|done) ", r)]


@pytest.mark.parametrize("columns", [40, 50, 120])
@pytest.mark.parametrize("command", ["encode", "train", "parity"])
def test_one_live_line_that_fits_the_terminal(corpus, tmp_path, command, columns):
    argv = _commands(corpus, tmp_path)[command]
    code, out = run_on_terminal(argv, columns)
    assert code == 0, out
    frames = _frames(out)
    assert len(frames) >= 2, out  # a live line, redrawn
    assert frames[-1].startswith("done ")
    # never as wide as the terminal: a wrapped line would stack a new row per redraw
    assert widest(out) <= columns - 1, [r for r in screen_rows(out) if width(r) >= columns]
    if command != "parity":  # parity's report goes to stdout, which is this terminal too
        summary = out.replace("\r\n", "\n").split("\n")
        assert len(summary) <= 12, out  # the line, a summary of a few short lines, maybe a hint
    assert "Traceback" not in out and "Warning" not in out


@pytest.mark.parametrize("command", ["encode", "train"])
def test_last_frame_and_summary_show_the_same_figures(corpus, tmp_path, command):
    code, out = run_on_terminal(_commands(corpus, tmp_path)[command], 200)
    assert code == 0, out
    last = _frames(out)[-1]
    summary = " ".join(out.rsplit("\x1b[K", 1)[1].split())  # wrapped lines joined
    if command == "encode":
        mb = re.search(r"([\d.]+) MB/s", last).group(1)
        assert re.search(r"(\d[\d,]*) rows", last).group(1) in summary
        assert f", {mb} MB/s" in summary, (last, summary)
        assert re.search(r"([\d.]+) s\b", last).group(1) + " s" in summary
    else:
        tokens, merges, seconds = re.search(r"([\d,]+) tokens  ([\d,]+) merges  ([\d.]+) s", last).groups()
        assert f"{merges} merges, {tokens} tokens (hf), {seconds} s" in summary, (last, summary)


def test_parity_last_frame_and_report_agree_and_counts_have_separators(corpus):
    code, out = run_on_terminal(["parity", _third(corpus), "--reference", "tokenizers"], 120)
    assert code == 0, out
    lines = re.search(r"([\d,]+) lines", _frames(out)[-1]).group(1)
    assert int(lines.replace(",", "")) > 1000 and "," in lines
    assert f"lines compared: {lines}\r\n" in out and f"exact matches:  {lines} (100.00%)" in out


@pytest.mark.parametrize("command", ["encode", "train", "parity"])
def test_not_a_terminal_no_live_line(corpus, tmp_path, command):
    """Piped or logged: no carriage returns, no escape codes; a quick run prints just its summary."""
    argv = ["-m", "bertpiece", *map(str, _commands(corpus, tmp_path)[command])]
    proc = run_python(argv, text=True, env={"PYTHONPATH": SRC, "PATH": ""})  # tests/preloaded.py
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    assert len(proc.stderr.splitlines()) <= 2, proc.stderr  # summary (+ the unknown-token hint)


def test_plain_lines_are_few_however_long_the_run():
    """A 10-hour run updated every 0.1 s logs tens of lines, not thousands."""
    clock = [0.0]
    lines = []

    class Log:
        def write(self, text):
            lines.append(text)

        def flush(self):
            pass

    line = progress.LiveLine("bertpiece train", stream=Log(), clock=lambda: clock[0])
    while clock[0] < 10 * 3600:
        clock[0] += 0.1
        line.show("counting", clock[0] / 36000, [f"{int(clock[0]):,} texts"])
    line.close("done", 1.0, ["x"])
    assert 5 <= len(lines) <= 100
    assert all(text.startswith("bertpiece train: counting ") and text.endswith("\n") for text in lines)
    assert not any("\r" in text for text in lines)


@pytest.mark.parametrize("limit", [40, 50, 79, None])
def test_summary_wraps_between_figures(limit):
    counters = progress.Counters(rows_in=1_234_567, rows_out=1_234_567, tokens=98_765_432, content_tokens=96_000_000,
                                 unk_tokens=12, truncated_rows=3, invalid_utf8_lines=1)
    text = progress.Summary(counters, 12.5, 123_456_789, resumed_from_row=1_000).text(limit)
    lines = text.split("\n")
    if limit is None:
        assert len(lines) == 1
        return
    assert len(lines) > 1 and all(width(x) <= limit for x in lines)
    figures = ["1,234,567 rows in", "98,765,432 tokens", "unk rate 0.000%", "9.9 MB/s", "resumed at row 1,000"]
    joined = " ".join(x.strip() for x in lines)
    assert all(f in joined for f in figures)  # no figure cut across two lines


def test_frame_measures_wide_characters():
    """A CJK file name counts two columns per character."""
    text = progress.frame("encoding", 0.5, ["1,000 rows", "assembling 中文中文中文中文中文.parquet 3 s"], 39)
    assert width(text) <= 39


def _encode(tmp_path, model, lines):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run_python(["-m", "bertpiece", "encode", str(src), "-o", str(tmp_path / "o.npy"), "--overwrite",
                       "--model", model], text=True, env={"PYTHONPATH": SRC, "PATH": ""})
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_high_unknown_rate_gets_a_hint(tmp_path):
    """The README's first command: the 12-language sample through the English vocabulary."""
    with open(f"{REPO}/samples/sample.txt", encoding="utf-8") as f:
        sample = f.read().split("\n")
    err = _encode(tmp_path, "bert-base-uncased", sample)
    rate = float(re.search(r"unk rate ([\d.]+)%", err).group(1))
    assert rate > 1
    assert "many unknown tokens" in err and "--model bert-base-multilingual-cased" in err
    err = _encode(tmp_path, "bert-base-multilingual-cased", sample)  # what README says the hint leads to
    assert float(re.search(r"unk rate ([\d.]+)%", err).group(1)) < 1 and "many unknown" not in err
    with open(f"{DATA}/ud-en.txt", encoding="utf-8") as f:
        english = f.read().split("\n")[:200]
    err = _encode(tmp_path, "bert-base-uncased", english)
    assert float(re.search(r"unk rate ([\d.]+)%", err).group(1)) < 1 and "many unknown" not in err


@pytest.mark.parametrize("seconds", [0.4351, 1.0049, 2.9951, 0.1251])
def test_summary_seconds_are_the_last_frames(seconds):
    # The frame shows f"{seconds:.2f}"; the summary rounded to 3 decimals first, so 0.4351 s
    # was "0.44 s" in the frame and "0.43 s" in the summary (seen under load in the terminal test).
    summary = progress.Summary(progress.Counters(rows_in=1, rows_out=1), seconds, 1000)
    assert f", {seconds:.2f} s," in summary.text()

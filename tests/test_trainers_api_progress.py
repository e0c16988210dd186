"""``Tokenizer.train``'s `show_progress` (the trainer's option): on a terminal
one live line (redrawn in place with "\\r") and a summary, as ``bertpiece
train``; off a terminal only the summary (a run under 10 s); nothing with
``show_progress=False``; an error closes the line and prints no summary."""

import io
import pathlib

import pytest

import bertpiece
from bertpiece import models, pre_tokenizers, trainers

DATA = pathlib.Path(__file__).parent / "data"
CORPUS = (DATA / "ud-en.txt").read_text(encoding="utf-8").splitlines()[:3000]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def tokenizer(model):
    tok = bertpiece.Tokenizer(model)
    tok.pre_tokenizer = pre_tokenizers.Metaspace() if isinstance(model, models.Unigram) else pre_tokenizers.Whitespace()
    return tok


CASES = [
    ("BPE", lambda: models.BPE(), lambda show: trainers.BpeTrainer(vocab_size=300, show_progress=show), "merging"),
    ("WordPiece", lambda: models.WordPiece(unk_token="[UNK]"),
     lambda show: trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"], show_progress=show), "merging"),
    ("WordLevel", lambda: models.WordLevel(unk_token="<unk>"),
     lambda show: trainers.WordLevelTrainer(vocab_size=300, special_tokens=["<unk>"], show_progress=show), None),
    ("Unigram", lambda: models.Unigram(),
     lambda show: trainers.UnigramTrainer(vocab_size=300, special_tokens=["<unk>"], unk_token="<unk>",
                                          show_progress=show), "EM"),
]


@pytest.mark.parametrize("kind, model, trainer, stage", CASES, ids=[c[0] for c in CASES])
def test_a_live_line_and_a_summary_on_a_terminal(monkeypatch, kind, model, trainer, stage):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr("bertpiece.terminal.progress.REDRAW_EVERY", 0)  # every frame drawn: none lost to timing
    monkeypatch.setenv("COLUMNS", "200")  # the summary on one line
    tok = tokenizer(model())
    tok.train_from_iterator(CORPUS, trainer(True))
    out = err.getvalue()
    lines = out.split("\n")
    # the live line: frames redrawn in place on one line, closed by the final frame
    assert lines[0].startswith("\r") and "counting" in lines[0] and "3,000 texts" in lines[0]
    assert (stage in lines[0]) if stage else ("merging" not in lines[0] and "EM" not in lines[0])
    assert "\rdone" in lines[0] and f"{tok.get_vocab_size():,} tokens" in lines[0].rsplit("\r", 1)[1]
    # then one summary line with the run's figures
    assert lines[1].startswith("bertpiece Tokenizer.train: ") and f"({kind})" in lines[1]
    assert f"{tok.get_vocab_size():,} tokens" in lines[1] and " unique" in lines[1]
    assert lines[2:] == [""]


def test_off_a_terminal_only_the_summary_and_nothing_when_false(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    tok = tokenizer(models.BPE())
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=300, show_progress=True))
    out = err.getvalue()
    assert "\r" not in out and out.count("\n") == 1 and out.startswith("bertpiece Tokenizer.train: ")
    for stream in (Terminal(), io.StringIO()):
        monkeypatch.setattr("sys.stderr", stream)
        tokenizer(models.BPE()).train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=300, show_progress=False))
        assert stream.getvalue() == ""


def test_an_error_closes_the_line_without_a_summary(monkeypatch):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    tok = tokenizer(models.BPE())
    with pytest.raises(ValueError, match="lone surrogate"):
        tok.train_from_iterator(CORPUS + ["x\ud800"], trainers.BpeTrainer(vocab_size=300, show_progress=True))
    out = err.getvalue()
    assert out.startswith("\r") and "counting" in out and out.endswith("\n") and out.count("\n") == 1
    assert "Tokenizer.train:" not in out

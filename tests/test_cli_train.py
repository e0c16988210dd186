"""`bertpiece train`: the same vocabulary as the API, every input kind,
progress and summary, and no partial vocab.txt on errors or interruption."""

import gzip
import io
import json
import pathlib

import pytest

import bertpiece
from bertpiece.cli import main
from bertpiece.terminal import progress as cli_progress

CORPUS = pathlib.Path("/work/shared/data/corpus")
if not CORPUS.exists():
    CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "corpus"


@pytest.fixture
def corpus(tmp_path):
    text = "\n".join((CORPUS / "ud-en.txt").read_text(encoding="utf-8").split("\n")[:1500])
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_cli_writes_the_api_vocabulary(corpus, tmp_path, capsys):
    out = tmp_path / "vocab.txt"
    summary = tmp_path / "summary.json"
    assert main(["train", str(corpus), "-o", str(out), "--vocab-size", "900", "--summary-json", str(summary)]) == 0
    want = bertpiece.train_wordpiece(corpus, 900)
    assert out.read_text(encoding="utf-8").split("\n")[:-1] == list(want)
    s = json.loads(summary.read_text())
    assert s["words"] == want.stats["words"] and s["merges"] == want.stats["merges"] > 0
    assert "bertpiece train:" in capsys.readouterr().err


def test_cli_options_and_input_kinds(corpus, tmp_path, monkeypatch):
    lines = corpus.read_text(encoding="utf-8").split("\n")
    gz = tmp_path / "c.txt.gz"
    gz.write_bytes(gzip.compress("\n".join(lines[:700]).encode()))
    jl = tmp_path / "c.jsonl"
    jl.write_text("".join(json.dumps({"body": t}) + "\n" for t in lines[700:]), encoding="utf-8")
    out = tmp_path / "v.txt"
    args = ["train", str(gz), str(jl), "-o", str(out), "--field", "body", "--vocab-size", "700", "--algorithm", "hf",
            "--no-lowercase", "--min-frequency", "3", "--limit-alphabet", "none", "--special-tokens", "<s>", "<unk>",
            "--unk-token", "<unk>", "--prefix", "@@", "--threads", "1", "-q"]
    assert main(args) == 0
    want = bertpiece.train_wordpiece(lines, 700, algorithm="hf", do_lower_case=False, min_frequency=3,
                                     limit_alphabet=None, special_tokens=["<s>", "<unk>"], unk_token="<unk>",
                                     continuing_subword_prefix="@@")
    assert out.read_text(encoding="utf-8").split("\n")[:-1] == list(want)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\n".join(lines).encode())))
    out2 = tmp_path / "v2.txt"
    assert main(["train", "-", "-o", str(out2)] + args[7:]) == 0
    assert out2.read_bytes() == out.read_bytes()


def test_progress_bars_on_a_terminal(corpus, tmp_path, monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True
    err = Tty()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(cli_progress, "REDRAW_EVERY", 0.0)  # draw every update
    assert main(["train", str(corpus), "-o", str(tmp_path / "v.txt"), "--vocab-size", "800"]) == 0
    text = err.getvalue()
    assert "counting" in text and "merging" in text and "tokens" in text and "bertpiece train:" in text


def test_errors_leave_no_vocab(corpus, tmp_path, capsys):
    out = tmp_path / "v.txt"
    assert main(["train", str(corpus), "-o", str(out), "--vocab-size", "10", "--algorithm", "likelihood"]) == 2
    assert "smaller than the special tokens" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n\t\n", encoding="utf-8")
    assert main(["train", str(empty), "-o", str(out)]) == 2
    assert "no words" in capsys.readouterr().err
    assert main(["train", str(tmp_path / "missing.txt"), "-o", str(out)]) == 2
    assert main(["train", str(corpus), "-o", str(tmp_path / "no" / "v.txt")]) == 2
    with pytest.raises(SystemExit) as exit_:  # an argparse usage error
        main(["train", str(corpus), "-o", str(out), "--threads", "0"])
    assert exit_.value.code == 2 and "--threads" in capsys.readouterr().err
    assert not out.exists()
    out.write_text("keep", encoding="utf-8")
    assert main(["train", str(corpus), "-o", str(out)]) == 2
    assert out.read_text() == "keep"


def test_interrupted_run_leaves_no_vocab(corpus, tmp_path, monkeypatch, capsys):
    def interrupt(self, label, *args, **kwargs):
        if label == "merging":
            raise KeyboardInterrupt
    monkeypatch.setattr(cli_progress.LiveLine, "show", interrupt)
    out = tmp_path / "v.txt"
    assert main(["train", str(corpus), "-o", str(out), "--vocab-size", "3000"]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def test_token_arguments_that_would_corrupt_the_vocab_are_usage_errors(corpus, tmp_path, capsys):
    out = tmp_path / "v.txt"
    for flags, message in ((["--prefix", "#\n"], "--prefix='#\\n' holds whitespace (U+000A"),
                           (["--prefix", "# "], "--prefix='# ' holds whitespace (U+0020"),
                           (["--initial-alphabet", "ab\u2028"], "--initial-alphabet[2]='\\u2028' holds whitespace"),
                           (["--special-tokens", "[UNK]", "[A]\x85"],
                            "--special-tokens[1]='[A]\\x85' holds whitespace"),
                           (["--special-tokens", "[UNK]", ""], "--special-tokens[1] must not be empty"),
                           (["--special-tokens"], "--special-tokens must include the unknown token '[UNK]'"),
                           (["--special-tokens", "<unk>"], "name yours with --unk-token")):
        assert main(["train", str(corpus), "-o", str(out), "--vocab-size", "900"] + flags) == 2, flags
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (flags, err)
    assert not out.exists()
    assert main(["train", str(corpus), "-o", str(out), "--vocab-size", "900", "-q", "--special-tokens", "<unk>",
                 "--unk-token", "<unk>"]) == 0
    from transformers import BertTokenizer

    pieces = bertpiece.FullTokenizer(str(out), unk_token="<unk>").tokenize("zebra \u4e00")
    assert pieces == BertTokenizer(vocab=str(out), unk_token="<unk>").tokenize("zebra \u4e00")
    assert pieces[-1] == "<unk>"


def test_a_lone_surrogate_in_a_jsonl_corpus_is_a_usage_error(tmp_path, capsys):
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t}) + "\n" for t in ["a b"] * 3 + ["x \udc80"]), encoding="utf-8")
    assert main(["train", str(jsonl), "-o", str(tmp_path / "v.txt")]) == 2
    err = capsys.readouterr().err
    assert "c.jsonl: line 4 holds a lone surrogate (U+DC80 at position 2)" in err and err.count("\n") == 1
    assert not (tmp_path / "v.txt").exists()

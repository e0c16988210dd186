"""`bertpiece tokenize`: tokens, ids and offsets equal the Python API's (and, in
"tokenizers" mode, HF tokenizers' own offsets), the aligned text output, colour
only on a terminal, stdin input, and one-line errors."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tokenizers import Tokenizer
from tokenizers.models import WordPiece
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

import bertpiece
from bertpiece.cli import main
from bertpiece.terminal.text import width
from google_reference import data_files, read_lines

TRICKY = ["Héllo, Wörld! unaffable", "  spaces\tand\ttabs  ", "", "中文 and 日本語テキスト",
          "İstanbul ΟΔΥΣΣΕΥΣ", "a\u200bb\u00adc e\u0301", "[CLS] [MASK] x", "emoji 👍🏽 done"]
TEXTS = TRICKY + [read_lines(name)[1] for name in data_files()]


def run_cli(capsys, *argv):
    rc = main(["tokenize", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys, *argv):
    rc, out, err = run_cli(capsys, "--json", *argv)
    assert rc == 0 and err == ""
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("model", list(bertpiece.PRETRAINED))
@pytest.mark.parametrize("reference", ["google", "tokenizers"])
def test_json_equals_python_api(capsys, model, reference):
    rows = run_json(capsys, "--model", model, "--reference", reference, *TEXTS)
    assert [r["text"] for r in rows] == TEXTS
    entry = bertpiece.PRETRAINED[model]
    # The casing each reference's own loader uses: Google's checkpoint flag, the hub config.
    lower = entry.do_lower_case if reference == "google" else entry.hf_do_lower_case
    full = bertpiece.FullTokenizer(bertpiece.vocab_path(model), lower, reference=reference)
    # BertTokenizer gives offsets; it matches special tokens in the raw text, which FullTokenizer does not.
    bert = bertpiece.BertTokenizer(bertpiece.vocab_path(model), do_lower_case=lower, reference=reference)
    for row in rows:
        text = row["text"]
        assert row["tokens"] == full.tokenize(text)
        assert row["ids"] == full.encode(text)
        if "[" not in text:
            enc = bert(text, add_special_tokens=False, return_offsets_mapping=True)
            assert row["ids"] == enc["input_ids"]
            assert row["offsets"] == [list(o) for o in enc["offset_mapping"]]


@pytest.mark.parametrize("model", ["bert-base-uncased", "bert-base-multilingual-cased"])
def test_tokenizers_mode_offsets_equal_hf_tokenizers(capsys, model):
    lower = bertpiece.PRETRAINED[model].do_lower_case
    hf = Tokenizer(WordPiece.from_file(bertpiece.vocab_path(model), unk_token="[UNK]"))
    hf.normalizer = BertNormalizer(lowercase=lower)
    hf.pre_tokenizer = BertPreTokenizer()
    for row in run_json(capsys, "--model", model, "--reference", "tokenizers", *TEXTS):
        enc = hf.encode(row["text"], add_special_tokens=False)
        assert (row["tokens"], row["ids"]) == (enc.tokens, enc.ids)
        assert row["offsets"] == [list(o) for o in enc.offsets]


def test_transformers_reference_and_casing(capsys):
    texts = ["Héllo WORLD", "naïve Ὀδυσσεύς"]
    for flag, lower in (("--lowercase", True), ("--no-lowercase", False)):
        rows = run_json(capsys, "--reference", "transformers", "--model", "bert-base-multilingual-cased", flag, *texts)
        tok = bertpiece.FullTokenizer.from_pretrained("bert-base-multilingual-cased", do_lower_case=lower,
                                                      reference="transformers")
        assert [r["tokens"] for r in rows] == [tok.tokenize(t) for t in texts]
        assert [r["ids"] for r in rows] == [tok.encode(t) for t in texts]


def test_text_output_rows_are_aligned(capsys):
    text = "Héllo, 中文 unaffable"
    rc, out, err = run_cli(capsys, text)
    assert rc == 0 and err == "" and "\x1b" not in out
    tok = bertpiece.FullTokenizer.from_pretrained("bert-base-uncased")
    [row] = run_json(capsys, text)
    settings, blank, head, *lines = out.rstrip("\n").split("\n")
    assert (settings, blank) == ("bert-base-uncased, lowercase, reference tokenizers", "")
    assert head.startswith(text)
    assert len(lines) == len(row["tokens"]) == len(tok.tokenize(text))
    id_ends = set()
    for line, token, id_, (s, e) in zip(lines, row["tokens"], row["ids"], row["offsets"]):
        fields = line.split()
        assert fields == [token, str(id_), f"{s}:{e}", text[s:e]]
        id_ends.add(width(line[:line.index(f" {id_} ") + len(str(id_)) + 1]))
    assert len(id_ends) == 1  # the id column is right-aligned in display columns


def test_several_texts_and_empty_text(capsys):
    rc, out, _ = run_cli(capsys, "a", "", "b c")
    assert rc == 0
    settings, *blocks = out.rstrip("\n").split("\n\n")
    assert len(blocks) == 3 and "(0 tokens)" in blocks[1]


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("argv,env,ansi", [([], {}, True), (["--no-color"], {}, False),
                                          ([], {"NO_COLOR": "1"}, False), (["--json"], {}, False)])
def test_colour_only_on_a_terminal(monkeypatch, argv, env, ansi):
    monkeypatch.delenv("NO_COLOR", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    term = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", term)
    assert main(["tokenize", *argv, "Hello world"]) == 0
    assert ("\x1b[" in term.getvalue()) is ansi


def test_stdin_lines(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Hello world\nsecond line\n"))
    rows = run_json(capsys)
    assert [r["text"] for r in rows] == ["Hello world", "second line"]


def test_custom_vocab(capsys, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[UNK]\nhello\nHello\n##s\n,\n", encoding="utf-8")
    for flag, lower in (("--lowercase", True), ("--no-lowercase", False)):
        [row] = run_json(capsys, "--vocab", str(vocab), flag, "Hello, hellos x")
        tok = bertpiece.FullTokenizer(str(vocab), lower)
        assert row["tokens"] == tok.tokenize("Hello, hellos x") and row["ids"] == tok.encode("Hello, hellos x")


@pytest.mark.parametrize("content,message", [
    (None, "vocabulary file not found"),
    ("hello\nworld\n", "[UNK]"),  # no unknown token in the vocabulary
])
def test_bad_vocab_is_a_one_line_error(capsys, tmp_path, content, message):
    path = tmp_path / "vocab.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    rc, out, err = run_cli(capsys, "--vocab", str(path), "x")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bertpiece: error: ") and message in err


def test_subprocess_json_and_no_ansi_when_piped():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = subprocess.run([sys.executable, "-m", "bertpiece", "tokenize", "--model", "bert-base-cased"],
                          input="Héllo wörld\n中文\n".encode("utf-8"), capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    assert "\x1b" not in out
    tok = bertpiece.FullTokenizer.from_pretrained("bert-base-cased", reference="tokenizers")
    assert out.split("\n\n")[0] == "bert-base-cased, cased, reference tokenizers"
    assert [line.split()[0] for line in out.split("\n\n")[1].splitlines()[1:]] == tok.tokenize("Héllo wörld")


@pytest.mark.parametrize("model", list(bertpiece.PRETRAINED))
def test_defaults_agree_with_encode_and_bert_tokenizer(capsys, tmp_path, model):
    """One default across the CLI: `tokenize` and `encode` give the same ids as
    BertTokenizer.from_pretrained (bert-base-chinese's casing differs between
    Google's checkpoint and the hub: the hub's, as BertTokenizer, wins)."""
    texts = ["Héllo WORLD 中文", "ÀÉÎ Straße ﬁ"]
    rows = run_json(capsys, "--model", model, *texts)
    src = tmp_path / "in.txt"
    src.write_text("\n".join(texts) + "\n", encoding="utf-8")
    assert main(["encode", str(src), "-o", str(tmp_path / "o.npy"), "--model", model, "--quiet"]) == 0
    ids, splits = np.load(tmp_path / "o.npy"), np.load(tmp_path / "o.row_splits.npy")
    from_encode = [ids[a + 1:b - 1].tolist() for a, b in zip(splits[:-1], splits[1:])]
    bert = bertpiece.BertTokenizer.from_pretrained(model)
    assert [r["ids"] for r in rows] == from_encode == bert(texts, add_special_tokens=False)["input_ids"]


def test_stdin_on_a_terminal_says_what_it_waits_for():
    """`bertpiece tokenize` alone used to wait silently for stdin."""
    from terminal import run_on_terminal

    code, out = run_on_terminal(["tokenize", "--no-color"], 80, stdin_text="hello world\n", timeout=60)
    assert code == 0, out
    prompt, *rest = out.split("\r\n")
    assert prompt.startswith("bertpiece tokenize: reading texts from stdin") and "Ctrl-D" in prompt
    assert "  hello  7592  0:5   hello" in rest  # then tokenizes what was typed


def test_piped_stdin_gets_no_prompt():
    proc = subprocess.run([sys.executable, "-m", "bertpiece", "tokenize", "--json"], input=b"hello\n",
                          capture_output=True)
    assert proc.returncode == 0 and proc.stderr == b""
    assert json.loads(proc.stdout)["tokens"] == ["hello"]


@pytest.mark.parametrize("argv, message", [
    ([b"ok", b"ab\xffc"], "argument 2 is not valid UTF-8 (byte 2)"),
    ([b"\xe4\xb8"], "argument 1 is not valid UTF-8 (byte 0)"),  # a cut-off multi-byte character
])
def test_invalid_utf8_argument_is_a_one_line_error(argv, message):
    """Like invalid UTF-8 on tokenize's stdin (`stdin: line N is not valid UTF-8 (byte K)`)."""
    proc = subprocess.run([sys.executable.encode(), b"-m", b"bertpiece", b"tokenize", *argv], capture_output=True)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and err == f"bertpiece: error: {message}\n" and proc.stdout == b""
    piped = subprocess.run([sys.executable, "-m", "bertpiece", "tokenize"], input=b"ab\xffc\n", capture_output=True)
    assert piped.returncode == 2 and b"is not valid UTF-8 (byte 2)" in piped.stderr

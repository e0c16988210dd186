"""`bertpiece tokenize --tokenizer tokenizer.json|FOLDER`: any tokenizer.json's
tokens, ids and offsets, equal to HF tokenizers' `encode(text,
add_special_tokens=False)` with the file's truncation and padding off, and the
BERT-only flags refused in one line."""

import json
import os

import pytest
import tokenizers

from bertpiece.cli import main
from bpe_shapes import UD_FILES, roberta_json, ud_lines
from models_shapes import t5_json

TEXTS = ["Héllo, unaffable 中文!", "  spaces\tand\ttabs  ", "", "emoji 👍🏽 <mask> done", "a\u200bb e\u0301"]
TEXTS += [ud_lines(path, 2)[1] for path in UD_FILES]


@pytest.fixture(scope="module", params=["roberta", "t5"])
def folder(request, tmp_path_factory):
    """A folder holding the shape's tokenizer.json, saved with truncation and padding stored in it."""
    hf = tokenizers.Tokenizer.from_str({"roberta": roberta_json, "t5": t5_json}[request.param]())
    hf.enable_truncation(4)
    hf.enable_padding(length=64)
    path = tmp_path_factory.mktemp(request.param)
    hf.save(str(path / "tokenizer.json"))
    return path


def run(capsys, *argv):
    rc = main(["tokenize", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("form", ["file", "folder"])
def test_json_rows_equal_hf_without_specials_truncation_or_padding(capsys, folder, form):
    target = str(folder / "tokenizer.json") if form == "file" else str(folder)
    rc, out, err = run(capsys, "--tokenizer", target, "--json", *TEXTS)
    assert (rc, err) == (0, "")
    hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    hf.no_truncation()
    hf.no_padding()
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["text"] for r in rows] == TEXTS
    for row in rows:
        e = hf.encode(row["text"], add_special_tokens=False)
        assert (row["tokens"], row["ids"]) == (e.tokens, e.ids), row["text"]
        assert row["offsets"] == [list(o) for o in e.offsets], row["text"]


def test_text_output_names_the_file_and_model(capsys, folder):
    rc, out, _ = run(capsys, "--tokenizer", str(folder), "--no-color", "Hello world")
    assert rc == 0
    path = os.path.join(str(folder), "tokenizer.json")
    with open(path, encoding="utf-8") as f:
        model = json.load(f)["model"]["type"]
    assert out.splitlines()[0] == f"{path}, model {model}"
    assert "Hello world  (" in out


@pytest.mark.parametrize("flags", [["--model", "bert-base-cased"], ["--vocab", "v.txt"], ["--reference", "google"],
                                   ["--lowercase"], ["--no-lowercase"]])
def test_bert_only_flags_are_refused(capsys, folder, flags):
    rc, out, err = run(capsys, "--tokenizer", str(folder), *flags, "x")
    assert rc == 2 and out == ""
    assert err.startswith("bertpiece: error: ") and "cannot be combined with --tokenizer" in err
    assert err.count("\n") == 1


def test_missing_or_broken_files_are_one_line_errors(capsys, tmp_path):
    cases = [(str(tmp_path / "none.json"), "does not exist"), (str(tmp_path), "holds no tokenizer.json")]
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "Nope"}}')
    cases.append((str(bad), "cannot load the tokenizer"))
    for target, message in cases:
        rc, out, err = run(capsys, "--tokenizer", target, "x")
        assert rc == 2 and out == "" and message in err and err.count("\n") == 1, err

"""`bertpiece encode --tokenizer tokenizer.json|FOLDER`: rows equal tokenizers
0.23.3's encode_batch for the same file (ids, char offsets, truncation,
overflow windows), in every output format; resume; the options it refuses."""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow.parquet as pq
import pytest
from tokenizers import Tokenizer as HFTokenizer

from bertpiece.cli import main
from bertpiece.cli.outputs import _AppendFile
from bpe_shapes import roberta_json
from encode_helpers import TEXTS, bin_rows, encode, npy_rows, parquet_rows, write_txt
from models_shapes import t5_json, wordpiece_json

SHAPES = {"roberta": roberta_json, "t5": t5_json, "wordpiece": wordpiece_json}


def write_json(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def hf(text):
    return HFTokenizer.from_str(text)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("fmt", ["parquet", "npy", "bin"])
def test_rows_equal_tokenizers_encode_batch(tmp_path, capsys, shape, fmt):
    text = SHAPES[shape]()
    src = write_txt(tmp_path / "in.txt", TEXTS)
    folder = tmp_path / "model"
    folder.mkdir()
    write_json(folder / "tokenizer.json", text)
    out = tmp_path / f"out.{fmt}"
    code, err = encode(capsys, src, "-o", out, "--tokenizer", folder, "--batch-size", 7, "--threads", 2)
    assert code == 0, err
    want = hf(text).encode_batch(TEXTS)
    assert {"parquet": parquet_rows, "npy": npy_rows, "bin": bin_rows}[fmt](out) == [e.ids for e in want]
    assert f"{len(TEXTS):,} rows in" in err


def test_offsets_attention_mask_and_no_special_tokens(tmp_path, capsys):
    text = roberta_json()
    src = write_txt(tmp_path / "in.txt", TEXTS)
    tj = write_json(tmp_path / "tokenizer.json", text)
    out = tmp_path / "out.parquet"
    for extra, special in (([], True), (["--no-special-tokens"], False)):
        code, err = encode(capsys, src, "-o", out, "--tokenizer", tj, "--offsets", "--attention-mask", "--overwrite",
                           *extra)
        assert code == 0, err
        want = hf(text).encode_batch(TEXTS, add_special_tokens=special)
        table = pq.read_table(out)
        assert table.column("input_ids").to_pylist() == [e.ids for e in want]
        assert table.column("offset_mapping").to_pylist() == [[list(o) for o in e.offsets] for e in want]
        assert table.column("attention_mask").to_pylist() == [e.attention_mask for e in want]


@pytest.mark.parametrize("direction", ["right", "left"])
def test_max_length_stride_and_the_files_own_truncation(tmp_path, capsys, direction):
    theirs = hf(t5_json())
    theirs.enable_truncation(9, direction=direction)
    text = theirs.to_str()  # a file with its own truncation
    src = write_txt(tmp_path / "in.txt", TEXTS)
    tj = write_json(tmp_path / "tokenizer.json", text)
    code, err = encode(capsys, src, "-o", tmp_path / "own.npy", "--tokenizer", tj, "--summary-json", tmp_path / "s.json")
    assert code == 0, err
    want = theirs.encode_batch(TEXTS)
    assert npy_rows(tmp_path / "own.npy") == [e.ids for e in want]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["truncated_rows"] == sum(bool(e.overflowing) for e in want) > 0
    # --max-length replaces the file's max_length (on the file's side)
    code, err = encode(capsys, src, "-o", tmp_path / "five.npy", "--tokenizer", tj, "--max-length", 5)
    assert code == 0, err
    theirs.enable_truncation(5, direction=direction)
    assert npy_rows(tmp_path / "five.npy") == [e.ids for e in theirs.encode_batch(TEXTS)]
    # --stride: each encoding, then its overflowing windows, as rows with their source row
    theirs.enable_truncation(6, stride=2, direction=direction)
    windows, source = [], []
    for k, e in enumerate(theirs.encode_batch(TEXTS)):
        windows += [e] + e.overflowing
        source += [k] * (1 + len(e.overflowing))
    out = tmp_path / "win.parquet"
    code, err = encode(capsys, src, "-o", out, "--tokenizer", tj, "--max-length", 6, "--stride", 2, "--offsets",
                       "--batch-size", 5)
    assert code == 0, err
    table = pq.read_table(out)
    assert table.column("input_ids").to_pylist() == [e.ids for e in windows]
    assert table.column("offset_mapping").to_pylist() == [[list(o) for o in e.offsets] for e in windows]
    assert table.column("source_row").to_pylist() == source


def test_resume_is_byte_identical_and_checks_the_tokenizer_file(tmp_path, capsys, monkeypatch):
    text = roberta_json()
    src = write_txt(tmp_path / "in.txt", TEXTS)
    tj = tmp_path / "tokenizer.json"
    write_json(tj, text)
    out = tmp_path / "o.npy"
    real_write = _AppendFile.write
    calls = []

    def write_then_die(self, array):  # die like a killed process after the first checkpoints
        calls.append(1)
        if len(calls) > 12:
            raise KeyboardInterrupt
        real_write(self, array)

    monkeypatch.setattr(_AppendFile, "write", write_then_die)
    argv = ["encode", src, "-o", str(out), "--tokenizer", str(tj), "--batch-size", "2", "--checkpoint-every", "1"]
    assert main(argv) == 130 and "--resume" in capsys.readouterr().err and not out.exists()
    monkeypatch.setattr(_AppendFile, "write", real_write)
    # the same path with other contents is another tokenizer
    changed = hf(text)
    changed.add_tokens(["zzqx"])
    write_json(tj, changed.to_str())
    code, err = encode(capsys, *argv[1:], "--resume")
    assert code == 2 and "cannot resume" in err and "--tokenizer" in err and "contents differ" in err
    write_json(tj, text)
    code, err = encode(capsys, *argv[1:], "--resume")
    assert code == 0 and "resumed at row" in err, err
    assert npy_rows(out) == [e.ids for e in hf(text).encode_batch(TEXTS)]
    code, err = encode(capsys, src, "-o", tmp_path / "fresh.npy", "--tokenizer", tj, "--batch-size", 2)
    assert code == 0, err
    assert out.read_bytes() == (tmp_path / "fresh.npy").read_bytes()
    assert (tmp_path / "o.row_splits.npy").read_bytes() == (tmp_path / "fresh.row_splits.npy").read_bytes()


@pytest.mark.parametrize("flags, message", [
    (["--model", "bert-base-cased"], "--model"),
    (["--vocab", "vocab.txt"], "--vocab"),
    (["--lowercase"], "--lowercase"),
    (["--no-strip-accents"], "--strip-accents"),
    (["--reference", "tokenizers"], "--reference"),
    (["--token-type-ids"], "--token-type-ids"),
    (["--max-length", 1], "at least 2"),
    (["--max-length", 6, "--stride", 4], "--stride must be smaller"),
])
def test_bert_only_and_impossible_options_are_refused(tmp_path, capsys, flags, message):
    src = write_txt(tmp_path / "in.txt", TEXTS[:3])
    tj = write_json(tmp_path / "tokenizer.json", roberta_json())
    code, err = encode(capsys, src, "-o", tmp_path / "o.parquet", "--tokenizer", tj, *flags)
    assert code == 2 and message in err, err
    assert not os.path.exists(tmp_path / "o.parquet")


def test_bad_tokenizer_files_are_one_line_errors(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS[:3])
    (tmp_path / "empty").mkdir()
    data = json.loads(roberta_json())
    data["pre_tokenizer"] = {"type": "FixedLength", "length": 5}
    cases = [(tmp_path / "missing.json", "does not exist"), (tmp_path / "empty", "holds no tokenizer.json"),
             (write_json(tmp_path / "bad.json", "{not json"), "cannot load the tokenizer"),
             (write_json(tmp_path / "fixed.json", json.dumps(data)), "FixedLength")]
    for path, message in cases:
        code, err = encode(capsys, src, "-o", tmp_path / "o.npy", "--tokenizer", path)
        assert code == 2 and message in err and "Traceback" not in err, err


def test_bert_runs_keep_their_defaults(tmp_path, capsys):
    from encode_helpers import tok

    src = write_txt(tmp_path / "in.txt", TEXTS)
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy")
    assert code == 0, err
    assert npy_rows(tmp_path / "o.npy") == tok()(TEXTS)["input_ids"]
    assert np.load(tmp_path / "o.npy").dtype == np.int32

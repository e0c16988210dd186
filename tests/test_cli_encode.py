"""`bertpiece encode`: every input and output format and option, exactness
against the Python API and real transformers. Resume and bad input:
test_cli_encode_errors.py.

Expected ids always come from `bertpiece.BertTokenizer` (itself tested
against the real references) or from `transformers.BertTokenizer`.
"""

from __future__ import annotations

import gzip
import json
import os
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

import bertpiece
from bertpiece import BertTokenizer
from bertpiece.cli.encode import read_bin, read_bin_index
from bertpiece.terminal.progress import Progress
from encode_helpers import (CASED, TEXTS, UNCASED, bin_rows, encode, npy_rows, parquet_rows, read_bytes,
                            subprocess_encode, tok, write_txt)


# ---------------------------------------------------------------- exactness
@pytest.mark.parametrize("fmt", ["parquet", "npy", "bin"])
def test_default_ids_equal_python_api(tmp_path, capsys, fmt):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    out = tmp_path / f"out.{fmt}"
    code, err = encode(capsys, src, "-o", out, "--batch-size", 7)
    assert code == 0, err
    expected = tok()(TEXTS)["input_ids"]
    rows = {"parquet": parquet_rows, "npy": npy_rows, "bin": bin_rows}[fmt](out)
    assert rows == expected
    assert f"{len(TEXTS):,} rows in" in err
    assert not os.path.exists(str(out) + ".partial")


def test_equals_real_transformers_bert_tokenizer(tmp_path, capsys):
    with warnings.catch_warnings():  # transformers' import-time notices (no PyTorch, ...) are not under test
        warnings.simplefilter("ignore")
        import transformers
        transformers.logging.set_verbosity_error()
        model_dir = tmp_path / "model"
        model_dir.mkdir()
        (model_dir / "vocab.txt").write_bytes(read_bytes(bertpiece.vocab_path(UNCASED)))
        (model_dir / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "BertTokenizer",
                                                                      "do_lower_case": True}))
        theirs = transformers.BertTokenizer.from_pretrained(str(model_dir))
        expected = theirs(TEXTS)["input_ids"]
    src = write_txt(tmp_path / "in.txt", TEXTS)
    code, err = encode(capsys, src, "-o", tmp_path / "out.parquet", "--vocab", model_dir / "vocab.txt")
    assert code == 0, err
    assert parquet_rows(tmp_path / "out.parquet") == expected


@pytest.mark.parametrize("argv, name, kwargs", [
    (["--model", CASED], CASED, {}),
    (["--reference", "google"], UNCASED, {"reference": "google"}),
    (["--reference", "transformers"], UNCASED, {"reference": "transformers"}),
    (["--no-lowercase"], UNCASED, {"do_lower_case": False}),
    (["--model", CASED, "--lowercase", "--no-strip-accents"], CASED, {"do_lower_case": True, "strip_accents": False}),
    (["--model", CASED, "--strip-accents"], CASED, {"strip_accents": True}),
])
def test_options_map_to_the_python_api(tmp_path, capsys, argv, name, kwargs):
    texts = TEXTS + ["Café Ünïcödé ÀÉÎ naïve", "HeLLo WoRLD"]
    src = write_txt(tmp_path / "in.txt", texts)
    code, err = encode(capsys, src, "-o", tmp_path / "out.npy", *argv)
    assert code == 0, err
    assert npy_rows(tmp_path / "out.npy") == tok(name, **kwargs)(texts)["input_ids"]


def test_vocab_file_and_no_special_tokens(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    code, err = encode(capsys, src, "-o", tmp_path / "out.bin", "--vocab", bertpiece.vocab_path(CASED),
                       "--no-lowercase", "--no-special-tokens")
    assert code == 0, err
    expected = BertTokenizer(bertpiece.vocab_path(CASED), do_lower_case=False)(TEXTS, add_special_tokens=False)
    assert bin_rows(tmp_path / "out.bin") == expected["input_ids"]


def test_rows_out_equal_rows_in_with_empty_and_invalid_utf8_lines(tmp_path, capsys):
    lines = [b"first", b"", b"caf\xc3\xa9 \xff\xfe broken \xc3", b"", b"crlf line\r", b"\r",
             "sep\u2028not split\x0bnor\x0cthese\x1c\x85".encode(), b"tab\tend", b""]
    path = tmp_path / "in.txt"
    path.write_bytes(b"\n".join(lines) + b"\nno final newline")
    expected_texts = [b.removesuffix(b"\r").decode("utf-8", "ignore") for b in lines] + ["no final newline"]
    out = tmp_path / "out.parquet"
    code, err = encode(capsys, path, "-o", out, "--summary-json", tmp_path / "s.json")
    assert code == 0, err
    rows = parquet_rows(out)
    assert len(rows) == len(lines) + 1
    assert rows == tok()(expected_texts)["input_ids"]
    assert rows[1] == [tok().cls_token_id, tok().sep_token_id]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["invalid_utf8_lines"] == 1
    assert summary["rows_in"] == summary["rows_out"] == len(lines) + 1
    assert summary["tokens"] == sum(map(len, rows))


def test_summary_counts_unknown_tokens(tmp_path, capsys):
    texts = ["hello \u2603\u2603 world", "\U0001F600 x", "plain"]
    src = write_txt(tmp_path / "in.txt", texts)
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy", "--summary-json", tmp_path / "s.json")
    assert code == 0, err
    ids = tok()(texts)["input_ids"]
    unk = sum(row.count(tok().unk_token_id) for row in ids)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert unk > 0 and summary["unk_tokens"] == unk
    assert summary["unk_rate"] == pytest.approx(unk / (sum(map(len, ids)) - 2 * len(ids)))
    assert "unk rate" in err and "invalid-UTF-8 lines" in err and "MB/s" in err


# ------------------------------------------------------------ input formats
def test_jsonl_field_and_passthrough(tmp_path, capsys):
    records = [{"id": i, "body": t, "meta": {"lang": "x", "n": i}} for i, t in enumerate(TEXTS)]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    code, err = encode(capsys, path, "-o", tmp_path / "out.parquet", "--field", "body", "--batch-size", 10)
    assert code == 0, err
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column("input_ids").to_pylist() == tok()(TEXTS)["input_ids"]
    assert table.column("id").to_pylist() == list(range(len(TEXTS)))
    assert table.column("meta").to_pylist() == [r["meta"] for r in records]
    assert "body" not in table.column_names
    assert table.schema.field("input_ids").type == pa.list_(pa.int32())


def test_parquet_column_and_passthrough(tmp_path, capsys):
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"doc": TEXTS, "score": np.arange(len(TEXTS), dtype=np.float32),
                             "tags": [[str(i)] for i in range(len(TEXTS))]}), src, row_group_size=9)
    code, err = encode(capsys, src, "-o", tmp_path / "out.parquet", "--column", "doc", "--batch-size", 4)
    assert code == 0, err
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column("input_ids").to_pylist() == tok()(TEXTS)["input_ids"]
    assert table.column("score").type == pa.float32()
    assert table.column("score").to_pylist() == list(range(len(TEXTS)))
    assert table.column("tags").to_pylist() == [[str(i)] for i in range(len(TEXTS))]
    assert table.column_names[0] == "input_ids"
    # npy output from the same input: the ids only
    code, err = encode(capsys, src, "-o", tmp_path / "out.npy", "--column", "doc")
    assert code == 0, err
    assert npy_rows(tmp_path / "out.npy") == tok()(TEXTS)["input_ids"]


@pytest.mark.parametrize("name", ["in.txt.gz", "in.txt.zst", "in.jsonl.gz", "in.jsonl.zst", "in.parquet.gz"])
def test_compressed_inputs(tmp_path, capsys, name):
    if ".jsonl" in name:
        raw = "".join(json.dumps({"text": t}) + "\n" for t in TEXTS).encode()
    elif ".parquet" in name:
        pq.write_table(pa.table({"text": TEXTS}), tmp_path / "plain.parquet")
        raw = (tmp_path / "plain.parquet").read_bytes()
    else:
        raw = ("\n".join(TEXTS) + "\n").encode()
    packed = gzip.compress(raw) if name.endswith(".gz") else zstandard.ZstdCompressor().compress(raw)
    (tmp_path / name).write_bytes(packed)
    code, err = encode(capsys, tmp_path / name, "-o", tmp_path / "out.parquet")
    assert code == 0, err
    assert parquet_rows(tmp_path / "out.parquet") == tok()(TEXTS)["input_ids"]


def test_stdin_subprocess(tmp_path):
    data = ("\n".join(TEXTS) + "\n").encode() + b"bad \xff byte\n"
    out = tmp_path / "out.npy"
    proc = subprocess_encode("-", "-o", out, input=data)
    assert proc.returncode == 0, proc.stderr
    assert npy_rows(out) == tok()(TEXTS + ["bad  byte"])["input_ids"]
    assert b"1 invalid-UTF-8 lines" in proc.stderr
    assert b"\r" not in proc.stderr  # no progress bar: stderr is not a terminal


def test_empty_input(tmp_path, capsys):
    (tmp_path / "empty.txt").write_bytes(b"")
    for fmt in ("parquet", "npy", "bin"):
        code, err = encode(capsys, tmp_path / "empty.txt", "-o", tmp_path / f"o.{fmt}")
        assert code == 0, err
    assert pq.read_table(tmp_path / "o.parquet").num_rows == 0
    assert npy_rows(tmp_path / "o.npy") == [] and bin_rows(tmp_path / "o.bin") == []


# ----------------------------------------------------------- output options
def test_parquet_optional_columns(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    out = tmp_path / "out.parquet"
    code, err = encode(capsys, src, "-o", out, "--attention-mask", "--token-type-ids", "--offsets")
    assert code == 0, err
    enc = tok()(TEXTS, return_offsets_mapping=True)
    table = pq.read_table(out)
    assert table.column("input_ids").to_pylist() == enc["input_ids"]
    assert table.column("attention_mask").to_pylist() == enc["attention_mask"]
    assert table.column("token_type_ids").to_pylist() == enc["token_type_ids"]
    assert table.column("offset_mapping").to_pylist() == [[list(p) for p in row] for row in enc["offset_mapping"]]


def test_truncation(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    out = tmp_path / "out.parquet"
    code, err = encode(capsys, src, "-o", out, "--max-length", 12, "--truncation", "--offsets",
                       "--summary-json", tmp_path / "s.json")
    assert code == 0, err
    enc = tok()(TEXTS, truncation=True, max_length=12, return_offsets_mapping=True)
    table = pq.read_table(out)
    assert table.column("input_ids").to_pylist() == enc["input_ids"]
    assert table.column("offset_mapping").to_pylist() == [[list(p) for p in row] for row in enc["offset_mapping"]]
    full = tok()(TEXTS)["input_ids"]
    truncated = sum(len(r) > 12 for r in full)
    assert truncated > 0 and json.loads((tmp_path / "s.json").read_text())["truncated_rows"] == truncated
    code, err = encode(capsys, src, "-o", tmp_path / "nosp.npy", "--max-length", 5, "--no-special-tokens")
    assert code == 0, err
    assert npy_rows(tmp_path / "nosp.npy") == tok()(TEXTS, truncation=True, max_length=5,
                                                     add_special_tokens=False)["input_ids"]


@pytest.mark.parametrize("fmt", ["parquet", "npy", "bin"])
def test_stride_overflow_rows_carry_source_row(tmp_path, capsys, fmt):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"text": t, "k": i}) + "\n" for i, t in enumerate(TEXTS)))
    out = tmp_path / f"out.{fmt}"
    code, err = encode(capsys, src, "-o", out, "--max-length", 16, "--stride", 4, "--batch-size", 6)
    assert code == 0, err
    enc = tok()(TEXTS, truncation=True, max_length=16, stride=4, return_overflowing_tokens=True)
    assert len(enc["input_ids"]) > len(TEXTS)
    mapping = enc["overflow_to_sample_mapping"]
    if fmt == "parquet":
        table = pq.read_table(out)
        assert table.column("input_ids").to_pylist() == enc["input_ids"]
        assert table.column("source_row").to_pylist() == mapping
        assert table.column("k").to_pylist() == mapping  # passthrough repeated for each window
    elif fmt == "npy":
        assert npy_rows(out) == enc["input_ids"]
        assert np.load(tmp_path / "out.source_row.npy").tolist() == mapping
    else:
        assert bin_rows(out) == enc["input_ids"]
        assert read_bin_index(out)["source_row"].tolist() == mapping


def test_batch_size_and_threads_do_not_change_ids(tmp_path, capsys):
    src = write_txt(tmp_path / "in.txt", TEXTS)
    code, _ = encode(capsys, src, "-o", tmp_path / "a.npy", "--batch-size", 1, "--threads", 1)
    assert code == 0
    code, _ = encode(capsys, src, "-o", tmp_path / "b.npy", "--batch-size", 1000, "--threads", 2)
    assert code == 0
    assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()


def test_bin_format_layout(tmp_path, capsys):
    """The documented layout, read without read_bin: 64-byte header, int64 splits."""
    src = write_txt(tmp_path / "in.txt", TEXTS)
    code, _ = encode(capsys, src, "-o", tmp_path / "o.bin")
    assert code == 0
    raw = (tmp_path / "o.idx").read_bytes()
    assert raw[:8] == b"BPIECEIX"
    version, itemsize, n_rows, n_tokens, flags = np.frombuffer(raw[8:16], "<u4").tolist() + \
        np.frombuffer(raw[16:40], "<u8").tolist()
    assert (version, itemsize, n_rows, flags) == (1, 2, len(TEXTS), 0)
    splits = np.frombuffer(raw[64:], "<i8")
    ids = np.frombuffer((tmp_path / "o.bin").read_bytes(), "<u2")
    assert len(ids) == n_tokens == splits[-1]
    assert [ids[a:b].tolist() for a, b in zip(splits[:-1], splits[1:])] == tok()(TEXTS)["input_ids"]


def test_progress_bar_only_on_a_terminal(tmp_path, capsys):
    class Tty:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    stream = Tty()
    bar = Progress(1000, stream=stream)
    bar.update(10, 500, force=True)
    bar.close()
    assert "10 rows" in stream.text and "MB/s" in stream.text and "ETA" in stream.text and "50.0%" in stream.text
    src = write_txt(tmp_path / "in.txt", TEXTS)
    code, err = encode(capsys, src, "-o", tmp_path / "o.npy")  # capsys' stderr is not a terminal
    assert code == 0 and "\r" not in err and "rows in" in err
    code, err = encode(capsys, src, "-o", tmp_path / "q.npy", "--quiet")
    assert code == 0 and err == ""


def test_bin_uses_int32_for_vocabularies_beyond_16_bits(tmp_path, capsys):
    vocab = tmp_path / "vocab.txt"
    base = read_bytes(bertpiece.vocab_path(UNCASED)).decode().splitlines()
    vocab.write_text("\n".join(base + [f"extra{i}" for i in range(70_000 - len(base))]) + "\n")
    texts = TEXTS + [f"extra{70_000 - len(base) - 1} extra5"]
    src = write_txt(tmp_path / "in.txt", texts)
    code, err = encode(capsys, src, "-o", tmp_path / "o.bin", "--vocab", vocab)
    assert code == 0, err
    ids, _ = read_bin(tmp_path / "o.bin")
    assert ids.dtype == np.dtype("<i4")
    expected = BertTokenizer(str(vocab))(texts)["input_ids"]
    assert max(map(max, expected)) >= 1 << 16
    assert bin_rows(tmp_path / "o.bin") == expected


def test_multi_frame_zstd(tmp_path, capsys):
    z = zstandard.ZstdCompressor()
    half = len(TEXTS) // 2
    data = b"".join(z.compress(("\n".join(part) + "\n").encode()) for part in (TEXTS[:half], TEXTS[half:]))
    (tmp_path / "in.txt.zst").write_bytes(data)
    code, err = encode(capsys, tmp_path / "in.txt.zst", "-o", tmp_path / "o.npy")
    assert code == 0, err
    assert npy_rows(tmp_path / "o.npy") == tok()(TEXTS)["input_ids"]


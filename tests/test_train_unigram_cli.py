"""`bertpiece train --model unigram`: the API's tokenizer.json, its options,
the flags of other models refused, no output on errors."""

import json
import os

import pytest
import tokenizers

from bertpiece.cli import main
from bertpiece.trainers import UnigramTrainer, train_unigram_from_files

DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.fixture
def corpus(tmp_path):
    with open(os.path.join(DATA, "ud-en.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()[:500]
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_cli_writes_the_api_model(corpus, tmp_path, capsys):
    out, summary = tmp_path / "tokenizer.json", tmp_path / "s.json"
    assert main(["train", str(corpus), "-o", str(out), "--model", "unigram", "--vocab-size", "400",
                 "--shrinking-factor", "0.6", "--max-piece-length", "8", "--n-sub-iterations", "1",
                 "--seed-size", "5000", "--summary-json", str(summary)]) == 0
    want = train_unigram_from_files([str(corpus)], UnigramTrainer(
        vocab_size=400, special_tokens=["<unk>"], unk_token="<unk>", shrinking_factor=0.6, max_piece_length=8,
        n_sub_iterations=1, seed_size=5000, show_progress=False))
    assert json.loads(out.read_text(encoding="utf-8")) == want.to_json()
    assert tokenizers.Tokenizer.from_file(str(out)).get_vocab_size() == 400
    s = json.loads(summary.read_text())
    assert s["model"] == "unigram" and s["vocab_size"] == 400 and s["rounds"] == want.stats["rounds"]
    err = capsys.readouterr().err
    assert "bertpiece train:" in err and "EM rounds" in err


@pytest.mark.parametrize("flags, message", [
    (["--model", "unigram", "--prefix", "##"], "--prefix is not a --model unigram option"),
    (["--model", "unigram", "--lowercase"], "--lowercase is not a --model unigram option"),
    (["--model", "unigram", "--shrinking-factor", "1.5"], "--shrinking-factor must be between 0 and 1"),
    (["--model", "bpe", "--seed-size", "10"], "--seed-size is for --model unigram"),
    (["--model", "wordpiece", "--n-sub-iterations", "3"], "--n-sub-iterations is for --model unigram"),
    (["--model", "unigram", "--vocab-size", "5"], "vocab_size=5 is smaller"),
])
def test_cli_refuses_wrong_flags_and_writes_nothing(corpus, tmp_path, capsys, flags, message):
    out = tmp_path / "tokenizer.json"
    assert main(["train", str(corpus), "-o", str(out), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()

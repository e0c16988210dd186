"""BPE training (bertpiece.trainers): the Rust trainer against the pure-Python
oracle (bertpiece.oracle_train_bpe) on random corpora with every option,
the oracle against textbook BPE, determinism across thread counts, files,
and bad input. HF itself: tests/test_train_bpe_hf.py."""

import collections
import gzip
import json
import os

import pytest
from unittest.mock import ANY
import regex
from hypothesis import assume, given, settings, strategies as st

from bertpiece import _core
from bertpiece.oracle_train_bpe import textbook_bpe, train_bpe as oracle_bpe
from bertpiece.trainers import (BpeTrainer, ByteLevelBpeTrainer, train_bpe_from_files, train_bpe_from_iterator)

# GPT-2's pattern as HF's ByteLevel pre-tokenizer runs it (with its look-ahead).
GPT2 = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def gpt2_bytes_to_unicode():
    """GPT-2's table, as its encoder.py writes it."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


BYTE_CHAR = gpt2_bytes_to_unicode()


def byte_level_counts(texts, add_prefix_space=False):
    counts = collections.Counter()
    for text in texts:
        if add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        for piece in GPT2.findall(text):
            counts["".join(BYTE_CHAR[b] for b in piece.encode("utf-8"))] += 1
    return counts


def ours(texts, trainer, **options):
    trained = train_bpe_from_iterator(texts, trainer, **options)
    return trained.tokens, [tuple(m) for m in trained.merges]


def oracle(counts, trainer):
    o = trainer._options()
    return oracle_bpe(counts, trainer.vocab_size, **o)


words = st.text(alphabet="abcé", min_size=1, max_size=7)
corpora = st.lists(st.lists(words, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=25)
trainer_options = st.fixed_dictionaries({}, optional={
    "min_frequency": st.integers(0, 4),
    "special_tokens": st.lists(st.sampled_from(["<s>", "ab", "a", "aa", "##b", "b</w>"]), max_size=3),
    "limit_alphabet": st.integers(0, 5),
    "initial_alphabet": st.lists(st.sampled_from(["z", "a", "é", "xy"]), max_size=3),
    "continuing_subword_prefix": st.sampled_from(["##", "a", "@@"]),
    "end_of_word_suffix": st.sampled_from(["</w>", "a", "_"]),
    "max_token_length": st.integers(1, 5),
})


@settings(max_examples=150, deadline=None)
@given(corpora, st.integers(0, 60), trainer_options)
def test_char_level_equals_the_oracle(texts, vocab_size, options):
    trainer = BpeTrainer(vocab_size=vocab_size, show_progress=False, **options)
    counts = collections.Counter(w for t in texts for w in t.split())
    assert ours(texts, trainer) == oracle(counts, trainer)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet="ab \n'1.é", max_size=12), min_size=1, max_size=15), st.integers(0, 320),
       st.booleans(), st.fixed_dictionaries({}, optional={
           "min_frequency": st.integers(1, 4), "max_token_length": st.integers(1, 4),
           "limit_alphabet": st.integers(200, 300), "continuing_subword_prefix": st.just("##"),
           "end_of_word_suffix": st.just("</w>")}))
def test_byte_level_equals_the_oracle(texts, vocab_size, add_prefix_space, options):
    trainer = ByteLevelBpeTrainer(vocab_size=vocab_size, show_progress=False, add_prefix_space=add_prefix_space,
                                  special_tokens=["<|endoftext|>"], **options)
    assert ours(texts, trainer) == oracle(byte_level_counts(texts, add_prefix_space), trainer)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(words, st.integers(1, 9), min_size=1, max_size=12), st.integers(0, 40))
def test_oracle_is_textbook_bpe_while_no_merge_makes_an_existing_token(counts, vocab_size):
    try:
        textbook = textbook_bpe(counts, vocab_size)
    except ValueError:
        assume(False)
    assert oracle_bpe(counts, vocab_size) == textbook


def test_a_merge_making_an_existing_token():
    """A merge spelling a special token reuses its id (HF's rule); a prefix
    that is a letter makes a pair merge into its own right token. Textbook
    BPE has no answer there; ours is the oracle's and HF's."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    texts = ["abc"] * 3 + ["ab"] * 5 + ["bc"] * 4 + ["xbc"] * 4 + ["abx abcd"] * 2
    counts = collections.Counter(w for t in texts for w in t.split())
    trainer = BpeTrainer(vocab_size=40, show_progress=False, continuing_subword_prefix="a")
    assert ours(texts, trainer) == oracle(counts, trainer)  # HF numbers "ab", "ac"... in hash-map order
    for options in ({"special_tokens": ["ab", "<s>"]}, {"special_tokens": ["abc"], "min_frequency": 2}):
        trainer = BpeTrainer(vocab_size=40, show_progress=False, **options)
        assert ours(texts, trainer) == oracle(counts, trainer)
        hf = Tokenizer(models.BPE())
        hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        hf.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=40, show_progress=False, **options))
        model = json.loads(hf.to_str())["model"]
        assert ours(texts, trainer) == (sorted(model["vocab"], key=model["vocab"].get),
                                        [tuple(m) for m in model["merges"]])
    with pytest.raises(ValueError, match="existing token"):
        textbook_bpe(counts, 40, special_tokens=["ab"])


def test_the_same_on_any_thread_count(tmp_path):
    texts = [f"w{i % 37} ünï {i % 3} x{i % 11}y" for i in range(3000)]
    for trainer in (BpeTrainer(vocab_size=90, show_progress=False),
                    ByteLevelBpeTrainer(vocab_size=300, show_progress=False)):
        results = {json.dumps(train_bpe_from_iterator(texts, trainer, num_threads=n).to_json()) for n in (1, 2)}
        assert len(results) == 1


def test_files_keep_line_endings_as_hf_reads_them(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(b"ab ab\nab\n\nlast")
    trainer = ByteLevelBpeTrainer(vocab_size=0, show_progress=False)
    trained = train_bpe_from_files(path, trainer)
    assert trained.stats["words"] == sum(byte_level_counts(["ab ab\n", "ab\n", "\n", "last"]).values())
    assert trained.stats["texts"] == 4
    gz = tmp_path / "c.txt.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert train_bpe_from_files([gz], trainer).stats == {**trained.stats, "seconds": ANY}
    with pytest.raises(ValueError, match="unknown input type"):
        train_bpe_from_files([_renamed(path, "c.bin")], trainer)


def _renamed(path, name):
    target = path.with_name(name)
    target.write_bytes(path.read_bytes())
    return target


def test_empty_corpus_gives_the_alphabet_and_special_tokens():
    trained = train_bpe_from_iterator([], ByteLevelBpeTrainer(special_tokens=["<s>"], show_progress=False))
    assert trained.tokens == ["<s>"] + sorted(_core.ByteLevelCounter.alphabet())
    assert trained.merges == []
    trained = train_bpe_from_iterator(["  \t "], BpeTrainer(special_tokens=["<unk>"], show_progress=False))
    assert trained.tokens == ["<unk>"]


def test_vocab_size_below_the_alphabet_keeps_the_alphabet():
    trained = train_bpe_from_iterator(["abc def"], BpeTrainer(vocab_size=2, special_tokens=["<s>"],
                                                              show_progress=False))
    assert trained.tokens == ["<s>", "a", "b", "c", "d", "e", "f"]


@pytest.mark.parametrize("kwargs, error", [
    ({"vocab_size": -1}, ValueError), ({"min_frequency": 1.5}, ValueError), ({"special_tokens": "<s>"}, TypeError),
    ({"special_tokens": [""]}, ValueError), ({"special_tokens": [3]}, TypeError), ({"initial_alphabet": [""]}, ValueError),
    ({"continuing_subword_prefix": ""}, ValueError), ({"max_token_length": 0}, ValueError),
    ({"limit_alphabet": -2}, ValueError), ({"special_tokens": ["\ud800"]}, ValueError),
])
def test_bad_trainer_options(kwargs, error):
    with pytest.raises(error):
        BpeTrainer(**kwargs)


def test_bad_inputs(tmp_path):
    trainer = BpeTrainer(vocab_size=10, special_tokens=["<unk>"], show_progress=False)
    with pytest.raises(TypeError, match="train_bpe_from_files"):
        train_bpe_from_iterator("some text", trainer)
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        train_bpe_from_iterator(["a", b"b"], trainer)
    with pytest.raises(ValueError, match="unk_token"):
        train_bpe_from_iterator(["a"], trainer, unk_token="[UNK]")
    with pytest.raises(ValueError, match="roberta"):
        train_bpe_from_iterator(["a"], ByteLevelBpeTrainer(show_progress=False), post_processor="roberta")
    with pytest.raises(TypeError, match="BpeTrainer"):
        train_bpe_from_iterator(["a"], object())
    with pytest.raises(FileNotFoundError):
        train_bpe_from_files([tmp_path / "missing.txt"], trainer)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf-8\n")
    with pytest.raises(ValueError, match=r"bad.txt: line 2 is not valid UTF-8"):
        train_bpe_from_files(bad, trainer)
    with pytest.raises(ValueError, match="surrogate"):
        train_bpe_from_iterator(["ok", "x\ud800"], trainer)


def test_unwritable_output_leaves_nothing(tmp_path):
    trained = train_bpe_from_iterator(["ab ab"], BpeTrainer(vocab_size=10, show_progress=False))
    with pytest.raises(OSError):
        trained.save(tmp_path / "no-such-dir" / "tokenizer.json")
    target = tmp_path / "tokenizer.json"
    trained.save(target)
    assert json.loads(target.read_text(encoding="utf-8"))["model"]["merges"] == [["a", "b"]]
    assert os.listdir(tmp_path) == ["tokenizer.json"]


def test_progress_reports_and_can_stop():
    seen = []
    texts = [" ".join(f"w{i}x{j}" for j in range(30)) for i in range(200)]
    train_bpe_from_iterator(texts, BpeTrainer(vocab_size=400, show_progress=False),
                            progress=lambda *a: seen.append(a[0]))
    assert {"count", "merge", "done"} <= set(seen)

    def stop(stage, done, total):
        if stage == "merge":
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        train_bpe_from_iterator(texts, BpeTrainer(vocab_size=400, show_progress=False), progress=stop)


def test_cli_writes_the_tokenizer_json_of_the_api(tmp_path, capsys):
    from bertpiece.cli import main

    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat\nthe dog sat\n", encoding="utf-8")
    for model, trainer, extra in (
        ("byte-bpe", ByteLevelBpeTrainer(280, special_tokens=["<|endoftext|>"], show_progress=False), {}),
        ("bpe", BpeTrainer(40, special_tokens=["<unk>"], end_of_word_suffix="</w>", show_progress=False),
         {"unk_token": "<unk>"}),
    ):
        out = tmp_path / f"{model}.json"
        flags = ["--end-of-word-suffix", "</w>"] if model == "bpe" else []
        size = str(trainer.vocab_size)
        assert main(["train", str(corpus), "-o", str(out), "--model", model, "--vocab-size", size] + flags) == 0
        assert json.loads(out.read_text(encoding="utf-8")) == train_bpe_from_files(corpus, trainer, **extra).to_json()
    assert "merges" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    assert main(["train", str(empty), "-o", str(tmp_path / "e.json"), "--model", "bpe"]) == 2
    assert main(["train", str(corpus), "-o", str(tmp_path / "w.txt"), "--max-token-length", "3"]) == 2
    assert main(["train", str(corpus), "-o", str(tmp_path / "b.json"), "--model", "bpe", "--add-prefix-space"]) == 2
    for flag in (["--reference", "google"], ["--algorithm", "hf"], ["--unused-tokens", "3"]):
        assert main(["train", str(corpus), "-o", str(tmp_path / "b.json"), "--model", "byte-bpe"] + flag) == 2
    assert sorted(os.listdir(tmp_path)) == ["bpe.json", "byte-bpe.json", "c.txt", "empty.txt"]


def test_show_progress_on_a_terminal_draws_one_closed_line(monkeypatch):
    """show_progress=True (the default) with stderr a terminal: one live line redrawn in
    place, ending with the last frame and a newline. Old code: ImportError (the trainer
    imported a progress bar from the CLI, which no longer had it)."""
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    texts = ["low lower lowest newer wider"] * 50
    trained = train_bpe_from_iterator(texts, BpeTrainer(vocab_size=60))
    out = err.getvalue()
    assert trained.vocab and out.endswith("\n") and out.count("\n") == 1, out
    last = out.rstrip("\n").rsplit("\r", 1)[-1]
    assert last.startswith("done") and f"{len(trained.vocab):,} tokens" in last, out

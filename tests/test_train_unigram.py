"""Unigram training (bertpiece.trainers.UnigramTrainer): the Rust trainer
against the pure-Python oracle (bertpiece.oracle_train_unigram), bit for
bit, on random corpora with every option and on real text; the counting
against HF's Metaspace; thread counts; the tokenizer.json in HF tokenizers
and bertpiece; HF's defaults; files; bad input."""

import os

import pytest
import tokenizers
from hypothesis import given, settings, strategies as st

import bertpiece
from bertpiece import _core
from bertpiece import oracle_train_unigram as oracle
from bertpiece.trainers import UnigramTrainer, train_unigram_from_files, train_unigram_from_iterator

DATA = os.path.join(os.path.dirname(__file__), "data")


def ud_lines(lang, start, count):
    with open(os.path.join(DATA, f"ud-{lang}.txt"), encoding="utf-8") as f:
        return f.read().splitlines()[start:start + count]


def rust(texts, num_threads=None, **options):
    counter = _core.MetaspaceCounter()
    counter.feed(list(texts), num_threads=num_threads)
    vocab_size = options.pop("vocab_size")
    pieces, unk_id, _ = counter.train_unigram(_core.UnigramOptions(vocab_size, **options), num_threads=num_threads)
    return pieces, unk_id


def quiet(**options):
    return UnigramTrainer(show_progress=False, **options)


words = st.text(alphabet="abcdé▁", min_size=1, max_size=9)
texts = st.lists(st.lists(words, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=25)
options = st.fixed_dictionaries({
    "vocab_size": st.integers(12, 60),
    "special_tokens": st.sampled_from([[], ["<unk>"], ["<s>", "</s>", "<unk>"], ["ab"]]),
    "unk_token": st.sampled_from([None, "<unk>", "<u>"]),
    "shrinking_factor": st.sampled_from([0.75, 0.5, 0.9, 0.1]),
    "max_piece_length": st.integers(1, 6),
    "n_sub_iterations": st.integers(1, 3),
    "initial_alphabet": st.sampled_from([[], ["z"], ["a", "ÿ"]]),
    "seed_size": st.sampled_from([1_000_000, 12, 30]),
})


@settings(max_examples=150, deadline=None)
@given(texts, options)
def test_rust_is_the_oracle_bit_for_bit(texts, opts):
    counts = oracle.count_words(texts)
    needed = len({c for w in counts for c in w} | {c for c in opts["initial_alphabet"]}) + \
        len(set(opts["special_tokens"]) | ({opts["unk_token"]} if opts["unk_token"] else set()))
    if needed > opts["vocab_size"]:
        with pytest.raises(ValueError, match="vocab_size"):
            rust(texts, **dict(opts))
        with pytest.raises(ValueError, match="vocab_size"):
            oracle.train_unigram(counts, **opts)
        return
    assert rust(texts, **dict(opts)) == oracle.train_unigram(counts, **opts)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab \n\t▁é", max_size=12), max_size=8))
def test_words_are_hf_metaspace_pre_tokens(texts):
    hf = tokenizers.pre_tokenizers.Metaspace()
    expected = {}
    for text in texts:
        for word, _ in hf.pre_tokenize_str(text):
            expected[word] = expected.get(word, 0) + 1
    counter = _core.MetaspaceCounter()
    counter.feed(texts)
    assert dict(counter.counts()) == expected == oracle.count_words(texts)


@pytest.mark.parametrize("lang, vocab_size, extra", [
    ("en", 300, {}), ("de", 250, {"shrinking_factor": 0.5}), ("ja", 1000, {"max_piece_length": 4}),
    ("ru", 200, {"n_sub_iterations": 1, "special_tokens": ["<pad>"], "unk_token": "<unk>"}),
])
def test_real_text_bit_for_bit(lang, vocab_size, extra):
    lines = ud_lines(lang, 0, 120)
    got = rust(lines, vocab_size=vocab_size, **dict(extra))
    assert got == oracle.train_unigram(oracle.count_words(lines), vocab_size, **extra)
    assert len(got[0]) == vocab_size


def test_same_pieces_on_every_thread_count():
    lines = ud_lines("fr", 0, 2000)
    one = rust(lines, num_threads=1, vocab_size=800)
    assert rust(lines, num_threads=2, vocab_size=800) == one
    assert len(one[0]) == 800


def test_tokenizer_json_loads_in_hf_and_bertpiece_and_encodes_alike(tmp_path):
    trained = train_unigram_from_iterator(ud_lines("en", 0, 600), quiet(
        vocab_size=500, special_tokens=["<pad>", "<unk>"], unk_token="<unk>"))
    path = trained.save(tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = bertpiece.Tokenizer.from_file(str(path))
    assert hf.get_vocab() == trained.vocab and hf.get_vocab_size() == 500
    held_out = ud_lines("en", 1000, 200) + ["  two  spaces ", "snowman ☃ and <unk> <pad>x", ""]
    for text in held_out:
        a, b = hf.encode(text), ours.encode(text)
        assert (a.ids, a.tokens, a.offsets) == (b.ids, b.tokens, b.offsets), text
        assert hf.decode(a.ids) == ours.decode(b.ids)


def test_hf_shape_and_unk_token_not_special():
    # HF's UnigramTrainer puts an unk token that is not a special token first
    trained = train_unigram_from_iterator(["ab ab abc"], quiet(vocab_size=20, special_tokens=["<s>"],
                                                                unk_token="<unk>"))
    assert trained.pieces[:2] == [("<unk>", 0.0), ("<s>", 0.0)] and trained.unk_id == 0
    hf = tokenizers.Tokenizer(tokenizers.models.Unigram())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    hf.decoder = tokenizers.decoders.Metaspace()
    hf.train_from_iterator(["ab ab abc"], tokenizers.trainers.UnigramTrainer(
        vocab_size=20, special_tokens=["<s>"], unk_token="<unk>", show_progress=False))
    theirs = __import__("json").loads(hf.to_str())
    mine = trained.to_json()
    assert [t for t, _ in theirs["model"]["vocab"][:2]] == ["<unk>", "<s>"] and theirs["model"]["unk_id"] == 0
    for key in ("pre_tokenizer", "decoder", "normalizer", "post_processor"):
        assert mine[key] == theirs[key]
    assert list(mine) == list(theirs) and list(mine["model"]) == list(theirs["model"])


def test_defaults_are_hfs():
    hf = repr(tokenizers.trainers.UnigramTrainer())
    ours = UnigramTrainer()
    for name in ("vocab_size", "n_sub_iterations", "shrinking_factor", "max_piece_length", "seed_size",
                 "show_progress"):
        value = getattr(ours, name)
        assert f"{name}={value}," in hf
    assert "unk_token=None" in hf and ours.unk_token is None
    assert ours.special_tokens == [] and ours.initial_alphabet == []
    assert UnigramTrainer(initial_alphabet=["ab", "c"]).initial_alphabet == ["a", "c"]


def test_files_are_lines_with_their_endings(tmp_path):
    lines = ud_lines("es", 0, 300)
    path = tmp_path / "c.txt"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    trainer = quiet(vocab_size=300)
    from_file = train_unigram_from_files([str(path)], trainer)
    from_texts = train_unigram_from_iterator([line + "\n" for line in lines], trainer)
    assert from_file.pieces == from_texts.pieces and from_file.stats["texts"] == 300


def test_bad_options_name_the_option():
    for kwargs, name in [({"vocab_size": 0}, "vocab_size"), ({"vocab_size": -3}, "vocab_size"),
                         ({"shrinking_factor": 1.0}, "shrinking_factor"), ({"shrinking_factor": 0}, "shrinking_factor"),
                         ({"shrinking_factor": float("nan")}, "shrinking_factor"),
                         ({"max_piece_length": 0}, "max_piece_length"), ({"n_sub_iterations": 0}, "n_sub_iterations"),
                         ({"seed_size": 0}, "seed_size"), ({"special_tokens": [""]}, "special_tokens"),
                         ({"unk_token": ""}, "unk_token"), ({"initial_alphabet": [""]}, "initial_alphabet")]:
        with pytest.raises(ValueError, match=name):
            UnigramTrainer(**kwargs)
    with pytest.raises(TypeError, match="special_tokens"):
        UnigramTrainer(special_tokens="<unk>")


def test_bad_input():
    with pytest.raises(TypeError, match="train_unigram_from_files"):
        train_unigram_from_iterator("corpus.txt", quiet())
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        train_unigram_from_iterator(["a", b"b"], quiet())
    with pytest.raises(TypeError, match="UnigramTrainer"):
        train_unigram_from_iterator(["a"], tokenizers.trainers.UnigramTrainer())
    with pytest.raises(ValueError, match="vocab_size=3 is smaller"):
        train_unigram_from_iterator(["abc"], quiet(vocab_size=3))
    with pytest.raises(FileNotFoundError):
        train_unigram_from_files(["/no/such/file.txt"], quiet())


def test_invalid_utf8_file_names_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good line\nbad \xff line\n")
    with pytest.raises(ValueError, match="line 2 is not valid UTF-8"):
        train_unigram_from_files([str(path)], quiet())


def test_empty_corpus_gives_the_special_tokens_and_initial_alphabet():
    trained = train_unigram_from_iterator(["", ""], quiet(special_tokens=["<unk>"], unk_token="<unk>",
                                                          initial_alphabet=["x"]))
    assert trained.pieces == [("<unk>", 0.0), ("x", 0.0)] and trained.stats["words"] == 0


def test_progress_reports_em_steps_and_an_exception_stops_training():
    seen = []
    train_unigram_from_iterator(ud_lines("en", 0, 200), quiet(vocab_size=200),
                                progress=lambda stage, done, total: seen.append(stage))
    assert seen[0] == "count" and "em" in seen and seen[-1] == "done"

    def stop(stage, done, total):
        if stage == "em":
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        train_unigram_from_iterator(ud_lines("en", 0, 200), quiet(vocab_size=200), progress=stop)

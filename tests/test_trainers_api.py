"""``bertpiece.Tokenizer.train`` / ``train_from_iterator`` with
``bertpiece.trainers.*Trainer``, against tokenizers 0.23.3 doing the same on
the same tokenizer (normalizer and pre-tokenizer set in code) and corpus
(tests/data/ud-*.txt): the same tokenizer.json where HF is deterministic (BPE,
byte-level BPE, WordLevel), the same vocabulary and encodings for WordPiece
(HF numbers its "##" alphabet in hash-map order), Unigram within the issue's 1%."""

import json
import pathlib

import pytest
import tokenizers
from tokenizers import decoders as hf_decoders
from tokenizers import models as hf_models
from tokenizers import normalizers as hf_normalizers
from tokenizers import pre_tokenizers as hf_pre_tokenizers
from tokenizers import trainers as hf_trainers

import bertpiece
from bertpiece import decoders, models, normalizers, pre_tokenizers, trainers

DATA = pathlib.Path(__file__).parent / "data"


def texts(lang, n=None):
    lines = (DATA / f"ud-{lang}.txt").read_text(encoding="utf-8").splitlines()
    return lines[:n] if n else lines


def pipeline(lib, model, normalizer=None, pre_tokenizer=None, decoder=None):
    """The same tokenizer built in code with `lib` (tokenizers or bertpiece)."""
    tok = lib.Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    if decoder is not None:
        tok.decoder = decoder
    return tok


def both(build):
    """`build(models, normalizers, pre_tokenizers, decoders, trainers)` for HF and for us."""
    hf = build(hf_models, hf_normalizers, hf_pre_tokenizers, hf_decoders, hf_trainers, tokenizers)
    ours = build(models, normalizers, pre_tokenizers, decoders, trainers, bertpiece)
    return hf, ours


def assert_same_encodings(hf_tok, our_tok, held_out, by_id=True):
    ours_loaded = tokenizers.Tokenizer.from_str(our_tok.to_str())
    for a, b, c in zip(hf_tok.encode_batch(held_out), our_tok.encode_batch(held_out),
                       ours_loaded.encode_batch(held_out)):
        assert a.tokens == b.tokens == c.tokens
        assert a.offsets == b.offsets == c.offsets
        if by_id:
            assert a.ids == b.ids == c.ids


def bpe_char(m, n, p, d, t, lib):
    tok = pipeline(lib, m.BPE(unk_token="[UNK]"), n.BertNormalizer(lowercase=True), p.BertPreTokenizer())
    return tok, t.BpeTrainer(vocab_size=500, min_frequency=2, special_tokens=["[UNK]", "[PAD]"], show_progress=False)


def bpe_byte_level(m, n, p, d, t, lib):
    tok = pipeline(lib, m.BPE(), None, p.ByteLevel(add_prefix_space=False), d.ByteLevel())
    return tok, t.BpeTrainer(vocab_size=600, special_tokens=["<|endoftext|>"], show_progress=False,
                             initial_alphabet=p.ByteLevel.alphabet(), max_token_length=6)


def bpe_nfkc_whitespace(m, n, p, d, t, lib):
    tok = pipeline(lib, m.BPE(), n.Sequence([n.NFKC(), n.Lowercase()]), p.Whitespace())
    return tok, t.BpeTrainer(vocab_size=400, limit_alphabet=60, show_progress=False)


def word_level(m, n, p, d, t, lib):
    tok = pipeline(lib, m.WordLevel(unk_token="<unk>"), n.Lowercase(), p.Whitespace())
    # "de" is a special token and a word: HF gives it the word's id (a hole at the special's).
    return tok, t.WordLevelTrainer(vocab_size=300, min_frequency=2, special_tokens=["<unk>", "de"],
                                   show_progress=False)


@pytest.mark.parametrize("build, lang", [(bpe_char, "en"), (bpe_byte_level, "de"), (bpe_nfkc_whitespace, "ru"),
                                         (word_level, "fr")])
def test_tokenizer_json_as_hf(build, lang):
    (hf_tok, hf_trainer), (our_tok, our_trainer) = both(build)
    corpus = texts(lang, 1200)
    hf_tok.train_from_iterator(corpus, hf_trainer)
    our_tok.train_from_iterator(corpus, our_trainer)
    assert json.loads(our_tok.to_str()) == json.loads(hf_tok.to_str())
    assert_same_encodings(hf_tok, our_tok, texts(lang)[-40:])


def test_wordpiece_as_hf():
    def build(m, n, p, d, t, lib):
        tok = pipeline(lib, m.WordPiece(unk_token="[UNK]", max_input_chars_per_word=20), n.BertNormalizer(),
                       p.BertPreTokenizer(), d.WordPiece())
        return tok, t.WordPieceTrainer(vocab_size=600, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"],
                                       show_progress=False)
    (hf_tok, hf_trainer), (our_tok, our_trainer) = both(build)
    corpus = texts("es", 1200)
    hf_tok.train_from_iterator(corpus, hf_trainer)
    our_tok.train_from_iterator(corpus, our_trainer)
    hf_doc, our_doc = json.loads(hf_tok.to_str()), json.loads(our_tok.to_str())
    # HF numbers the "##" alphabet in hash-map order (differs run to run): the
    # same tokens, the same options, and the same encodings as token strings.
    assert set(our_doc["model"].pop("vocab")) == set(hf_doc["model"].pop("vocab"))
    assert our_doc == hf_doc
    assert_same_encodings(hf_tok, our_tok, texts("es")[-40:], by_id=False)


def unigram_build(m, n, p, d, t, lib):
    tok = pipeline(lib, m.Unigram(), n.NFKC(), p.Metaspace(), d.Metaspace())
    return tok, t.UnigramTrainer(vocab_size=400, special_tokens=["<unk>", "<s>"], unk_token="<unk>",
                                 show_progress=False)


def test_unigram_within_one_percent_of_hf():
    (hf_tok, hf_trainer), (our_tok, our_trainer) = both(unigram_build)
    corpus = texts("en", 1500)
    hf_tok.train_from_iterator(corpus, hf_trainer)
    our_tok.train_from_iterator(corpus, our_trainer)
    hf_doc, our_doc = json.loads(hf_tok.to_str()), json.loads(our_tok.to_str())
    assert our_doc["model"]["vocab"][:2] == hf_doc["model"]["vocab"][:2] == [["<unk>", 0.0], ["<s>", 0.0]]
    for doc in (hf_doc, our_doc):
        del doc["model"]["vocab"]
    assert our_doc == hf_doc
    held_out = texts("en")[-300:]
    hf_n = sum(len(e.ids) for e in hf_tok.encode_batch(held_out))
    our_n = sum(len(e.ids) for e in our_tok.encode_batch(held_out))
    assert our_n <= hf_n * 1.01, (our_n, hf_n)
    loaded = tokenizers.Tokenizer.from_str(our_tok.to_str())
    assert [e.ids for e in loaded.encode_batch(held_out)] == [e.ids for e in our_tok.encode_batch(held_out)]


def test_files_read_as_hf_reads_them(tmp_path):
    """Lines keep their line endings (HF's train reads them so); a blank line
    and trailing spaces included. Same as HF and as the iterator of those lines."""
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(texts("en", 500)) + "\n\n  trailing spaces  \r\n", encoding="utf-8")
    (hf_tok, hf_trainer), (our_tok, our_trainer) = both(bpe_byte_level)
    hf_tok.train([str(path)], hf_trainer)
    our_tok.train([str(path)], our_trainer)
    assert json.loads(our_tok.to_str()) == json.loads(hf_tok.to_str())
    assert "Ċ" in our_tok.get_vocab()
    _, (again, again_trainer) = both(bpe_byte_level)
    again.train_from_iterator(path.read_text(encoding="utf-8").splitlines(keepends=True), again_trainer)
    assert again.to_str() == our_tok.to_str()


def test_iterator_of_batches_and_default_trainer():
    """HF's iterator may yield lists of str; trainer=None trains with the model's default trainer."""
    corpus = texts("de", 300)
    hf_tok = pipeline(tokenizers, hf_models.WordLevel(unk_token="<unk>"), None, hf_pre_tokenizers.Whitespace())
    our_tok = pipeline(bertpiece, models.WordLevel(unk_token="<unk>"), None, pre_tokenizers.Whitespace())
    batches = [corpus[k:k + 7] for k in range(0, len(corpus), 7)]
    hf_tok.train_from_iterator(batches, length=len(batches))
    our_tok.train_from_iterator(batches, length=len(batches))
    assert json.loads(our_tok.to_str()) == json.loads(hf_tok.to_str())


def test_trainer_options_and_defaults_as_hf():
    pairs = [(hf_trainers.BpeTrainer, trainers.BpeTrainer), (hf_trainers.WordPieceTrainer, trainers.WordPieceTrainer),
             (hf_trainers.WordLevelTrainer, trainers.WordLevelTrainer),
             (hf_trainers.UnigramTrainer, trainers.UnigramTrainer)]
    names = ("vocab_size", "min_frequency", "show_progress", "limit_alphabet", "initial_alphabet",
             "continuing_subword_prefix", "end_of_word_suffix", "max_token_length")
    for hf_cls, our_cls in pairs:
        hf, ours = hf_cls(), our_cls()
        for name in names:
            if hasattr(hf, name):
                assert getattr(ours, name) == getattr(hf, name), (our_cls.__name__, name)
        given = dict(vocab_size=123, special_tokens=["<a>", tokenizers.AddedToken("<b>")], show_progress=False)
        hf, ours = hf_cls(**given), our_cls(**{**given, "special_tokens": ["<a>", bertpiece.AddedToken("<b>")]})
        assert ours.vocab_size == hf.vocab_size and ours.show_progress == hf.show_progress
        assert ours.special_tokens == [t.content for t in hf.special_tokens]


def test_added_token_options_kept_as_hf():
    corpus = texts("en", 200)
    hf_tok = pipeline(tokenizers, hf_models.BPE(), None, hf_pre_tokenizers.Whitespace())
    our_tok = pipeline(bertpiece, models.BPE(), None, pre_tokenizers.Whitespace())
    hf_tok.train_from_iterator(corpus, hf_trainers.BpeTrainer(
        vocab_size=200, show_progress=False, special_tokens=[tokenizers.AddedToken("<m>", lstrip=True), "<s>"]))
    our_tok.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=200, show_progress=False, special_tokens=[bertpiece.AddedToken("<m>", lstrip=True), "<s>"]))
    assert json.loads(our_tok.to_str()) == json.loads(hf_tok.to_str())
    text = "the cat  <m> sat <s>"
    assert our_tok.encode(text).tokens == hf_tok.encode(text).tokens


def test_bad_input_is_a_clear_error_and_leaves_the_tokenizer_unchanged(tmp_path):
    tok = pipeline(bertpiece, models.BPE(), None, pre_tokenizers.Whitespace())
    before = tok.to_str()
    missing = tmp_path / "missing.txt"
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        tok.train([str(missing)], trainers.BpeTrainer(show_progress=False))
    with pytest.raises(TypeError, match="list of paths"):
        tok.train(str(missing), trainers.BpeTrainer(show_progress=False))
    with pytest.raises(TypeError, match="can only train a BPE model"):
        pipeline(bertpiece, models.WordLevel(unk_token="<u>")).train_from_iterator(["a"], trainers.BpeTrainer())
    with pytest.raises(TypeError, match="not a ByteLevelBpeTrainer"):
        tok.train_from_iterator(["a"], trainers.ByteLevelBpeTrainer(show_progress=False))
    with pytest.raises(TypeError, match="iterator item 1"):
        tok.train_from_iterator(["a", 3], trainers.BpeTrainer(show_progress=False))
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good line\n\xff\xfe bad\n")
    with pytest.raises(ValueError, match="bad.txt: line 2 is not valid UTF-8"):
        tok.train([str(bad)], trainers.BpeTrainer(show_progress=False))
    with pytest.raises(ValueError, match="lone surrogate"):
        tok.train_from_iterator(["ok", "x\ud800"], trainers.BpeTrainer(show_progress=False))
    assert tok.to_str() == before


@pytest.mark.parametrize("corpus", [[], ["", "   ", "\n"]])
def test_empty_corpus_as_hf(corpus):
    for build in (bpe_char, word_level):
        (hf_tok, hf_trainer), (our_tok, our_trainer) = both(build)
        hf_tok.train_from_iterator(corpus, hf_trainer)
        our_tok.train_from_iterator(corpus, our_trainer)
        assert json.loads(our_tok.to_str()) == json.loads(hf_tok.to_str())


def test_model_get_trainer_as_hf():
    for hf_model, our_model in [(hf_models.BPE(), models.BPE()), (hf_models.WordPiece(), models.WordPiece()),
                                (hf_models.WordLevel(), models.WordLevel()), (hf_models.Unigram(), models.Unigram())]:
        hf, ours = hf_model.get_trainer(), our_model.get_trainer()
        assert type(ours).__name__ == type(hf).__name__
        assert (ours.vocab_size, ours.show_progress, ours.special_tokens) == (hf.vocab_size, hf.show_progress, [])


@pytest.mark.parametrize("corpus", [["hello world"], ["<a> <b>", "<a>"]])
def test_vocab_size_below_the_alphabet_and_only_special_tokens_as_hf(corpus):
    """BPE and WordLevel keep the special tokens and the alphabet past vocab_size, as HF;
    a corpus of only the special tokens' text is trained on as text (HF does not split added tokens there)."""
    def bpe(m, n, p, d, t, lib):
        return pipeline(lib, m.BPE(), None, p.Whitespace()), t.BpeTrainer(vocab_size=3, special_tokens=["<a>", "<b>"],
                                                                          show_progress=False)

    def wl(m, n, p, d, t, lib):
        return pipeline(lib, m.WordLevel(), None, p.Whitespace()), t.WordLevelTrainer(
            vocab_size=1, special_tokens=["[UNK]", "<a>"], show_progress=False)
    for build in (bpe, wl):
        (hf_tok, hf_trainer), (our_tok, our_trainer) = both(build)
        hf_tok.train_from_iterator(corpus, hf_trainer)
        our_tok.train_from_iterator(corpus, our_trainer)
        assert json.loads(our_tok.to_str()) == json.loads(hf_tok.to_str())


def test_unigram_vocab_size_below_the_alphabet_is_a_value_error():
    (hf_tok, hf_trainer), (our_tok, our_trainer) = both(unigram_build)
    small = trainers.UnigramTrainer(vocab_size=5, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False)
    with pytest.raises(Exception, match="not large enough"):  # HF: a bare Exception
        hf_tok.train_from_iterator(["hello world"], hf_trainers.UnigramTrainer(vocab_size=5, show_progress=False))
    before = our_tok.to_str()
    with pytest.raises(ValueError, match="vocab_size=5 is smaller than the special tokens and the alphabet"):
        our_tok.train_from_iterator(["hello world"], small)
    assert our_tok.to_str() == before

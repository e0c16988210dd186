"""bertpiece's BPE trainers against HF tokenizers' own BpeTrainer on real
text (tests/data/ud-*.txt): the same vocabulary, merges and tokenizer.json,
which tokenizers loads and encodes with as HF's trained tokenizer does.
HF is deterministic in these settings (benches/bpe_hf_spread.py: identical
results over runs and RAYON_NUM_THREADS 1 and 2); where it is not (an
end-of-word suffix or prefix numbers its tokens in hash-map order) the test
replays the order one HF run chose."""

import json
import pathlib

import pytest
from hypothesis import given, settings, strategies as st
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from bertpiece import _core
from bertpiece.trainers import BpeTrainer, ByteLevelBpeTrainer, train_bpe_from_files, train_bpe_from_iterator

DATA = pathlib.Path(__file__).parent / "data"


def texts(name, n=None):
    lines = (DATA / f"ud-{name}.txt").read_text(encoding="utf-8").splitlines()
    return lines[:n] if n else lines


def hf_byte_level(vocab_size, special_tokens=(), shape="gpt2", add_prefix_space=False, **options):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tok.decoder = decoders.ByteLevel()
    if shape == "gpt2":
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    else:
        specials = list(special_tokens)
        tok.post_processor = processors.RobertaProcessing(("</s>", specials.index("</s>")),
                                                          ("<s>", specials.index("<s>")),
                                                          add_prefix_space=add_prefix_space)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), **options)
    return tok, trainer


def hf_char_level(vocab_size, special_tokens=(), unk_token=None, lowercase=False, **options):
    tok = Tokenizer(models.BPE() if unk_token is None else models.BPE(unk_token=unk_token))
    tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    if options.get("end_of_word_suffix"):
        tok.decoder = decoders.BPEDecoder(suffix=options["end_of_word_suffix"])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special_tokens), show_progress=False,
                                  **options)
    return tok, trainer


def assert_same_tokenizer(hf_tok, trained, held_out):
    assert json.loads(trained.to_str()) == json.loads(hf_tok.to_str())
    loaded = Tokenizer.from_str(trained.to_str())
    for a, b in zip(loaded.encode_batch(held_out), hf_tok.encode_batch(held_out)):
        assert (a.ids, a.offsets) == (b.ids, b.offsets)
    assert loaded.decode(loaded.encode(held_out[0]).ids) == hf_tok.decode(hf_tok.encode(held_out[0]).ids)


@pytest.mark.parametrize("lang, vocab_size, options", [
    ("en", 700, {}),
    ("de", 500, {"min_frequency": 3, "max_token_length": 5}),
    ("ru", 600, {"limit_alphabet": 300}),
    ("zh", 700, {}),
])
def test_byte_level_as_hf(lang, vocab_size, options):
    corpus = texts(lang, 1500)
    specials = ["<|endoftext|>"]
    hf_tok, hf_trainer = hf_byte_level(vocab_size, specials, **options)
    hf_tok.train_from_iterator(corpus, hf_trainer)
    trained = train_bpe_from_iterator(corpus, ByteLevelBpeTrainer(vocab_size, special_tokens=specials,
                                                                  show_progress=False, **options))
    assert_same_tokenizer(hf_tok, trained, texts(lang)[-50:])


@pytest.mark.parametrize("lang, vocab_size, options", [
    ("en", 400, {"special_tokens": ["<unk>", "<pad>"], "unk_token": "<unk>"}),
    ("fr", 500, {"min_frequency": 2, "lowercase": True}),
    ("el", 500, {"limit_alphabet": 50, "max_token_length": 3}),
])
def test_char_level_as_hf(lang, vocab_size, options):
    corpus = texts(lang, 1500)
    specials, unk = options.pop("special_tokens", []), options.pop("unk_token", None)
    lowercase = options.pop("lowercase", False)
    hf_tok, hf_trainer = hf_char_level(vocab_size, specials, unk, lowercase, **options)
    hf_tok.train_from_iterator(corpus, hf_trainer)
    trained = train_bpe_from_iterator(corpus, BpeTrainer(vocab_size, special_tokens=specials, show_progress=False,
                                                         **options), unk_token=unk, lowercase=lowercase)
    assert_same_tokenizer(hf_tok, trained, texts(lang)[-50:])


def test_roberta_shape_and_prefix_space_as_hf():
    corpus = texts("es", 800)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    hf_tok, hf_trainer = hf_byte_level(500, specials, shape="roberta", add_prefix_space=True)
    hf_tok.train_from_iterator(corpus, hf_trainer)
    trainer = ByteLevelBpeTrainer(500, special_tokens=specials, show_progress=False, add_prefix_space=True)
    trained = train_bpe_from_iterator(corpus, trainer, post_processor="roberta")
    assert_same_tokenizer(hf_tok, trained, texts("es")[-30:])


def test_files_as_hf_reads_them(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(texts("en", 600)) + "\n\n  trailing spaces  \n", encoding="utf-8")
    hf_tok, hf_trainer = hf_byte_level(400)
    hf_tok.train([str(path)], hf_trainer)
    trained = train_bpe_from_files([path], ByteLevelBpeTrainer(400, show_progress=False))
    assert "Ċ" in trained.vocab
    assert_same_tokenizer(hf_tok, trained, texts("en")[-20:])


@pytest.mark.parametrize("byte_level, options", [
    (False, {"end_of_word_suffix": "</w>"}),
    (False, {"continuing_subword_prefix": "##", "end_of_word_suffix": "</w>"}),
    (True, {"continuing_subword_prefix": "##"}),
])
def test_replaying_hf_token_order_gives_hf_merges(byte_level, options):
    """HF numbers prefixed/suffixed tokens in hash-map order (a different
    vocabulary each run); given the order one run chose, ours is that run's."""
    corpus = texts("en", 1200)
    size = 700 if byte_level else 450
    hf_tok, hf_trainer = (hf_byte_level(size, **options) if byte_level else hf_char_level(size, **options))
    hf_tok.train_from_iterator(corpus, hf_trainer)
    hf_model = json.loads(hf_tok.to_str())["model"]
    trainer = (ByteLevelBpeTrainer if byte_level else BpeTrainer)(size, show_progress=False, **options)
    initial = len(train_bpe_from_iterator(corpus, type(trainer)(0, show_progress=False, **options)).tokens)
    hf_tokens = sorted(hf_model["vocab"], key=hf_model["vocab"].get)
    if byte_level:
        counter = _core.ByteLevelCounter(add_prefix_space=False)
    else:
        counter = _core.WordCounter(reference="tokenizers", do_lower_case=False)
    counter.feed(corpus)
    tokens, merges, _ = counter.train_bpe(_core.BpeOptions(size, initial_tokens=hf_tokens[:initial], **trainer._options()))
    assert tokens == hf_tokens
    assert [list(m) for m in merges] == hf_model["merges"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.text(alphabet="ab \n\t\r'sd1².,\u00a0\u3000\u0085\u2028\x1c中é\U0001F600-", max_size=14),
                min_size=1, max_size=8), st.booleans())
def test_byte_level_pre_tokenization_as_hf_on_tricky_text(texts, add_prefix_space):
    """Whitespace kinds and runs, contractions, numbers, symbols: with room to
    merge every pre-token whole, any difference in the split shows."""
    hf_tok, hf_trainer = hf_byte_level(2000, add_prefix_space=add_prefix_space)
    hf_tok.train_from_iterator(texts, hf_trainer)
    trainer = ByteLevelBpeTrainer(2000, show_progress=False, add_prefix_space=add_prefix_space)
    assert json.loads(train_bpe_from_iterator(texts, trainer).to_str()) == json.loads(hf_tok.to_str())


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abcé", min_size=1, max_size=8), min_size=1, max_size=6).map(" ".join),
                min_size=1, max_size=25), st.integers(0, 80),
       st.fixed_dictionaries({}, optional={
           "max_token_length": st.integers(1, 5), "min_frequency": st.integers(0, 4),
           "special_tokens": st.lists(st.sampled_from(["ab", "a", "aa", "abc", "<s>", "bab"]), max_size=2)}))
def test_char_level_as_hf_on_random_corpora(texts, vocab_size, options):
    """Small alphabets: many count ties (HF's tie rule) and merges spelling special tokens."""
    hf_tok, hf_trainer = hf_char_level(vocab_size, **options)
    hf_tok.train_from_iterator(texts, hf_trainer)
    trained = train_bpe_from_iterator(texts, BpeTrainer(vocab_size, show_progress=False, **options))
    model = json.loads(hf_tok.to_str())["model"]
    assert (trained.tokens, [list(m) for m in trained.merges]) == (sorted(model["vocab"], key=model["vocab"].get),
                                                                  model["merges"])

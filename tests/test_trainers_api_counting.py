"""``Tokenizer.train``'s counting in Rust (`_core.PreTokenCounter`): the
pre-tokens of a tokenizer's own normalizer and pre-tokenizer, counted on the
thread pool. Checked against HF tokenizers 0.23.3's own components run on the
same texts (``normalize_str`` then ``pre_tokenize_str``, empty pre-tokens left
out, as its trainers feed them), and the trained tokenizer.json against the
model trained on HF's counts, for every trainer."""

import json
import pathlib
from collections import Counter

import pytest
from tokenizers import Regex, Tokenizer
from tokenizers import models as hf_models
from tokenizers import normalizers as hf_normalizers
from tokenizers import pre_tokenizers as hf_pre_tokenizers

import bertpiece
from bertpiece import _core, trainers
from bertpiece.tokenizers_api.training import _bpe_model, _unigram_model
from bertpiece.trainers_words import word_level_vocab

DATA = pathlib.Path(__file__).parent / "data"


def texts(lang, n=None):
    lines = (DATA / f"ud-{lang}.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[:n] if n else lines


N, P = hf_normalizers, hf_pre_tokenizers
SHAPES = {
    "bert": lambda: (N.BertNormalizer(lowercase=True), P.BertPreTokenizer()),
    "bert_cased": lambda: (N.BertNormalizer(lowercase=False), P.BertPreTokenizer()),
    "bert_keep_accents_no_chinese": lambda: (N.BertNormalizer(strip_accents=False, handle_chinese_chars=False),
                                             P.BertPreTokenizer()),
    "bert_strip_cased": lambda: (N.BertNormalizer(lowercase=False, strip_accents=True), P.BertPreTokenizer()),
    "bert_no_clean_text": lambda: (N.BertNormalizer(clean_text=False), P.BertPreTokenizer()),
    "byte_level": lambda: (None, P.ByteLevel(add_prefix_space=False)),
    "byte_level_prefix": lambda: (None, P.ByteLevel(add_prefix_space=True)),
    "byte_level_no_regex": lambda: (None, P.ByteLevel(add_prefix_space=False, use_regex=False)),
    "metaspace": lambda: (None, P.Metaspace()),
    "metaspace_first": lambda: (None, P.Metaspace(prepend_scheme="first")),
    "metaspace_nfkc": lambda: (N.NFKC(), P.Metaspace()),
    "whitespace_lower": lambda: (N.Sequence([N.NFKC(), N.Lowercase()]), P.Whitespace()),
    "sequence": lambda: (N.NFD(), P.Sequence([P.WhitespaceSplit(), P.Punctuation("contiguous"), P.Digits(True)])),
    "split_regex": lambda: (N.Replace(Regex(r"\s+"), " "), P.Split(Regex(r"\w+|[^\w\s]+"), "isolated")),
    "normalizer_only": lambda: (N.Lowercase(), None),
    "nothing": lambda: (None, None),
}


def hf_tokenizer(normalizer, pre_tokenizer, model=None):
    tok = Tokenizer(model or hf_models.WordLevel({"<unk>": 0}, unk_token="<unk>"))
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    return tok


def hf_counts(normalizer, pre_tokenizer, corpus):
    """What HF's Tokenizer.train hands its trainer: every non-empty pre-token of every text."""
    counts = Counter()
    for text in corpus:
        normalized = normalizer.normalize_str(text) if normalizer is not None else text
        pieces = [p for p, _ in pre_tokenizer.pre_tokenize_str(normalized)] if pre_tokenizer else [normalized]
        counts.update(p for p in pieces if p)
    return counts


# The shapes counted by a one-pass counter of the train_* functions; any other by the general one.
FAST = {"bert": "bert", "bert_cased": "bert", "bert_keep_accents_no_chinese": "bert", "bert_strip_cased": "bert",
        "byte_level": "byte_level", "byte_level_prefix": "byte_level", "metaspace": "metaspace"}
LANGS = ("ar", "de", "el", "en", "es", "fr", "hi", "ja", "ko", "ru", "vi", "zh")
ODD = ["", "  \n", "x\u0301 \t\u00a0y", "\u200b\ufeff\x00\x7f a\r\n", "ß İ ǅ Σσς", "　全角　", "\U0001F600!!"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("threads", [1, 2])
def test_counts_are_hfs(shape, threads):
    normalizer, pre_tokenizer = SHAPES[shape]()
    corpus = [line for lang in LANGS for line in texts(lang, 120)] + ODD
    counter = _core.PreTokenCounter(hf_tokenizer(normalizer, pre_tokenizer).to_str())
    assert counter.kind == FAST.get(shape, "general")
    for k in range(0, len(corpus), 128):  # several feeds: counts add up across batches
        counter.feed(corpus[k:k + 128], num_threads=threads)
    want = hf_counts(normalizer, pre_tokenizer, corpus)
    assert counter.stats() == (sum(want.values()), len(want))
    assert counter.word_counts().items() == sorted(want.items(), key=lambda kv: [ord(c) for c in kv[0]])
    with pytest.raises(ValueError, match="already taken"):
        counter.word_counts()


def _our_tokenizer(normalizer, pre_tokenizer, model):
    hf = hf_tokenizer(normalizer, pre_tokenizer, model)
    return bertpiece.Tokenizer.from_str(hf.to_str()), hf


TRAINERS = [
    ("bert", lambda: hf_models.BPE(unk_token="[UNK]"),
     lambda: trainers.BpeTrainer(vocab_size=700, min_frequency=2, special_tokens=["[UNK]"], show_progress=False)),
    ("byte_level", lambda: hf_models.BPE(),
     lambda: trainers.BpeTrainer(vocab_size=700, initial_alphabet=P.ByteLevel.alphabet(), show_progress=False)),
    ("sequence", lambda: hf_models.WordPiece(unk_token="[UNK]"),
     lambda: trainers.WordPieceTrainer(vocab_size=700, special_tokens=["[UNK]"], show_progress=False)),
    ("whitespace_lower", lambda: hf_models.WordLevel(unk_token="<unk>"),
     lambda: trainers.WordLevelTrainer(vocab_size=700, special_tokens=["<unk>"], show_progress=False)),
    ("metaspace", lambda: hf_models.Unigram(),
     lambda: trainers.UnigramTrainer(vocab_size=300, special_tokens=["<unk>"], unk_token="<unk>",
                                     show_progress=False)),
    ("metaspace_nfkc", lambda: hf_models.Unigram(),
     lambda: trainers.UnigramTrainer(vocab_size=300, special_tokens=["<unk>"], unk_token="<unk>",
                                     show_progress=False)),
]


@pytest.mark.parametrize("shape, model, trainer", TRAINERS, ids=[t[0] for t in TRAINERS])
def test_every_trainer_trains_on_hfs_counts(shape, model, trainer):
    """The tokenizer.json `train_from_iterator` makes is the model the same
    trainer makes from HF's own counts of the corpus."""
    normalizer, pre_tokenizer = SHAPES[shape]()
    ours, _ = _our_tokenizer(normalizer, pre_tokenizer, model())
    corpus = texts("de", 600)
    doc = json.loads(ours.to_str())
    ours.train_from_iterator(corpus, trainer())
    counts = hf_counts(normalizer, pre_tokenizer, corpus)
    t = trainer()
    if isinstance(t, trainers.UnigramTrainer):
        want = _unigram_model(_core.WordCounts(list(counts.items())), t)
    elif isinstance(t, trainers.WordLevelTrainer):
        want = {**doc["model"], "vocab": word_level_vocab(counts, t)}
    else:
        want = _bpe_model(doc["model"], _core.WordCounts(list(counts.items())), t)
    assert json.loads(ours.to_str())["model"] == json.loads(json.dumps(want))

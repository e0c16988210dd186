"""Models no one here trained, as others ship them in their sdists (scripts/fetch_test_models.py puts
them in .cache/), through every drop-in that reads them.

- Google's two sentencepiece Unigram models (sentencepiece's sdist): `SentencePieceProcessor` against
  sentencepiece on the `.model` itself; the `tokenizer.json` that transformers 5.24's own classes
  convert it into (XLM-R, T5, Llama, ...: Precompiled normalizer, Metaspace, each class's template)
  against tokenizers 0.23.3; `AutoTokenizer` on the sentencepiece-only folder against transformers'.
- GPT-2's byte-level BPE ranks and Whisper's multilingual ones (openai-whisper's sdist), made into
  the files users load: GPT-2's own shape (merges derived from the ranks, ByteLevel pre-tokenizer),
  RoBERTa's (RobertaProcessing, prefix space), and what transformers' TikTokenConverter makes (a
  Split regex before ByteLevel, ignore_merges); `Tokenizer` and its bulk call against tokenizers 0.23.3.

Texts: the book the English sentencepiece model was trained on (botchan.txt), the UD sentences of
tests/data, and random strings over an alphabet of what normalizers and pre-tokenizers treat apart."""

import base64
import functools
import json
import os
import random
import shutil
import sys
import warnings

import pytest

import bertpiece
from google_reference import DATA_DIR, ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from fetch_test_models import models_dir  # noqa: E402

MODELS_DIR = models_dir("sentencepiece")
RANKS_DIR = models_dir("openai_whisper")
MODELS = ("test_model.model", "test_ja_model.model")
# transformers class -> the file name its folder keeps the sentencepiece model under
CLASSES = {"XLMRobertaTokenizer": "sentencepiece.bpe.model", "T5Tokenizer": "spiece.model",
           "LlamaTokenizer": "tokenizer.model", "XLNetTokenizer": "spiece.model",
           "DebertaV2Tokenizer": "spm.model", "CamembertTokenizer": "sentencepiece.bpe.model",
           "MBartTokenizer": "sentencepiece.bpe.model", "BigBirdTokenizer": "spiece.model",
           "ReformerTokenizer": "spiece.model", "BarthezTokenizer": "sentencepiece.bpe.model",
           "GemmaTokenizer": "tokenizer.model"}
QUICK_CLASSES = ("XLMRobertaTokenizer", "T5Tokenizer", "LlamaTokenizer")
ALPHABET = (" \t\n\u3000\u00a0\u200b\u0301\u00e9e\uff21A1\uff11\u2160\u00bd.,!?\u300c\u300d\u3002\u3042\u30a2"
            "\uff71\u6f22\u5b57\ud55c\u0000\u0007\u00ad\ufeff\u2028\U0001F600\U0001F1EF\u2581")


def class_params():
    return [c if c in QUICK_CLASSES else pytest.param(c, marks=pytest.mark.slow) for c in CLASSES]


@functools.lru_cache(maxsize=None)
def texts():
    with open(os.path.join(MODELS_DIR, "botchan.txt"), encoding="utf-8") as f:
        out = [line.rstrip("\n") for line in f][:300]
    for lang in ("en", "zh", "ja", "ko", "hi", "el", "ar"):
        with open(os.path.join(DATA_DIR, f"ud-{lang}.txt"), encoding="utf-8", newline="\n") as f:
            out += [line.rstrip("\n") for line in f][:40]
    rnd = random.Random(0)
    out += ["".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 30))) for _ in range(300)]
    return out + ["", " ", "  two  spaces  ", "<s> x </s> <unk>", "\u2581\u2581a"]


def model_path(model):
    return os.path.join(MODELS_DIR, model)


@functools.lru_cache(maxsize=None)
def spm_folder(tmp_root, cls, model):
    """The folder transformers reads a sentencepiece model from: the .model and tokenizer_config.json."""
    folder = os.path.join(tmp_root, f"{cls}-{model.split('.')[0]}")
    os.makedirs(folder, exist_ok=True)
    shutil.copy(model_path(model), os.path.join(folder, CLASSES[cls]))
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": cls}, f)
    return folder


@pytest.fixture(scope="module")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("spm-test-models"))


def test_models_are_fetched():
    for name in MODELS + ("botchan.txt",):
        assert os.path.isfile(os.path.join(MODELS_DIR, name)), (
            f"{name} is not in {MODELS_DIR}: run `make test-deps` (or python scripts/fetch_test_models.py)")
    for name in ("gpt2.tiktoken", "multilingual.tiktoken"):
        assert os.path.isfile(os.path.join(RANKS_DIR, name)), (
            f"{name} is not in {RANKS_DIR}: run `make test-deps` (or python scripts/fetch_test_models.py)")


@pytest.mark.parametrize("model", MODELS)
def test_processor_matches_sentencepiece(model):
    import sentencepiece

    ref = sentencepiece.SentencePieceProcessor(model_file=model_path(model))
    ours = bertpiece.SentencePieceProcessor(model_file=model_path(model))
    assert ours.get_piece_size() == ref.get_piece_size()
    for text in texts():
        for options in ({}, {"add_bos": True, "add_eos": True}, {"reverse": True}):
            assert ours.encode(text, **options) == ref.encode(text, **options), (text, options)
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
        ids = ref.encode(text)
        assert ours.decode(ids) == ref.decode(ids), text
    assert ours.encode(texts(), num_threads=2) == ref.encode(texts(), num_threads=2)


def _fields(encoding):
    return (encoding.ids, encoding.tokens, encoding.offsets, encoding.type_ids, encoding.special_tokens_mask,
            encoding.attention_mask, encoding.word_ids, encoding.sequence_ids)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("cls", class_params())
def test_converted_tokenizer_json_matches_tokenizers(cls, model, tmp_root):
    import tokenizers
    import transformers

    out = os.path.join(tmp_root, f"json-{cls}-{model.split('.')[0]}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(transformers, cls).from_pretrained(spm_folder(tmp_root, cls, model)).save_pretrained(out)
    path = os.path.join(out, "tokenizer.json")
    ref, ours = tokenizers.Tokenizer.from_file(path), bertpiece.Tokenizer.from_file(path)
    all_texts = texts()
    for i, text in enumerate(all_texts):
        pair = all_texts[(i * 7 + 3) % len(all_texts)] if i % 3 == 0 else None
        for specials in (True, False):
            assert _fields(ours.encode(text, pair, add_special_tokens=specials)) == \
                _fields(ref.encode(text, pair, add_special_tokens=specials)), (text, pair, specials)
        ids = ref.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), text
    # the bulk call (ids only: the fused path cuts WhitespaceSplit's tokens from the text's bytes)
    for specials in (True, False):
        expected = [e.ids for e in ref.encode_batch(all_texts, add_special_tokens=specials)]
        for threads in (1, 2):
            bulk = ours.encode_batch_arrays(all_texts, add_special_tokens=specials, num_threads=threads)
            assert [bulk.ids[a:b].tolist() for a, b in zip(bulk.row_splits[:-1], bulk.row_splits[1:])] == expected
    for tok in (ref, ours):
        tok.enable_truncation(16, stride=4)
        tok.enable_padding(pad_to_multiple_of=8)
    for a, b in zip(ours.encode_batch(all_texts[:200]), ref.encode_batch(all_texts[:200])):
        assert _fields(a) == _fields(b)
        assert [_fields(o) for o in a.overflowing] == [_fields(o) for o in b.overflowing]


def assert_same(call, ours, ref):
    """call(ours) == call(ref), or both raise: ours an Exception (tokenizers 0.23 panics on a stride
    that does not fit what truncation leaves; transformers raises ValueError where there is no pad token)."""
    try:
        expected = call(ref)
    except BaseException as refused:
        if not isinstance(refused, Exception) and type(refused).__name__ != "PanicException":
            raise
        with pytest.raises(Exception):
            call(ours)
    else:
        assert call(ours) == expected


def _plain(batch):
    return {key: value.tolist() if hasattr(value, "tolist") else value for key, value in batch.items()}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("cls", class_params())
def test_auto_tokenizer_matches_transformers(cls, model, tmp_root):
    import transformers

    folder = spm_folder(tmp_root, cls, model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = transformers.AutoTokenizer.from_pretrained(folder)
        ours = bertpiece.AutoTokenizer.from_pretrained(folder)
    all_texts = texts()[::3]
    for i, text in enumerate(all_texts):
        assert _plain(ours(text)) == _plain(ref(text)), text
        if i % 4 == 0:
            kwargs = {"return_offsets_mapping": True, "return_special_tokens_mask": True}
            assert _plain(ours(text, **kwargs)) == _plain(ref(text, **kwargs)), text
            pair = all_texts[-i - 1]
            kwargs = {"truncation": "only_second", "max_length": 40, "stride": 3, "return_overflowing_tokens": True}
            assert_same(lambda tok: _plain(tok(text, pair, **kwargs)), ours, ref)
            ids = ref(text)["input_ids"]
            assert ours.decode(ids) == ref.decode(ids), text
            assert ours.decode(ids, skip_special_tokens=True) == ref.decode(ids, skip_special_tokens=True), text
            assert ours.tokenize(text) == ref.tokenize(text), text
    for size in (1, 8, 32):
        batch = all_texts[:size]
        kwargs = {"padding": True, "truncation": True, "max_length": 32, "return_tensors": "np"}
        assert_same(lambda tok: _plain(tok(batch, **kwargs)), ours, ref)  # (no pad token: both refuse)
        kwargs = {"padding": "max_length", "truncation": "longest_first", "max_length": 24, "pad_to_multiple_of": 8}
        assert_same(lambda tok: _plain(tok(batch, **kwargs)), ours, ref)
    ids = ref(all_texts[:20])["input_ids"]
    assert ours.batch_decode(ids, skip_special_tokens=True) == ref.batch_decode(ids, skip_special_tokens=True)
    assert (ours.all_special_tokens, ours.all_special_ids, ours.pad_token_id, ours.model_max_length, len(ours)) == \
        (ref.all_special_tokens, ref.all_special_ids, ref.pad_token_id, ref.model_max_length, len(ref))
    assert ours.add_tokens(["<new>", "xyzzy"]) == ref.add_tokens(["<new>", "xyzzy"])
    assert ours("a <new> xyzzy b")["input_ids"] == ref("a <new> xyzzy b")["input_ids"]


GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
BYTE_LEVEL_SHAPES = ("gpt2", "roberta", "tiktoken-converted")


@functools.lru_cache(maxsize=None)
def tiktoken_ranks(name):
    """{token bytes: rank} of a .tiktoken file (lines of base64 token and rank)."""
    ranks = {}
    with open(os.path.join(RANKS_DIR, f"{name}.tiktoken"), "rb") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


def merges_from_ranks(ranks):
    """GPT-2's merges.txt from its ranks: each token of two bytes or more is made by one merge, the two
    parts that BPE over its bytes, with only the ranks below its own, ends at."""
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = [bytes([b]) for b in token]
        while len(parts) > 2:
            best = min(((ranks.get(parts[i] + parts[i + 1], rank), i) for i in range(len(parts) - 1)))
            if best[0] >= rank:
                break
            parts[best[1]:best[1] + 2] = [parts[best[1]] + parts[best[1] + 1]]
        assert len(parts) == 2, token
        merges.append((parts[0], parts[1]))
    return merges


def byte_level_json(name, shape):
    """The tokenizer.json of `shape` built from the ranks `name` (gpt2 or multilingual)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers.convert_slow_tokenizer import TikTokenConverter, bytes_to_unicode

    ranks = tiktoken_ranks(name)
    if shape == "tiktoken-converted":
        converter = TikTokenConverter(vocab_file=name, pattern=GPT2_SPLIT)
        converter.load_tiktoken_bpe = lambda _: ranks  # it would import tiktoken to read the file
        return converter.converted().to_str()
    to_unicode = bytes_to_unicode()

    def text(token):
        return "".join(to_unicode[b] for b in token)

    vocab = {text(token): rank for token, rank in ranks.items() if token}
    merges = [(text(a), text(b)) for a, b in merges_from_ranks(ranks)]
    if shape == "gpt2":
        tok = Tokenizer(models.BPE(vocab, merges))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
        tok.add_special_tokens(["<|endoftext|>"])
    else:
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        vocab.update({special: len(vocab) + i for i, special in enumerate(specials)})
        tok = Tokenizer(models.BPE(vocab, merges))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.post_processor = processors.RobertaProcessing(("</s>", vocab["</s>"]), ("<s>", vocab["<s>"]),
                                                          add_prefix_space=True, trim_offsets=True)
        tok.add_special_tokens(specials)
    tok.decoder = decoders.ByteLevel()
    return tok.to_str()


def byte_level_texts():
    rnd = random.Random(1)
    alphabet = (" \t\n\r\u3000\u00a0\u200b\u0301\u00e9e'sSdt\u2019llve0123456789.,!?\u300c\u3002\u3042\u6f22\ud55c"
                "\u0000\u0007\ufeff\u2028\U0001F600\U0001F1EF<|endoftext|><s>  \n\n")
    return texts() + ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40))) for _ in range(300)]


@pytest.mark.parametrize("shape", BYTE_LEVEL_SHAPES)
@pytest.mark.parametrize("name", ["gpt2", pytest.param("multilingual", marks=pytest.mark.slow)])
def test_byte_level_bpe_from_tiktoken_ranks_matches_tokenizers(name, shape):
    import tokenizers

    source = byte_level_json(name, shape)
    ref, ours = tokenizers.Tokenizer.from_str(source), bertpiece.Tokenizer.from_str(source)
    all_texts = byte_level_texts()
    for i, text in enumerate(all_texts):
        pair = all_texts[(i * 7 + 3) % len(all_texts)] if i % 4 == 0 else None
        expected = ref.encode(text, pair)
        assert _fields(ours.encode(text, pair)) == _fields(expected), (text, pair)
        assert ours.decode(expected.ids) == ref.decode(expected.ids), text
    expected = [e.ids for e in ref.encode_batch(all_texts)]
    assert [e.ids for e in ours.encode_batch(all_texts)] == expected
    bulk = ours.encode_batch_arrays(all_texts, num_threads=2)
    assert [bulk.ids[a:b].tolist() for a, b in zip(bulk.row_splits[:-1], bulk.row_splits[1:])] == expected

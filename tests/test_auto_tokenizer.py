"""bertpiece.AutoTokenizer against transformers.AutoTokenizer on the same folder
(tests/auto_shapes.py: RoBERTa, XLM-R, T5, MPNet shapes, and the sentencepiece-only
XLM-R/T5 folders transformers converts): every UD line in one batch call per
shape, pairs, offsets, every truncation strategy, stride and overflow, padding
sides, decode, save_pretrained, pickling, chat templates, collators."""

import copy
import json
import pickle

import numpy as np
import pytest
import torch
import transformers

import bertpiece
from auto_shapes import SHAPES, SPM_SHAPES, folder
from bpe_shapes import UD_FILES, ud_lines

def pair(shape):
    path = folder(shape)
    return transformers.AutoTokenizer.from_pretrained(path), bertpiece.AutoTokenizer.from_pretrained(path)


def same(a, b, context):
    assert list(a.keys()) == list(b.keys()), context
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, (np.ndarray, torch.Tensor)):
            assert type(x) is type(y) and x.dtype == y.dtype and x.shape == y.shape, (context, key)
            assert (x == y).all(), (context, key)
        else:
            assert x == y, (context, key)


@pytest.fixture(scope="module", params=SHAPES)
def toks(request):
    return pair(request.param)


@pytest.mark.parametrize("shape", SPM_SHAPES)
def test_sentencepiece_only_folder(shape, tmp_path):
    """A folder with only the .model and tokenizer_config.json: transformers converts it, bertpiece runs
    what transformers converted (the same file as the XLM-R/T5 shapes', which the other tests cover)."""
    hf, ours = pair(shape)
    assert type(ours).__name__ == type(hf).__name__ and isinstance(ours._tokenizer, bertpiece.Tokenizer)
    lines = ud_sample(30)  # every line runs through the same file in the XLM-R/T5 shapes' tests
    same(hf(lines, return_offsets_mapping=True), ours(lines, return_offsets_mapping=True), shape)
    same(hf(lines[:64], padding=True, return_tensors="np"), ours(lines[:64], padding=True, return_tensors="np"), shape)
    ours.save_pretrained(tmp_path / "ours")
    hf.save_pretrained(tmp_path / "hf")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        assert (tmp_path / "ours" / name).read_text() == (tmp_path / "hf" / name).read_text(), name


def ud_sample(n=None):
    return [line for path in UD_FILES for line in ud_lines(path, n)]


def test_object_is_the_folders_class_over_bertpiece(toks):
    hf, ours = toks
    assert type(ours).__name__ == type(hf).__name__ and isinstance(ours, type(hf))
    assert isinstance(ours._tokenizer, bertpiece.Tokenizer)
    assert isinstance(ours, transformers.PreTrainedTokenizerBase)
    for attr in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token",
                 "all_special_tokens", "all_special_ids", "model_max_length", "padding_side", "truncation_side"):
        assert getattr(ours, attr) == getattr(hf, attr), attr
    assert ours.get_vocab() == hf.get_vocab() and len(ours) == len(hf) and ours.vocab_size == hf.vocab_size
    assert ours.added_tokens_decoder == hf.added_tokens_decoder


def test_ud_lines_in_one_batch(toks):
    """Every 16th UD line (the backend is compared with tokenizers on every line elsewhere:
    test_pipeline_*; here transformers' layer over it, with the options)."""
    hf, ours = toks
    lines = ud_sample()[::16]
    same(hf(lines), ours(lines), "plain")
    same(hf(lines, return_offsets_mapping=True, return_special_tokens_mask=True, return_length=True),
         ours(lines, return_offsets_mapping=True, return_special_tokens_mask=True, return_length=True), "extras")
    ids = hf(lines)["input_ids"]
    assert ours.batch_decode(ids) == hf.batch_decode(ids)
    assert ours.batch_decode(ids, skip_special_tokens=True) == hf.batch_decode(ids, skip_special_tokens=True)
    for clean in (True, False):
        assert ours.batch_decode(ids[:200], clean_up_tokenization_spaces=clean) == \
            hf.batch_decode(ids[:200], clean_up_tokenization_spaces=clean)


@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pairs_truncation_stride_overflow(toks, strategy, side):
    hf, ours = toks
    a, b = ud_sample(3), ud_sample(3)[::-1]
    hf.truncation_side = ours.truncation_side = side
    try:
        for max_length, stride in ((24, 0), (40, 5), (17, 3)):
            kw = dict(truncation=strategy, max_length=max_length, stride=stride, return_overflowing_tokens=True,
                      return_offsets_mapping=True, padding="longest")
            try:
                want = hf(a, b, **kw)
            except BaseException as e:  # the same error; where tokenizers panics, a clear exception
                with pytest.raises(type(e) if isinstance(e, Exception) else Exception):
                    ours(a, b, **kw)
                continue
            same(want, ours(a, b, **kw), (strategy, max_length, stride))
            same(hf(a[3], b[3], **kw), ours(a[3], b[3], **kw), (strategy, max_length, stride, "one pair"))
    finally:
        hf.truncation_side = ours.truncation_side = "right"


@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("tensors", [None, "np", "pt"])
def test_padding_sides_and_tensors(toks, padding_side, tensors):
    hf, ours = toks
    lines = ud_sample(2)
    for kw in (dict(padding=True), dict(padding="max_length", max_length=64, truncation=True),
               dict(padding=True, pad_to_multiple_of=8), dict(padding=True, truncation=True, max_length=12)):
        kw = dict(kw, padding_side=padding_side, return_tensors=tensors)
        same(hf(lines, **kw), ours(lines, **kw), kw)
        same(hf(lines, lines[::-1], **kw), ours(lines, lines[::-1], **kw), ("pairs", kw))
        same(hf(lines[0], **kw), ours(lines[0], **kw), ("one", kw))


def test_pad_convert_and_special_tokens_in_text(toks):
    hf, ours = toks
    specials = " ".join(hf.all_special_tokens[:4])
    lines = [f"{specials} a {hf.all_special_tokens[0]}b", "x" + hf.all_special_tokens[-1] + " y"] + ud_sample(3)
    same(hf(lines), ours(lines), "specials in text")
    same(hf(lines, split_special_tokens=True), ours(lines, split_special_tokens=True), "split_special_tokens")
    rows = hf(lines)["input_ids"]
    same(hf.pad({"input_ids": rows}, return_tensors="np"), ours.pad({"input_ids": rows}, return_tensors="np"), "pad")
    assert ours.convert_ids_to_tokens(rows[0]) == hf.convert_ids_to_tokens(rows[0])
    toks_ = hf.convert_ids_to_tokens(rows[2])
    assert ours.convert_tokens_to_ids(toks_) == hf.convert_tokens_to_ids(toks_)
    assert ours.convert_tokens_to_string(toks_) == hf.convert_tokens_to_string(toks_)
    assert ours.tokenize(lines[0]) == hf.tokenize(lines[0])


def test_added_tokens_then_encode(toks):
    hf, ours = (copy.deepcopy(t) for t in toks)
    for t in (hf, ours):
        t.add_tokens(["zzqy", transformers.AddedToken(" kw", lstrip=True)])
        t.add_special_tokens({"additional_special_tokens": ["<extra_sp>"]})
    lines = ["a zzqy b <extra_sp> kw c", "zzqyzzqy<extra_sp>"] + ud_sample(2)
    same(hf(lines, padding=True), ours(lines, padding=True), "added")
    assert ours.batch_decode(hf(lines)["input_ids"]) == hf.batch_decode(hf(lines)["input_ids"])


def test_save_pretrained_reloads_in_transformers(toks, tmp_path):
    hf, ours = toks
    ours.save_pretrained(tmp_path / "ours")
    hf.save_pretrained(tmp_path / "hf")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        assert (tmp_path / "ours" / name).read_text() == (tmp_path / "hf" / name).read_text(), name
    back = transformers.AutoTokenizer.from_pretrained(tmp_path / "ours")
    assert type(back) is type(hf)
    lines = ud_sample(5)
    same(hf(lines, padding=True), back(lines, padding=True), "reloaded")
    again = bertpiece.AutoTokenizer.from_pretrained(tmp_path / "ours")
    same(hf(lines, padding=True), again(lines, padding=True), "reloaded by bertpiece")


def test_pickle_and_deepcopy(toks):
    hf, ours = toks
    lines = ud_sample(4)
    for other in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)):
        assert type(other) is type(ours) and isinstance(other._tokenizer, bertpiece.Tokenizer)
        same(hf(lines, padding=True), other(lines, padding=True), "copied")


def test_chat_template(toks):
    hf, ours = toks
    template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}{{ eos_token }}\n{% endfor %}"
                "{% if add_generation_prompt %}assistant:{% endif %}")
    messages = [{"role": "user", "content": "Hello there"}, {"role": "assistant", "content": ud_sample(1)[0]}]
    for kw in (dict(tokenize=False), dict(tokenize=True), dict(tokenize=True, add_generation_prompt=True,
                                                                return_dict=True, return_tensors="np")):
        want = hf.apply_chat_template(messages, chat_template=template, **kw)
        got = ours.apply_chat_template(messages, chat_template=template, **kw)
        if isinstance(want, dict) or hasattr(want, "keys"):
            same(want, got, kw)
        else:
            assert want == got, kw


def test_collator(toks):
    hf, ours = toks
    features = [{"input_ids": ids} for ids in hf(ud_sample(6))["input_ids"]]
    for cls in (transformers.DataCollatorWithPadding,):
        same(cls(hf)(copy.deepcopy(features)), cls(ours)(copy.deepcopy(features)), cls.__name__)
    if hf.mask_token is not None:
        torch.manual_seed(0)
        want = transformers.DataCollatorForLanguageModeling(hf)(copy.deepcopy(features))
        torch.manual_seed(0)
        got = transformers.DataCollatorForLanguageModeling(ours)(copy.deepcopy(features))
        same(want, got, "mlm")


def test_alignment_of_the_batch(toks):
    hf, ours = toks
    lines = ud_sample(3)
    want, got = hf(lines, lines[::-1]), ours(lines, lines[::-1])
    for i in range(len(lines)):
        assert got.tokens(i) == want.tokens(i) and got.word_ids(i) == want.word_ids(i)
        assert got.sequence_ids(i) == want.sequence_ids(i)
        for t in range(len(want["input_ids"][i])):
            assert got.token_to_chars(i, t) == want.token_to_chars(i, t)
            assert got.token_to_word(i, t) == want.token_to_word(i, t)
        for c in range(0, len(lines[i]), 3):
            assert got.char_to_token(i, c) == want.char_to_token(i, c)
            assert got.char_to_word(i, c) == want.char_to_word(i, c)


def test_hf_cache_id_and_refusals(tmp_path, monkeypatch):
    import shutil

    path = folder("roberta")
    repo = tmp_path / "models--someone--rob"
    shutil.copytree(path, repo / "snapshots" / ("a" * 40))
    (repo / "snapshots" / ("a" * 40) / "config.json").write_text('{"model_type": "roberta"}')
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("a" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    import huggingface_hub.constants as c
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(tmp_path))
    tok = bertpiece.AutoTokenizer.from_pretrained("someone/rob")
    assert isinstance(tok._tokenizer, bertpiece.Tokenizer)
    with pytest.raises(OSError):
        bertpiece.AutoTokenizer.from_pretrained("someone/not-in-the-cache")
    with pytest.raises(ValueError, match="use_fast=False"):
        bertpiece.AutoTokenizer.from_pretrained(path, use_fast=False)
    with pytest.raises(TypeError):
        bertpiece.AutoTokenizer.from_pretrained(3)


def test_bert_shaped_folder_is_transformers_bert_tokenizer_over_bertpiece():
    hf, ours = pair("bert")
    assert type(ours).__name__ == "BertTokenizer" and isinstance(ours, transformers.BertTokenizer)
    assert isinstance(ours._tokenizer, bertpiece.Tokenizer)
    lines = ud_sample(20)
    same(hf(lines), ours(lines), "bert")
    same(hf(lines, lines[::-1], truncation=True, max_length=32, padding=True, return_tensors="np"),
         ours(lines, lines[::-1], truncation=True, max_length=32, padding=True, return_tensors="np"), "bert pairs")
    same(hf(lines[:50], padding=True, return_tensors="np"), ours(lines[:50], padding=True, return_tensors="np"),
         "bert fast path (token type ids)")
    assert ours.batch_decode(hf(lines)["input_ids"]) == hf.batch_decode(hf(lines)["input_ids"])


@pytest.mark.parametrize("flag", [True, False])
def test_class_from_pretrained_with_arguments(flag):
    """The class over bertpiece takes transformers' class's arguments as that class does (RobertaTokenizer
    rebuilds its pre-tokenizer from add_prefix_space; transformers only lets a class with its own
    __init__ do so, which the class over bertpiece must therefore be too)."""
    from bertpiece.auto_tokenizer import tokenizer_class

    path = folder("roberta")
    hf = transformers.RobertaTokenizer.from_pretrained(path, add_prefix_space=flag)
    ours = tokenizer_class(transformers.RobertaTokenizer).from_pretrained(path, add_prefix_space=flag)
    auto = bertpiece.AutoTokenizer.from_pretrained(path, add_prefix_space=flag)
    assert ours.backend_tokenizer.to_str() == hf.backend_tokenizer.to_str() == auto.backend_tokenizer.to_str()
    lines = ud_sample(2)
    same(hf(lines), ours(lines), flag)
    same(hf(lines), auto(lines), flag)


def test_decode_learns_the_model_class_without_reading_the_model(monkeypatch):
    """transformers' decode asks for `backend_tokenizer.model` on every call with clean-up (to skip it
    for BPE): bertpiece makes that model object without reading its state, which for a 250,000-piece
    vocabulary took seconds per decode (every component access parsed the whole tokenizer.json)."""
    from bertpiece.tokenizers_api import slots

    read = []
    real = slots.exact_member
    monkeypatch.setattr(slots, "exact_member", lambda text, key: read.append(key) or real(text, key))
    hf = transformers.AutoTokenizer.from_pretrained(folder("xlmr"))
    ours = bertpiece.AutoTokenizer.from_pretrained(folder("xlmr"))
    ids = hf(ud_sample(2))["input_ids"]
    for clean in (True, False, True):
        assert ours.batch_decode(ids, clean_up_tokenization_spaces=clean) == \
            hf.batch_decode(ids, clean_up_tokenization_spaces=clean)
    assert "model" not in read
    model = ours.backend_tokenizer.model
    assert type(model).__name__ == type(hf.backend_tokenizer.model).__name__ == "Unigram" and "model" not in read
    assert json.loads(model.__getstate__()) == json.loads(hf.backend_tokenizer.model.__getstate__())
    assert read == ["model"]


@pytest.mark.parametrize("pretty", [False, True])
@pytest.mark.parametrize("shape", ["xlmr", "roberta"])
def test_one_member_read_exactly_is_the_whole_file_read_exactly(shape, pretty):
    from bertpiece.tokenizers_api.serialization import serde_float
    from bertpiece.tokenizers_api.slots import exact_member

    text = transformers.AutoTokenizer.from_pretrained(folder(shape)).backend_tokenizer.to_str(pretty)
    whole = json.loads(text, parse_float=serde_float)
    for key in [*whole, "absent"]:
        assert repr(exact_member(text, key)) == repr(whole.get(key)), key
    hand_written = ' {\n "model" : {"type": "Unigram", "vocab": [["a", -1.5e-3]]} ,"version":"1.0" }\n'
    assert exact_member(hand_written, "model") == json.loads(hand_written)["model"]
    assert exact_member(hand_written, "version") == "1.0" and exact_member(hand_written, "decoder") is None

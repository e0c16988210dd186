"""bertpiece.Tokenizer's BPE model options against tokenizers 0.23.3 (unk
token, fuse_unk, byte_fallback, continuing_subword_prefix, end_of_word_suffix,
ignore_merges, legacy "a b" merges), and malformed or unsupported
tokenizer.json files: a clear error naming the field, never a crash."""

import functools
import json

import pytest
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, trainers

import bertpiece
from bpe_shapes import UD_FILES, assert_same, gpt2_json, training_sample, ud_lines


@functools.lru_cache(maxsize=None)
def plain_bpe(prefix, suffix):
    """A BPE without byte level (so unknown chars exist), trained by HF on whitespace words."""
    affixes = {k: v for k, v in (("continuing_subword_prefix", prefix), ("end_of_word_suffix", suffix)) if v}
    tok = HFTokenizer(models.BPE(unk_token="<unk>", **affixes))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=["<unk>"], limit_alphabet=60, show_progress=False,
                                  **affixes)
    tok.train_from_iterator(training_sample(), trainer)
    return tok.to_str()


def variant(base, pre_tokenizer=None, **model):
    cfg = json.loads(base)
    cfg["model"].update(model)
    # No pre-tokenizer: each text is one word, with its spaces (unknown chars).
    cfg["pre_tokenizer"] = pre_tokenizer
    return json.dumps(cfg)


OPTIONS = [
    dict(fuse_unk=False), dict(fuse_unk=True), dict(unk_token=None), dict(ignore_merges=True),
    dict(byte_fallback=True), dict(byte_fallback=True, fuse_unk=True),
]
AFFIXES = [(None, None), ("##", None), (None, "</w>"), ("##", "</w>")]


def add_byte_tokens(text):
    cfg = json.loads(text)
    vocab = cfg["model"]["vocab"]
    for b in range(0, 256, 3):  # a third of the bytes: the others stay unknown
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    return json.dumps(cfg)


@pytest.mark.parametrize("prefix, suffix", AFFIXES)
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_model_options_match_tokenizers(prefix, suffix, options):
    text = variant(add_byte_tokens(plain_bpe(prefix, suffix)), **options)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    lines = [line[:60] for path in UD_FILES for line in ud_lines(path, 6)] + ["", "a", "ab~~ab", "日本 語", "€€x€"]
    for line in lines:
        assert_same(ours.encode(line), theirs.encode(line), line)
        ids = theirs.encode(line).ids  # no decoder in these files: tokens joined by spaces
        assert ours.decode(ids) == theirs.decode(ids)


def test_legacy_string_merges_match_tokenizers():
    cfg = json.loads(gpt2_json())
    cfg["model"]["merges"] = [" ".join(m) for m in cfg["model"]["merges"]]
    text = json.dumps(cfg)
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    for line in ud_lines(UD_FILES[0], 30):
        assert_same(ours.encode(line), theirs.encode(line), line)


def test_unk_token_missing_from_vocab_is_an_error_when_needed():
    text = variant(plain_bpe(None, None), unk_token="<nope>")
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert ours.encode("the").ids == theirs.encode("the").ids
    with pytest.raises(Exception, match="nope"):
        theirs.encode("the \x01")
    with pytest.raises(ValueError, match="unk_token \"<nope>\" is not in the vocabulary"):
        ours.encode("the \x01")


def edited(edit):
    cfg = json.loads(gpt2_json())
    edit(cfg)
    return json.dumps(cfg)


def nest(depth):
    n = {"type": "NFC"}
    for _ in range(depth):
        n = {"type": "Sequence", "normalizers": [n]}
    return n


MALFORMED = [
    (lambda c: c["model"]["vocab"].update({"Ġthe": "7"}), r'model\.vocab\."Ġthe": expected an integer'),
    (lambda c: c["model"]["vocab"].update({"x": -1}), r'model\.vocab\."x": expected an integer'),
    (lambda c: c["model"]["vocab"].update({"x": 2**32}), r'model\.vocab\."x": expected an integer'),
    (lambda c: c["model"]["vocab"].update({"zz-dup": 5}), r"model\.vocab: id 5 is given to both"),
    (lambda c: c["model"].pop("merges"), r"model\.merges: missing field"),
    (lambda c: c["model"].update(merges={"a": "b"}), r"model\.merges: expected an array"),
    (lambda c: c["model"]["merges"].append(["Ġ", "qqq"]), r'model\.merges\[\d+\]: token "qqq" is not in model\.vocab'),
    (lambda c: c["model"]["merges"].append(["Ġ"]), r"model\.merges\[\d+\]: expected \[left, right\]"),
    (lambda c: c["model"]["merges"].append("a b c"), r"model\.merges\[\d+\]: expected \"left right\""),
    (lambda c: c["model"]["merges"].append([1, 2]), r"model\.merges\[\d+\]\[0\]: expected a string"),
    (lambda c: c["model"].update(unk_token=5), r"model\.unk_token: expected a string or null"),
    (lambda c: c["model"].update(fuse_unk="yes"), r"model\.fuse_unk: expected true, false or null"),
    (lambda c: c["model"].update(dropout=1.5), r"model\.dropout: expected a number in \[0, 1\]"),
    (lambda c: c.pop("model"), r"model: missing field"),
    (lambda c: c.update(model=[]), r"model: expected an object"),
    (lambda c: c.update(version="2.0"), r'version: expected "1.0"'),
    (lambda c: c.update(added_tokens={}), r"added_tokens: expected an array"),
    (lambda c: c.update(added_tokens=[{"id": 1, "content": "x"}]), r"added_tokens\[0\]\.single_word: missing field"),
    (lambda c: c.update(added_tokens=[{"id": "1", "content": "x", "single_word": False, "lstrip": False,
                                       "rstrip": False, "normalized": False, "special": True}]),
     r"added_tokens\[0\]\.id: expected an integer"),
    (lambda c: c["pre_tokenizer"].pop("add_prefix_space"), r"pre_tokenizer\.add_prefix_space: missing field"),
    (lambda c: c["pre_tokenizer"].update(type=3), r"pre_tokenizer\.type: expected a string"),
    (lambda c: c["post_processor"].update(trim_offsets="no"), r"post_processor\.trim_offsets: expected true or false"),
    (lambda c: c.update(post_processor={"type": "RobertaProcessing", "sep": ["</s>"], "cls": ["<s>", 0]}),
     r"post_processor\.sep: expected \[token, id\]"),
    (lambda c: c.update(post_processor={"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[X]", "type_id": 0}}],
                                        "pair": [], "special_tokens": {}}),
     r'post_processor\.single\[0\]\.SpecialToken\.id: "\[X\]" is not in special_tokens'),
    (lambda c: c.update(normalizer=nest(40)), r"Sequences nested deeper than 16"),
    (lambda c: c.update(normalizer={"type": "Sequence", "normalizers": [{"type": "NFC"}, "NFC"]}),
     r"normalizer\.normalizers\[1\]: expected an object"),
]


@pytest.mark.parametrize("edit, message", MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_files_name_the_field(edit, message):
    with pytest.raises(ValueError, match=message):
        bertpiece.Tokenizer.from_str(edited(edit))


def test_not_json_and_deep_json():
    with pytest.raises(ValueError, match="invalid JSON"):
        bertpiece.Tokenizer.from_str("{")
    with pytest.raises(ValueError, match="invalid JSON"):
        bertpiece.Tokenizer.from_str("[" * 100000 + "]" * 100000)
    with pytest.raises(ValueError, match="expected an object"):
        bertpiece.Tokenizer.from_str("[]")


UNSUPPORTED = [
    (lambda c: c.update(normalizer={"type": "NoSuchNormalizer"}), r'normalizer\.type: unsupported "NoSuchNormalizer"'),
    (lambda c: c.update(pre_tokenizer={"type": "NoSuchPreTokenizer"}), r'pre_tokenizer\.type: unsupported "NoSuchPreTokenizer"'),
    (lambda c: c.update(decoder={"type": "Replace", "pattern": {"Regex": r"\bx"}, "content": " "}),
     r"decoder\.pattern\.Regex: unsupported pattern"),
    (lambda c: c.update(post_processor={"type": "NoSuchProcessor"}), r'post_processor\.type: unsupported "NoSuchProcessor"'),
    (lambda c: c["model"].update(type="NoSuchModel"), r'model\.type: unsupported "NoSuchModel"'),
    (lambda c: c["model"].update(dropout=0.1), r"model\.dropout: unsupported 0\.1"),
]


@pytest.mark.parametrize("edit, message", UNSUPPORTED, ids=[m for _, m in UNSUPPORTED])
def test_unsupported_components_are_refused(edit, message):
    with pytest.raises(NotImplementedError, match=message):
        bertpiece.Tokenizer.from_str(edited(edit))


def test_merge_shorter_than_prefix_is_an_error_not_a_panic():
    text = json.dumps({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]],
                                 "continuing_subword_prefix": "###"}})
    with pytest.raises(BaseException, match="out of range for slice"):  # HF: pyo3_runtime.PanicException
        HFTokenizer.from_str(text)
    with pytest.raises(ValueError, match=r'model\.merges\[0\]: cannot drop continuing_subword_prefix \(3 bytes\) from "b"'):
        bertpiece.Tokenizer.from_str(text)


def test_lone_surrogate_is_a_type_error_as_in_tokenizers():
    ours, theirs = bertpiece.Tokenizer.from_str(gpt2_json()), HFTokenizer.from_str(gpt2_json())
    for call in (lambda t: t.encode("ab\ud800"), lambda t: t.encode_batch(["ok", "ab\ud800"]),
                 lambda t: t.encode(["x", "\udfff"], is_pretokenized=True)):
        with pytest.raises(TypeError):
            call(theirs)
        with pytest.raises(TypeError, match="lone surrogate"):
            call(ours)


def test_dropout_zero_is_no_dropout():
    text = edited(lambda c: c["model"].update(dropout=0.0))
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert_same(ours.encode("dropout zero"), theirs.encode("dropout zero"), "dropout zero")

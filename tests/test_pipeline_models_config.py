"""Malformed Unigram, WordPiece, WordLevel, Metaspace, decoder and
BertProcessing sections: a ValueError naming the field (NotImplementedError
for what is not implemented), never a crash; and where tokenizers 0.23.3
loads or panics on a file bertpiece refuses, the documented difference."""

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from models_shapes import unigram_base, wordpiece_json


def unigram(**model):
    return {"version": "1.0", "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0]], **model}}


def wordpiece(**model):
    base = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "a": 1}}
    return {"version": "1.0", "model": {**base, **model}}


def with_(cfg, **sections):
    return {**cfg, **sections}


MS = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}

MALFORMED = [
    (unigram(vocab=[]), r"model\.vocab: empty"),
    (unigram(vocab=[["<unk>", "0.5"]]), r"model\.vocab\[0\]\[1\]: expected a number"),
    (unigram(vocab=[["<unk>", None]]), r"model\.vocab\[0\]\[1\]: expected a number"),
    (unigram(vocab=[["<unk>"]]), r"model\.vocab\[0\]: expected \[piece, score\]"),
    (unigram(vocab=[[1, 0.0]]), r"model\.vocab\[0\]\[0\]: expected a string"),
    (unigram(vocab={"a": 0.0}), r"model\.vocab: expected an array"),
    (unigram(unk_id=2), r"model\.unk_id: 2 is past the end of model\.vocab \(2 pieces\)"),
    (unigram(unk_id=-1), r"model\.unk_id: expected an integer"),
    (unigram(vocab=[["<unk>", 0.0], ["a", -1.0], ["a", -2.0]]), r'model\.vocab\[2\]: piece "a" is already model\.vocab\[1\]'),
    (unigram(byte_fallback="yes"), r"model\.byte_fallback: expected true, false or null"),
    (wordpiece(max_input_chars_per_word=-1), r"model\.max_input_chars_per_word: expected a non-negative integer"),
    (wordpiece(max_input_chars_per_word=None), r"model\.max_input_chars_per_word: missing field"),
    (wordpiece(unk_token=None), r"model\.unk_token: missing field"),
    (wordpiece(continuing_subword_prefix=3), r"model\.continuing_subword_prefix: expected a string"),
    (wordpiece(vocab={"a": 1, "b": 1}), r"model\.vocab: id 1 is given to both"),
    ({"model": {"type": "WordLevel", "vocab": {"a": "0"}, "unk_token": "a"}}, r'model\.vocab\."a": expected an integer'),
    ({"model": {"type": "WordLevel", "vocab": {"a": 0}}}, r"model\.unk_token: missing field"),
    (with_(unigram(), pre_tokenizer={**MS, "replacement": "▁▁"}), r"pre_tokenizer\.replacement: expected a string of one char"),
    (with_(unigram(), pre_tokenizer={**MS, "replacement": ""}), r"pre_tokenizer\.replacement: expected a string of one char"),
    (with_(unigram(), pre_tokenizer={**MS, "prepend_scheme": "sometimes"}), r"pre_tokenizer\.prepend_scheme: expected"),
    (with_(unigram(), pre_tokenizer={**MS, "split": 1}), r"pre_tokenizer\.split: expected true, false or null"),
    (with_(unigram(), pre_tokenizer={"type": "Metaspace", "replacement": "▁", "add_prefix_space": False}),
     r"pre_tokenizer\.add_prefix_space: false does not match prepend_scheme"),
    (with_(unigram(), decoder={"type": "Strip", "content": " ", "start": -1, "stop": 0}), r"decoder\.start: expected a non-negative integer"),
    (with_(unigram(), decoder={"type": "Strip", "content": "ab", "start": 1, "stop": 0}), r"decoder\.content: expected a string of one char"),
    (with_(unigram(), decoder={"type": "WordPiece", "prefix": "##"}), r"decoder\.cleanup: missing field"),
    (with_(unigram(), decoder={"type": "BPEDecoder"}), r"decoder\.suffix: missing field"),
    (with_(unigram(), decoder={"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": 1, "cleanup": True}),
     r"decoder\.word_delimiter_token: expected a string"),
    (with_(unigram(), decoder={"type": "Replace", "pattern": {"Str": "a"}, "content": "b"}), r"decoder\.pattern: expected"),
    (with_(unigram(), decoder={"type": "Sequence", "decoders": [{"type": "Fuse"}, "Fuse"]}), r"decoder\.decoders\[1\]: expected an object"),
    (with_(unigram(), post_processor={"type": "BertProcessing", "sep": ["[SEP]"], "cls": ["[CLS]", 0]}),
     r"post_processor\.sep: expected \[token, id\]"),
    (with_(unigram(), post_processor={"type": "BertProcessing", "sep": ["[SEP]", 1]}), r"post_processor\.cls: missing field"),
]


@pytest.mark.parametrize("cfg, message", MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_sections_name_the_field(cfg, message):
    with pytest.raises(ValueError, match=message):
        bertpiece.Tokenizer.from_str(json.dumps(cfg))


REGEX_DECODERS = [("▁+", " "), (r"\s+", "_"), (r"\p{P}", ""), (r"\w+", "<w>"), (r"\A▁", ""), (r"a$", "A"),
                  (r"[^\w\s]+|\d", "#")]
DECODED = [["▁▁a", "b▁", "▁", "c"], ["Hello,", "▁world", "!!", "▁x²", "12"], ["a\na", "▁ab", "a"], [], [""], ["é\u200d"]]


@pytest.mark.parametrize("pattern, content", REGEX_DECODERS)
def test_regex_replace_decoder_equals_tokenizers(pattern, content):
    """HF runs its Replace normalizer on each token; so does bertpiece, with the normalizer's regex subset."""
    from tokenizers import Regex, decoders

    theirs = decoders.Replace(Regex(pattern), content)
    ours = bertpiece.decoders.Replace(bertpiece.Regex(pattern), content)
    for tokens in DECODED:
        assert ours.decode(tokens) == theirs.decode(tokens), tokens
    vocab = [["<unk>", 0.0]] + [[p, -1.0 - k] for k, p in enumerate(["▁", "a", "b", "▁ab", "Hello", ",", "!", "▁x", "²"])]
    cfg = with_(unigram(vocab=vocab), pre_tokenizer=MS,
                decoder={"type": "Sequence", "decoders": [json.loads(theirs.__getstate__()), {"type": "Fuse"}]})
    hf, bp = HFTokenizer.from_str(json.dumps(cfg)), bertpiece.Tokenizer.from_str(json.dumps(cfg))
    for text in ["a b ab", "Hello, x² ab!", "b  a"]:
        ids = hf.encode(text).ids
        assert bp.decode(ids) == hf.decode(ids), text


def test_regex_replace_decoder_outside_the_subset_is_refused():
    cfg = with_(unigram(), decoder={"type": "Replace", "pattern": {"Regex": r"\bx"}, "content": " "})
    HFTokenizer.from_str(json.dumps(cfg))  # tokenizers loads it
    with pytest.raises(NotImplementedError, match=r"decoder\.pattern\.Regex: unsupported pattern"):
        bertpiece.Tokenizer.from_str(json.dumps(cfg))


def test_deliberate_differences_from_tokenizers():
    """Files tokenizers loads that bertpiece refuses (docs/pipeline.md's table)."""
    dup = json.dumps(unigram(vocab=[["<unk>", 0.0], ["a", -1.0], ["a", -2.0]]))
    assert HFTokenizer.from_str(dup).encode("a").ids == [2]  # the later duplicate wins the lookup
    empty = json.dumps(unigram(vocab=[], unk_id=None))
    assert HFTokenizer.from_str(empty).encode("").ids == []
    for text in (dup, empty):
        with pytest.raises(ValueError, match=r"model\.vocab"):
            bertpiece.Tokenizer.from_str(text)
    # HF's Strip decoder panics when stripping crosses itself; bertpiece gives "".
    cfg = json.dumps(with_(wordpiece(vocab={"[UNK]": 0, "_": 1}),
                           decoder={"type": "Strip", "content": "_", "start": 1, "stop": 1}))
    with pytest.raises(BaseException, match="slice index"):
        HFTokenizer.from_str(cfg).decode([1])
    assert bertpiece.Tokenizer.from_str(cfg).decode([1]) == ""


def test_hf_refuses_what_bertpiece_refuses():
    """The malformed files above that tokenizers can read at all, it refuses too."""
    for cfg in (unigram(vocab=[]), unigram(unk_id=2), wordpiece(max_input_chars_per_word=-1),
                with_(unigram(), pre_tokenizer={"type": "Metaspace", "replacement": "▁", "add_prefix_space": False})):
        with pytest.raises(Exception):
            HFTokenizer.from_str(json.dumps(cfg))


def test_shapes_load_in_both():
    for text in (unigram_base(), wordpiece_json()):
        assert bertpiece.Tokenizer.from_str(text).get_vocab() == HFTokenizer.from_str(text).get_vocab()

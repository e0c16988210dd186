"""The core's passes over tokenizer.json text (src/json_text.rs), which load and
save take instead of building Python objects of the whole file: checked against
the Python path they replace (serialization.py keeps it as their fallback) and
against tokenizers 0.23.3 / transformers on the same tokenizer. Cheap: small
vocabularies, no timing."""

import json
import random
import struct

import pytest
import transformers
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models

import bertpiece
from bertpiece import _core
from bertpiece.auto_tokenizer import adopt
from bertpiece.tokenizers_api import serialization
from bertpiece.tokenizers_api.serialization import serde_exact_literal, serde_float
from serialize_shapes import SHAPES


def _python_path(tok, pretty):
    return serialization._tokenizer_json_python(tok._json, tok._core, tok._settings, pretty)


def _random_scores(seed, n):
    rng = random.Random(seed)
    scores = [0.0, -0.0, 1e-4, 1e-5, -1.5e-5, 9.99e-6, 1e-7, 1e15, 1e16, -1.2345678901234568e17, 5e-324,
              1.7976931348623157e308, -7.3246283531188965]
    scores += [rng.choice((-1, 1)) * rng.random() * 10.0 ** rng.randint(-30, 30) for _ in range(n)]
    scores += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(n // 3)]
    scores += [struct.unpack("f", struct.pack("I", rng.getrandbits(32)))[0] for _ in range(n // 3)]
    return [s for s in scores if s == s and abs(s) != float("inf")]


HAND_WRITTEN = r"""{"model" : {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<unk>": 3, "\u00e9\/\"\\\t\u0007": 4},
   "merges": ["a b"], "unk_token": "<unk>", "dropout": null, "extra": [-0, 12345678901234567890123, 1.50, 2E+2, 3e-5,
   -1.5e-7, [], {}, [[]], {"x": {}}, true, false]},
 "pre_tokenizer": {"type": "Whitespace"}, "decoder": {"type": "Fuse"}, "decoder": null,
 "normalizer": {"type": "Lowercase"}}"""


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_to_str_takes_the_core_pass_on_every_shape_and_matches_the_python_path(shape):
    tok = bertpiece.Tokenizer.from_str(SHAPES[shape]())
    tok.add_special_tokens(["<x>", "\u0007\"\\q"])
    tok.enable_padding(length=9)
    for pretty in (False, True):
        assert _core.json_top_level_values(tok._json, ["model"], pretty)[0] is not None  # not the fallback
        assert tok.to_str(pretty=pretty) == _python_path(tok, pretty), pretty


def test_hand_written_text_as_pythons_json_reads_and_writes_it():
    """Escapes written anew, -0 an int, big ints kept, a repeated top-level key's last value, empty
    containers, serde_json's floats: as json.loads(parse_float=serde_float) + json.dumps write them."""
    tok = bertpiece.Tokenizer.from_str(HAND_WRITTEN)
    for pretty in (False, True):
        assert tok.to_str(pretty=pretty) == _python_path(tok, pretty)
    doc = json.loads(tok.to_str(pretty=True))
    assert doc["decoder"] is None and doc["model"]["extra"][:5] == [0, 12345678901234567890123, 1.5, 200.0, 3e-5]
    assert "\u00e9/\"\\\t\u0007" in doc["model"]["vocab"]


def test_a_repeated_key_inside_a_component_falls_back_to_pythons_reading():
    # json.loads keeps one entry (the last value, at the first place); the core's pass refuses, Python writes it.
    text = '{"model":{"type":"BPE","vocab":{"a":0,"<unk>":1},"merges":[],"unk_token":"<unk>","dropout":0.5,"dropout":null}}'
    tok = bertpiece.Tokenizer.from_str(text)
    with pytest.raises(ValueError, match="repeated key"):
        _core.json_top_level_values(text, ["model"], False)
    assert '"dropout":null' in tok.to_str() and tok.to_str() == _python_path(tok, False)


def test_random_scores_bytes_equal_hfs_and_the_python_path():
    scores = _random_scores(26, 1500)
    made = HFTokenizer(models.Unigram([("<unk>", 0.0)] + [(f"t{i}", s) for i, s in enumerate(scores)], 0, False))
    hf, ours = HFTokenizer.from_str(made.to_str()), bertpiece.Tokenizer.from_str(made.to_str())
    for pretty in (False, True):
        assert ours.to_str(pretty=pretty) == hf.to_str(pretty=pretty) == _python_path(ours, pretty)


def test_exact_float_pass_equals_the_python_pass():
    """core_json_text's literals: the core's scan keeps a literal serde_json reads as float() does and asks
    Python's serde_exact_literal for the rest; the values read back equal the Python pass's."""
    scores = _random_scores(260, 3000)
    text = json.dumps({"vocab": [["t", s] for s in scores], "s": "1.5e-7 \\\" -7.3246283531188965"},
                      ensure_ascii=False, separators=(",", ":"))
    fast = _core.exact_float_literals(text, lambda lit: serde_exact_literal(float(lit)))
    slow = serialization._STRING_OR_FLOAT.sub(serialization._exact_float, text)
    read = lambda t: json.loads(t, parse_float=serde_float)  # noqa: E731 -- as the core reads them
    assert read(fast) == read(slow)
    assert sum(serde_float(repr(s)) != s for s in scores) > 10  # the pass had literals to replace


def test_auto_tokenizer_holds_converter_scores_exactly():
    """transformers builds Unigram from exact Python floats (a converter's sentencepiece scores); the
    backend swap hands them to the core exactly: to_str and save_pretrained bytes equal transformers'."""
    rng = random.Random(2026)
    f32 = [struct.unpack("f", struct.pack("f", rng.uniform(-30.0, -1.0)))[0] for _ in range(4000)]
    f32 = [s for s in f32 if serde_float(serde_exact_literal(s)) == s]  # none a JSON number cannot reach
    assert sum(serde_float(repr(s)) != s for s in f32) > 0  # some need a rewritten literal
    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [(f"\u2581p{i}", s) for i, s in enumerate(f32)]
    vocab.append(("<mask>", 0.0))
    hf = transformers.XLMRobertaTokenizer(vocab=vocab)
    ours = adopt(transformers.XLMRobertaTokenizer(vocab=vocab))
    assert isinstance(ours._tokenizer, bertpiece.Tokenizer)
    assert ours._tokenizer.to_str() == hf._tokenizer.to_str()
    assert ours._tokenizer.to_str(pretty=True) == hf._tokenizer.to_str(pretty=True)

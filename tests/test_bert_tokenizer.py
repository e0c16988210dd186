"""bertpiece.BertTokenizer against the real transformers 5 tokenizers.

- reference="tokenizers" (default) against `transformers.BertTokenizer`
  (Hugging Face tokenizers) loaded from a directory holding the same vocab.txt
  and a tokenizer_config.json with the same options;
- reference="transformers" against `BertTokenizerLegacy`.

Every expectation is computed by transformers at test time. Inputs: a few
lines of each UD corpus (tests/data) x the four bundled vocabularies, then an
options grid (casing, accents, CJK, pairs, every truncation strategy with
stride and overflow, every padding mode, sides) on a smaller sample.
"""

import json
import os
import sys
import warnings

import numpy as np
import pytest

import bertpiece
from bertpiece import BertTokenizer
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402  (a test dependency: never skipped)
transformers.logging.set_verbosity_error()
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy  # noqa: E402

VOCABS = {name: entry.do_lower_case for name, entry in bertpiece.PRETRAINED.items()}
UNCASED, CASED, MULTI = "bert-base-uncased", "bert-base-cased", "bert-base-multilingual-cased"
LINES_PER_FILE = 3
FILES = data_files()


def sample(filename, n=LINES_PER_FILE):
    lines = [line for line in read_lines(filename) if line.strip()]
    step = max(1, len(lines) // n)
    return lines[::step][:n]


ALL_LINES = [line for f in FILES for line in sample(f)]
FEW_LINES = [line for f in FILES for line in sample(f, 1)]


def options_key(opts):
    return tuple(sorted(opts.items()))


_CACHE = {}


def write_dir(tmp_root, name, opts):
    """A transformers-loadable directory: the bundled vocab.txt + tokenizer_config.json."""
    path = os.path.join(tmp_root, name + "-" + "-".join(f"{k}={v}" for k, v in sorted(opts.items())))
    if not os.path.isdir(path):
        os.makedirs(path)
        with open(bertpiece.vocab_path(name), "rb") as src, open(os.path.join(path, "vocab.txt"), "wb") as dst:
            dst.write(src.read())
        config = {"tokenizer_class": "BertTokenizer", **opts}
        with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
            json.dump(config, f)
    return path


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("bert_dirs"))


def pair_of(name, reference, tmp_root, **opts):
    """(bertpiece tokenizer, transformers tokenizer) with the same vocabulary and options."""
    opts.setdefault("do_lower_case", VOCABS[name])
    key = (name, reference, options_key(opts))
    if key not in _CACHE:
        path = write_dir(tmp_root, name, opts)
        if reference == "tokenizers":
            theirs = transformers.BertTokenizer.from_pretrained(path)
        else:
            theirs = BertTokenizerLegacy(os.path.join(path, "vocab.txt"), **opts)
        ours = BertTokenizer(bertpiece.vocab_path(name), reference=reference, **opts)
        _CACHE[key] = (ours, theirs)
    return _CACHE[key]


def as_plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [as_plain(v) for v in value]
    return value


def assert_same(ours, theirs, *args, alignment=True, **kwargs):
    """Same keys and values (and word_ids / sequence_ids / tokens per row)."""
    try:
        expected = theirs(*args, **kwargs)
    except AssertionError:
        # BertTokenizerLegacy's batch `pad` asserts when only some rows have overflowing
        # tokens (a transformers bug); bertpiece fills the missing ones (docs/bert_tokenizer.md)
        got = ours(*args, **kwargs)
        if "overflowing_tokens" in got:
            assert len(got["overflowing_tokens"]) == len(got["input_ids"])
        return got
    except BaseException as exc:  # the reference refuses: we must refuse with the same type
        if type(exc).__name__ == "PanicException":
            # tokenizers panics (stride >= the window it truncates to); bertpiece raises ValueError.
            # In a batch HF encodes in parallel, so another row's error may surface instead.
            with pytest.raises(ValueError):
                ours(*args, **kwargs)
            return None
        with pytest.raises(type(exc)):
            ours(*args, **kwargs)
        return None
    got = ours(*args, **kwargs)
    assert list(got.keys()) == list(expected.keys())
    for key in expected:
        assert as_plain(got[key]) == as_plain(expected[key]), key
    if alignment and getattr(expected, "encodings", None):
        for i in range(len(expected.encodings)):
            assert got.word_ids(i) == expected.word_ids(i)
            assert got.sequence_ids(i) == expected.sequence_ids(i)
            assert got.tokens(i) == expected.tokens(i)
    return got


REFERENCES = ["tokenizers", "transformers"]
FULL = dict(return_special_tokens_mask=True, return_length=True)


def full_kwargs(reference):
    kw = dict(FULL)
    if reference == "tokenizers":
        kw["return_offsets_mapping"] = True
    else:
        kw["return_token_type_ids"] = True
    return kw


# --------------------------------------------------------------------------
# Corpus lines x vocabularies
# --------------------------------------------------------------------------

@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", sorted(VOCABS))
@pytest.mark.parametrize("filename", FILES)
def test_corpus_lines(name, filename, reference, tmp_root):
    ours, theirs = pair_of(name, reference, tmp_root)
    lines = sample(filename)
    kw = full_kwargs(reference)
    for line in lines:
        assert_same(ours, theirs, line, **kw)
    assert_same(ours, theirs, lines, padding=True, **kw)
    assert_same(ours, theirs, lines[:-1], lines[1:], padding="longest", **kw)
    for line in lines:
        assert ours.tokenize(line) == theirs.tokenize(line)
        ids = theirs(line)["input_ids"]
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == theirs.decode(ids, skip_special_tokens=skip)


OPTION_GRID = [
    dict(do_lower_case=lower, strip_accents=strip, tokenize_chinese_chars=chinese)
    for lower in (True, False) for strip in (None, True, False) for chinese in (True, False)
]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("opts", OPTION_GRID, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_options(opts, reference, tmp_root):
    ours, theirs = pair_of(MULTI, reference, tmp_root, **opts)
    kw = full_kwargs(reference)
    assert_same(ours, theirs, FEW_LINES, padding=True, **kw)
    assert_same(ours, theirs, FEW_LINES[:-1], FEW_LINES[1:], **kw)


# --------------------------------------------------------------------------
# Truncation, overflow, padding
# --------------------------------------------------------------------------

TRUNCATIONS = [True, "longest_first", "only_first", "only_second", False, "do_not_truncate"]
PAIR_LINES = [line for line in FEW_LINES if len(line) > 20][:4]


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("pair", [False, True], ids=["single", "pair"])
@pytest.mark.parametrize("truncation", TRUNCATIONS, ids=str)
@pytest.mark.parametrize("max_length,stride", [(12, 0), (12, 3), (17, 5), (6, 2)])
def test_truncation_overflow(truncation, pair, side, reference, max_length, stride, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    ours.truncation_side = theirs.truncation_side = side
    try:
        kw = full_kwargs(reference)
        first = PAIR_LINES
        second = PAIR_LINES[::-1] if pair else None
        for overflow in (False, True):
            assert_same(ours, theirs, first, second, truncation=truncation, max_length=max_length, stride=stride,
                        return_overflowing_tokens=overflow, **kw)
            assert_same(ours, theirs, first[0], second[0] if pair else None, truncation=truncation,
                        max_length=max_length, stride=stride, return_overflowing_tokens=overflow, **kw)
    finally:
        ours.truncation_side = theirs.truncation_side = "right"


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("padding", [False, True, "longest", "max_length", "do_not_pad"], ids=str)
@pytest.mark.parametrize("multiple", [None, 8])
def test_padding(padding, padding_side, multiple, reference, tmp_root):
    ours, theirs = pair_of(CASED, reference, tmp_root)
    kw = full_kwargs(reference)
    for max_length, truncation in ((None, None), (16, True), (40, None)):
        for batch in (PAIR_LINES, PAIR_LINES[:1]):
            assert_same(ours, theirs, batch, padding=padding, padding_side=padding_side, pad_to_multiple_of=multiple,
                        max_length=max_length, truncation=truncation, **kw)
        assert_same(ours, theirs, PAIR_LINES[0], padding=padding, padding_side=padding_side,
                    pad_to_multiple_of=multiple, max_length=max_length, truncation=truncation, **kw)


@pytest.mark.parametrize("reference", REFERENCES)
def test_padding_side_attribute_and_overflow_padding(reference, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    ours.padding_side = theirs.padding_side = "left"
    try:
        kw = dict(full_kwargs(reference), truncation="only_first", max_length=10, stride=2, padding="max_length")
        if reference == "tokenizers":
            kw["return_overflowing_tokens"] = True
        assert_same(ours, theirs, PAIR_LINES, **kw)
    finally:
        ours.padding_side = theirs.padding_side = "right"


@pytest.mark.parametrize("reference", REFERENCES)
def test_tensors_and_pretokenized(reference, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    words = [line.split() for line in PAIR_LINES]
    kw = full_kwargs(reference)
    assert_same(ours, theirs, words, is_split_into_words=True, padding=True, **kw)
    assert_same(ours, theirs, words[0], words[1], is_split_into_words=True, **kw)
    assert_same(ours, theirs, PAIR_LINES, padding=True, return_tensors="np", **kw)
    assert_same(ours, theirs, PAIR_LINES[0], return_tensors="np", **kw)
    assert_same(ours, theirs, [(a, b) for a, b in zip(PAIR_LINES, PAIR_LINES[1:])], **kw)
    assert ours.encode(PAIR_LINES[0], PAIR_LINES[1]) == theirs.encode(PAIR_LINES[0], PAIR_LINES[1])
    assert as_plain(ours.encode_plus(PAIR_LINES[0])["input_ids"]) == theirs(PAIR_LINES[0])["input_ids"]
    assert ours.batch_encode_plus(PAIR_LINES)["input_ids"] == theirs(PAIR_LINES)["input_ids"]


def test_torch_missing_says_pip_install(monkeypatch):
    # torch is in the test extras: hide it (a None entry makes `import torch` raise ImportError)
    monkeypatch.setitem(sys.modules, "torch", None)
    tok = BertTokenizer.from_pretrained(UNCASED)
    for texts in ("hello", ["hello", "a b"]):
        with pytest.raises(ImportError, match="pip install torch"):
            tok(texts, return_tensors="pt")


def test_legacy_offsets_refused_like_transformers(tmp_root):
    ours, theirs = pair_of(UNCASED, "transformers", tmp_root)
    with pytest.raises(NotImplementedError):
        ours("hello", return_offsets_mapping=True)


# --------------------------------------------------------------------------
# Alignment helpers, special tokens, added tokens
# --------------------------------------------------------------------------

def test_char_token_alignment(tmp_root):
    ours, theirs = pair_of(MULTI, "tokenizers", tmp_root)
    a, b = PAIR_LINES[0], PAIR_LINES[1]
    got, exp = ours(a, b), theirs(a, b)
    for t in range(len(exp["input_ids"])):
        assert got.token_to_chars(t) == exp.token_to_chars(t)
        assert got.token_to_word(t) == exp.token_to_word(t)
    for seq, text in ((0, a), (1, b)):
        for c in range(len(text)):
            assert got.char_to_token(c, sequence_index=seq) == exp.char_to_token(c, sequence_index=seq)
        for w in range(5):
            assert got.word_to_tokens(w, sequence_index=seq) == exp.word_to_tokens(w, sequence_index=seq)


@pytest.mark.parametrize("reference", REFERENCES)
def test_special_tokens_in_text_and_added_tokens(reference, tmp_root):
    ours, theirs = pair_of(CASED, reference, tmp_root)
    kw = full_kwargs(reference)
    text = "Hello [MASK] wor[SEP]ld [CLS]! [PAD] [UNK][unused1] <e1>x"
    assert_same(ours, theirs, text, **kw)
    for attr in ("all_special_tokens", "all_special_ids", "vocab_size", "unk_token_id", "sep_token_id",
                 "pad_token_id", "cls_token_id", "mask_token_id", "mask_token"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert len(ours) == len(theirs)
    assert ours.get_vocab() == theirs.get_vocab()
    ours2 = BertTokenizer.from_pretrained(CASED, reference=reference)
    theirs2 = (transformers.BertTokenizer.from_pretrained(write_dir(tmp_root, CASED, {"do_lower_case": False}))
               if reference == "tokenizers" else BertTokenizerLegacy(bertpiece.vocab_path(CASED), do_lower_case=False))
    assert ours2.add_special_tokens({"additional_special_tokens": ["<e1>"]}) == \
        theirs2.add_special_tokens({"additional_special_tokens": ["<e1>"]})
    assert ours2.add_tokens(["xyzzy"]) == theirs2.add_tokens(["xyzzy"])
    assert_same(ours2, theirs2, text + " xyzzyq", **kw)
    assert len(ours2) == len(theirs2)
    assert ours2.all_special_tokens == theirs2.all_special_tokens
    ids = theirs2(text + " xyzzy")["input_ids"]
    for skip in (False, True):
        assert ours2.decode(ids, skip_special_tokens=skip) == theirs2.decode(ids, skip_special_tokens=skip)


@pytest.mark.parametrize("reference", REFERENCES)
def test_helper_methods(reference, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    a, b = [7592, 2088], [2117]
    for method in ("build_inputs_with_special_tokens", "get_special_tokens_mask", "create_token_type_ids_from_sequences"):
        for args in ((a,), (a, b)):
            try:
                expected = getattr(theirs, method)(*args)
            except (AttributeError, NotImplementedError):
                # transformers 5's BertTokenizer lacks these; bertpiece keeps BertTokenizerLegacy's
                legacy = BertTokenizerLegacy(bertpiece.vocab_path(UNCASED))
                expected = getattr(legacy, method)(*args)
            assert getattr(ours, method)(*args) == expected, method
    assert ours.get_special_tokens_mask([101, 7592, 102], already_has_special_tokens=True) == \
        theirs.get_special_tokens_mask([101, 7592, 102], already_has_special_tokens=True)
    for pair in (False, True):
        assert ours.num_special_tokens_to_add(pair) == theirs.num_special_tokens_to_add(pair)
    tokens = theirs.tokenize(PAIR_LINES[0])
    assert ours.convert_tokens_to_ids(tokens + ["not-a-token"]) == theirs.convert_tokens_to_ids(tokens + ["not-a-token"])
    ids = theirs.convert_tokens_to_ids(tokens)
    assert ours.convert_ids_to_tokens(ids) == theirs.convert_ids_to_tokens(ids)
    assert ours.convert_ids_to_tokens(ids[0]) == theirs.convert_ids_to_tokens(ids[0])
    assert ours.convert_tokens_to_string(tokens) == theirs.convert_tokens_to_string(tokens)
    batch = theirs(PAIR_LINES, padding=True)["input_ids"]
    for cleanup in (None, True, False):
        assert ours.batch_decode(batch, clean_up_tokenization_spaces=cleanup) == \
            theirs.batch_decode(batch, clean_up_tokenization_spaces=cleanup)
    assert ours.decode([101, 7592, 1010, 2088, 1005, 1055, 2123, 1005, 1056, 999, 103, 1, 102]) == \
        theirs.decode([101, 7592, 1010, 2088, 1005, 1055, 2123, 1005, 1056, 999, 103, 1, 102])


# --------------------------------------------------------------------------
# Save / load round trips both ways
# --------------------------------------------------------------------------

@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", [UNCASED, MULTI])
def test_save_load_round_trips(name, reference, tmp_path):
    ours = BertTokenizer.from_pretrained(name, reference=reference, strip_accents=False)
    ours.add_special_tokens({"additional_special_tokens": ["<e1>"]})
    ours.add_tokens(["xyzzy"])
    ours.save_pretrained(tmp_path / "ours")
    theirs_cls = transformers.BertTokenizer if reference == "tokenizers" else BertTokenizerLegacy
    theirs = theirs_cls.from_pretrained(str(tmp_path / "ours"))
    text = "Ünïcode <e1> xyzzy [MASK] naïve " + PAIR_LINES[0]
    kw = full_kwargs(reference)
    assert_same(ours, theirs, text, PAIR_LINES[1], **kw)
    theirs.save_pretrained(tmp_path / "theirs")
    back = BertTokenizer.from_pretrained(str(tmp_path / "theirs"), reference=reference)
    assert_same(back, theirs, text, PAIR_LINES[1], **kw)
    if reference == "tokenizers":
        tj = BertTokenizer.from_pretrained(str(tmp_path / "theirs" / "tokenizer.json"))
        assert_same(tj, theirs, text, PAIR_LINES[1], **kw)


@pytest.mark.parametrize("field,value,match", [
    ("model", None, "model"),
    ("model.type", "BPE", "model.type"),
    ("model.vocab", [1, 2], "model.vocab"),
    ("normalizer.type", "NFC", "normalizer.type"),
    ("pre_tokenizer.type", "Whitespace", "pre_tokenizer.type"),
    ("decoder.type", "ByteLevel", "decoder.type"),
    ("post_processor.type", "RobertaProcessing", "post_processor.type"),
    ("added_tokens", {"a": 1}, "added_tokens"),
])
def test_malformed_tokenizer_json(field, value, match, tmp_path):
    BertTokenizer.from_pretrained(UNCASED).save_pretrained(tmp_path)
    path = tmp_path / "tokenizer.json"
    data = json.loads(path.read_text())
    *parents, last = field.split(".")
    obj = data
    for p in parents:
        obj = obj[p]
    if value is None:
        del obj[last]
    else:
        obj[last] = value
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=match.replace(".", r"\.")):
        BertTokenizer.from_pretrained(str(path))


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------

@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("batch", [["a", None], ["a", 3], [None]], ids=str)
def test_bad_batch_items_name_index(batch, reference):
    tok = BertTokenizer.from_pretrained(UNCASED, reference=reference)
    bad = next(i for i, x in enumerate(batch) if not isinstance(x, str))
    with pytest.raises(TypeError, match=rf"\[{bad}\]"):
        tok(batch)
    with pytest.raises(ValueError):  # what BertTokenizerLegacy raises
        tok(batch)


@pytest.mark.parametrize("reference", REFERENCES)
def test_bad_arguments_like_transformers(reference, tmp_root):
    ours, theirs = pair_of(UNCASED, reference, tmp_root)
    for kwargs in (dict(padding="foo"), dict(truncation="foo"),
                   dict(padding="max_length", max_length=10, truncation=True, pad_to_multiple_of=3)):
        with pytest.raises(ValueError) as expected:
            theirs("hello", **kwargs)
        with pytest.raises(ValueError) as got:
            ours("hello", **kwargs)
        assert str(got.value) == str(expected.value)
    with pytest.raises(ValueError, match="'longest', 'max_length', 'do_not_pad'"):
        ours("hello", padding="foo")
    with pytest.raises(ValueError, match="'only_first', 'only_second', 'longest_first', 'do_not_truncate'"):
        ours("hello", truncation="foo")
    with pytest.raises(ValueError):
        ours(["a", "b"], ["c"])
    with pytest.raises(ValueError):
        ours(None)
    # max_length below the special tokens: transformers gives wrong inputs
    # (measured here), bertpiece raises.
    for args, n_special in ((("hello world",), 2), (("hello world", "again"), 3)):
        max_length = n_special - 1
        theirs_ids = theirs(*args, max_length=max_length, truncation=True)["input_ids"]
        assert len(theirs_ids) != max_length
        with pytest.raises(ValueError, match=f"max_length={max_length} is smaller than the {n_special} special"):
            ours(*args, max_length=max_length, truncation=True)
        assert_same(ours, theirs, *args, max_length=n_special, truncation=True)
    nopad = BertTokenizer.from_pretrained(UNCASED, reference=reference, pad_token=None)
    with pytest.raises(ValueError, match="padding token"):
        nopad(["a", "bb cc"], padding=True)

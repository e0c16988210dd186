"""bertpiece.BertTokenizer against the real transformers 5 tokenizers (the pairs of tests/bert_pairs.py):
alignment queries, special and added tokens, helper methods, save / load round trips both ways, malformed
tokenizer.json files and bad input. Every expectation is computed by transformers at test time; the corpus
lines, options grid, truncation and padding are in tests/test_bert_tokenizer.py."""

import json

import pytest

import bertpiece
from bert_pairs import (CASED, MULTI, PAIR_LINES, REFERENCES, UNCASED, BertTokenizerLegacy, assert_same, full_kwargs,
                        pair_of, transformers, write_dir)
from bertpiece import BertTokenizer


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("bert_dirs"))


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

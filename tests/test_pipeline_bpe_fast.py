"""The byte-level BPE fast path (src/fast_bytelevel/) against the general
path of the same file (PipelineTokenizer.from_str(json, fast_path=False)) and
tokenizers 0.23.3, three-way: every 3rd UD line, pairs, pre-tokenized input,
added tokens (all flags), add_prefix_space / trim_offsets / post-processor
variants, ignore_merges, the Split + ByteLevel shape of TikTokenConverter, truncation and padding, hypothesis text."""

import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tokenizers import AddedToken, Tokenizer as HFTokenizer, processors

import bertpiece
from bertpiece._core import PipelineEncoding, PipelineTokenizer
from bpe_shapes import (UD_FILES, assert_same, check_fast_path, check_options_pairs_and_pretokenized, check_truncation_and_padding,
                        fast_general_theirs, gpt2_json, modernbert_json, normalized_json, roberta_json, ud_lines)
from test_pipeline_bpe import ADDED, ADDED_TEXTS, EDGE_TEXTS
from test_pipeline_bpe_fuzz import TEXT
from tiers import ud_params


def variant(prefix, trim, post, ignore_merges=False):
    """GPT-2's trained file with the ByteLevel options and post-processor set as given."""
    d = json.loads(gpt2_json())
    d["pre_tokenizer"].update(add_prefix_space=prefix, trim_offsets=trim)
    d["model"]["ignore_merges"] = ignore_merges
    tok = HFTokenizer.from_str(json.dumps(d))
    if post == "roberta":
        tok.post_processor = processors.RobertaProcessing(("<|endoftext|>", 0), ("<|endoftext|>", 0), trim_offsets=trim,
                                                          add_prefix_space=prefix)
    elif post == "bytelevel":
        tok.post_processor = processors.ByteLevel(add_prefix_space=prefix, trim_offsets=trim)
    else:
        tok.post_processor = None
    return tok.to_str()


@functools.lru_cache(maxsize=None)
def with_added():
    tok = HFTokenizer.from_str(roberta_json())
    tok.add_tokens(ADDED)
    return tok.to_str()


def empty_affixes():
    """RoBERTa's file as transformers' converters write it: "" for both affixes (the fast path's too)."""
    d = json.loads(roberta_json())
    d["model"].update(continuing_subword_prefix="", end_of_word_suffix="")
    return json.dumps(d)


GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def split_then_bytes(ignore_merges=True, behavior="Isolated", invert=False, pattern=GPT2_SPLIT, use_regex=False,
                     prefix=False):
    """GPT-2's trained file as transformers' TikTokenConverter writes a GPT-2-pattern file: its regex in a Split,
    then ByteLevel without its own (the ByteLevel fast path's split); the keywords make the shapes it must refuse."""
    d = json.loads(gpt2_json())
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": invert},
        {"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": True, "use_regex": use_regex}]}
    d["model"]["ignore_merges"] = ignore_merges
    return json.dumps(d)


SHAPES = {
    "split-then-bytes": split_then_bytes, "split-then-bytes-merges": functools.partial(split_then_bytes, False),
    "gpt2": gpt2_json, "roberta": roberta_json, "modernbert": modernbert_json, "added": with_added,
    "prefix-trim-bytelevel": functools.partial(variant, True, True, "bytelevel"),
    "prefix-notrim-none": functools.partial(variant, True, False, None),
    "noprefix-trim-roberta": functools.partial(variant, False, True, "roberta"),
    "ignore-merges": functools.partial(variant, False, True, "bytelevel", True),
    "empty-affixes": empty_affixes,
}


@functools.lru_cache(maxsize=None)
def three(shape):
    return fast_general_theirs(SHAPES[shape]())


def check(shape, encode):
    """encode(tokenizer) -> list of encodings, for fast, general and tokenizers."""
    check_fast_path(three(shape), "byte_level_bpe", encode)


def test_fast_path_is_taken_only_where_its_shape_fits():
    assert all(bertpiece.Tokenizer.from_str(f())._core.fast_path() == "byte_level_bpe" for f in SHAPES.values())
    d = json.loads(gpt2_json())
    d["pre_tokenizer"]["use_regex"] = False
    assert bertpiece.Tokenizer.from_str(json.dumps(d))._core.fast_path() is None
    assert bertpiece.Tokenizer.from_str(normalized_json())._core.fast_path() is None
    # a Split + ByteLevel that does not split as GPT-2's ByteLevel does
    for other in ({"behavior": "MergedWithPrevious"}, {"invert": True}, {"use_regex": True}, {"prefix": True},
                  {"pattern": GPT2_SPLIT.replace("'ll|", "")}, {"pattern": "x|" + GPT2_SPLIT}):
        assert bertpiece.Tokenizer.from_str(split_then_bytes(**other))._core.fast_path() is None, other
    d = json.loads(gpt2_json())
    del d["model"]["vocab"]["Ġ"]  # a byte without its token: unk/byte_fallback need the general path
    d["model"]["merges"] = [m for m in d["model"]["merges"] if "Ġ" not in (m if isinstance(m, list) else m.split(" "))]
    assert bertpiece.Tokenizer.from_str(json.dumps(d))._core.fast_path() is None


@pytest.mark.parametrize("path", ud_params(UD_FILES), ids=lambda p: p.rsplit("-", 1)[-1][:-4])
def test_every_ud_line(path):
    # RoBERTa's shape with added tokens of every flag: prefix space, trimmed offsets, added-token splits
    lines = ud_lines(path)[::3]  # every 3rd line (test_pipeline_bulk_fast.py runs the others)
    check("added", lambda t: t.encode_batch(lines))
    check("gpt2", lambda t: t.encode_batch(lines[:300]))
    check("split-then-bytes", lambda t: t.encode_batch(lines[1::9]))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_options_pairs_and_pretokenized(shape):
    check_options_pairs_and_pretokenized(check, shape, EDGE_TEXTS + ADDED_TEXTS)


def block_edge_texts():
    """Texts of 0, 1, 63, 64, 65, 127, 128 and 129 bytes (the block scanner takes 64 at a time), of
    words, space runs, digits, contractions, non-ASCII and added tokens, so pieces cross the blocks' edges."""
    units = [" the", "ab ", "  ", " 12", "'s", "é ", " x'll", "a<mask>", "日本 ", "\t\n"]
    texts = []
    for n in [0, 1, 63, 64, 65, 127, 128, 129]:
        for unit in units:
            b = (unit * 130).encode()[:n]
            texts.append(b.decode(errors="ignore"))
    return texts


@pytest.mark.parametrize("shape", ["roberta", "modernbert", "added", "prefix-notrim-none"])
def test_texts_around_the_block_length(shape):
    # each text alone, then as a pair's first and second, with and without the specials
    texts = block_edge_texts()
    for add in (True, False):
        check(shape, lambda t: [t.encode(x, add_special_tokens=add) for x in texts])
        check(shape, lambda t: [t.encode(x, texts[-1 - i], add_special_tokens=add) for i, x in enumerate(texts)])


@pytest.mark.parametrize("shape", ["gpt2", "roberta", "added"])
def test_truncation_and_padding(shape):
    check_truncation_and_padding(check, three, shape, pad_id=1, pad_token="<pad>")


@pytest.mark.parametrize("shape", ["added", "prefix-trim-bytelevel", "ignore-merges", "split-then-bytes"])
@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_fuzz_fast_general_tokenizers(shape, text):
    check(shape, lambda t: [t.encode(text), t.encode(text, text[::-1])])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(text=TEXT, added=st.lists(st.tuples(st.sampled_from(["<m>", "x", "ab", " é", "日"]), st.booleans(), st.booleans(),
                                          st.booleans(), st.booleans()), max_size=3))
def test_fuzz_added_token_flags(text, added):
    theirs = HFTokenizer.from_str(gpt2_json())
    theirs.add_tokens([AddedToken(c, single_word=s, lstrip=l, rstrip=r, normalized=n) for c, s, l, r, n in added])
    j = theirs.to_str()
    fast, general = bertpiece.Tokenizer.from_str(j), bertpiece.Tokenizer(PipelineTokenizer.from_str(j, False), j)
    assert fast._core.fast_path() == "byte_level_bpe"
    for t in (text, text + "<m>x" + text):
        assert_same(fast.encode(t), general.encode(t), t)
        assert_same(fast.encode(t), theirs.encode(t), t)


def test_encodings_pickle_and_copy_with_their_overflows():
    """Encodings stay in Rust until read (bertpiece.Encoding is the core object); they
    pickle and deep-copy whole, overflowing pieces and sequence ids included."""
    import copy
    import pickle

    fast, _, theirs = three("roberta")
    fast.enable_truncation(12, stride=1)
    theirs.enable_truncation(12, stride=1)
    try:
        a, b = "Hello there my friend, how are you", "a b c d e f g h i"
        e, want = fast.encode(a, b), theirs.encode(a, b)
    finally:
        fast.no_truncation()
        theirs.no_truncation()
    assert isinstance(e, bertpiece.Encoding) and len(e) == len(want)
    # each column is made once and kept: reading enc.word_ids[k] in a loop stays linear
    assert e.word_ids is e.word_ids and e.offsets is e.offsets and e.ids is e.ids
    for clone in (pickle.loads(pickle.dumps(e)), copy.deepcopy(e)):
        assert_same(clone, want, "pickled")
        assert len(clone.overflowing) == len(want.overflowing) > 0
        for x, y in zip(clone.overflowing, want.overflowing):
            assert_same(x, y, "pickled overflow")
    with pytest.raises(ValueError, match="unequal length"):
        PipelineEncoding._from_state(([1], [], [], [], [], [], []), [], [])


def test_tokens_added_after_loading_are_split_on_the_fast_path():
    # The fast path skips the added-token split when no added token's first byte
    # is in the text; that set must follow add_tokens, not only the file's tokens.
    text = next(iter(SHAPES.values()))()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    assert ours._core.fast_path() == "byte_level_bpe"
    for add in (["qzx"], [bertpiece.AddedToken("Zebra", single_word=True)], ["日本"]):
        ours.add_tokens(add)
        theirs.add_tokens([a if isinstance(a, str) else AddedToken("Zebra", single_word=True) for a in add])
        assert ours._core.fast_path() == "byte_level_bpe"
        for line in ["a qzx b", "Zebra zebra Zebras", "日本語 qzxqzx", "no added token here"]:
            got, want = ours.encode(line), theirs.encode(line)
            assert (got.ids, got.offsets, got.tokens) == (want.ids, want.offsets, want.tokens), line

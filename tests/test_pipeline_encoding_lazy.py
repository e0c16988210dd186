"""Encodings of plain texts made on the ids-only path (src/python/pipeline_rows.rs): they hold their
ids, and make every other column by `encode` of the same text when one is first read. Call
SEQUENCES against tokenizers 0.23.3 on the same inputs: any attribute read first, `.ids` before and
after the others, alignment and `overflowing` first, pickling before any read, encodings outliving
their tokenizer, the batch's list (and its strs' names) rebound after the call, texts the ids-only
plan declines (added tokens in a Unigram text) among the others, 1 and 2 threads."""

import gc
import pickle
import sys

import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bpe_shapes import ATTRS, UD_FILES, columns, gpt2_json, modernbert_json, normalized_json, roberta_json, ud_lines
from models_shapes import t5_json, xlmr_json
from serialize_shapes import small_bert_json

SHAPES = {"gpt2": gpt2_json, "roberta": roberta_json, "modernbert": modernbert_json, "normalized": normalized_json,
          "xlmr_mask": xlmr_json, "t5": t5_json, "bert": small_bert_json}

EXTRA = ["", " ", "Hello World and ÉTÉ", "<mask>x <mask> y<mask>", "<s>a</s> b", "[CLS] x [SEP]", "😀 emoji 👍🏽",
         "x\u0301y", "  a  b  ", "日本語のテキスト"]


def lines(n=60):
    return [line for path in UD_FILES for line in ud_lines(path, n)] + EXTRA


@pytest.fixture(params=sorted(SHAPES))
def pair(request):
    # a tokenizer of its own per test: how its earlier encodings were read decides whether a call
    # takes the ids path (tests/test_pipeline_encoding_lazy.py's last test), and each test starts on it
    text = SHAPES[request.param]()
    return bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)


# each sequence of reads: the attribute names in order ("len", "repr", "pickle", alignment calls, "overflowing")
ORDERS = [
    ["ids"] + list(ATTRS[1:]),
    list(ATTRS[1:]) + ["ids"],
    ["len", "offsets", "ids", "tokens"],
    ["pickle", "ids", "word_ids"],
    ["align", "ids"],
    ["overflowing", "ids", "offsets"],
    ["repr", "ids", "attention_mask", "special_tokens_mask"],
    # answered without `encode` where truncation cut nothing / no padding: then the rest made by it
    ["attention_mask", "overflowing", "ids", "word_ids", "overflowing"],
]


def read(enc, what):
    if what == "len":
        return len(enc)
    if what == "repr":
        return repr(enc).replace("bertpiece.", "")
    if what == "pickle":
        return columns(pickle.loads(pickle.dumps(enc)))
    if what == "align":
        n = len(enc)
        return ([enc.token_to_chars(k) for k in range(n)], [enc.token_to_word(k) for k in range(n)],
                [enc.char_to_token(c) for c in range(40)], [enc.word_to_tokens(w) for w in range(8)], enc.n_sequences)
    if what == "overflowing":
        return [columns(o) for o in enc.overflowing]
    return getattr(enc, what)


def check(ours, theirs, order, context):
    for what in order:
        got, want = read(ours, what), read(theirs, what)
        if what == "repr":
            continue  # the reprs differ in form; the read must only not fail
        assert got == want, f"{what} differs for {context!r} after {order}"


@pytest.mark.parametrize("add", [True, False])
def test_encode_any_read_order(pair, add):
    ours, theirs = pair
    for k, text in enumerate(lines(25)):
        order = ORDERS[k % len(ORDERS)]
        check(ours.encode(text, add_special_tokens=add), theirs.encode(text, add_special_tokens=add), order, text)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_any_read_order_and_truncation(pair, threads):
    ours, theirs = pair
    texts = lines()
    for add, trunc in [(True, None), (False, None), (True, (7, 2, "right")), (False, (5, 0, "left"))]:
        if trunc:
            ours.enable_truncation(trunc[0], stride=trunc[1], direction=trunc[2])
            theirs.enable_truncation(trunc[0], stride=trunc[1], direction=trunc[2])
        try:
            got = ours._core.encode_batch_texts(texts, add, ours._settings, num_threads=threads)
            want = theirs.encode_batch(texts, add_special_tokens=add)
            assert len(got) == len(want)
            for k, (g, w) in enumerate(zip(got, want)):
                check(g, w, ORDERS[k % len(ORDERS)], texts[k])
            # single calls under truncation too
            for text in texts[::7]:
                check(ours.encode(text, add_special_tokens=add), theirs.encode(text, add_special_tokens=add), ORDERS[1], text)
        finally:
            ours.no_truncation()
            theirs.no_truncation()


def test_encodings_outlive_their_tokenizer_and_their_texts():
    text = roberta_json()
    theirs = HFTokenizer.from_str(text)
    texts = [f"line {k}: the cat sat on the mat, <mask> déjà vu {k * 7}" for k in range(300)]
    want = [columns(e) for e in theirs.encode_batch(texts)]
    ours = bertpiece.Tokenizer.from_str(text)
    batch = ours.encode_batch(texts)
    one = ours.encode(texts[3])
    # the tokenizer, the list and the strs gone (the encodings keep what they need)
    del ours
    for k in range(len(texts)):
        texts[k] = "something else entirely"
    del texts
    gc.collect()
    assert columns(one) == want[3]
    for e, w in zip(batch, want):
        assert columns(e) == w


def test_reading_one_encoding_leaves_the_others_as_they_are(pair):
    ours, theirs = pair
    texts = lines(8)
    got, want = ours.encode_batch(texts), theirs.encode_batch(texts)
    before = [g.ids for g in got]
    # every other encoding read whole (made by `encode`), the rest by ids only, then all again
    for g in got[::2]:
        columns(g)
    for g, w, b in zip(got, want, before):
        assert g.ids == b == w.ids
        assert columns(g) == columns(w)


def test_ids_lists_are_equal_ints_of_their_own():
    ours = bertpiece.Tokenizer.from_str(gpt2_json())
    a, b = ours.encode_batch(["Hello there, hello there"] * 2, add_special_tokens=False)
    x, y = a.ids, b.ids
    assert x == y and x is not y
    x.append(-1)
    x[0] = 10**30
    assert y == b.ids and y[0] != 10**30 and all(type(i) is int for i in y)
    assert ours.encode("Hello there, hello there", add_special_tokens=False).ids == y


@pytest.mark.parametrize("shape", ["gpt2", "xlmr_mask", "bert"])
def test_rows_on_the_ids_path_hold_their_text_until_freed(shape):
    # an encoding made on the ids-only path keeps a reference to its text (and nothing else does):
    # the text's reference count shows that path was taken, and that nothing leaks
    ours = bertpiece.Tokenizer.from_str(SHAPES[shape]())
    text = "".join(["the cat sat on the mat ", str(len(SHAPES))])  # a str of its own
    base = sys.getrefcount(text)
    one = ours.encode(text)
    (row,) = ours.encode_batch([text])
    assert sys.getrefcount(text) == base + 2
    assert one.offsets == row.offsets and one.ids == row.ids  # made whole: still holding the text
    del one, row
    gc.collect()
    assert sys.getrefcount(text) == base


def test_shared_ints_are_given_back():
    ours = bertpiece.Tokenizer.from_str(gpt2_json())
    enc = ours.encode("Hello there, hello there, general Kenobi", add_special_tokens=False)
    big = [i for i in enc.ids if i > 256]
    assert big, "the text must give ids past the interpreter's own small ints"
    i = big[0]
    again = ours.encode("Hello there, hello there, general Kenobi", add_special_tokens=False)
    assert again.ids[enc.ids.index(i)] is i  # one int per id, shared by the lists
    base = sys.getrefcount(i)
    lists = [ours.encode("Hello there, hello there, general Kenobi", add_special_tokens=False).ids for _ in range(50)]
    assert sys.getrefcount(i) >= base + 50
    del lists
    gc.collect()
    assert sys.getrefcount(i) == base


def test_calls_whose_rows_are_read_whole_make_them_whole_at_once():
    text = roberta_json()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    texts = [f"row {k}: the cat sat on the mat, <mask> déjà vu" for k in range(300)]
    want = [columns(e) for e in theirs.encode_batch(texts)]
    probe = "".join(["a probe text ", str(len(texts))])

    def holds(call):
        """Whether the call's encoding keeps a reference to its text (it took the ids-only path)."""
        base = sys.getrefcount(probe)
        e = call()
        held = sys.getrefcount(probe) > base
        del e
        return held

    assert holds(lambda: ours.encode(probe))
    for e, w in zip(ours.encode_batch(texts), want):  # every row read whole (> 3 in 4)
        assert columns(e) == w
    # now the calls make whole encodings at once: the same values
    assert not holds(lambda: ours.encode(probe)) and not holds(lambda: ours.encode_batch([probe]))
    assert [columns(e) for e in ours.encode_batch(texts)] == want
    assert columns(ours.encode(texts[7])) == want[7]
    # ids alone from now on: after a few calls one takes the ids path again, and then stays on it
    for _ in range(5):
        assert [e.ids for e in ours.encode_batch(texts)] == [w["ids"] for w in want]
    assert holds(lambda: ours.encode(probe)) and holds(lambda: ours.encode_batch([probe]))

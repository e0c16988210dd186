"""`BatchEncoding.encodings` against transformers' BertTokenizer (HF tokenizers'
`Encoding`s): every attribute and alignment method of every row and of every
nested `overflowing` encoding, on UD sentences with random call options; and
`apply_chat_template(..., return_assistant_tokens_mask=True)`, which reads them."""

from __future__ import annotations

import random
import warnings

import pytest

import bertpiece
from encode_helpers import data_lines

transformers = pytest.importorskip("transformers")

PATH = bertpiece.vocab_path("bert-base-uncased")
ATTRIBUTES = ("ids", "tokens", "offsets", "word_ids", "words", "sequence_ids", "type_ids", "attention_mask",
              "special_tokens_mask", "n_sequences")
SENTENCES = (data_lines("ud-en.txt", 40) + data_lines("ud-de.txt", 10) + data_lines("ud-zh.txt", 10)
             + data_lines("ud-ru.txt", 10) + ["", "a [MASK] b [SEP] c", "x"])


@pytest.fixture(scope="module")
def hf():
    return transformers.BertTokenizer(vocab=PATH)


@pytest.fixture(scope="module")
def bp():
    return bertpiece.BertTokenizer(PATH)


def assert_same_encoding(ours, theirs, where):
    for name in ATTRIBUTES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # HF tokenizers' Encoding.words
            assert getattr(ours, name) == getattr(theirs, name), (where, name)
    assert len(ours) == len(theirs), where
    n = len(theirs)
    for t in range(n + 2):
        for method in ("token_to_sequence", "token_to_chars", "token_to_word"):
            assert getattr(ours, method)(t) == getattr(theirs, method)(t), (where, method, t)
    last_char = max((e for _, e in theirs.offsets), default=0)
    last_word = max((w for w in theirs.word_ids if w is not None), default=0)
    for seq in range(3):
        for c in range(last_char + 2):
            for method in ("char_to_token", "char_to_word"):
                assert getattr(ours, method)(c, seq) == getattr(theirs, method)(c, seq), (where, method, c, seq)
        for w in range(last_word + 2):
            for method in ("word_to_tokens", "word_to_chars"):
                assert getattr(ours, method)(w, seq) == getattr(theirs, method)(w, seq), (where, method, w, seq)
    assert len(ours.overflowing) == len(theirs.overflowing), (where, "overflowing")
    for k, (a, b) in enumerate(zip(ours.overflowing, theirs.overflowing)):
        assert_same_encoding(a, b, (*where, "overflowing", k))


def run(tok, args, kwargs):
    """The call's result, or the exception it raised (HF tokenizers' panics included)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tok(*args, **kwargs)
    except BaseException as exc:  # pyo3's PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return exc


def assert_same_encodings(bp, hf, args, kwargs):
    theirs, ours = run(hf, args, kwargs), run(bp, args, kwargs)
    if isinstance(theirs, BaseException):
        assert isinstance(ours, BaseException), (args, kwargs, theirs)
        return False
    assert not isinstance(ours, BaseException), (args, kwargs, ours)
    assert len(ours.encodings) == len(theirs.encodings), (args, kwargs)
    for i, (a, b) in enumerate(zip(ours.encodings, theirs.encodings)):
        assert_same_encoding(a, b, (args, kwargs, i))
    assert ours.n_sequences == theirs.n_sequences, (args, kwargs)
    return True


def random_call(rng):
    """(args, kwargs) of a random call: single texts or pairs, one or a batch, with random options."""
    pair = rng.random() < 0.5
    batch = rng.random() < 0.5
    short = [s for s in SENTENCES if len(s) < 120]
    texts = rng.sample(short, 3) if batch else rng.choice(short)
    args = [texts]
    if pair:
        args.append(rng.sample(short, 3) if batch else rng.choice(short))
    kwargs = {"add_special_tokens": rng.random() < 0.8, "padding_side": rng.choice(["left", "right"])}
    if rng.random() < 0.2:  # pre-tokenized words
        args = [[t.split() for t in a] if batch else a.split() for a in args]
        kwargs["is_split_into_words"] = True
    kwargs["padding"] = rng.choice([False, True, "max_length"])
    truncation = rng.choice([False, True, "longest_first", "only_first", "only_second"] if pair
                            else [False, True, "only_first"])
    kwargs["truncation"] = truncation
    if truncation or kwargs["padding"] == "max_length":
        kwargs["max_length"] = rng.randint(6, 40)
    if truncation:
        kwargs["stride"] = rng.choice([0, 0, 1, 2])
    kwargs["return_overflowing_tokens"] = rng.random() < 0.5
    if kwargs["padding"] and rng.random() < 0.3 and not truncation:
        kwargs["pad_to_multiple_of"] = rng.choice([4, 8])
    if rng.random() < 0.2:
        kwargs["return_tensors"] = "np"
    if rng.random() < 0.3:  # (other batch-path cases)
        kwargs["return_offsets_mapping"] = kwargs["return_special_tokens_mask"] = True
    return args, kwargs


def test_encodings_equal_transformers_on_random_calls(bp, hf):
    rng = random.Random(20261126)
    compared = sum(assert_same_encodings(bp, hf, *random_call(rng)) for _ in range(60))
    assert compared >= 40  # (calls transformers refuses are checked to be refused, not compared)


@pytest.mark.parametrize("args,kwargs", [
    # overflow windows of a pair, both cut: HF nests the windows in `overflowing`, also in the returned ones
    (("Hello world, this is a long test", "and another pair text here"),
     dict(max_length=9, truncation="longest_first", return_overflowing_tokens=True)),
    # windows not returned are still the first row's `overflowing`, padded as it is
    (("Hello world, this is a long test",), dict(max_length=8, truncation=True, stride=1, padding="max_length",
                                                 pad_to_multiple_of=4)),
    (("Hello world, this is a long test", "and another pair text here"),
     dict(max_length=9, truncation="longest_first", padding="max_length", padding_side="left")),
    # the one-text serving paths: plain, offsets, overflow windows
    ((SENTENCES[0],), {}),
    ((SENTENCES[1],), dict(return_offsets_mapping=True)),
    ((SENTENCES[2],), dict(truncation=True, max_length=8, stride=2, return_overflowing_tokens=True)),
    # the batch paths: lists, padded lists and arrays, truncated
    ((SENTENCES[:4],), {}),
    ((SENTENCES[:4],), dict(padding=True, padding_side="left")),
    ((SENTENCES[:4],), dict(padding=True, truncation=True, max_length=10, return_tensors="np")),
    ((SENTENCES[:4], SENTENCES[4:8]), dict(padding="longest", truncation="only_second", max_length=70)),
    # sequences that are empty or cut to nothing, without special tokens
    (("", "x"), dict(add_special_tokens=False)),
    (("Hello there", ""), dict(add_special_tokens=False)),
    (("", ""), {}),
    (("",), dict(add_special_tokens=False, padding="max_length", max_length=3)),
    ((["a"], [""]), {}),
    # pre-tokenized words, added and special tokens in the text
    ((["Hello", "wonderful", "world"],), dict(is_split_into_words=True, padding="max_length", max_length=8,
                                              padding_side="left")),
    # labels: the encodings are the text's
    (("a b c",), dict(text_target="d e f")),
    (("Hello [MASK] world [UNK]", "x [SEP] y"), dict(return_special_tokens_mask=True)),
])
def test_encodings_equal_transformers(bp, hf, args, kwargs):
    assert assert_same_encodings(bp, hf, args, kwargs)


def test_encodings_survive_pickling(bp, hf):
    import pickle

    args, kwargs = ("Hello world, this is a long test", "and another pair"), dict(max_length=9, truncation=True,
                                                                                  padding="max_length")
    ours = pickle.loads(pickle.dumps(bp(*args, **kwargs)))
    theirs = hf(*args, **kwargs)
    for i, (a, b) in enumerate(zip(ours.encodings, theirs.encodings)):
        assert_same_encoding(a, b, ("pickled", i))


def test_negative_indices_are_refused_as_in_tokenizers(bp, hf):
    ours, theirs = bp("a b").encodings[0], hf("a b").encodings[0]
    for method in ("token_to_sequence", "token_to_chars", "token_to_word", "char_to_token", "char_to_word",
                   "word_to_tokens", "word_to_chars"):
        with pytest.raises(OverflowError):
            getattr(theirs, method)(-1)
        with pytest.raises(OverflowError):
            getattr(ours, method)(-1)


def test_transformers_mode_has_no_encodings_as_transformers_python_tokenizers():
    legacy = transformers.BertTokenizerLegacy(vocab_file=PATH)
    assert legacy("a b").encodings is None
    assert bertpiece.BertTokenizer(PATH, reference="transformers")("a b").encodings is None


def test_google_mode_encodings_are_its_rows(bp):
    """google mode: HF's Encoding layout over Google's tokens (no reference library has Encodings for it);
    on English sentences, where both tokenizations agree, they equal transformers'."""
    google = bertpiece.BertTokenizer(PATH, reference="google")
    hf = transformers.BertTokenizer(vocab=PATH)
    texts = data_lines("ud-en.txt", 20)
    kwargs = dict(padding=True, truncation=True, max_length=16, return_overflowing_tokens=True)
    ours, theirs = google(texts, **kwargs), hf(texts, **kwargs)
    assert ours["input_ids"] == theirs["input_ids"]  # (the premise: the same tokens)
    for i, (a, b) in enumerate(zip(ours.encodings, theirs.encodings)):
        assert_same_encoding(a, b, ("google", i))


# ---------------------------------------------------------------- chat templates
TEMPLATE = (  # transformers' test_chat_template_return_assistant_tokens_mask template
    "{% for message in messages %}{% if (message['role'] != 'assistant') %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% elif (message['role'] == 'assistant')%}{{'<|im_start|>' + message['role'] + '\n'}}"
    "{% generation %}{{message['content'] + '<|im_end|>'}}{% endgeneration %}{{'\n'}}{% endif %}{% endfor %}")
CONVERSATIONS = [
    [{"role": "system", "content": "system message"}, {"role": "user", "content": SENTENCES[3]},
     {"role": "assistant", "content": SENTENCES[4]}, {"role": "user", "content": "thanks"},
     {"role": "assistant", "content": SENTENCES[5]}],
    [{"role": "user", "content": "hi"}, {"role": "assistant", "content": SENTENCES[6]}],
]


@pytest.mark.parametrize("conversations", [CONVERSATIONS, CONVERSATIONS[1]], ids=["batch", "one"])
@pytest.mark.parametrize("kwargs", [{}, dict(padding=True), dict(padding=True, return_tensors="np"),
                                    dict(truncation=True, max_length=60), dict(padding="max_length", max_length=90),
                                    dict(padding=True, return_tensors="pt")],
                         ids=["plain", "padded", "np", "truncated", "max_length", "pt"])
def test_chat_template_assistant_tokens_mask_equals_transformers(bp, hf, conversations, kwargs):
    call = dict(chat_template=TEMPLATE, tokenize=True, return_assistant_tokens_mask=True, return_dict=True, **kwargs)
    theirs = hf.apply_chat_template(conversations, **call)
    ours = bp.apply_chat_template(conversations, **call)
    assert set(ours.keys()) == set(theirs.keys())
    masks = theirs["assistant_masks"]
    masks = masks.tolist() if hasattr(masks, "tolist") else masks
    assert 1 in (sum(masks, []) if masks and isinstance(masks[0], list) else masks)  # (the premise: assistant tokens)
    for key in theirs.keys():
        a, b = ours[key], theirs[key]
        assert type(a) is type(b), key
        assert (a.tolist() if hasattr(a, "tolist") else a) == (b.tolist() if hasattr(b, "tolist") else b), key


def test_converting_tensors_again_keeps_them(bp, hf):
    """apply_chat_template converts its output to tensors a second time: tensors stay as they are."""
    for tok in (hf, bp):
        out = tok(SENTENCES[:3], padding=True, return_tensors="pt")
        ids = out["input_ids"]
        out.convert_to_tensors("pt")
        assert out["input_ids"] is ids, type(tok)


def test_integer_and_slice_keys_as_transformers(bp, hf):
    """enc[i] is row i's Encoding, enc[a:b] a list of them; out of range an IndexError, as transformers'."""
    texts = SENTENCES[:3]
    ours, theirs = bp(texts, padding=True), hf(texts, padding=True)
    for i in (0, 2, -1):
        assert_same_encoding(ours[i], theirs[i], ("key", i))
    assert [e.ids for e in ours[1:]] == [e.ids for e in theirs[1:]]
    with pytest.raises(IndexError):
        theirs[5]
    with pytest.raises(IndexError):
        ours[5]
    assert ours["input_ids"] == theirs["input_ids"]
    with pytest.raises(KeyError):
        ours["nothing"]


def test_legacy_mode_keys_as_transformers_python_tokenizers():
    legacy = transformers.BertTokenizerLegacy(vocab_file=PATH)
    ours_tok = bertpiece.BertTokenizer(PATH, reference="transformers")
    texts = SENTENCES[:3]
    assert ours_tok(texts)[1:] == legacy(texts)[1:]
    for tok in (legacy, ours_tok):
        with pytest.raises(KeyError, match="Invalid key"):
            tok(texts)[0]

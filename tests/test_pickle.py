"""Pickling, copying and multiprocessing of every tokenizer class.

Each round trip (`pickle` protocols 2-5, `copy.deepcopy`, another process,
multiprocessing fork and spawn workers) must give exactly the original
tokenizer's output on tests/data lines, for a grid of constructor options;
pickles must be about the vocabulary's size and byte-for-byte reproducible
(what keeps `datasets` fingerprints stable).
"""

import copy
import json
import multiprocessing
import os
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bertpiece
from bertpiece import BertTokenizer, FullTokenizer, _pickle, oracle
from bertpiece.tokenization import BasicTokenizer, WordpieceTokenizer
from google_reference import sample_lines
from preloaded import run_python

UNCASED, CASED, MULTI = "bert-base-uncased", "bert-base-cased", "bert-base-multilingual-cased"

LINES = sample_lines(4) + ["Ünïcödé ACCENTS [MASK] [unused3] naïve café", "x" * 150 + " short",
                     "don't [SEP]stop\u00a0now"]
PROTOCOLS = list(range(2, pickle.HIGHEST_PROTOCOL + 1))


def roundtrip(obj, protocol=pickle.DEFAULT_PROTOCOL):
    data = pickle.dumps(obj, protocol=protocol)
    copy_ = pickle.loads(data)
    assert type(copy_) is type(obj)
    # Deterministic: the copy pickles to the very same bytes.
    assert pickle.dumps(copy_, protocol=protocol) == data
    return copy_


def outcome(func, *args):
    """func(*args), or the exception it raised as (type, message)."""
    try:
        return func(*args)
    except Exception as exc:  # noqa: BLE001  (compared, not swallowed)
        return type(exc), str(exc)


# ------------------------------------------------------------ FullTokenizer
FULL_OPTIONS = [
    dict(),
    dict(do_lower_case=False),
    dict(strip_accents=False),
    dict(do_lower_case=False, strip_accents=True),
    dict(tokenize_chinese_chars=False),
    dict(max_input_chars_per_word=5, unk_token="[MASK]"),
]
# Options HF tokenizers does not have (reference="tokenizers" refuses them).
NOT_TOKENIZERS_OPTIONS = [
    dict(tokenize_chinese_chars=False, do_split_on_punc=False),
    dict(never_split=["[MASK]", "don't", "naïve"], do_lower_case=False),
    dict(preserve_unused_tokens=True),
]
FULL_GRID = [(reference, options) for reference in bertpiece.REFERENCES
             for options in FULL_OPTIONS + (NOT_TOKENIZERS_OPTIONS if reference != "tokenizers" else [])]


@pytest.mark.parametrize("reference, options", FULL_GRID, ids=repr)
def test_full_tokenizer_roundtrip(reference, options):
    # bert-base-cased: a quarter of the multilingual vocabulary's size (keeps the grid fast)
    tok = FullTokenizer(bertpiece.vocab_path(CASED), reference=reference, **options)
    copy_ = roundtrip(tok)
    assert [copy_.tokenize(t) for t in LINES] == [tok.tokenize(t) for t in LINES]
    # a never_split word missing from the vocabulary is a KeyError (as in Google's code): in the copy too
    assert [outcome(copy_.encode, t) for t in LINES] == [outcome(tok.encode, t) for t in LINES]
    assert copy_.vocab == tok.vocab and copy_.inv_vocab == tok.inv_vocab
    assert (copy_.do_lower_case, copy_.reference, copy_.unk_token, copy_.max_input_chars_per_word, repr(copy_)) == \
        (tok.do_lower_case, tok.reference, tok.unk_token, tok.max_input_chars_per_word, repr(tok))
    # the parts rebuilt lazily from the copy behave like the original's
    basic, basic_copy = tok.basic_tokenizer, copy_.basic_tokenizer
    assert [basic_copy.tokenize(t) for t in LINES[:8]] == [basic.tokenize(t) for t in LINES[:8]]


def test_pickle_is_about_the_vocabulary_size():
    path = bertpiece.vocab_path(UNCASED)
    size = os.path.getsize(path)
    for tok in (FullTokenizer(path), BertTokenizer.from_pretrained(UNCASED), oracle.FullTokenizer(path)):
        n = len(pickle.dumps(tok))
        assert size * 0.9 < n < size * 1.05, (type(tok), n, size)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_protocols_and_deepcopy(protocol):
    tok = FullTokenizer.from_pretrained(CASED, reference="transformers", never_split=["[MASK]"])
    bert = BertTokenizer.from_pretrained(UNCASED)
    bert.add_tokens(["new tok", "xyzzy"])
    for obj in (tok, bert):
        for copy_ in (roundtrip(obj, protocol), copy.deepcopy(obj), copy.copy(obj)):
            assert [copy_.tokenize(t) for t in LINES] == [obj.tokenize(t) for t in LINES]
    deep = copy.deepcopy(bert)
    deep.add_tokens(["only in the copy"])  # the copy's state is its own
    assert "only in the copy" not in bert.get_added_vocab()


def test_vocab_with_gaps_and_newlines():
    """Ids that are not 0..n-1 (transformers keeps a duplicate's last line) and
    tokens holding "\\n" (possible in a tokenizer.json vocab) survive."""
    vocab = {"[PAD]": 0, "[UNK]": 3, "[CLS]": 7, "[SEP]": 8, "[MASK]": 9, "a": 10, "##b": 2, "c\nd": 11, "ab": 40}
    bert = BertTokenizer(vocab=vocab)
    copy_ = roundtrip(bert)
    assert copy_.get_vocab() == bert.get_vocab()
    assert copy_(["ab a ##b c", "abb"])["input_ids"] == bert(["ab a ##b c", "abb"])["input_ids"]


@given(st.lists(st.tuples(st.text(), st.integers(0, 2**32 - 1))))
def test_vocabulary_packing_roundtrip(entries):
    """Any (token, id) list, including "", "\n" in tokens, gaps and repeats."""
    assert _pickle.unpack_entries(_pickle.pack_entries(entries)) == entries
    dense = [(t, i) for i, (t, _) in enumerate(entries)]
    assert _pickle.unpack_entries(_pickle.pack_entries(dense)) == dense


def test_vocab_file_with_duplicates(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\nhello\n##s\n", encoding="utf-8")
    for reference in bertpiece.REFERENCES:
        tok = FullTokenizer(path, reference=reference)
        copy_ = roundtrip(tok)
        assert copy_.vocab == tok.vocab  # transformers: hello -> 6 (last line), google: 4
        assert copy_.encode("hello worlds hellos") == tok.encode("hello worlds hellos")


# ------------------------------------------------------- BasicTokenizer etc.
@pytest.mark.parametrize("options", FULL_OPTIONS + NOT_TOKENIZERS_OPTIONS, ids=repr)
def test_basic_tokenizer_roundtrip(options):
    options = dict(options)
    options.pop("max_input_chars_per_word", None), options.pop("unk_token", None)
    lower = options.pop("do_lower_case", True)
    vocab = bertpiece.load_vocab(bertpiece.vocab_path(UNCASED))
    tok = BasicTokenizer(lower, vocab, **options)
    copy_ = roundtrip(tok)
    assert [copy_.tokenize(t) for t in LINES] == [tok.tokenize(t) for t in LINES]
    assert copy_.tokenize(LINES[0], never_split=["the"]) == tok.tokenize(LINES[0], never_split=["the"])
    assert copy_.never_split == tok.never_split and copy_.preserve_unused_tokens == tok.preserve_unused_tokens


def test_wordpiece_tokenizer_roundtrip():
    vocab = bertpiece.load_vocab(bertpiece.vocab_path(MULTI))
    basic = FullTokenizer(bertpiece.vocab_path(MULTI)).basic_tokenizer
    words = [w for t in LINES for w in basic.tokenize(t)]
    for tok in (WordpieceTokenizer(vocab), WordpieceTokenizer(list(vocab), "[MASK]", 4)):
        copy_ = roundtrip(tok)
        assert copy_.tokenize(" ".join(words)) == tok.tokenize(" ".join(words))
        assert (copy_.unk_token, copy_.max_input_chars_per_word) == (tok.unk_token, tok.max_input_chars_per_word)


@pytest.mark.parametrize("reference", ["google", "transformers"])
def test_oracle_roundtrip(reference):
    tok = oracle.FullTokenizer(bertpiece.vocab_path(UNCASED), reference=reference, never_split=["[MASK]", "b", "a"],
                               preserve_unused_tokens=True)
    copy_ = roundtrip(tok)
    assert [copy_.tokenize(t) for t in LINES[:20]] == [tok.tokenize(t) for t in LINES[:20]]
    assert copy_.vocab == tok.vocab and copy_.inv_vocab == tok.inv_vocab
    assert copy_.basic_tokenizer.vocab is copy_.vocab is copy_.wordpiece_tokenizer.vocab
    for part in (tok.basic_tokenizer, tok.wordpiece_tokenizer):
        assert vars(roundtrip(part)) == vars(part)


# ------------------------------------------------------------ BertTokenizer
def _configured(reference, case):
    """A BertTokenizer with a non-default setting of everything pickling must keep."""
    if case == "default":
        return BertTokenizer.from_pretrained(UNCASED, reference=reference)
    if case == "options":
        tok = BertTokenizer.from_pretrained(MULTI, reference=reference, do_lower_case=True, strip_accents=False,
                                            tokenize_chinese_chars=False, never_split=["[MASK]", "Café"],
                                            model_max_length=24, padding_side="left", truncation_side="left",
                                            max_input_chars_per_word=8, clean_up_tokenization_spaces=True)
        return tok
    tok = BertTokenizer.from_pretrained(CASED, reference=reference, additional_special_tokens=["<ent>"])
    tok.add_tokens(["naïve café", "Unicode"])
    tok.add_special_tokens({"cls_token": "<s>", "additional_special_tokens": ["<ent>", "<rel>"]})
    tok.pad_token = "[unused1]"
    tok.model_max_length = 16
    tok.padding_side = "left"
    tok.name_or_path = "my-model"
    tok.custom_attribute = {"kept": [1, 2]}
    return tok


CALLS = [
    dict(),
    dict(padding=True, return_special_tokens_mask=True, return_length=True),
    dict(truncation="only_first", max_length=12, stride=3, return_overflowing_tokens=True, padding="max_length"),
    dict(add_special_tokens=False, return_token_type_ids=True),
]


@pytest.mark.parametrize("reference", bertpiece.REFERENCES)
@pytest.mark.parametrize("case", ["default", "options", "added_tokens"])
def test_bert_tokenizer_roundtrip(reference, case):
    tok = _configured(reference, case)
    copy_ = roundtrip(tok)
    texts = LINES + ["the naïve café <ent> x <rel> [MASK] Unicode <s>"]
    pairs = list(zip(texts[::2], texts[1::2]))
    offsets = dict(return_offsets_mapping=True) if reference != "transformers" else {}
    for kwargs in CALLS:
        for batch in (texts, pairs):
            # only_first truncation of a too short pair is an error: the same one
            assert outcome(lambda t: t(batch, **kwargs, **offsets).data, copy_) == \
                outcome(lambda t: t(batch, **kwargs, **offsets).data, tok)
    assert [copy_.tokenize(t) for t in texts] == [tok.tokenize(t) for t in texts]
    assert copy_.decode(tok(texts[-1])["input_ids"]) == tok.decode(tok(texts[-1])["input_ids"])
    for attr in ("special_tokens_map", "all_special_ids", "model_max_length", "padding_side", "truncation_side",
                 "name_or_path", "reference", "legacy", "init_kwargs", "get_vocab", "get_added_vocab", "__len__",
                 "clean_up_tokenization_spaces", "__repr__"):
        value, expected = getattr(copy_, attr), getattr(tok, attr)
        if callable(expected):
            value, expected = value(), expected()
        assert value == expected, attr
    assert {i: t.to_dict() for i, t in copy_.added_tokens_decoder.items()} == \
        {i: t.to_dict() for i, t in tok.added_tokens_decoder.items()}
    if case == "added_tokens":
        assert copy_.custom_attribute == {"kept": [1, 2]}
    if reference != "transformers":
        batch, batch_copy = tok.encode_batch(texts, return_offsets=True), copy_.encode_batch(texts, return_offsets=True)
        assert batch_copy.tolist() == batch.tolist() and (batch_copy.offsets == batch.offsets).all()


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
def test_bert_tokenizer_loaded_from_a_saved_directory(reference, tmp_path):
    """Added tokens whose ids come from tokenizer.json / tokenizer_config.json."""
    original = _configured(reference, "added_tokens")
    original.save_pretrained(tmp_path)
    tok = BertTokenizer.from_pretrained(tmp_path, reference=reference)
    copy_ = roundtrip(tok)
    texts = LINES + ["the naïve café <ent> x <rel> [MASK] Unicode <s>"]
    assert copy_(texts)["input_ids"] == tok(texts)["input_ids"]
    assert copy_.added_tokens_encoder == tok.added_tokens_encoder and copy_.name_or_path == tok.name_or_path


def test_legacy_without_basic_tokenize():
    tok = BertTokenizer.from_pretrained(UNCASED, reference="transformers", do_basic_tokenize=False)
    copy_ = roundtrip(tok)
    assert copy_(LINES)["input_ids"] == tok(LINES)["input_ids"]


def test_added_token_objects_stay_shared():
    """add_tokens(special=True) upgrades the stored AddedToken in place: the copy's
    two tables must still hold one object per token."""
    tok = BertTokenizer.from_pretrained(UNCASED)
    tok.add_tokens(["hello world"])
    copy_ = roundtrip(tok)
    tid = copy_.get_added_vocab()["hello world"]
    assert copy_.added_tokens_decoder[tid] is copy_._added["hello world"][1]
    copy_.add_tokens(["hello world"], special_tokens=True)
    assert copy_.added_tokens_decoder[tid].special


# ---------------------------------------------------- another interpreter
_CHILD = """
import json, pickle, sys
with open(sys.argv[1], "rb") as f:
    tok = pickle.load(f)
lines = json.loads(sys.argv[2])
print(json.dumps([tok.encode(t) if hasattr(tok, "vocab_file") and not hasattr(tok, "model_max_length")
                  else tok(t)["input_ids"] for t in lines]))
sys.stdout.write("\\n" + pickle.dumps(tok).hex())
"""


@pytest.mark.parametrize("make", [
    lambda: FullTokenizer.from_pretrained(MULTI, reference="transformers", never_split=["[MASK]"]),
    lambda: _configured("tokenizers", "added_tokens"),
    lambda: _configured("transformers", "options"),
], ids=["FullTokenizer", "BertTokenizer", "BertTokenizer-legacy"])
def test_unpickle_in_another_process(make, tmp_path):
    tok = make()
    path = tmp_path / "tok.pkl"
    path.write_bytes(pickle.dumps(tok))
    lines = LINES[::3]
    # Another process that never held the object: a forked child of tests/preloaded.py's server, which has
    # only imported modules (another hash seed than this process's too). Unpickling where bertpiece is not
    # imported yet is test_multiprocessing_pool's spawn workers'.
    out = run_python(["-c", _CHILD, str(path), json.dumps(lines)], text=True, check=True, timeout=120).stdout
    ids, data = out.split("\n", 1)
    expected = [tok.encode(t) if isinstance(tok, FullTokenizer) else tok(t)["input_ids"] for t in lines]
    assert json.loads(ids) == expected
    # the other process (another hash seed) pickles it to the same bytes
    assert bytes.fromhex(data.strip()) == path.read_bytes()


# ---------------------------------------------------------- multiprocessing
_WORKER_TOKENIZER = None


def _init_worker(tok):
    global _WORKER_TOKENIZER
    _WORKER_TOKENIZER = tok


def _encode_with_worker_tokenizer(line):
    return _WORKER_TOKENIZER(line)["input_ids"]


def _encode_with(args):
    tok, line = args
    return tok.encode(line)


def _encode_batch_with_worker_tokenizer(lines):
    return _WORKER_TOKENIZER(lines)["input_ids"], _WORKER_TOKENIZER.encode_batch(lines).tolist()


# Python >= 3.12 warns when forking a process that runs threads; the parent's
# Rust thread pools are per process id, so a forked child builds its own.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded, use of fork:DeprecationWarning")
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_pool(method):
    ctx = multiprocessing.get_context(method)
    bert = BertTokenizer.from_pretrained(UNCASED)
    bert.add_tokens(["naïve café"])
    full = FullTokenizer.from_pretrained(MULTI, reference="transformers")
    direct = bert(LINES)["input_ids"]  # the multi-threaded batch path runs in the parent before the fork
    with ctx.Pool(2, initializer=_init_worker, initargs=(bert,)) as pool:
        assert pool.map(_encode_with_worker_tokenizer, LINES, chunksize=8) == direct
        # batches in the workers (their own thread pools)
        chunks = pool.map(_encode_batch_with_worker_tokenizer, [LINES[:20], LINES[20:]])
        assert [row for ids, _ in chunks for row in ids] == direct == [row for _, ids in chunks for row in ids]
        # the tokenizer as a task argument (pickled with every task)
        assert pool.map(_encode_with, [(full, line) for line in LINES[:10]]) == [full.encode(t) for t in LINES[:10]]

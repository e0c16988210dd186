"""bertpiece.BertTokenizer as the transformers object (issue 15): the
PreTrainedTokenizerBase subclass, the members transformers' own code reads,
and the corrected corners. Every expectation comes from transformers 5 at
test time: `BertTokenizer` for reference="tokenizers", `BertTokenizerLegacy`
for reference="transformers"."""

import json
import logging
import os
import subprocess
import sys
import warnings

import pytest

import bertpiece
from bertpiece.references import load_google, unicode_version_diff

warnings.filterwarnings("ignore")
import transformers  # noqa: E402  (a test dependency: never skipped)
transformers.logging.set_verbosity_error()
from transformers import BertTokenizerLegacy, PreTrainedTokenizerBase  # noqa: E402

UNCASED = "bert-base-uncased"
VOCAB = bertpiece.vocab_path(UNCASED)
REFS = ("tokenizers", "transformers")


def theirs(reference, **kwargs):
    kwargs.setdefault("model_max_length", 512)  # the hub's value, which ours gets for bundled names
    if reference == "transformers":
        return BertTokenizerLegacy(vocab_file=VOCAB, **kwargs)
    return transformers.BertTokenizer(vocab=VOCAB, **kwargs)


def ours(reference, **kwargs):
    return bertpiece.BertTokenizer.from_pretrained(UNCASED, reference=reference, **kwargs)


def plain(value):
    return value.tolist() if hasattr(value, "tolist") else value


def same(a, b):
    assert sorted(a.keys()) == sorted(b.keys())
    for key in b:
        assert plain(a[key]) == plain(b[key]), key


def outcome(call):
    try:
        return "ok", call()
    except BaseException as exc:  # noqa: BLE001  (HF raises PanicException, a BaseException)
        return "raises", exc


# ------------------------------------------------------------------ the class
def test_is_a_pretrained_tokenizer_base_and_import_stays_light():
    assert isinstance(ours("tokenizers"), PreTrainedTokenizerBase)
    assert issubclass(bertpiece.BertTokenizer, bertpiece.PlainBertTokenizer)
    code = ("import sys, bertpiece; assert 'transformers' not in sys.modules; "
            "t = bertpiece.PlainBertTokenizer.from_pretrained('bert-base-uncased'); t('hi'); "
            "assert 'transformers' not in sys.modules; print('ok')")
    # a fresh interpreter, not tests/preloaded.py's (which has imported transformers): the import is the point
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "ok\n"


@pytest.mark.parametrize("how", ["env", "not-installed"])
def test_without_transformers_the_class_still_works(how):
    block = "import sys; sys.modules['transformers'] = None\n" if how == "not-installed" else ""
    code = block + (
        "import bertpiece\n"
        "T = bertpiece.BertTokenizer\n"
        "assert T is bertpiece.PlainBertTokenizer, T.__mro__\n"
        "t = T.from_pretrained('bert-base-uncased')\n"
        "print(t(['[MASK] x', 'hello'], padding=True)['input_ids'])\n")
    env = dict(os.environ, BERTPIECE_TRANSFORMERS="0" if how == "env" else "1")
    # a fresh interpreter: transformers blocked or switched off before bertpiece imports it
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert json.loads(out) == theirs("tokenizers")(["[MASK] x", "hello"], padding=True)["input_ids"]


@pytest.mark.parametrize("reference", REFS)
def test_members_transformers_code_reads(reference):
    a, b = ours(reference), theirs(reference)
    assert a.model_input_names == b.model_input_names
    assert a.init_inputs == b.init_inputs == ()
    for name in ("bos_token", "eos_token", "bos_token_id", "eos_token_id", "extra_special_tokens",
                 "extra_special_tokens_ids", "special_tokens_map", "all_special_tokens", "all_special_ids",
                 "max_len_single_sentence", "max_len_sentences_pair", "model_max_length", "pad_token_type_id"):
        assert getattr(a, name) == getattr(b, name), name
    assert a.backend == b.backend
    assert {k: str(v) for k, v in a.added_tokens_decoder.items()} == \
        {k: str(v) for k, v in b.added_tokens_decoder.items()}
    # BERT2BERT recipes: bos/eos set from cls/sep
    for tok in (a, b):
        tok.bos_token, tok.eos_token = tok.cls_token, tok.sep_token
    assert (a.bos_token_id, a.eos_token_id) == (b.bos_token_id, b.eos_token_id) == (101, 102)


@pytest.mark.parametrize("reference", REFS)
def test_id_setters_rename_as_transformers(reference):
    a, b = ours(reference), theirs(reference)
    for tok in (a, b):
        tok.pad_token_id = 100
        tok.mask_token = "<new-mask>"  # not added to the vocabulary: renames only
        tok.extra_special_tokens_ids = [1, 2]
    for name in ("pad_token", "pad_token_id", "mask_token", "mask_token_id", "extra_special_tokens"):
        assert getattr(a, name) == getattr(b, name), name
    assert len(a) == len(b)
    if reference == "tokenizers":  # (legacy: see docs/bert_tokenizer.md, renamed special tokens)
        same(a("hi <new-mask> there", padding="max_length", max_length=12),
             b("hi <new-mask> there", padding="max_length", max_length=12))
    for tok in (a, b):
        tok.unk_token_id = None
    assert a.unk_token is None and a.unk_token_id is None


@pytest.mark.parametrize("reference", REFS)
def test_added_tokens_decoder_given_as_transformers_saves_it(reference):
    from tokenizers import AddedToken
    decoder = {30522: AddedToken("<ent>", special=True, normalized=False), 30523: AddedToken("xyzzy")}
    a = bertpiece.BertTokenizer(VOCAB, reference=reference, added_tokens_decoder=decoder)
    assert a.get_added_vocab()["<ent>"] == 30522 and a.get_added_vocab()["xyzzy"] == 30523
    assert a("a <ent> xyzzy")["input_ids"] == [101, 1037, 30522, 30523, 102]


# -------------------------------------------------------------- call options
@pytest.mark.parametrize("reference", REFS)
@pytest.mark.parametrize("case", [
    dict(text="hello world", text_target="bonjour le monde"),
    dict(text=["a b", "c d e"], text_target=["x", "y z"], padding=True),
    dict(text=["a b c d e f g"], text_target=["x y z w v u t s"], max_length=5, max_target_length=7, truncation=True),
    dict(text_target=["only targets", "x"], padding=True),
    dict(text="hello", text_pair="", return_token_type_ids=True),
    dict(text=["hello"], text_pair=[""]),
    dict(text=[["My", "name"], ["Hi", "there", "!"]], is_split_into_words=True),
    dict(text="hi", src_lang="en_XX"),  # unknown keyword: ignored, as transformers
    dict(text="hello world", tokenizer_kwargs={"max_length": 3, "truncation": True}),
])
def test_call_variants_match(reference, case):
    same(ours(reference)(**case), theirs(reference)(**case))


@pytest.mark.parametrize("reference", REFS)
def test_tuples_of_words(reference):
    # HF tokenizers reads a tuple of words as words, BertTokenizerLegacy as a pair
    case = dict(text=[("My", "name"), ("Hi", "there")], is_split_into_words=True)
    same(ours(reference)(**case), theirs(reference)(**case))


@pytest.mark.parametrize("reference", REFS)
def test_prepare_seq2seq_batch(reference):
    batch = ours(reference).prepare_seq2seq_batch(["a b c d e", "f"], ["x y z", "w"], max_length=4,
                                                  max_target_length=3, return_tensors="np")
    ref = theirs(reference)(["a b c d e", "f"], text_target=["x y z", "w"], max_length=4, max_target_length=3,
                            padding="longest", truncation=True, return_tensors="np")
    same(batch, ref)


@pytest.mark.parametrize("reference", REFS)
def test_negative_or_wrong_sizes_raise(reference):
    tok = ours(reference)
    for kwargs in (dict(stride=-1, max_length=4, truncation=True, return_overflowing_tokens=True),
                   dict(max_length=-3, truncation=True), dict(pad_to_multiple_of=0, padding=True),
                   dict(stride=1.5, max_length=4, truncation=True)):
        name = next(k for k in ("stride", "pad_to_multiple_of", "max_length") if k in kwargs and
                    (k != "max_length" or kwargs[k] < 0))
        with pytest.raises(ValueError, match=name):
            tok("hello world foo bar", **kwargs)
    # HF tokenizers itself refuses a negative stride (OverflowError from its u32)
    assert outcome(lambda: theirs("tokenizers")("hello world foo bar", max_length=4, truncation=True, stride=-1,
                                                return_overflowing_tokens=True))[0] == "raises"


@pytest.mark.parametrize("reference", REFS)
def test_too_long_warning(reference):
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("transformers.tokenization_utils_base")
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.WARNING)
    try:
        for tok in (ours(reference), theirs(reference)):
            tok("word " * 600)
            tok("word " * 600)  # once per tokenizer
            tok("word " * 600, truncation=True)  # truncated: no warning
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    messages = [r.getMessage() for r in records]
    assert len(messages) == 2 and messages[0] == messages[1], messages
    assert "(602 > 512)" in messages[0]


@pytest.mark.parametrize("reference", REFS)
def test_bundled_models_truncate_at_512(reference):
    a, b = ours(reference), theirs(reference)
    text = "word " * 1000
    same(a(text, truncation=True), b(text, truncation=True))
    assert len(a(text, truncation=True)["input_ids"]) == 512
    for hub_id in ("google-bert/bert-base-uncased", "google-bert/bert-base-cased",
                   "google-bert/bert-base-multilingual-cased", "google-bert/bert-base-chinese"):
        tok = bertpiece.BertTokenizer.from_pretrained(hub_id, reference=reference)
        assert tok.model_max_length == 512 and tok.name_or_path == hub_id
        bundled = bertpiece.BertTokenizer.from_pretrained(hub_id.split("/")[1], reference=reference)
        assert tok("Héllo Wörld 中文")["input_ids"] == bundled("Héllo Wörld 中文")["input_ids"]


# ------------------------------------------------------ ids and added tokens
def test_bad_ids_raise_as_hf_and_legacy_gives_unk():
    a, b = ours("tokenizers"), theirs("tokenizers")
    for call in (lambda t: t.decode([101, -100, 102]), lambda t: t.convert_ids_to_tokens(10**12),
                 lambda t: t.convert_ids_to_tokens([5, -1])):
        assert isinstance(outcome(lambda: call(b))[1], OverflowError)
        with pytest.raises(OverflowError, match="not a token id"):
            call(a)
    assert a.decode([101, 40000, 102]) == b.decode([101, 40000, 102])  # an unused id: left out by HF
    la, lb = ours("transformers"), theirs("transformers")
    assert la.decode([101, -100, 102]) == lb.decode([101, -100, 102])
    assert la.convert_ids_to_tokens(10**12) == lb.convert_ids_to_tokens(10**12)


@pytest.mark.parametrize("reference", REFS)
def test_add_tokens_type_checks(reference):
    a, b = ours(reference), theirs(reference)
    for bad in ([None], [5], 5):
        assert outcome(lambda: b.add_tokens(bad))[0] == "raises"
        with pytest.raises(TypeError):
            a.add_tokens(bad)
    assert a.add_tokens(None) == b.add_tokens(None) == 0
    assert "None" not in a.get_vocab()


def test_many_added_tokens():
    # quadratic before (8,000 tokens about 1 s; 100,000 never finished)
    tok = ours("tokenizers")
    assert tok.add_tokens([f"tok{i}x" for i in range(100_000)]) == 100_000
    assert len(tok) == 130_522
    ref = theirs("tokenizers")
    ref.add_tokens([f"tok{i}x" for i in range(0, 100_000, 997)])
    text = "a tok0x b tok997xtok1994x tok99xy"
    assert tok(text)["input_ids"][:3] == [101, 1037, 30522]
    assert tok.convert_ids_to_tokens(tok(text)["input_ids"]) == [
        "[CLS]", "a", "tok0x", "b", "tok997x", "tok1994x", "tok99x", "y", "[SEP]"]


# ---------------------------------------------------------------- surrogates
def test_lone_surrogates_name_the_row():
    tok, ref = ours("tokenizers"), theirs("tokenizers")
    assert isinstance(outcome(lambda: ref(["ok", "a\ud800b"]))[1], TypeError)
    for call in (lambda: tok(["ok", "a\ud800b"]), lambda: tok(["ok", "a\ud800b"], padding=True, return_tensors="np"),
                 lambda: tok.encode_batch(["ok", "a\ud800b"])):
        with pytest.raises(TypeError, match=r"\[1\] holds a lone surrogate \(U\+D800 at position 1\)"):
            call()
    # BertTokenizerLegacy drops them (a C* character), single or batched
    la, lb = ours("transformers"), theirs("transformers")
    assert la(["ok", "a\ud800b"])["input_ids"] == lb(["ok", "a\ud800b"])["input_ids"]


def test_alignment_out_of_range_is_none():
    a, b = ours("tokenizers")(["hi there"]), theirs("tokenizers")(["hi there"])
    for method in ("token_to_chars", "token_to_word", "token_to_sequence"):
        assert getattr(a, method)(0, 99) is getattr(b, method)(0, 99) is None
        assert getattr(a, method)(0, -99) is None  # HF: OverflowError for any negative index (documented)
    assert a.token_to_word(0, -2) == b.token_to_word(0, 2)
    with pytest.raises(ValueError, match="token_to_word"):
        ours("transformers")("hi").token_to_word(0)


# ------------------------------------------------------------------ folders
def _folder(tmp_path, *, lowercase):
    ref = transformers.BertTokenizer(vocab=bertpiece.vocab_path("bert-base-cased"), do_lower_case=lowercase)
    ref.save_pretrained(tmp_path)
    return ref


@pytest.mark.parametrize("option", [dict(do_lower_case=True), dict(strip_accents=True),
                                    dict(tokenize_chinese_chars=False), dict(do_lower_case=False)])
def test_callers_arguments_win_over_tokenizer_json(tmp_path, option):
    _folder(tmp_path, lowercase=not option.get("do_lower_case", False))
    text = "Héllo WÖRLD 中文字"
    a = bertpiece.BertTokenizer.from_pretrained(tmp_path, **option)
    b = transformers.BertTokenizer.from_pretrained(tmp_path, **option)
    assert a.tokenize(text) == b.tokenize(text)


@pytest.mark.parametrize("bad_id", [-1, 10**9])
def test_tokenizer_json_added_ids_out_of_range(tmp_path, bad_id):
    _folder(tmp_path, lowercase=True)
    path = tmp_path / "tokenizer.json"
    data = json.loads(path.read_text())
    data["added_tokens"][0]["id"] = bad_id
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"added_tokens\[0\]\.id"):
        bertpiece.BertTokenizer.from_pretrained(tmp_path)


@pytest.mark.parametrize("file, content, match", [
    ("tokenizer_config.json", {"added_tokens_decoder": {"100": {"no_content": 1}}},
     r"tokenizer_config.json: added_tokens_decoder\['100'\]"),
    ("tokenizer_config.json", {"added_tokens_decoder": {"x": {"content": "a"}}}, "key 'x' is not an integer"),
    ("tokenizer_config.json", [1, 2], "must hold a JSON object"),
    ("special_tokens_map.json", {"cls_token": {"text": "[CLS]"}}, "cls_token must be a string"),
    ("added_tokens.json", {"xyzzy": "12"}, "added_tokens.json: the id of 'xyzzy'"),
    ("added_tokens.json", "{not json", "not valid JSON"),
])
def test_malformed_folder_files_name_file_and_key(tmp_path, file, content, match):
    with open(VOCAB, "rb") as f:
        (tmp_path / "vocab.txt").write_bytes(f.read())
    (tmp_path / file).write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(ValueError, match=match):
        bertpiece.BertTokenizer.from_pretrained(tmp_path, reference="transformers")


# ------------------------------------------------------------ Google's module
def test_google_character_classes():
    google = load_google()
    newer = unicode_version_diff()  # code points this interpreter's Unicode data classes differently
    for cp in list(range(0x3000)) + [0x1680, 0x200B, 0x2028, 0xFEFF, 0xE000, 0x1F600]:
        ch = chr(cp)
        for name in ("_is_whitespace", "_is_control", "_is_punctuation"):
            if cp in newer:
                continue
            # at the package root too, as in Google's module (`import bertpiece as tokenization`)
            assert getattr(bertpiece, name) is getattr(bertpiece.tokenization, name)
            assert getattr(bertpiece.tokenization, name)(ch) == getattr(google, name)(ch), (name, hex(cp))


@pytest.mark.parametrize("flags", [dict(lstrip=True), dict(rstrip=True), dict(single_word=True),
                                   dict(lstrip=True, rstrip=True, single_word=True)])
@pytest.mark.parametrize("word", ["foo", "xyzzy", "<e>"])
def test_added_token_flags(flags, word):
    # single_word, lstrip, rstrip: ids, offsets and word ids as HF's added vocabulary
    from tokenizers import AddedToken
    a, b = ours("tokenizers"), theirs("tokenizers")
    for tok in (a, b):
        tok.add_tokens([AddedToken(word, **flags)])
    for text in (f"a {word} b", f"a{word}b", f"a  {word}  b", word, f" {word}{word} ", f"_{word}", f"{word}é x",
                 f"x\t{word}\n"):
        ra, rb = a([text], return_offsets_mapping=True), b([text], return_offsets_mapping=True)
        same(ra, rb)
        assert ra.word_ids(0) == rb.word_ids(0)


@pytest.mark.parametrize("name", ["bert-base-uncased", "bert-base-multilingual-cased"])
def test_one_text_default_call(name):
    # tok(text) with default options takes the serving path (the core's ids, lazy alignment)
    from google_reference import data_files, read_lines
    tok = bertpiece.BertTokenizer.from_pretrained(name)
    entry = bertpiece.PRETRAINED[name]
    ref = transformers.BertTokenizer(vocab=bertpiece.vocab_path(name), do_lower_case=entry.hf_do_lower_case)
    lines = [line for f in data_files() for line in read_lines(f)[:4]] + ["", "  ", "a [MASK] b", "[CLS]x[SEP]"]
    for line in lines:
        a, b = tok(line), ref(line)
        same(a, b)
        assert a.tokens() == b.tokens() and a.word_ids() == b.word_ids(), line
        assert [a.token_to_chars(i) for i in range(len(b.tokens()))] == \
            [b.token_to_chars(i) for i in range(len(b.tokens()))], line
        assert tok(line, add_special_tokens=False)["input_ids"] == ref(line, add_special_tokens=False)["input_ids"]


@pytest.mark.parametrize("reference", REFS)
@pytest.mark.parametrize("text", ["hello", ["hello"], ["a", "b c"]])
@pytest.mark.parametrize("kwargs, name", [(dict(max_length=2**62, padding="max_length"), "max_length"),
                                          (dict(max_length=10**9, padding="max_length"), "max_length"),
                                          (dict(padding=True, pad_to_multiple_of=2**40), "pad_to_multiple_of")])
def test_unallocatable_padding_names_the_argument(reference, text, kwargs, name):
    # was: a bare MemoryError (single text), or gigabytes of [pad] * n lists attempted
    with pytest.raises(MemoryError, match=f"{name}="):
        ours(reference)(text, **kwargs)


@pytest.mark.parametrize("reference", ["tokenizers"])  # (BertTokenizerLegacy keeps [MASK] whole either way)
def test_split_special_tokens_per_call_is_thread_safe(reference):
    # a call's split_special_tokens= used to be set on the tokenizer for the call's
    # duration, so another thread's call could run with it
    import itertools
    import sys
    from google_reference import errors_in_threads

    tok = ours(reference)
    split = theirs(reference, split_special_tokens=True)(["a [MASK] b"])["input_ids"]
    whole = theirs(reference)(["a [MASK] b"])["input_ids"]
    assert split != whole
    turn = itertools.count()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        def work():
            mine = next(turn) % 2 == 0
            for _ in range(300):
                got = tok(["a [MASK] b"], split_special_tokens=True)["input_ids"] if mine else \
                    tok(["a [MASK] b"])["input_ids"]
                assert got == (split if mine else whole)
        assert errors_in_threads(work, n=4) == []
    finally:
        sys.setswitchinterval(old)

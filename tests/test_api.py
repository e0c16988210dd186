"""The Google-compatible API: names and signatures, adversarial input against
the oracle and the real Google code, and bad input raising clear exceptions."""

import inspect
import os

import pytest
import unicodedata2

import bertpiece
from bertpiece import _strtables, oracle
from google_reference import errors_in_threads, load_google

UNCASED = bertpiece.vocab_path("bert-base-uncased")
google = load_google()


@pytest.fixture(scope="module")
def toks():
    return {
        lower: (bertpiece.FullTokenizer(UNCASED, lower), oracle.FullTokenizer(UNCASED, lower),
                google.FullTokenizer(UNCASED, do_lower_case=lower))
        for lower in (True, False)
    }


def test_unicode_version_is_pinned_everywhere():
    assert bertpiece.UNICODE_VERSION == oracle.UNICODE_VERSION == _strtables.UNICODE_VERSION
    assert bertpiece.UNICODE_VERSION == unicodedata2.unidata_version


def test_module_is_a_drop_in_for_google_tokenization():
    for name in ("FullTokenizer", "BasicTokenizer", "WordpieceTokenizer", "load_vocab", "convert_to_unicode",
                 "printable_text", "whitespace_tokenize", "convert_by_vocab", "convert_tokens_to_ids",
                 "convert_ids_to_tokens", "validate_case_matches_checkpoint"):
        ours, theirs = getattr(bertpiece, name), getattr(google, name)
        ours_params = list(inspect.signature(ours).parameters.values())
        theirs_params = list(inspect.signature(theirs).parameters.values())
        # Google's positional parameters, names and defaults, come first and unchanged.
        assert [(p.name, p.default) for p in ours_params[:len(theirs_params)]] == \
               [(p.name, p.default) for p in theirs_params], name
        assert all(p.kind == p.KEYWORD_ONLY or p.default is not p.empty for p in ours_params[len(theirs_params):]), name
    for method in ("tokenize", "convert_tokens_to_ids", "convert_ids_to_tokens"):
        assert callable(getattr(bertpiece.FullTokenizer, method))


ADVERSARIAL = {
    "10k-char word": "a" * 10_000,
    "10k-char word, mixed": "unaffable" * 1111 + "x",
    "exactly max (200)": "b" * 200,
    "max + 1 (201)": "b" * 201,
    "exactly 100": "c" * 100,
    "101": "c" * 101,
    "only combining marks": "\u0301\u0323\u0345" * 50,
    "marks then word": "\u0301 \u0301a a\u0301\u0301",
    "only punctuation": "!!??,,..;;“”‧" * 20,
    "only whitespace": " \t\n\r\u3000\u2028\u2029\xa0\x85\x1c" * 10,
    "empty": "",
    "NUL bytes": "\x00a\x00b\x00 \x00",
    "lone surrogates": "\ud800 a\udfffb \udc00\ud83d Σ\ud800",
    "surrogate pair halves": "\ud83d\ude00",
    "noncharacters and private use": "\ufdd0\uffff\ue000\U0010ffff",
    "replacement char": "a\ufffdb \ufffd",
    "final sigma": "ΟΔΟΣ ΣΑΣ Σ ΑΣ\u0301 ΑΣ.Β",
    "dotted I": "İstanbul İ I\u0307",
    "CJK edge": "\u2b81f\u2b820\U0002B920\u9fff\u3400",
    "unused tokens": "[unused1] [UNK] [CLS]",
}


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("name", ADVERSARIAL)
def test_adversarial_input_matches_oracle_and_google(toks, name, lower):
    rust, orac, goog = toks[lower]
    text = ADVERSARIAL[name]
    want = goog.tokenize(text)
    assert orac.tokenize(text) == want
    assert rust.tokenize(text) == want
    assert rust.encode(text) == goog.convert_tokens_to_ids(want)
    assert bertpiece.BasicTokenizer(lower).tokenize(text) == google.BasicTokenizer(lower).tokenize(text)


def test_word_length_limit_per_reference():
    for reference, limit in (("google", 200), ("transformers", 100)):
        tok = bertpiece.FullTokenizer(UNCASED, reference=reference)
        assert tok.tokenize("a" * limit) != ["[UNK]"]
        assert tok.tokenize("a" * (limit + 1)) == ["[UNK]"]
        assert tok.tokenize("a" * (limit + 1)) == oracle.FullTokenizer(UNCASED, reference=reference).tokenize("a" * (limit + 1))


def test_bytes_are_decoded_ignoring_invalid_utf8(toks):
    rust, _, goog = toks[True]
    data = "café naïve".encode() + b"\xff\xfe \xe2\x82 ok \xc3"
    assert rust.tokenize(data) == goog.tokenize(data)
    assert bertpiece.convert_to_unicode(data) == google.convert_to_unicode(data)
    assert bertpiece.BasicTokenizer().tokenize(data) == google.BasicTokenizer().tokenize(data)


@pytest.mark.parametrize("bad", [None, 3, 1.5, ["a"], bytearray(b"a")])
def test_non_text_raises_type_error_naming_the_type(toks, bad):
    rust = toks[True][0]
    for call in (rust.tokenize, rust.encode, bertpiece.BasicTokenizer().tokenize, bertpiece.convert_to_unicode,
                 bertpiece.WordpieceTokenizer({"[UNK]": 0}).tokenize, bertpiece.whitespace_tokenize):
        with pytest.raises(TypeError, match=type(bad).__name__):
            call(bad)


def test_missing_vocab_file_names_the_path(tmp_path):
    missing = tmp_path / "nope" / "vocab.txt"
    with pytest.raises(FileNotFoundError, match="nope") as info:
        bertpiece.FullTokenizer(missing)
    assert info.value.filename == str(missing)
    with pytest.raises(FileNotFoundError):
        bertpiece.load_vocab(missing)


def test_vocab_without_unk_is_rejected_at_construction(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("[PAD]\nhello\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[UNK\]"):
        bertpiece.FullTokenizer(path)
    with pytest.raises(ValueError, match="<unk>"):
        bertpiece.FullTokenizer(UNCASED, unk_token="<unk>")
    with pytest.raises(ValueError, match=r"\[UNK\]"):
        bertpiece.WordpieceTokenizer({"hello": 1})


def test_invalid_utf8_vocab_is_a_value_error(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\nok\n\xff\xfe\n")
    with pytest.raises(ValueError, match="line 3"):
        bertpiece.FullTokenizer(path)


def test_unknown_reference_lists_valid_ones():
    with pytest.raises(ValueError, match="google.*transformers"):
        bertpiece.FullTokenizer(UNCASED, reference="hf")
    with pytest.raises(ValueError, match="google.*transformers"):
        bertpiece.BasicTokenizer(reference="hf")


def test_convert_raises_key_error_like_google(toks):
    rust, _, goog = toks[True]
    assert rust.convert_tokens_to_ids(["hello", "[CLS]"]) == goog.convert_tokens_to_ids(["hello", "[CLS]"])
    assert rust.convert_ids_to_tokens([7592, 101]) == goog.convert_ids_to_tokens([7592, 101])
    with pytest.raises(KeyError, match="nonexistent-token"):
        rust.convert_tokens_to_ids(["hello", "nonexistent-token"])
    with pytest.raises(KeyError):
        rust.convert_ids_to_tokens([10**9])


def test_from_pretrained_uses_bundled_files_and_casing():
    for name, entry in bertpiece.PRETRAINED.items():
        tok = bertpiece.FullTokenizer.from_pretrained(name)
        assert tok.do_lower_case == entry.do_lower_case
        assert os.path.exists(bertpiece.vocab_path(name))
        want = google.FullTokenizer(bertpiece.vocab_path(name), do_lower_case=entry.do_lower_case)
        assert tok.tokenize("Héllo WORLD, 中文!") == want.tokenize("Héllo WORLD, 中文!")
    assert bertpiece.FullTokenizer.from_pretrained("bert-base-cased", do_lower_case=True).do_lower_case
    with pytest.raises(ValueError, match="bert-base-uncased"):
        bertpiece.FullTokenizer.from_pretrained("bert-large-nope")


def test_google_attributes_are_available(toks):
    rust, _, goog = toks[True]
    assert rust.vocab == goog.vocab and rust.inv_vocab == goog.inv_vocab
    text = "Héllo, WORLD [unused3]!"
    assert rust.basic_tokenizer.tokenize(text) == goog.basic_tokenizer.tokenize(text)
    assert rust.wordpiece_tokenizer.tokenize("hello unaffable") == goog.wordpiece_tokenizer.tokenize("hello unaffable")


def test_preserve_unused_tokens_matches_google_flag():
    from absl import flags
    text = "[unused1] x[unused2] [UNUSED3] [unused١]"
    flags.FLAGS.preserve_unused_tokens = True
    try:
        want = google.FullTokenizer(UNCASED).tokenize(text)
    finally:
        flags.FLAGS.preserve_unused_tokens = False
    assert bertpiece.FullTokenizer(UNCASED, preserve_unused_tokens=True).tokenize(text) == want
    assert bertpiece.FullTokenizer(UNCASED).tokenize(text) == google.FullTokenizer(UNCASED).tokenize(text)


def test_preserve_unused_tokens_follows_googles_flag_at_each_call():
    """The default (None) reads Google's absl flag at every call, as Google's tokenize does;
    True/False fix the setting. Old code: the default was False, deaf to the flag."""
    import pickle

    from absl.testing import flagsaver
    text = "a [unused1] x[unused2] [unused3]b [UNUSED3]"
    ours, theirs = bertpiece.FullTokenizer(UNCASED), google.FullTokenizer(UNCASED)
    basic = bertpiece.BasicTokenizer(True, ours.vocab)
    fixed = bertpiece.FullTokenizer(UNCASED, preserve_unused_tokens=False)
    plain = theirs.tokenize(text)
    assert ours.tokenize(text) == plain
    with flagsaver.flagsaver(preserve_unused_tokens=True):  # set after construction
        want = theirs.tokenize(text)
        assert want != plain
        assert ours.tokenize(text) == want
        assert ours.encode(text) == theirs.convert_tokens_to_ids(want)
        assert ours.basic_tokenizer.tokenize(text) == theirs.basic_tokenizer.tokenize(text)
        assert basic.tokenize(text) == theirs.basic_tokenizer.tokenize(text)
        assert pickle.loads(pickle.dumps(ours)).tokenize(text) == want
        assert fixed.tokenize(text) == plain
    assert ours.tokenize(text) == plain and basic.tokenize(text) == theirs.basic_tokenizer.tokenize(text)
    # transformers and tokenizers have no such setting: the flag does not reach them
    with flagsaver.flagsaver(preserve_unused_tokens=True):
        tf_mode = bertpiece.FullTokenizer(UNCASED, reference="transformers")
        assert tf_mode.tokenize(text) == bertpiece.FullTokenizer(UNCASED, reference="transformers",
                                                                 preserve_unused_tokens=False).tokenize(text)


def test_preserve_unused_flag_defined_by_bertpiece_coexists_with_googles_module():
    """Without bert.tokenization, bertpiece defines the flag (when absl is loaded); Google's module
    imported afterwards replaces the definition instead of failing, and both read one value."""
    import subprocess
    import sys
    code = (
        "import sys, types\n"
        "from absl import flags\n"
        "import bertpiece\n"
        "assert 'preserve_unused_tokens' in flags.FLAGS\n"
        "from google_reference import load_google\n"
        "g = load_google()\n"
        "flags.FLAGS(['x', '--preserve_unused_tokens'])\n"
        "t = '[unused1] b'\n"
        "print(bertpiece.FullTokenizer(sys.argv[1]).tokenize(t) == g.FullTokenizer(sys.argv[1]).tokenize(t) "
        "== ['[unused1]', 'b'])\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(bertpiece.__file__)),
                                                       os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", code, UNCASED], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "True"


def test_validate_case_matches_checkpoint_like_google():
    for lower in (True, False):
        for ckpt in ("", "x/uncased_L-12_H-768_A-12/bert_model.ckpt", "gs://b/cased_L-12_H-768_A-12/bert_model.ckpt",
                     "other/bert_model.ckpt"):
            try:
                google.validate_case_matches_checkpoint(lower, ckpt)
            except ValueError as e:
                with pytest.raises(ValueError) as ours:
                    bertpiece.validate_case_matches_checkpoint(lower, ckpt)
                assert str(ours.value) == str(e)
            else:
                bertpiece.validate_case_matches_checkpoint(lower, ckpt)


def test_one_tokenizer_shared_by_threads(toks):
    rust, orac, _ = toks[True]
    lines = ["Héllo wörld %d ΟΔΟΣ 中文 unaffable" % i for i in range(200)]
    want = [orac.tokenize(line) for line in lines]

    def work():
        for _ in range(5):
            assert [rust.tokenize(line) for line in lines] == want

    assert not errors_in_threads(work)


def test_stubs_match_the_extension():
    """`_core.pyi` agrees with the compiled module (mypy stubtest)."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "bertpiece._core"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("name", ["bert-base-uncased", "bert-base-multilingual-cased"])
def test_token_to_id_agrees_with_the_vocab_entries(name):
    # BertTokenizer builds its vocab dicts lazily and asks the core for single tokens.
    from bertpiece import BertTokenizer

    tok = BertTokenizer.from_pretrained(name)
    entries = dict(tok._core.vocab_entries())
    assert all(tok._core.token_to_id(t) == i for t, i in entries.items())
    assert len(tok._core) == len(entries) == tok.vocab_size
    for missing in ["", "not-a-token-anywhere", "\ud800", "[unk]"]:
        assert tok._core.token_to_id(missing) is None
    assert tok.convert_tokens_to_ids(list(entries)[:500]) == list(entries.values())[:500]
    with pytest.raises(TypeError):
        tok._core.token_to_id(b"[UNK]")


def test_token_to_id_finds_a_surrogate_token():
    core = bertpiece._core.FullTokenizer.from_entries([("[UNK]", 0), ("a\ud800b", 1)], True)
    assert core.token_to_id("a\ud800b") == dict(core.vocab_entries())["a\ud800b"] == 1


def test_import_and_the_numpy_free_calls_load_no_numpy():
    """`import bertpiece` and the calls that return no array (Google's API, tokenizer.json encodes, training)
    leave NumPy unloaded: ~0.1 s of start-up and 13 MB less (the trainers' peak memory is compared with HF's).
    NumPy flags are still accepted once NumPy is loaded (test_google_arguments.py)."""
    import subprocess
    import sys

    code = ("import sys, bertpiece; assert 'numpy' not in sys.modules\n"
            "t = bertpiece.FullTokenizer(bertpiece.vocab_path('bert-base-uncased'), do_lower_case=1)\n"
            "assert t.tokenize('Hello, world!') == ['hello', ',', 'world', '!']\n"
            "vocab = bertpiece.train_wordpiece(['a b c', 'ab bc'] * 20, vocab_size=30)\n"
            "from bertpiece import models, trainers, pre_tokenizers\n"
            "tok = bertpiece.Tokenizer(models.BPE(unk_token='<unk>')); tok.pre_tokenizer = pre_tokenizers.Whitespace()\n"
            "tok.train_from_iterator(['low lower lowest'] * 5, trainers.BpeTrainer(vocab_size=30, special_tokens=['<unk>']))\n"
            "assert bertpiece.Tokenizer.from_str(tok.to_str()).encode('lowest').tokens == tok.encode('lowest').tokens\n"
            "import pickle; pickle.loads(pickle.dumps(t))\n"
            "assert 'numpy' not in sys.modules, 'loaded NumPy'\n"
            "bertpiece.PlainBertTokenizer.from_pretrained('bert-base-uncased').encode_batch(['a b'])  # arrays: NumPy\n"
            "assert 'numpy' in sys.modules; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr[-2000:]

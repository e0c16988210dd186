"""The oracle (reference="google") must equal the REAL Google BERT tokenizer
(bert-tensorflow 1.0.4), except where the interpreter's Unicode version differs
from the oracle's pinned one (see google_reference.unicode_version_diff)."""

import functools
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import google_reference as gr  # noqa: E402
from tiers import ud_params  # noqa: E402

google = gr.load_google()
oracle = gr.load_oracle()

# vocab name -> do_lower_case the model was trained with
VOCABS = {
    "bert-base-uncased": True,
    "bert-base-cased": False,
    "bert-base-multilingual-cased": False,
    "bert-base-chinese": True,
}
FILES = gr.data_files()

FULL_JOBS = [("full", v, f) for v in VOCABS for f in FILES]
BASIC_JOBS = [("basic", lower, f) for lower in (True, False) for f in FILES]


# --------------------------------------------------------------------------
# Corpus comparison: the Rust core must equal the oracle exactly, and the
# oracle must equal the real Google code except for lines explained by the
# interpreter's Unicode version.
# --------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _full_tokenizers(vocab):
    """Google's, the oracle's and bertpiece's FullTokenizer of `vocab`, made once per process (12 jobs
    share each: loading the multilingual vocabulary in Python takes ~0.2 s per tokenizer)."""
    import bertpiece

    path = gr.vocab_path(vocab)
    return (google.FullTokenizer(path, do_lower_case=VOCABS[vocab]),
            oracle.FullTokenizer(path, do_lower_case=VOCABS[vocab], reference="google"),
            bertpiece.FullTokenizer(path, do_lower_case=VOCABS[vocab]))


def _run_job(job):
    """(number of lines, [(line, google output, oracle output)] that differ)."""
    import bertpiece

    kind, arg, filename = job
    lines = gr.read_lines(filename)
    if kind == "basic":
        # The full-tokenizer jobs already run every line through the basic
        # tokenizer; here every 5th line checks its output on its own.
        lines = lines[::5]
    if kind == "full":
        # Every 4th line, the vocabularies taking turns: each line runs under one of the four, so under a
        # lowercasing one (uncased, chinese) or a cased one (cased, multilingual), alternately.
        lines = lines[list(VOCABS).index(arg)::4]
        g, o, r = _full_tokenizers(arg)

        def run(tok, line):
            tokens = tok.tokenize(line)
            return tokens, tok.convert_tokens_to_ids(tokens)
    else:
        g = google.BasicTokenizer(do_lower_case=arg)
        o = oracle.BasicTokenizer(do_lower_case=arg, reference="google")
        r = bertpiece.BasicTokenizer(do_lower_case=arg)

        def run(tok, line):
            return tok.tokenize(line)

    bad = []
    for line in lines:
        expected, got = run(g, line), run(o, line)
        assert run(r, line) == got, ("rust != oracle", line)
        if kind == "full":
            assert r.encode(line) == got[1], ("rust encode != oracle ids", line)
        if expected != got:
            bad.append((line, expected, got))
    return len(lines), bad


_RESULTS = {}


def _check(job):
    _RESULTS[job] = n_lines, bad = _run_job(job)
    assert n_lines > 0
    unexplained = [b for b in bad if not gr.explained_by_unicode_version(b[0])]
    assert not unexplained, (
        "%d of %d lines differ from Google for a reason other than the Unicode "
        "version; first: %r" % (len(unexplained), n_lines, unexplained[0])
    )


@pytest.mark.parametrize("vocab,filename", ud_params([(v, f) for _, v, f in FULL_JOBS], key=lambda p: p[1]))
def test_full_tokenizer_corpus(vocab, filename):
    _check(("full", vocab, filename))


@pytest.mark.parametrize("lower,filename", ud_params([(lw, f) for _, lw, f in BASIC_JOBS], key=lambda p: p[1]))
def test_basic_tokenizer_corpus(lower, filename):
    _check(("basic", lower, filename))


def test_corpus_summary():
    """Prints (with -s / -rA) how many lines differed and were explained, for the
    corpus jobs this process ran."""
    corpus_results = _RESULTS
    diff = gr.unicode_version_diff()
    import unicodedata

    print("\ninterpreter Unicode %s, oracle %s: %d code points differ"
          % (unicodedata.unidata_version, oracle.UNICODE_VERSION, len(diff)))
    total_lines = total_bad = 0
    for job, (n_lines, bad) in corpus_results.items():
        total_lines += n_lines
        total_bad += len(bad)
        if bad:
            print("  %s %s %s: %d/%d lines differ (Unicode version)" % (job + (len(bad), n_lines)))
    print("  %d jobs, %d lines, %d differing lines" % (len(corpus_results), total_lines, total_bad))
    if unicodedata.unidata_version == oracle.UNICODE_VERSION:
        assert not diff and total_bad == 0


def test_unicode_version_diff_is_consistent():
    import unicodedata

    diff = gr.unicode_version_diff()
    if unicodedata.unidata_version == oracle.UNICODE_VERSION:
        assert not diff
    else:
        assert diff
    # U+1E030 (Cyrillic modifier letter, Unicode 15) is unassigned in 14.0.
    if unicodedata.unidata_version < "15":
        assert 0x1E030 in diff
    assert ord("a") not in diff and ord(" ") not in diff


# --------------------------------------------------------------------------
# load_vocab
# --------------------------------------------------------------------------

@pytest.mark.parametrize("vocab", list(VOCABS))
def test_load_vocab_real_files(vocab):
    path = gr.vocab_path(vocab)
    expected = google.load_vocab(path)
    got = oracle.load_vocab(path, reference="google")
    assert list(got.items()) == list(expected.items())


CRAFTED_VOCABS = {
    "duplicates": "[PAD]\n[UNK]\na\nb\na\nc\nb\n",
    "blank_lines": "[UNK]\n\n\na\n\n",
    "crlf": "[UNK]\r\na\r\n##b\r\n",
    "lone_cr": "[UNK]\ra\rb\n",
    "spaces_tabs": "  [UNK]  \n\ta\t\n \t ##b \t\nc d\n",
    "u2028_inside": "[UNK]\na\u2028b\n",
    "u2028_alone": "[UNK]\n\u2028\nx\n",
    "u2029_u0085": "[UNK]\n\u2029a\u0085\n\u0085\n",
    "nbsp": "[UNK]\n\u00a0a\u00a0\na\n",
    "no_final_newline": "[UNK]\na\nlast",
    "only_newlines": "\n\n\n",
    "empty": "",
    "bom": "\ufeff[UNK]\na\n",
}


@pytest.mark.parametrize("name", list(CRAFTED_VOCABS))
def test_load_vocab_crafted(name, tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes(CRAFTED_VOCABS[name].encode("utf-8"))
    expected = google.load_vocab(str(path))
    got = oracle.load_vocab(str(path), reference="google")
    assert list(got.items()) == list(expected.items())


@pytest.mark.parametrize("name", list(CRAFTED_VOCABS))
def test_load_vocab_crafted_transformers(name, tmp_path):
    from transformers.models.bert.tokenization_bert_legacy import load_vocab

    path = tmp_path / "vocab.txt"
    path.write_bytes(CRAFTED_VOCABS[name].encode("utf-8"))
    got = oracle.load_vocab(str(path), reference="transformers")
    assert list(got.items()) == list(load_vocab(str(path)).items())


def test_load_vocab_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"[UNK]\n\xff\xfe\n")
    with pytest.raises(ValueError):
        google.load_vocab(str(bad))
    with pytest.raises(ValueError, match="bad.txt"):
        oracle.load_vocab(str(bad))
    missing = str(tmp_path / "missing.txt")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        oracle.load_vocab(missing)
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        oracle.load_vocab(missing, reference="transformers")
    with pytest.raises(ValueError, match="google, transformers"):
        oracle.load_vocab(gr.vocab_path("bert-base-uncased"), reference="bogus")


# --------------------------------------------------------------------------
# Adversarial inputs
# --------------------------------------------------------------------------

ADVERSARIAL = {
    "a199": "a" * 199,
    "a200": "a" * 200,
    "a201": "a" * 201,
    "a10000": "a" * 10000,
    "long_in_sentence": "x " + "b" * 200 + " y " + "c" * 201 + " z",
    "long_accented": "é" * 200,  # NFD doubles the length before stripping
    "combining_only": "\u0301\u0300\u0308",
    "combining_words": "\u0301 a\u0301 \u0300\u0300 \u20dd",
    "punctuation_only": "!!!...,;:?¿¡«»“”「」、。",
    "ascii_symbols": "$^`~|+<=>",
    "whitespace_only": " \t\n\r\u3000\u2028\u2029\u0085\u00a0\u1680\u001c\u001f ",
    "empty": "",
    "nul": "\x00",
    "nul_inside": "a\x00b \x00\x00 c\ufffdd",
    "lone_surrogate": "\ud800",
    "surrogate_inside": "a\udfffb",
    "surrogate_pair_chars": "\ud83d\ude00",
    "private_use": "\ue000 a\uf8ffb",
    "unassigned": "\u0378x\U000e0080",
    "bytes_invalid": b"\xff\xfeabc \xc3\x28 caf\xc3\xa9",
    "bytes_truncated": b"hello \xe4\xb8",
    "bytes_valid": "Grüße, 東京!".encode("utf-8"),
    "sigma": "ΟΔΟΣ ΟΔΟΣ. ΑΣ\u00adΒ Σ ΑΣΑ ΑΣ' 'Σ Α\u0345Σ",
    "dotted_i": "İstanbul İ \u0130\u0301",
    "cjk_mixed": "我爱Paris東京\U00020000abc\u3400\uf900\U0002f800x",
    "zero_width": "a\u200bb\u200dc\ufeffd\u2060e",
    "emoji": "👍🏽 👨‍👩‍👧 🇫🇷",
    "unused_tokens": "[unused1] [UNUSED1] x[unused2] [unused99999] [unused٣] [unused1].",
    "special_tokens": "[CLS] hello [SEP] [MASK] [UNK]",
    "mixed_case_accents": "ÅNGSTRÖM Ǆemal ﬁnance ß ẞ",
    "control_chars": "a\x01b\x7fc\x9fd\u0600e\u00adf",
    # New in Unicode 15/16 (unassigned in older interpreters): exercises the
    # "explained by the Unicode version" path.
    "newer_unicode": "\ua7cb \U0001e030 \U00011f00x \ua7dc",
}

LOWER_VOCABS = [("bert-base-uncased", True), ("bert-base-multilingual-cased", False),
                ("bert-base-chinese", True)]


@pytest.fixture(scope="module")
def tokenizer_pairs():
    pairs = {}
    for vocab, lower in LOWER_VOCABS:
        path = gr.vocab_path(vocab)
        pairs[vocab] = (google.FullTokenizer(path, do_lower_case=lower),
                        oracle.FullTokenizer(path, do_lower_case=lower, reference="google"))
    return pairs


def _explained(text):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "ignore")
    return gr.explained_by_unicode_version(text)


@pytest.mark.parametrize("vocab", [v for v, _ in LOWER_VOCABS])
@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_full(name, vocab, tokenizer_pairs):
    text = ADVERSARIAL[name]
    g, o = tokenizer_pairs[vocab]
    expected, got = g.tokenize(text), o.tokenize(text)
    if expected != got:
        assert _explained(text), (expected, got)
    else:
        assert o.convert_tokens_to_ids(got) == g.convert_tokens_to_ids(expected)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_basic(name, lower):
    text = ADVERSARIAL[name]
    expected = google.BasicTokenizer(do_lower_case=lower).tokenize(text)
    got = oracle.BasicTokenizer(do_lower_case=lower, reference="google").tokenize(text)
    if expected != got:
        assert _explained(text), (expected, got)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_wordpiece(name, lower, tokenizer_pairs):
    # WordPiece alone, on raw (not basic-tokenized) text.
    text = ADVERSARIAL[name]
    g, o = tokenizer_pairs["bert-base-uncased"]
    expected = g.wordpiece_tokenizer.tokenize(text)
    got = o.wordpiece_tokenizer.tokenize(text)
    if expected != got:
        assert _explained(text), (expected, got)


def test_wordpiece_length_limit(tokenizer_pairs):
    _, o = tokenizer_pairs["bert-base-uncased"]
    pieces = o.tokenize("a" * 200)
    assert "[UNK]" not in pieces and "".join(pieces).replace("##", "") == "a" * 200
    assert o.tokenize("a" * 201) == ["[UNK]"]
    wp = oracle.WordpieceTokenizer(o.vocab, reference="transformers")
    assert wp.max_input_chars_per_word == 100
    assert wp.tokenize("a" * 101) == ["[UNK]"]


@pytest.mark.parametrize("lower", [True, False])
def test_preserve_unused_tokens(lower, tokenizer_pairs):
    """Google's --preserve_unused_tokens flag == the oracle's option."""
    from absl import flags

    text = ADVERSARIAL["unused_tokens"] + " [unused0]"
    path = gr.vocab_path("bert-base-uncased")
    old = flags.FLAGS.preserve_unused_tokens
    flags.FLAGS.preserve_unused_tokens = True
    try:
        g = google.FullTokenizer(path, do_lower_case=lower)
        expected_full = g.tokenize(text)
        expected_basic = google.BasicTokenizer(lower, vocab=g.vocab).tokenize(text)
    finally:
        flags.FLAGS.preserve_unused_tokens = old
    o = oracle.FullTokenizer(path, do_lower_case=lower, preserve_unused_tokens=True)
    assert o.tokenize(text) == expected_full
    assert "[unused1]" in expected_full
    ob = oracle.BasicTokenizer(lower, vocab=o.vocab, preserve_unused_tokens=True)
    assert ob.tokenize(text) == expected_basic


def test_input_types_and_references():
    o = oracle.BasicTokenizer()
    with pytest.raises(TypeError, match="int"):
        o.tokenize(42)
    with pytest.raises(TypeError, match="NoneType"):
        oracle.WordpieceTokenizer({}).tokenize(None)
    with pytest.raises(ValueError, match="google, transformers"):
        oracle.BasicTokenizer(reference="bogus")
    with pytest.raises(ValueError, match="unk_token"):
        oracle.FullTokenizer(gr.vocab_path("bert-base-uncased"), unk_token="[NOPE]")
    assert oracle.REFERENCES == ("google", "transformers")
    for text in (" a\u2028b\u0085c\x1fd ", " \u00a0 ", ""):
        assert oracle.whitespace_tokenize(text) == text.split()


def test_oracle_does_not_import_the_extension():
    import ast

    with open(oracle.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or "") + ":" +
                         ",".join(a.name for a in node.names))
    # `._pickle` is imported by __reduce__ only (pickling), and imports the core
    # lazily, for the compiled classes alone.
    pickling = {"._pickle:reduce_oracle_part", "._pickle:reduce_oracle_full_tokenizer"}
    # The trainer's reference (re-exported) is pure Python too: checked below.
    training = {".oracle_train:train_likelihood"}
    # The per-character rules live in a module of their own, as pure as this one.
    chars = {name for name in imported if name.startswith(".oracle_chars:")}
    assert len(chars) == 1
    assert imported == {"collections", "re", "unicodedata2", ".:_strtables"} | pickling | training | chars
    import bertpiece.oracle_chars as oracle_chars
    with open(oracle_chars.__file__, encoding="utf-8") as f:
        chars_imports = [n for n in ast.walk(ast.parse(f.read())) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert {a.name for n in chars_imports for a in n.names} == {"re", "unicodedata2", "_strtables"}
    import bertpiece._pickle as pickling_module
    with open(pickling_module.__file__, encoding="utf-8") as f:
        top_level = [n for n in ast.parse(f.read()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not any(any(a.name == "_core" for a in n.names) for n in top_level)
    import bertpiece.oracle_train as oracle_train
    with open(oracle_train.__file__, encoding="utf-8") as f:
        modules = {n.module for n in ast.walk(ast.parse(f.read())) if isinstance(n, ast.ImportFrom)}
    assert modules == {"__future__", "collections", "fractions"}


# --------------------------------------------------------------------------
# transformers mode against the real transformers slow BasicTokenizer, on the
# inputs where it differs from Google.
# --------------------------------------------------------------------------

TRANSFORMERS_CASES = [
    ({}, "a\ue000b \u0378 \ud800"),
    ({"do_lower_case": False}, "e\u0301"),
    ({"never_split": ["[mask]"]}, "[MASK] [mask]"),
    ({"never_split": ["[MASK]"]}, "[MASK] x"),
    ({"do_lower_case": False, "strip_accents": True}, "Café"),
    ({"do_lower_case": True, "strip_accents": False}, "Café"),
    ({"do_split_on_punc": False, "tokenize_chinese_chars": False}, "a,b 東京"),
]


@pytest.mark.parametrize("kwargs,text", TRANSFORMERS_CASES)
def test_transformers_mode_matches_transformers(kwargs, text):
    from transformers.models.bert.tokenization_bert_legacy import BasicTokenizer

    want = BasicTokenizer(**kwargs).tokenize(text)
    assert oracle.BasicTokenizer(reference="transformers", **kwargs).tokenize(text) == want

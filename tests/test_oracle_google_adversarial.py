"""The oracle against the REAL Google BERT tokenizer (bert-tensorflow 1.0.4) on adversarial inputs (lengths,
combining marks, surrogates, invalid bytes, sigma, unused tokens...), its input checks and imports, and its
transformers mode against transformers' slow BasicTokenizer where transformers differs from Google."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import google_reference as gr  # noqa: E402

google = gr.load_google()
oracle = gr.load_oracle()


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

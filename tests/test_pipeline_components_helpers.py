"""The standalone helpers of the component classes against tokenizers 0.23.3:
``normalize_str``, ``pre_tokenize_str``, ``Decoder.decode``, the models'
``token_to_id``/``id_to_token`` and file readers, for hypothesis-drawn components
and texts, and on UD lines. Options bertpiece refuses raise NotImplementedError
when the helper runs (as when the component is attached to a Tokenizer)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_shapes import UD_FILES, ud_lines
from components_specs import HF, OURS, build, decoder, model, normalizer, pre_tokenizer

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
TEXTS = st.text(
    alphabet=st.characters(exclude_categories=["Cs"]) | st.sampled_from(" \t\n\u3000▁#ab12.,!é\u0301ﬁ日本😀\x00"),
    max_size=30,
)
LINES = [line for path in UD_FILES for line in ud_lines(path, 20)]


def built(spec):
    try:
        return build(spec, HF), build(spec, OURS)
    except BaseException:
        return None  # refused by both: test_pipeline_components.py compares refusals


def run(helper, ours, theirs, text):
    try:
        want = getattr(theirs, helper)(text)
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        # tokenizers panics (an empty Replace pattern, a Strip decoder whose cuts cross:
        # docs/pipeline.md's differences); bertpiece never does.
        try:
            getattr(ours, helper)(text)
        except Exception:
            pass
        return
    try:
        got = getattr(ours, helper)(text)
    except NotImplementedError as e:
        # Only the documented refusals: regexes outside the subset, empty patterns.
        assert "unsupported" in str(e) or "not supported" in str(e), e
        return
    assert got == want, (ours, text)


@given(normalizer(), st.lists(TEXTS, max_size=3))
@SETTINGS
def test_normalize_str_matches_tokenizers(spec, texts):
    pair = built(spec)
    if pair:
        for text in texts + LINES[::40]:
            run("normalize_str", pair[1], pair[0], text)


@given(pre_tokenizer(), st.lists(TEXTS, max_size=3))
@SETTINGS
def test_pre_tokenize_str_matches_tokenizers(spec, texts):
    pair = built(spec)
    if pair:
        for text in texts + LINES[::40] + ["x <unk> y", "<unk><unk>"]:
            run("pre_tokenize_str", pair[1], pair[0], text)


TOKENS = st.lists(st.sampled_from(["a", "##b", "▁c", "Ġd", "e</w>", "<0x41>", "<0xE6>", "<0x97>", "<0xA5>", "<pad>",
                                   "|", " ", "", "▁", "##", "f", "ĊĠ", "'s", "."]), max_size=8)


@given(decoder(), st.lists(TOKENS, max_size=3))
@SETTINGS
def test_decode_matches_tokenizers(spec, token_lists):
    pair = built(spec)
    if pair:
        for tokens in token_lists:
            run("decode", pair[1], pair[0], tokens)


@given(model(), st.lists(st.sampled_from(["a", "b", "ab", "<unk>", "é", "", "x"]) | st.integers(-1, 8), max_size=6))
@SETTINGS
def test_model_vocabulary_lookups_match_tokenizers(spec, queries):
    pair = built(spec)
    if pair:
        theirs, ours = pair
        for q in queries:
            if isinstance(q, str):
                assert ours.token_to_id(q) == theirs.token_to_id(q), (spec, q)
            elif q >= 0:
                assert ours.id_to_token(q) == theirs.id_to_token(q), (spec, q)


def test_precompiled_normalize_str_on_ud_lines():
    from precomp_shapes import charsmap

    raw = charsmap("nmt_nfkc")
    theirs, ours = HF.normalizers.Precompiled(raw), OURS.normalizers.Precompiled(raw)
    assert json.loads(ours.__getstate__()) == json.loads(theirs.__getstate__())
    for text in LINES + ["ﬁ\u0301", "ｶﾞ", "  a  "]:
        assert ours.normalize_str(text) == theirs.normalize_str(text), text


@pytest.mark.parametrize("raw", [b"abc", [1, 2]])
def test_malformed_charsmap_is_refused_when_built(raw):
    with pytest.raises(Exception, match="precompiled_charsmap"):
        HF.normalizers.Precompiled(raw)
    with pytest.raises(ValueError, match="precompiled_charsmap"):
        OURS.normalizers.Precompiled(raw)


def test_empty_trie_is_refused_when_built_where_tokenizers_panics_on_the_first_text():
    raw = b"\x00\x00\x00\x00"
    theirs = HF.normalizers.Precompiled(raw)
    with pytest.raises(BaseException, match="index out of bounds"):
        theirs.normalize_str("abc")
    with pytest.raises(ValueError, match="precompiled_charsmap: malformed"):
        OURS.normalizers.Precompiled(raw)


def test_refused_options_raise_when_used():
    with pytest.raises(NotImplementedError, match="dropout"):
        OURS.Tokenizer(OURS.models.BPE(dropout=0.5))
    with pytest.raises(NotImplementedError, match=r"\\b"):
        OURS.pre_tokenizers.Split(OURS.Regex(r"\bA"), "isolated").pre_tokenize_str("Ab")
    with pytest.raises(NotImplementedError, match="decoder"):
        OURS.decoders.Replace(OURS.Regex(r"a\b"), "b").decode(["a"])


FILES = {
    "merges_ok.txt": "#version: 0.2\na b\nab c\r\n",
    "merges_blank.txt": "a b\n\nab c\n",
    "merges_three.txt": "a b c\n",
    "merges_comment.txt": "#x\na b\n",
}


@pytest.mark.parametrize("merges", sorted(FILES))
def test_bpe_read_file_and_from_file(tmp_path, merges):
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4}), encoding="utf-8")
    path = tmp_path / merges
    path.write_bytes(FILES[merges].encode("utf-8"))
    try:
        want = HF.models.BPE.read_file(str(vocab), str(path))
    except Exception as e:
        with pytest.raises(ValueError, match="Merges text file invalid at line"):
            OURS.models.BPE.read_file(str(vocab), str(path))
        assert "invalid at line" in str(e)
        return
    assert OURS.models.BPE.read_file(str(vocab), str(path)) == want
    kw = dict(unk_token="c", continuing_subword_prefix="", end_of_word_suffix="")
    ours, theirs = OURS.models.BPE.from_file(str(vocab), str(path), **kw), HF.models.BPE.from_file(str(vocab), str(path), **kw)
    assert json.loads(ours.__getstate__()) == json.loads(theirs.__getstate__())


def test_wordpiece_and_wordlevel_files(tmp_path):
    txt = tmp_path / "vocab.txt"
    txt.write_bytes("[UNK]\na\nb \r\n##c\n\nd\x1c\na\n\u3000e\u3000".encode("utf-8"))
    assert OURS.models.WordPiece.read_file(str(txt)) == HF.models.WordPiece.read_file(str(txt))
    ours, theirs = OURS.models.WordPiece.from_file(str(txt), unk_token="a"), HF.models.WordPiece.from_file(str(txt), unk_token="a")
    assert json.loads(ours.__getstate__()) == json.loads(theirs.__getstate__())
    js = tmp_path / "vocab.json"
    js.write_text(json.dumps({"a": 0, "[UNK]": 1}), encoding="utf-8")
    assert OURS.models.WordLevel.read_file(str(js)) == HF.models.WordLevel.read_file(str(js))
    for kw in ({}, {"unk_token": "[UNK]"}):
        ours, theirs = OURS.models.WordLevel.from_file(str(js), **kw), HF.models.WordLevel.from_file(str(js), **kw)
        assert json.loads(ours.__getstate__()) == json.loads(theirs.__getstate__())


def test_unicode_scripts_built_in_code_splits_as_tokenizers():
    # Supported since the scripts table landed: the class builds, pre-tokenizes and encodes as HF's.
    text = " abc日本語カタカナ한국어 مرحبا 123 Ωμέγα! "
    ours, theirs = OURS.pre_tokenizers.UnicodeScripts(), HF.pre_tokenizers.UnicodeScripts()
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text)
    assert json.loads(ours.__getstate__()) == json.loads(theirs.__getstate__())

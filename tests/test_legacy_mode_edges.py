"""Legacy mode (reference="transformers") in the corners the stateful fuzzer
found (issue 23), each compared with transformers' BertTokenizerLegacy on the
same steps: single_word added tokens next to other text (glued to it, the text
still cut there), unk_token None (an unknown id has no string), a renamed
unk_token (WordPiece keeps its own), an unk_token that is an added token (the
fallback for an unknown token looks in the base vocabulary only; a pad, cls or
sep token then without an id), and which added tokens are stored lowercased."""

import itertools
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from transformers import AddedToken

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")


def pair(**options):
    return (bertpiece.BertTokenizer(vocab=VOCAB, reference="transformers", **options),
            transformers.BertTokenizerLegacy(vocab_file=VOCAB, **options))


# ----------------------------------------------------- single_word tokens
def test_single_word_token_next_to_a_word_cuts_the_text():
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.add_tokens([AddedToken("ab cd", single_word=True)])
    for text in ["xab cdМосква", "ab cdМосква", "x ab cd Москва", "xab cd Москва", "the##zzthe", "ab cdab cdx"]:
        assert ours.tokenize(text) == theirs.tokenize(text), text
        assert ours(text)["input_ids"] == theirs(text)["input_ids"], text


# One added token per mix of single_word / lstrip / rstrip, so that texts put every mix next to every other.
ADDED = dict(zip(["ab cd", "<ent>", "##zz", "zzwq", "[NEW]", "qzx", "hello", "Über"],
                 itertools.product([False, True], repeat=3)))
PIECES = list(ADDED) + ["x", " ", "  ", "\t", "\n", "Москва", ".", "[MASK]", "é", "[new]"]
_PAIRS = {}


def flagged_pair(special, options):
    """Both tokenizers with the ADDED tokens (built once per arguments: reading them changes nothing)."""
    key = (special, tuple(sorted(options.items())))
    if key not in _PAIRS:
        ours, theirs = pair(**options)
        for tok in (ours, theirs):
            tok.add_tokens([AddedToken(content, single_word=w, lstrip=left, rstrip=right, special=special)
                            for content, (w, left, right) in ADDED.items()], special_tokens=special)
        _PAIRS[key] = ours, theirs
    return _PAIRS[key]


@given(texts=st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=1, max_size=3),
       special=st.booleans(), options=st.sampled_from([{}, {"do_lower_case": False}, {"do_basic_tokenize": False}]))
def test_added_token_flags_cut_the_text_as_the_legacy_tokenizer(texts, special, options):
    """Every mix of single_word / lstrip / rstrip, neighbouring added tokens included."""
    ours, theirs = flagged_pair(special, options)
    for text in texts:
        assert ours.tokenize(text) == theirs.tokenize(text), text
    assert ours(texts)["input_ids"] == theirs(texts)["input_ids"]


# ------------------------------------------------------------- unk_token None
@pytest.mark.parametrize("ids", [10**6, [10**6, 1037], [1037, 30522], [-1], [101, 10**6, 102]])
def test_unknown_id_with_unk_token_none_is_none(ids):
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.unk_token = None
    assert ours.convert_ids_to_tokens(ids) == theirs.convert_ids_to_tokens(ids)
    assert ours.convert_ids_to_tokens(ids, skip_special_tokens=True) == \
        theirs.convert_ids_to_tokens(ids, skip_special_tokens=True)


@pytest.mark.parametrize("ids", [[10**6, 1037], [1037, 30522], 10**6, [[101, 10**6], [1037]]])
@pytest.mark.parametrize("skip", [False, True])
def test_decode_of_unknown_id_with_unk_token_none_raises_type_error(ids, skip):
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.unk_token = None
    method = "batch_decode" if isinstance(ids, list) and isinstance(ids[0], list) else "decode"
    with pytest.raises(TypeError):
        getattr(theirs, method)(ids, skip_special_tokens=skip)
    with pytest.raises(TypeError, match="unk_token is None"):
        getattr(ours, method)(ids, skip_special_tokens=skip)
    assert ours.decode([101, 1037, 102], skip_special_tokens=skip) == \
        theirs.decode([101, 1037, 102], skip_special_tokens=skip)


@pytest.mark.parametrize("unk", ["[MASK]", "qzxtok", "<m>"])
def test_tokens_of_an_unknown_word_after_renaming_unk_token(unk):
    """known_open's "legacy-tokens-of-unknown-words", measured: BertTokenizerLegacy's WordPiece keeps
    the unk_token it was built with ('[UNK]'); only an unknown id becomes the new unk_token; and its
    BatchEncoding.tokens() raises, as bertpiece's in legacy mode."""
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.add_tokens(["qzxtok"])
        tok.unk_token = unk
    for step in [lambda t: t.tokenize("hello ☃ qzxtok 𝔸"), lambda t: t("hello ☃ 𝔸")["input_ids"],
                 lambda t: t.convert_ids_to_tokens([10**6, 100]), lambda t: t.decode([10**6, 100, 1037]),
                 lambda t: t.unk_token_id]:
        assert step(ours) == step(theirs)
    for tok in (ours, theirs):
        with pytest.raises(ValueError):
            tok("hello ☃").tokens()


# --------------------------------------------------- an added unk_token
def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (the reference's exception type is what is compared)
        return None, type(e)


def same(ours, theirs, fn):
    got, want = outcome(lambda: fn(ours)), outcome(lambda: fn(theirs))
    if want[1] is not None:
        assert got[1] is not None and issubclass(got[1], want[1]), (got, want)
    else:
        assert got == want


@pytest.mark.parametrize("unk", ["qzxtok", AddedToken("qzxtok", special=True), "<m>"])
def test_unknown_token_falls_back_to_the_base_vocabulary_unk_only(unk):
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.add_special_tokens({"unk_token": unk if isinstance(unk, str) else AddedToken(unk.content, special=True)})
    for step in [lambda t: t.unk_token_id, lambda t: t.convert_tokens_to_ids(["", "☃", "a", str(unk)]),
                 lambda t: t.convert_tokens_to_ids("zz-not-a-token"), lambda t: t.all_special_ids,
                 lambda t: t("a ☃ qzxtok")["input_ids"], lambda t: t.tokenize("a ☃ qzxtok")]:
        same(ours, theirs, step)
    for tok in (ours, theirs):
        tok.pad_token = "<not-a-token>"
    for step in [lambda t: t.pad_token_id, lambda t: t.convert_tokens_to_ids(["<not-a-token>"]),
                 lambda t: t(["a", "a b c"], padding=True)["input_ids"]]:
        same(ours, theirs, step)


def test_unk_token_in_the_vocabulary_still_falls_back():
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.add_special_tokens({"unk_token": "[unused1]"})
        tok.pad_token = "<not-a-token>"
    same(ours, theirs, lambda t: (t.pad_token_id, t.convert_tokens_to_ids(["", "☃"]), t.unk_token_id))
    assert ours.pad_token_id == 2  # [unused1]: a real fallback, not None


@pytest.mark.parametrize("reference", ["transformers", "tokenizers"])
def test_padding_with_a_pad_token_without_id_raises_the_reference_type(reference):
    """transformers compares the pad id None with 0 (TypeError); bertpiece's error is also a ValueError."""
    if reference == "transformers":
        ours, theirs = pair()
    else:
        ours = bertpiece.BertTokenizer(vocab=VOCAB, reference=reference)
        theirs = transformers.BertTokenizer(vocab=VOCAB)
    for tok in (ours, theirs):
        if reference == "transformers":
            tok.add_special_tokens({"unk_token": "qzxtok"})  # legacy: no base-vocabulary unk to fall back on
        else:
            tok.unk_token = None
        tok.pad_token = "<not-a-token>"
    assert ours.pad_token_id is None and theirs.pad_token_id is None
    for call in [lambda t: t(["a", "a b c"], padding=True), lambda t: t("a", padding="max_length", max_length=5)]:
        with pytest.raises(TypeError):
            call(theirs)
        with pytest.raises(TypeError, match="pad_token '<not-a-token>' has no id") as raised:
            call(ours)
        assert isinstance(raised.value, ValueError)
        assert call(ours.__class__(vocab=VOCAB, reference=reference))["input_ids"]  # the usual pad token works


@pytest.mark.parametrize("name", ["cls_token", "sep_token"])
def test_special_token_without_id_is_refused_where_the_reference_puts_none(name):
    """docs/bert_tokenizer.md's row "cls_token=None / sep_token=None, or one without an id"."""
    ours, theirs = pair()
    for tok in (ours, theirs):
        tok.add_special_tokens({"unk_token": "qzxtok"})
        setattr(tok, name, "Xyzzy")
    assert getattr(ours, f"{name}_id") is None and getattr(theirs, f"{name}_id") is None
    if name == "sep_token":
        assert None in theirs("a b")["input_ids"]
    else:  # None first: its BatchEncoding cannot tell the rows' type
        with pytest.raises(ValueError):
            theirs("a b")
    with pytest.raises(ValueError, match=f"{name} 'Xyzzy' has no id"):
        ours("a b")
    assert ours("a b", add_special_tokens=False)["input_ids"] == theirs("a b", add_special_tokens=False)["input_ids"]


# ------------------------------------------------- lowercasing added tokens
@pytest.mark.parametrize("normalized", [True, False, None])
@pytest.mark.parametrize("do_lower_case", [True, False])
def test_only_normalized_added_tokens_are_lowercased(normalized, do_lower_case):
    """BertTokenizerLegacy lowercases a non-special added token when do_lower_case, unless normalized=False."""
    ours, theirs = pair(do_lower_case=do_lower_case)
    for tok in (ours, theirs):
        flags = {} if normalized is None else {"normalized": normalized}
        tok.add_tokens(["Zzwq", AddedToken("Über", single_word=True, **flags)])
    assert ours.get_added_vocab() == theirs.get_added_vocab()
    for text in ["Über zzwq Zzwq über", "xÜber"]:
        assert ours.tokenize(text) == theirs.tokenize(text), text
    tokens = ["Über", "über", "zzwq"]
    assert ours.convert_tokens_to_ids(tokens) == theirs.convert_tokens_to_ids(tokens)

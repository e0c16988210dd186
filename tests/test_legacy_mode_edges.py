"""Legacy mode (reference="transformers") in the corners the stateful fuzzer
found (issue 23), each compared with transformers' BertTokenizerLegacy on the
same steps: single_word added tokens next to other text (glued to it, the text
still cut there), and unk_token None (an unknown id has no string)."""

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

"""Added tokens' flags as transformers 5: `tokens()` of an lstrip/rstrip
token is the text it matched (whitespace included; BertNormalizer's " " for
a normalized token), and re-adding an existing added token with other flags
(`add_tokens`, `add_tokens(..., special_tokens=True)`, `add_special_tokens`)
replaces its flags as transformers does (HF counts it as added,
BertTokenizerLegacy does not; more in test_added_token_readd.py)."""

import warnings

import pytest
from transformers import AddedToken

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
TEXTS = ["hello  <x>  world <y>there [MASK]  end", "a\t<x>\tb <y>\n\nc", "<x><y> <x>"]


def pair(reference):
    theirs = transformers.BertTokenizer(vocab=VOCAB) if reference == "tokenizers" else \
        transformers.BertTokenizerLegacy(vocab_file=VOCAB)
    return bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference), theirs


def flags(token):
    return None if token is None else (token.content, token.lstrip, token.rstrip, token.single_word,
                                       token.normalized, token.special)


def alignment(tok, *args, **kwargs):
    enc = tok(*args, **kwargs)
    rows = len(enc.encodings) if hasattr(enc, "encodings") and enc.encodings else len(enc._rows)
    return dict(enc), [(enc.tokens(i), enc.word_ids(i)) for i in range(rows)]


@pytest.mark.parametrize("strip", [dict(lstrip=True), dict(rstrip=True), dict(lstrip=True, rstrip=True)])
@pytest.mark.parametrize("normalized", [True, False])
def test_tokens_of_stripping_added_tokens(strip, normalized):
    ours, theirs = pair("tokenizers")
    for tok in (ours, theirs):
        tok.add_tokens([AddedToken("<x>", normalized=normalized, **strip), AddedToken("<y>", special=True, **strip)])
    for text in TEXTS:
        for args, kwargs in [((text,), {}), (([text, "b"],), dict(padding=True)), ((text, text), {}),
                             ((text,), dict(return_offsets_mapping=True)),
                             ((text,), dict(truncation=True, max_length=6, stride=1, return_overflowing_tokens=True))]:
            assert alignment(ours, *args, **kwargs) == alignment(theirs, *args, **kwargs), (text, kwargs)


READDS = {
    "plain, then stripping": lambda t: (t.add_tokens(["<x>"]), t.add_tokens([AddedToken("<x>", lstrip=True, rstrip=True)])),
    "plain, then special": lambda t: (t.add_tokens(["<x>"]), t.add_tokens([AddedToken("<x>", lstrip=True)],
                                                                        special_tokens=True)),
    "plain, then add_special_tokens": lambda t: (t.add_tokens(["<x>"]), t.add_special_tokens(
        {"extra_special_tokens": [AddedToken("<x>", rstrip=True)]})),
    "[MASK] special with flags": lambda t: t.add_tokens([AddedToken("[MASK]", lstrip=True, rstrip=True)],
                                                       special_tokens=True),
    "[MASK] by add_special_tokens": lambda t: t.add_special_tokens(
        {"mask_token": AddedToken("[MASK]", lstrip=True, normalized=False)}),
    "[MASK] unchanged": lambda t: t.add_special_tokens({"mask_token": "[MASK]"}),
    "single_word dropped": lambda t: (t.add_tokens([AddedToken("<x>", single_word=True)]),
                                      t.add_tokens([AddedToken("<x>", single_word=False)], special_tokens=True)),
    "new special, normalized given": lambda t: (t.add_tokens([AddedToken("<z>", lstrip=True, normalized=True)],
                                                             special_tokens=True),
                                                t.add_special_tokens({"extra_special_tokens": [AddedToken("<w>")]})),
}


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
@pytest.mark.parametrize("case", sorted(READDS))
def test_readding_replaces_flags_as_transformers(reference, case):
    ours, theirs = pair(reference)
    assert READDS[case](ours) == READDS[case](theirs)  # the counts
    assert {i: flags(t) for i, t in ours.added_tokens_decoder.items()} == \
        {i: flags(t) for i, t in theirs.added_tokens_decoder.items()}
    text = "a <x> b\t<x>\tc [MASK] d <z> <w>"
    assert ours(text)["input_ids"] == theirs(text)["input_ids"]
    assert ours.decode(ours(text)["input_ids"], skip_special_tokens=True) == \
        theirs.decode(theirs(text)["input_ids"], skip_special_tokens=True)
    if reference == "tokenizers":
        assert ours(text).tokens() == theirs(text).tokens()


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
def test_adding_a_vocabulary_token_is_counted_as_the_reference_counts_it(reference):
    # BertTokenizerLegacy counts only tokens that get a new id; HF tokenizers counts every added one
    # (found by the stateful machine: legacy add_tokens(["hello"]) was 1 here, 0 there)
    path = bertpiece.vocab_path("bert-base-uncased")
    hf = transformers.BertTokenizer(vocab=path) if reference == "tokenizers" else \
        transformers.BertTokenizerLegacy(vocab_file=path)
    bp = bertpiece.BertTokenizer(vocab=path, reference=reference)
    for step in (lambda t: t.add_tokens(["hello"]), lambda t: t.add_special_tokens({"cls_token": "hello"}),
                 lambda t: t.add_tokens(["##zz", "qzxtok"]), lambda t: t.add_tokens(["hello"], special_tokens=True)):
        assert step(bp) == step(hf)
        assert len(bp) == len(hf)
    # (without [CLS]: "hello" became the cls_token, and renaming it is a documented difference in tokenizers mode)
    assert bp("hello qzxtok world", add_special_tokens=False)["input_ids"] == \
        hf("hello qzxtok world", add_special_tokens=False)["input_ids"]

"""Adding and re-adding added tokens as the references do (issue 23, found by
the stateful machine): every API that shows an added token (add_tokens'
count, added_tokens_decoder, get_vocab, len, convert_ids_to_tokens, tokens(),
decode with and without skip_special_tokens, all_special_tokens), compared with
transformers' BertTokenizer (HF tokenizers) and BertTokenizerLegacy after the
same steps, then again after pickling and after save_pretrained / reload.

- a normalized added token that BertNormalizer changes: HF's token string is
  the normalized form ('[new]'), kept after a re-add with normalized=False
  until the tokenizer is rebuilt; decode(skip_special_tokens=True) skips by
  that string;
- an AddedToken's own `special` against add_tokens' special_tokens argument;
- re-adding an added token with other flags: counts and flags.
"""

import pickle
import warnings

import pytest
from transformers import AddedToken as AT

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
# Texts whose added tokens both sides match alike (raw and normalized matching agree on them:
# docs/bert_tokenizer.md's "normalized added tokens" row).
TEXTS = ["a [NEW] b Über zzwq c", "t [MASK] Xyzzy", "zzwq  t\t[NEW]"]

STEPS = {
    # 1. normalized-added-token-string
    "special, normalized=True": [lambda t: t.add_special_tokens({"pad_token": AT("[NEW]", normalized=True)})],
    "normalized, accents": [lambda t: t.add_tokens([AT("Über", normalized=True)]),
                            lambda t: t.add_special_tokens({"extra_special_tokens": [AT("Xyzzy", normalized=True)]})],
    "normalized, lstrip": [lambda t: t.add_tokens([AT("[NEW]", lstrip=True, rstrip=True)])],
    "normalized, then not": [lambda t: t.add_tokens(["[NEW]"]),
                             lambda t: t.add_tokens([AT("[NEW]", normalized=False)])],
    # 2. added-token-special-flag-vs-argument
    "special=False, special_tokens=True": [lambda t: t.add_tokens([AT("zzwq", special=False)], special_tokens=True)],
    "special=True, special_tokens=False": [lambda t: t.add_tokens([AT("zzwq", special=True)])],
    "special=True normalized=True": [lambda t: t.add_tokens([AT("Xyzzy", special=True, normalized=True)])],
    # 3. re-adding-an-added-token
    "plain, then special": [lambda t: t.add_tokens(["t"]), lambda t: t.add_tokens(["t"], special_tokens=True)],
    "special, then plain": [lambda t: t.add_tokens(["t"], special_tokens=True), lambda t: t.add_tokens(["t"])],
    "special AddedToken, then not": [lambda t: t.add_tokens([AT("zzwq", special=True)]),
                                     lambda t: t.add_tokens([AT("zzwq", special=False)])],
    "pad_token, then plain": [lambda t: t.add_special_tokens({"pad_token": "zzwq"}), lambda t: t.add_tokens(["zzwq"])],
    "plain, then AddedToken special": [lambda t: t.add_tokens(["zzwq"]), lambda t: t.add_tokens([AT("zzwq", special=True)])],
    "lstrip, then plain str": [lambda t: t.add_tokens([AT("zzwq", lstrip=True)]), lambda t: t.add_tokens(["zzwq"])],
    "[MASK] as a plain token": [lambda t: t.add_tokens(["[MASK]"]), lambda t: t.add_tokens([AT("[MASK]")])],
    "twice in one call": [lambda t: t.add_tokens(["zzwq", AT("zzwq", rstrip=True), "t"], special_tokens=True)],
}


def pair(reference):
    theirs = transformers.BertTokenizer(vocab=VOCAB) if reference == "tokenizers" else \
        transformers.BertTokenizerLegacy(vocab_file=VOCAB)
    return bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference), theirs


def shown(tok, reference):
    """Everything that shows the added tokens, as plain values."""
    ids = list(range(100, 105)) + list(range(30520, 30528)) + [1037, 7592]
    out = {
        "decoder": {i: (t.content, t.lstrip, t.rstrip, t.single_word, t.normalized, t.special)
                    for i, t in tok.added_tokens_decoder.items()},
        "vocab": {k: v for k, v in tok.get_vocab().items() if v >= 30522 or k != k.lower() or k in ("t", "zzwq")},
        "len": len(tok),
        "special": (tok.all_special_tokens, tok.all_special_ids),
        "ids to tokens": [tok.convert_ids_to_tokens(i) for i in ids if i < len(tok)],
        "ids to tokens, skip": tok.convert_ids_to_tokens(ids, skip_special_tokens=True),
        "decode": (tok.decode(ids), tok.decode(ids, skip_special_tokens=True)),
    }
    for text in TEXTS:
        enc = tok(text)
        out[text] = (enc["input_ids"], enc.tokens() if reference == "tokenizers" else tok.tokenize(text),
                     tok.decode(enc["input_ids"], skip_special_tokens=True))
    return out


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
@pytest.mark.parametrize("case", list(STEPS))
def test_added_tokens_shown_as_the_reference_shows_them(reference, case, tmp_path):
    ours, theirs = pair(reference)
    for step in STEPS[case]:
        assert step(ours) == step(theirs)  # the count
    assert shown(ours, reference) == shown(theirs, reference)
    # HF rebuilds its caches (normalized forms, special contents) from the flags when it unpickles
    assert shown(pickle.loads(pickle.dumps(ours)), reference) == \
        shown(pickle.loads(pickle.dumps(theirs)), reference)
    ours.save_pretrained(tmp_path / "ours")
    theirs.save_pretrained(tmp_path / "theirs")
    cls = transformers.BertTokenizer if reference == "tokenizers" else transformers.BertTokenizerLegacy
    assert shown(bertpiece.BertTokenizer.from_pretrained(tmp_path / "ours", reference=reference), reference) == \
        shown(cls.from_pretrained(tmp_path / "theirs"), reference)


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
def test_lowercased_readd_is_a_second_token(reference):
    # BertTokenizerLegacy stores add_tokens(["[NEW]"]) lowercased, so "[NEW]" not normalized is a
    # new token there (counted 1); HF keeps "[NEW]" and replaces its flags (counted 1 too)
    ours, theirs = pair(reference)
    for tok in (ours, theirs):
        tok.add_tokens(["[NEW]", "Über"])
    for token in ([AT("[NEW]", normalized=False)], [AT("Über", normalized=False)], ["[NEW]"]):
        assert ours.add_tokens(token) == theirs.add_tokens(token)
        assert len(ours) == len(theirs)
        assert ours.get_added_vocab() == theirs.get_added_vocab()

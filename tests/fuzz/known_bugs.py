"""Fuzz failures already reported, by category, so the CI run stays strict:
any failure outside these categories fails tests/test_fuzz.py, and each
category is an xfail(strict=True) test that starts failing the moment its bug
is fixed (then delete the category here and its marker).

Each predicate is as narrow as the bug: it looks at the arguments that cause
it and at the shape of the difference, never just "the reference raised".
Minimal reproductions are in the docstrings.
"""

from __future__ import annotations


def _flat(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def _kw(case):
    return case.get("kwargs", {})


def _texts(case):
    return [t for t in _flat([case.get("text"), _kw(case).get("text_pair")]) if isinstance(t, str)]


def _theirs(diff, prefix):
    return diff["field"] == "exception" and diff["theirs"].startswith(prefix)


def _ours_returned(diff):
    return diff["field"] == "exception" and not diff["ours"].split(":")[0].endswith(("Error", "Exception"))


def decode_negative_id(case, diff):
    """`tok.decode([101, -100, 102])`: transformers raises OverflowError, bertpiece
    silently drops the -100 (labels' ignore index passed as ids by mistake)."""
    return case["kind"] == "decode" and any(i < 0 for i in _flat(case["ids"])) \
        and _theirs(diff, "OverflowError") and _ours_returned(diff)


def negative_stride(case, diff):
    """`tok("a b c d e f", truncation=True, max_length=5, stride=-1,
    return_overflowing_tokens=True)`: transformers raises OverflowError (can't convert
    negative int to unsigned), bertpiece accepts it (or fails later, on another check)."""
    return (_kw(case).get("stride") or 0) < 0 and _theirs(diff, "OverflowError")


def negative_max_length(case, diff):
    """`tok("a", max_length=-1, truncation=True)`: transformers raises OverflowError,
    bertpiece ValueError (the type differs, undocumented); and
    `tok("", max_length=-1, truncation=True, padding="max_length", add_special_tokens=False)`
    returns empty lists where transformers raises."""
    return (_kw(case).get("max_length") or 0) < 0 and _theirs(diff, "OverflowError")


def empty_batch(case, diff):
    """`tok([], padding=True)` / `tok([], padding="max_length")`: transformers raises
    (IndexError from tokenizers mode's padding; legacy: "You should supply an encoding"),
    bertpiece returns empty lists (or checks max_length first and raises ValueError)."""
    return case["kind"] in ("call", "encode") and case.get("text") == [] \
        and (_theirs(diff, "IndexError") or _theirs(diff, "ValueError: You should supply an encoding"))


def pad_to_multiple_of_zero(case, diff):
    """`tok("a", padding=True, pad_to_multiple_of=0)`: transformers' legacy mode raises
    ZeroDivisionError, bertpiece returns (or raises another error first)."""
    return _kw(case).get("pad_to_multiple_of") == 0 and _theirs(diff, "ZeroDivisionError")


def legacy_offsets_mapping(case, diff):
    """`BertTokenizer(..., reference="transformers")("a", return_offsets_mapping=True)`:
    bertpiece raises NotImplementedError (as docs/bert_tokenizer.md says transformers
    does), but transformers 5.23's BertTokenizerLegacy returns without offsets (or
    raises its own argument error)."""
    return case["tokenizer"]["reference"] == "transformers" and _kw(case).get("return_offsets_mapping") \
        and diff["field"] == "exception" and diff["ours"].startswith("NotImplementedError: return_offset")


def pretokenized_empty_word_list(case, diff):
    """Legacy mode, `tok([["a"]], [[]], is_split_into_words=True)`: BertTokenizerLegacy
    refuses an empty word list ("Input must be a string, list of strings, or list of
    ints"), bertpiece encodes it as a pair."""
    if not _kw(case).get("is_split_into_words"):
        return False
    lists = [case.get("text"), _kw(case).get("text_pair")]
    has_empty = any(v == [] or isinstance(v, list) and any(x == [] for x in v) for v in lists)
    return has_empty and _theirs(diff, "ValueError: Input must be a string") and _ours_returned(diff)


def stride_checked_up_front(case, diff):
    """`tok("a", max_length=3, truncation=True, stride=2)` in tokenizers mode:
    transformers refuses a stride ≥ the window before encoding ("tokenizer stride set
    to 2, which is greater than or equal to its effective max length of 1"), and
    `tok(["a b c d e f"], max_length=4, truncation=True, stride=2)` panics in HF
    tokenizers (docs/bert_tokenizer.md: bertpiece raises ValueError); bertpiece
    returns a result in both."""
    return (_theirs(diff, "ValueError: tokenizer stride set to")
            or _theirs(diff, "PanicException: `stride` must be strictly less")) and _ours_returned(diff)


def empty_text_pair(case, diff):
    """`tok("hello", "")`: bertpiece encodes a pair `[CLS] hello [SEP] [SEP]`,
    transformers a single text `[CLS] hello [SEP]` (an empty second text is no pair);
    with truncation="only_second" bertpiece then raises "Sequence to truncate too short"."""
    pair = _kw(case).get("text_pair")
    empty = pair in ("", []) or isinstance(pair, list) and any(p in ("", []) for p in pair)
    return empty and (diff["field"] != "exception" or diff["ours"].startswith("ValueError: Truncation error"))


def padding_with_special_tokens(case, diff):
    """`tok(["a [MASK] b", "a"], padding=True)`: a row holding a special or added token
    makes bertpiece pad to more than the longest row."""
    kw = _kw(case)
    if kw.get("padding") not in (True, "longest") or diff["field"] == "exception":
        return False
    specials = ("[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "<ent>", "[NEW]", "qzxtok", "zzwq")
    return any(s in t for t in _texts(case) for s in specials)


def legacy_decode_keeps_added_special(case, diff):
    """Legacy mode, `tok.add_tokens(["<ent>"], special_tokens=True)`, then
    `tok.decode([30523, 12694], skip_special_tokens=True)`: BertTokenizerLegacy gives
    "pike", bertpiece "<ent> pike" (the added special token is not skipped)."""
    return case["kind"] == "decode" and case["tokenizer"]["reference"] == "transformers" \
        and _kw(case).get("skip_special_tokens") and diff["field"] == "value" \
        and any(special for _, special in case["tokenizer"]["added"])


def encode_batch_ignores_truncation_side(case, diff):
    """`BertTokenizer(..., truncation_side="left").encode_batch(["a b c d"], truncation=True,
    max_length=3)` keeps the first tokens; `__call__` (and transformers) keep the last."""
    return case["kind"] == "encode_batch" and case["tokenizer"]["init"].get("truncation_side") == "left" \
        and _kw(case).get("truncation") and diff["field"] == "value"


CATEGORIES = {
    "decode-negative-id": decode_negative_id,
    "negative-stride": negative_stride,
    "negative-max-length": negative_max_length,
    "empty-batch": empty_batch,
    "pad-to-multiple-of-zero": pad_to_multiple_of_zero,
    "legacy-offsets-mapping": legacy_offsets_mapping,
    "pretokenized-empty-word-list": pretokenized_empty_word_list,
    "stride-checked-up-front": stride_checked_up_front,
    "empty-text-pair": empty_text_pair,
    "padding-with-special-tokens": padding_with_special_tokens,
    "legacy-decode-keeps-added-special": legacy_decode_keeps_added_special,
    "encode-batch-ignores-truncation-side": encode_batch_ignores_truncation_side,
}


def classify(case, diff) -> str | None:
    """The known category of a failure, or None (a new bug)."""
    for name, predicate in CATEGORIES.items():
        if predicate(case, diff):
            return name
    return None


def _tok(reference="tokenizers", added=(), **init):
    return {"reference": reference, "model": "bert-base-uncased", "init": {"do_lower_case": True, **init},
            "added": [list(a) for a in added]}


# The smallest case of each category: tests/test_fuzz.py replays them as
# xfail(strict=True), so fixing the bug turns the test red until the category goes.
REPROS = {
    "decode-negative-id": {"kind": "decode", "tokenizer": _tok(), "ids": [101, -100, 102], "kwargs": {}},
    "negative-stride": {"kind": "call", "tokenizer": _tok(), "text": "a b c d e f",
                        "kwargs": {"truncation": True, "max_length": 5, "stride": -1,
                                   "return_overflowing_tokens": True}},
    "negative-max-length": {"kind": "call", "tokenizer": _tok(), "text": "a",
                            "kwargs": {"max_length": -1, "truncation": True}},
    "empty-batch": {"kind": "call", "tokenizer": _tok(), "text": [], "kwargs": {"padding": True}},
    "pad-to-multiple-of-zero": {"kind": "call", "tokenizer": _tok("transformers"), "text": "a",
                                "kwargs": {"padding": True, "pad_to_multiple_of": 0}},
    "legacy-offsets-mapping": {"kind": "call", "tokenizer": _tok("transformers"), "text": "a",
                               "kwargs": {"return_offsets_mapping": True}},
    "pretokenized-empty-word-list": {"kind": "call", "tokenizer": _tok("transformers"), "text": [["a"]],
                                     "kwargs": {"text_pair": [[]], "is_split_into_words": True}},
    "stride-checked-up-front": {"kind": "call", "tokenizer": _tok(), "text": "a",
                                "kwargs": {"max_length": 3, "truncation": True, "stride": 2}},
    "empty-text-pair": {"kind": "call", "tokenizer": _tok(), "text": "hello", "kwargs": {"text_pair": ""}},
    "padding-with-special-tokens": {"kind": "call", "tokenizer": _tok(), "text": ["a [MASK] b", "a"],
                                    "kwargs": {"padding": True}},
    "legacy-decode-keeps-added-special": {"kind": "decode", "tokenizer": _tok("transformers", [("<ent>", True)]),
                                          "ids": [30522, 12694], "kwargs": {"skip_special_tokens": True}},
    "encode-batch-ignores-truncation-side": {"kind": "encode_batch", "tokenizer": _tok(truncation_side="left"),
                                             "text": ["a b c d"], "kwargs": {"truncation": True, "max_length": 3}},
}

"""Comparisons of the stateful machine (stateful.py) switched off until a
reported defect's fix lands. Each entry of KNOWN_OPEN names the defect and
holds a predicate `(machine, where, difference, ours, theirs, args) -> bool`
as narrow as the defect: it matches only that comparison's failure (`args`:
the step's arguments, `where`: the comparison). Delete an entry when its fix
merges; the machine then checks that comparison again.
"""

from __future__ import annotations

import re


def _raised(outcome, kind=Exception) -> bool:
    return isinstance(outcome[1], kind)


def _decode_non_int(m, where, d, ours, theirs, args) -> bool:
    """decode / convert_ids_to_tokens accept non-integer ids (1.0, "7") the reference refuses
    with a TypeError: `tok.decode([1.0])` gives '[unused0]'."""
    ids = args.get("ids")
    ids = ids if isinstance(ids, list) else [ids]
    flat = [i for x in ids for i in (x if isinstance(x, list) else [x])]
    return any(type(i) is not int for i in flat) and _raised(theirs, TypeError) and not _raised(ours, TypeError)


def _stride_message(m, where, d, ours, theirs, args) -> bool:
    """max_length 0/1 with add_special_tokens=False: a ValueError about the stride where the
    reference fails on max_length (`tok("", "thethe", add_special_tokens=False,
    truncation="only_first", max_length=1)`)."""
    return where.startswith(("__call__", "encode")) and args.get("kwargs", {}).get("add_special_tokens") is False \
        and args.get("kwargs", {}).get("max_length") in (0, 1) and "stride" in str(ours[1])


def _no_second_sequence(m, where, d, ours, theirs, args) -> bool:
    """word_to_tokens / char_to_token with sequence_index=1 on a row without a second
    sequence (a single text, or an empty pair): bertpiece None, HF answers for the first
    sequence (`tok("hello world").word_to_tokens(0, 1, sequence_index=1)` is
    TokenSpan(start=2, end=3) there). New: HF's answer looks like its quirk, but no doc row."""
    if args.get("method") not in ("word_to_tokens", "char_to_token") or ours != (None, None) or theirs[0] is None:
        return False
    r, row = args["result"], args["batch_index"]
    return args["sequence_index"] == 1 and 1 not in r.theirs.sequence_ids(row)


def _empty_rows_float(m, where, d, ours, theirs, args) -> bool:
    """Empty rows get float dtypes: `tok("", add_special_tokens=False, return_tensors="np")`
    gives float64 (torch: float32) input_ids of shape (1, 0) where the reference's are int64."""
    return bool(re.search(r"(ndarray float64|tensor torch\.float32)\([^)]*\b0,?\) vs (int64|torch\.int64)", d)) \
        or bool(re.search(r"(ndarray float64|tensor torch\.float32)\((\d+, )?0\) vs", d))


def _token_span_class(m, where, d, ours, theirs, args) -> bool:
    """word_to_tokens returns bertpiece's own TokenSpan, not transformers' (equal fields and
    repr, another class: isinstance(span, transformers.TokenSpan) is False). New."""
    return args.get("method") == "word_to_tokens" and type(ours[0]).__name__ == type(theirs[0]).__name__ \
        == "TokenSpan" and tuple(ours[0]) == tuple(theirs[0])


def _legacy_count_of_vocabulary_tokens(m, where, d, ours, theirs, args) -> bool:
    """Legacy mode, add_tokens / add_special_tokens of a token already in the base vocabulary
    ("hello", "##zz"): BertTokenizerLegacy counts it 0 (it adds nothing), bertpiece 1. New."""
    contents = [s if isinstance(s, str) else s[0] for s in args.get("specs", [])]
    return m.reference == "transformers" and where.startswith("add_") and isinstance(ours[0], int) \
        and isinstance(theirs[0], int) and ours[0] > theirs[0] and any(c in m.theirs.vocab for c in contents)


def _texts(args) -> list:
    out = []
    for value in (args.get("text"), args.get("kwargs", {}).get("text_pair"), args.get("pair")):
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                stack.extend(v)
    return out


def _legacy_single_word(m, where, d, ours, theirs, args) -> bool:
    """Legacy mode, an added token with single_word=True next to word characters: neither
    side matches it, but BertTokenizerLegacy still cuts the text there, so the next word
    starts anew (`add_tokens([AddedToken("ab cd", single_word=True)]); tok("xab cdМосква")`:
    'м' there, '##м' here). New."""
    if m.reference != "transformers":
        return False
    single = [t.content for t in m.theirs.added_tokens_decoder.values() if t.single_word]
    return any(c in text for c in single for text in _texts(args))


def _legacy_unknown_fallback(m, where, d, ours, theirs, args) -> bool:
    """Legacy mode with an unk_token that is an added token, not a vocabulary one
    (`add_special_tokens({"unk_token": "qzxtok"})`): BertTokenizerLegacy's fallback for an
    unknown token looks in the base vocabulary only and gives None (`pad_token = "<m>"`;
    `pad_token_id`, `convert_tokens_to_ids([""])`), bertpiece gives the added unk id. New."""
    if m.reference != "transformers" or m.theirs.unk_token in m.theirs.vocab:
        return False
    return f"int {m.ours.unk_token_id} vs NoneType None" in d


def _none_cls_sep(m, where, d, ours, theirs, args) -> bool:
    """cls_token / sep_token set to None: bertpiece puts None into input_ids (an object array
    with return_tensors="np", a ValueError "Unable to create tensor" with "pt"; `pad` of such
    a result then fails, decode of its ids a TypeError), the reference its ids
    (`tok.sep_token = None; tok("a")["input_ids"]` is [101, 1037, None])."""
    r = args.get("result")
    made_with_none = r.none_special if r is not None else None in (m.ours.cls_token, m.ours.sep_token)
    return made_with_none and any(sign in d for sign in (
        "NoneType None vs int", "ndarray object(", "type of None", "Unable to create tensor",
        "must be an integer, got NoneType"))


def _metadata_from_current_state(m, where, d, ours, theirs, args) -> bool:
    """tokens() / word_ids() / sequence_ids() (and what is built on them) of an earlier result
    computed from the tokenizer's current state instead of the call's: wrong after add_tokens,
    truncation_side / pad_token changes, pickling (`e = tok(["a qzxtok b"], truncation=True,
    max_length=4); tok.add_tokens(["qzxtok"]); e.tokens(0)` has 'qzxtok' here, 'q' there)."""
    r = args.get("result")
    return args.get("method") in ("tokens", "word_ids", "sequence_ids", "char_to_token", "word_to_tokens") \
        and r is not None and (r.version != m.version or r.unpickled)


def _stripped_added_tokens(m, where, d, ours, theirs, args) -> bool:
    """tokens() of an added token with lstrip / rstrip holds the stripped spaces
    (`add_tokens([AddedToken("<ent>", lstrip=True, rstrip=True)]); tok("hi  <ent>  x").tokens()`
    has '  <ent>  ' here, '<ent>' there)."""
    if args.get("method") != "tokens" or not isinstance(ours[0], list) or not isinstance(theirs[0], list) \
            or len(ours[0]) != len(theirs[0]):
        return False
    pairs = [(a, b) for a, b in zip(ours[0], theirs[0]) if a != b]
    return all(isinstance(a, str) and a.strip() == b for a, b in pairs)


def _encodings_missing(m, where, d, ours, theirs, args) -> bool:
    """BatchEncoding.encodings missing (AttributeError) where the reference has them."""
    return args.get("method") == "encodings" and isinstance(ours[1], AttributeError)


def _legacy_unknown_token_string(m, where, d, ours, theirs, args) -> bool:
    """Legacy mode, tokens() of an unknown word after unk_token was renamed
    (`tok.unk_token = "<m>"`): BertTokenizerLegacy gives the new unk_token's string, bertpiece
    the vocabulary's token of the id ('[UNK]'). New."""
    if m.reference != "transformers" or args.get("method") != "tokens" or not isinstance(ours[0], list) \
            or not isinstance(theirs[0], list) or len(ours[0]) != len(theirs[0]):
        return False
    return all(b == m.theirs.unk_token or b == str(m.theirs.unk_token)
               for a, b in zip(ours[0], theirs[0]) if a != b)


def _legacy_none_unk_string(m, where, d, ours, theirs, args) -> bool:
    """Legacy mode with unk_token = None: an id outside the vocabulary becomes the string
    'None' (`convert_ids_to_tokens(10**6)`; `decode([10**6, 1037])` is 'None a'), where
    BertTokenizerLegacy gives None (and decode a TypeError). New."""
    return m.reference == "transformers" and m.theirs.unk_token is None \
        and ("'None' vs NoneType None" in d or (isinstance(theirs[1], TypeError) and "None" in str(ours[0])))


def _normalized_content_lowercased(m, where, d, ours, theirs, args) -> bool:
    """Tokenizers mode, an added token with normalized=True that BertNormalizer changes (case, accents)
    (`add_special_tokens({"pad_token": AddedToken("[NEW]", normalized=True)})`): HF's token
    string is the normalized '[new]' (convert_ids_to_tokens, decode), bertpiece's '[NEW]'. New
    (next to, but not in, the doc's "normalized added tokens" row, which is about matching)."""
    if m.reference != "tokenizers":
        return False
    normalize = m.theirs.backend_tokenizer.normalizer.normalize_str
    contents = [t.content for t in m.ours.added_tokens_decoder.values()
                if t.normalized and normalize(t.content) != t.content]
    return any(c in d.split(" vs ")[0] and normalize(c) in d.split(" vs ")[-1] for c in contents)


def _never(*_) -> bool:
    """For entries the machine reads as a switch (it does not draw those steps)."""
    return False


KNOWN_OPEN: dict = {
    "normalized-added-token-string": _normalized_content_lowercased,
    "legacy-none-unk-token-string": _legacy_none_unk_string,
    "legacy-tokens-of-unknown-words": _legacy_unknown_token_string,
    "none-cls-sep-in-input-ids": _none_cls_sep,
    "legacy-single-word-cut": _legacy_single_word,
    "legacy-unknown-fallback-to-added-unk": _legacy_unknown_fallback,
    "legacy-count-of-vocabulary-tokens": _legacy_count_of_vocabulary_tokens,
    # add_tokens with an AddedToken whose `special` differs from the special_tokens argument:
    # tokenizers mode, `add_tokens([AddedToken("zzwq", special=False)], special_tokens=True)`:
    # HF decodes it as special (skip_special_tokens drops it), bertpiece keeps it; legacy mode,
    # `add_tokens([AddedToken("zzwq", special=True)])`: BertTokenizerLegacy lists it in
    # all_special_tokens and skips it in decode, bertpiece neither. New. A switch: stateful.py
    # does not draw such mixed flags while this is here.
    "added-token-special-flag-vs-argument": _never,
    # Invalid padding_side / truncation_side ("middle") is not refused when set. A switch:
    # stateful.py does not set "middle" while this is here.
    "invalid-side-not-refused": _never,
    # Re-adding an added token (add_tokens / add_special_tokens of a token already added,
    # with other flags): tokenizers mode counts 0 where HF counts 1 (add_tokens(["t"]);
    # add_tokens(["t"], special_tokens=True)), and the flags are not updated as the
    # reference updates them (legacy mode makes it special where BertTokenizerLegacy does
    # not); legacy mode with do_lower_case, add_tokens(["[NEW]"]) then add_tokens([AddedToken("[NEW]",
    # normalized=False)]) counts 1 in BertTokenizerLegacy (its first one was stored lowercased), 0 here.
    # A switch: stateful.py does not draw re-adds (compared case-folded) while this is here.
    "re-adding-an-added-token": _never,
}


def open_defect(machine, where, difference, ours, theirs, args) -> str | None:
    """The name of the documented difference (documented.py) or open defect this difference
    is, or None (a new one: the machine fails)."""
    from .documented import DOCUMENTED

    for name, predicate in {**DOCUMENTED, **KNOWN_OPEN}.items():
        if predicate(machine, where, difference, ours, theirs, args):
            return name
    return None

"""Comparisons of the stateful machine (stateful.py) switched off until a
reported defect's fix lands. Each entry of KNOWN_OPEN names the defect and
holds a predicate `(machine, where, difference, ours, theirs, args) -> bool`
as narrow as the defect: it matches only that comparison's failure (`args`:
the step's arguments, `where`: the comparison). Delete an entry when its fix
merges; the machine then checks that comparison again.
"""

from __future__ import annotations


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
    # add_tokens with an AddedToken whose `special` differs from the special_tokens argument:
    # tokenizers mode, `add_tokens([AddedToken("zzwq", special=False)], special_tokens=True)`:
    # HF decodes it as special (skip_special_tokens drops it), bertpiece keeps it; legacy mode,
    # `add_tokens([AddedToken("zzwq", special=True)])`: BertTokenizerLegacy lists it in
    # all_special_tokens and skips it in decode, bertpiece neither. New. A switch: stateful.py
    # does not draw such mixed flags while this is here.
    "added-token-special-flag-vs-argument": _never,
    # Not a defect any more but a documented difference (docs/bert_tokenizer.md, the
    # padding_side / truncation_side row): bertpiece refuses "middle" when it is set, transformers
    # accepts it and fails at the next call, so the two cannot be compared step by step after it.
    # A switch: stateful.py does not set "middle".
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

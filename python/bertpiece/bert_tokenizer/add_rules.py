"""How `add_tokens` / `add_special_tokens` treat each token, per reference:
HF tokenizers' AddedVocabulary.add_tokens (reference="tokenizers", "google")
and BertTokenizerLegacy._add_tokens (reference="transformers"), including
re-adds of a token already added and the `special` flag of an AddedToken
given to add_tokens. Also HF's two caches that outlive a token's flags: the
normalized form of a normalized added token (its token string in
convert_ids_to_tokens, decode and tokens()) and the contents ever added as
special (what decode(skip_special_tokens=True) skips)."""

from __future__ import annotations

from .added_tokens import AddedToken


def add_hf(tok, token, special) -> int:
    """One token as HF tokenizers adds it: add_special_tokens (`special`) makes it special
    (its `normalized` then False unless given); a token already added counts 1 and takes
    the new flags unless all its flags are the same (0)."""
    token = AddedToken.coerce(token, special)
    if special:
        token = token.as_special()
    if not token.content:
        return 0
    if token.content in tok._added:
        tid, old = tok._added[token.content]
        if old.flags() == token.flags():
            return 0
        tok._put_added(tid, token)
        return 1
    tid = tok._core.token_to_id(token.content)  # a vocabulary token keeps its id (counted: HF counts it)
    tok._put_added(tok._next_id() if tid is None else tid, token)
    return 1


def add_legacy(tok, token, special_tokens) -> int:
    """One token as BertTokenizerLegacy._add_tokens adds it: a str already added is left
    as it is; a str is special when it is a special token's string or `special_tokens`;
    an AddedToken keeps its own `special` unless `special_tokens`; non-special normalized
    tokens are lowercased with do_lower_case; a token whose content is in the vocabulary
    (base or added) takes that id and new flags and counts 0. A special token not yet in
    all_special_tokens joins the extra special tokens."""
    if str(token) == "":
        return 0
    if isinstance(token, str):
        if token in tok._added:
            return 0
        is_special = special_tokens or token in tok.all_special_tokens
        token = AddedToken(token, special=is_special, normalized=not is_special)
    else:
        token = AddedToken.coerce(token, False)
        if special_tokens:
            token = token.as_special(keep_normalized=True)
    if not token.special and token.normalized and tok.do_lower_case:
        token = AddedToken(token.content.lower(), token.single_word, token.lstrip, token.rstrip, False, True)
    if token.content in tok._added:
        tid, n = tok._added[token.content][0], 0
    else:
        tid = tok._core.token_to_id(token.content)
        tid, n = (tok._next_id(), 1) if tid is None else (tid, 0)
    if token.special and token.content not in tok.all_special_tokens:
        tok._extra_special_tokens.append(token)
    tok._put_added(tid, token)
    return n


def note_hf_added(tok, tid, token):
    """HF's caches after adding `token` at `tid` (not in legacy mode): its normalized form,
    when normalized and changed by BertNormalizer (reference="tokenizers"), and its content if special. Never removed by
    a later re-add with other flags (as there); rebuilt from the current flags on reload/unpickle."""
    if tok.legacy:
        return
    if token.normalized and tok.reference == "tokenizers":
        form = _hf_normalize(tok, token.content)
        if form != token.content:
            tok.__dict__["_token_strings"] = {**tok._token_strings, tid: form}  # (a new dict: snapshots keep theirs)
    if token.special and token.content not in tok._special_strings:
        tok.__dict__["_special_strings"] = tuple(sorted({*tok._special_strings, token.content}))  # (see tokens.py)


def rebuild_hf_caches(tok):
    """The caches as HF rebuilds them when it deserializes a tokenizer (pickle, from_pretrained)."""
    tok.__dict__["_token_strings"] = {}
    tok.__dict__["_special_strings"] = ()
    for tid, token in sorted(tok._added_by_id.items()):
        note_hf_added(tok, tid, token)


def _hf_normalize(tok, content):
    try:
        return tok._core.hf_normalize(content)
    except (ValueError, TypeError, UnicodeError):  # (a lone surrogate: HF refuses the text anyway)
        return content

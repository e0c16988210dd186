"""Pickling support for the tokenizers (`pickle`, `copy`, `multiprocessing`,
`datasets` fingerprints, Ray).

The Rust `_core` objects cannot be pickled; they are rebuilt on unpickle from
the vocabulary entries with `_core.FullTokenizer.from_entries`, so a pickle
holds only the vocabulary and the settings. The pickled form is deterministic
(no set order, object identity or hash seed in it): the same tokenizer gives the
same bytes in every process, which keeps `datasets` cache fingerprints stable.

Every class's `__reduce__` delegates here; the `_restore_*` functions are the
module-level constructors the pickles name.
"""

from __future__ import annotations

import collections
import io
import pickle

from ._entries import pack_entries, unpack_entries  # noqa: F401  (the pickles' vocabulary form)

# Attributes of the wrappers that are derived from the others and rebuilt on unpickle.
_FULL_DERIVED = frozenset({"_core", "_cores", "_flags", "vocab", "inv_vocab", "basic_tokenizer", "wordpiece_tokenizer"})
# deprecation_warnings: which warnings were already given, not a setting (a
# use of the tokenizer would otherwise change its pickled bytes).
# _epoch: which calls' lazy rows share a state (bert_tokenizer/epochs.py), never a setting.
# _token_strings, _special_strings: HF tokenizers' caches, rebuilt from the tokens' flags as HF
# rebuilds them when it unpickles (bert_tokenizer/add_rules.py).
_BERT_DERIVED = frozenset({"_engine", "_added_by_id", "deprecation_warnings", "_epoch", "_token_strings",
                           "_special_strings"})




def _pack_vocab(vocab):
    """A wrapper's `vocab` argument: str -> int mappings packed, anything else frozen as is."""
    if isinstance(vocab, dict) and all(isinstance(t, str) and type(i) is int for t, i in vocab.items()):
        return ("mapping", type(vocab), pack_entries(list(vocab.items())))
    return ("raw", _freeze(vocab))


def _unpack_vocab(packed):
    if packed[0] == "mapping":
        return packed[1](unpack_entries(packed[2]))
    return pickle.loads(packed[1])


def _sorted_set(values):
    """A set's items in a hash-seed independent order (type-name first, so mixed types sort)."""
    return tuple(sorted(values, key=lambda v: (type(v).__name__, repr(v))))


def _freeze(value) -> bytes:
    """`value` pickled without the memo ("fast" mode): the bytes then depend only
    on the values, not on which equal strings happen to be one object (interned
    names, strings shared by the constructor), so they are the same in every
    process and after any number of round trips."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=4)
    pickler.fast = True
    pickler.dump(value)
    return buf.getvalue()


def _attrs(obj, derived) -> bytes:
    """Instance attributes except the derived ones, sorted by name, frozen."""
    return _freeze(tuple(sorted((k, v) for k, v in vars(obj).items() if k not in derived)))


def _new(cls, frozen_attrs):
    obj = cls.__new__(cls)
    obj.__dict__.update(pickle.loads(frozen_attrs))  # bypasses BertTokenizer.__setattr__, as unpickling should
    return obj


# --------------------------------------------------- tokenization.py wrappers
def reduce_full_tokenizer(tok):
    """`bertpiece.FullTokenizer.__reduce__`: vocabulary entries + constructor settings."""
    return (_restore_full_tokenizer,
            (type(tok), pack_entries(tok._core.vocab_entries()), _attrs(tok, _FULL_DERIVED)))


def _restore_full_tokenizer(cls, packed_entries, attrs):
    from . import _core  # lazily: the oracle pickles through this module and never needs the core

    tok = _new(cls, attrs)
    # The same arguments FullTokenizer.__init__ gives _core.FullTokenizer.
    tok._bind(_core.FullTokenizer.from_entries(
        unpack_entries(packed_entries), tok.do_lower_case, reference=tok.reference,
        max_input_chars_per_word=tok.max_input_chars_per_word, unk_token=tok.unk_token,
        **tok._settled_options(bool(tok._options["preserve_unused_tokens"]))))
    return tok


def reduce_basic_tokenizer(tok):
    """`bertpiece.BasicTokenizer.__reduce__`: its constructor arguments."""
    kwargs = (("never_split", _sorted_set(tok.never_split)), ("tokenize_chinese_chars", tok.tokenize_chinese_chars),
              ("strip_accents", tok.strip_accents), ("do_split_on_punc", tok.do_split_on_punc),
              ("preserve_unused_tokens", tok.preserve_unused_tokens), ("reference", tok.reference))
    return (_restore_basic_tokenizer, (type(tok), tok.do_lower_case, _pack_vocab(tok.vocab), kwargs))


def _restore_basic_tokenizer(cls, do_lower_case, packed_vocab, kwargs):
    return cls(do_lower_case, _unpack_vocab(packed_vocab), **dict(kwargs))


def reduce_wordpiece_tokenizer(tok):
    """`bertpiece.WordpieceTokenizer.__reduce__`: its constructor arguments."""
    return (_restore_wordpiece_tokenizer,
            (type(tok), _pack_vocab(tok.vocab), tok.unk_token, tok.max_input_chars_per_word))


def _restore_wordpiece_tokenizer(cls, packed_vocab, unk_token, max_input_chars_per_word):
    return cls(_unpack_vocab(packed_vocab), unk_token, max_input_chars_per_word)


# ------------------------------------------------------------ BertTokenizer
def reduce_bert_tokenizer(tok):
    """`bertpiece.BertTokenizer.__reduce__`.

    All instance state (settings, added and special tokens, model_max_length,
    padding/truncation side, reference, init_kwargs, user attributes) is kept
    as is; only the Rust core and the lookup tables derived from the
    vocabulary are rebuilt. This is exact where a save_pretrained /
    from_pretrained round trip is not (name_or_path, split_special_tokens,
    ids of added tokens read from a tokenizer.json).
    """
    # _added_by_id holds the same AddedToken objects as _added (add_tokens
    # mutates them in place): store it as id -> content and re-link on unpickle.
    by_id = tuple((i, t.content, None if tok._added.get(t.content, (None, None))[1] is t else t)
                  for i, t in tok._added_by_id.items())
    # The engine (Rust core, tables) is rebuilt from its own state: the entries and the
    # settings the constructor gave it (frozen, so the bytes do not depend on string identity).
    entries, settings, wordpiece_only = tok._engine.state()
    # (a tokenizers-mode object's class is its class made a TokenizersBackend: the pickle names the class)
    cls = type(tok).__dict__.get("_bertpiece_plain_class", type(tok))
    return (_restore_bert_tokenizer, (cls, entries, _freeze((settings, wordpiece_only)),
                                      _attrs(tok, _BERT_DERIVED), _freeze(by_id)))


def _restore_bert_tokenizer(cls, packed_entries, frozen_engine, attrs, frozen_by_id):
    from .bert_tokenizer.engine import rebuild  # lazily (see above; it imports us)
    from .bert_tokenizer.epochs import Epoch

    tok = _new(cls, attrs)
    tok.deprecation_warnings = {}
    tok._added_by_id = {i: tok._added[content][1] if token is None else token
                        for i, content, token in pickle.loads(frozen_by_id)}
    tok._engine = rebuild(packed_entries, *pickle.loads(frozen_engine))
    from .bert_tokenizer.add_rules import rebuild_hf_caches
    rebuild_hf_caches(tok)
    settle = getattr(tok, "_settle_class", None)  # (transformers installed: TokenizersBackend by mode)
    if settle is not None:
        settle()
    tok.__dict__["_epoch"] = Epoch()
    return tok


# ------------------------------------------------------------------ oracle
def reduce_oracle_full_tokenizer(tok):
    """`bertpiece.oracle.FullTokenizer.__reduce__`: one copy of the vocabulary
    (not vocab + inv_vocab + the parts' references to it) and the parts' settings."""
    basic = _oracle_attrs(tok.basic_tokenizer)
    wordpiece = _oracle_attrs(tok.wordpiece_tokenizer)
    rest = _attrs(tok, {"vocab", "inv_vocab", "basic_tokenizer", "wordpiece_tokenizer"})
    return (_restore_oracle_full_tokenizer,
            (type(tok), pack_entries(list(tok.vocab.items())), rest,
             type(tok.basic_tokenizer), basic, type(tok.wordpiece_tokenizer), wordpiece))


def _oracle_attrs(part) -> bytes:
    """A part's attributes without its vocabulary, sets in sorted order, frozen."""
    return _freeze(tuple((k, ("set", _sorted_set(v)) if isinstance(v, (set, frozenset)) else ("value", v))
                         for k, v in sorted(vars(part).items()) if k != "vocab"))


def _restore_oracle_attrs(obj, attrs, vocab):
    obj.vocab = vocab
    for k, (kind, v) in pickle.loads(attrs):
        setattr(obj, k, set(v) if kind == "set" else v)
    return obj


def _restore_oracle_full_tokenizer(cls, packed_entries, rest, basic_cls, basic, wp_cls, wordpiece):
    tok = _new(cls, rest)
    tok.vocab = collections.OrderedDict(unpack_entries(packed_entries))
    tok.inv_vocab = {v: k for k, v in tok.vocab.items()}
    tok.basic_tokenizer = _restore_oracle_attrs(basic_cls.__new__(basic_cls), basic, tok.vocab)
    tok.wordpiece_tokenizer = _restore_oracle_attrs(wp_cls.__new__(wp_cls), wordpiece, tok.vocab)
    return tok


def reduce_oracle_part(part):
    """`bertpiece.oracle.BasicTokenizer` / `WordpieceTokenizer.__reduce__`."""
    return (_restore_oracle_part, (type(part), _pack_vocab(part.vocab), _oracle_attrs(part)))


def _restore_oracle_part(cls, packed_vocab, attrs):
    return _restore_oracle_attrs(cls.__new__(cls), attrs, _unpack_vocab(packed_vocab))


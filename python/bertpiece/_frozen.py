"""Read-only vocabularies and attributes for the Google-API classes.

Google's `FullTokenizer` reads `basic_tokenizer.do_lower_case`, `vocab`,
`inv_vocab` and the WordPiece settings on every call, so changing them after
construction takes effect there. bertpiece's tokenizers are compiled once (the
Rust core), so instead of ignoring such a change silently they refuse it where
it is made, saying how to get a tokenizer with the change.
"""

import collections

_HOW = ("bertpiece tokenizers are immutable after construction (Google's would take the change); "
        "build a new one with the setting or vocabulary you want, e.g. "
        "FullTokenizer(vocab_file, do_lower_case=False) or WordpieceTokenizer(dict(vocab, newword=5))")


def _refuse(self, *args, **kwargs):
    raise TypeError(f"this vocabulary is read-only: {_HOW} (dict(tok.vocab) is a mutable copy)")


class FrozenVocab(collections.OrderedDict):
    """`vocab`: an OrderedDict token -> id that refuses changes (TypeError)."""

    def __init__(self, items=()):
        super().__init__()
        put = collections.OrderedDict.__setitem__
        for k, v in (items.items() if hasattr(items, "items") else items):
            put(self, k, v)

    __setitem__ = __delitem__ = pop = popitem = clear = update = setdefault = move_to_end = __ior__ = _refuse

    def __reduce__(self):
        return (type(self), (list(self.items()),))

    def copy(self):
        return collections.OrderedDict(self)


class FrozenInvVocab(dict):
    """`inv_vocab`: a dict id -> token that refuses changes (TypeError)."""

    def __init__(self, items=()):
        super().__init__(items)

    __setitem__ = __delitem__ = pop = popitem = clear = update = setdefault = __ior__ = _refuse

    def __reduce__(self):
        return (type(self), (list(self.items()),))

    def copy(self):
        return dict(self)


class Immutable:
    """Attributes are read-only once `_core` (set last by `__init__`) exists."""

    __slots__ = ()

    def __setattr__(self, name, value):
        if "_core" in self.__dict__:
            raise AttributeError(f"cannot set {type(self).__name__}.{name}: {_HOW}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if "_core" in self.__dict__:
            raise AttributeError(f"cannot delete {type(self).__name__}.{name}: {_HOW}")
        object.__delattr__(self, name)

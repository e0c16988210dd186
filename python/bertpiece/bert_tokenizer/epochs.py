"""The tokenizer state a call's lazily computed rows describe.

`BatchEncoding.tokens()`, `word_ids()`, ... are computed on first use (most
calls never ask), by the general path. They must describe the call that
made them, not the tokenizer as it is when asked: a tokenizer holds an
`Epoch`; every call's lazy rows keep the epoch current at call time (one
attribute read); every change of the tokenizer (`tokens.py`'s `__setattr__`,
`add_tokens`, `add_special_tokens`) goes through `changing`, which first
freezes a snapshot of the tokenizer into the current epoch if some rows
hold it, then starts a new epoch. Rows compute from their epoch's snapshot,
freezing one themselves if the tokenizer has not changed since.

One lock (changes and freezes are rare) makes a snapshot all of one state:
a change in another thread cannot land in the middle of it.
"""

from __future__ import annotations

import contextlib
import copy
import sys
import threading

from .added_tokens import AddedToken

_LOCK = threading.RLock()
_UNHELD = sys.getrefcount(object()) + 2  # an epoch only the tokenizer and `_new_epoch` refer to (see there)


class Epoch:
    """One unchanged state of a tokenizer; `snapshot` is that state once frozen."""

    __slots__ = ("snapshot", "__weakref__")

    def __init__(self):
        self.snapshot = None

    def __reduce__(self):  # (in a pickled tokenizer __dict__, e.g. datasets' fingerprint: no snapshot in it)
        return Epoch, ()


def _freeze(tok):
    """A copy of `tok` that later changes of `tok` do not reach: its own
    added/special-token tables and AddedToken objects, the Rust core shared
    (it never changes). Built without `__init__` or `__setattr__`."""
    snap = object.__new__(type(tok))
    state = dict(tok.__dict__)
    copies = {}

    def copied(token):
        if not isinstance(token, AddedToken):
            return token  # a str, or tokenizers' AddedToken (its flags are read-only)
        if id(token) not in copies:
            copies[id(token)] = copy.copy(token)
        return copies[id(token)]

    state["_added"] = {c: (i, copied(t)) for c, (i, t) in tok._added.items()}
    state["_added_by_id"] = {i: copied(t) for i, t in tok._added_by_id.items()}
    state["_special_tokens_map"] = {k: copied(v) for k, v in tok._special_tokens_map.items()}
    state["_extra_special_tokens"] = [copied(t) for t in tok._extra_special_tokens]
    state["_engine"] = tok._engine.shallow_copy()
    state["_epoch"] = None  # a snapshot never changes: its rows compute from it directly
    snap.__dict__.update(state)
    return snap


def frozen(tok, epoch):
    """`tok` as it was in `epoch` (`tok` itself when it is a snapshot)."""
    if epoch is None:
        return tok
    snap = epoch.snapshot
    if snap is None:
        with _LOCK:
            snap = epoch.snapshot
            if snap is None:  # tok is still in this epoch: changes wait for the lock
                snap = epoch.snapshot = _freeze(tok)
    return snap


def _new_epoch(tok):
    epoch = tok.__dict__.get("_epoch")
    if epoch is None:
        return
    engine = tok.__dict__.get("_engine")
    if engine is not None:  # serving.py's state holds the epoch: never one that has ended
        engine.serving = None
    # references: tok's __dict__, `epoch` here, getrefcount's argument; more are rows that hold it
    if epoch.snapshot is None and sys.getrefcount(epoch) > _UNHELD:
        epoch.snapshot = _freeze(tok)
    tok.__dict__["_epoch"] = Epoch()


@contextlib.contextmanager
def changing(tok):
    """Around every change of `tok`: the rows of earlier calls keep their state."""
    with _LOCK:
        _new_epoch(tok)
        yield

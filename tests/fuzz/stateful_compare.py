"""Strict comparison for the stateful machine (stateful.py): values *and* types.

`difference(ours, theirs)` walks both results together and names the first
place they differ: a list where the reference has an array, another dtype or
shape, a tuple for a list, an int for a bool. `exception_difference` compares
two outcomes when one side raised: the same exception type (ours may be a
subclass, as the documented double-typed errors are) and, loosely, the same
argument named in the message.
"""

from __future__ import annotations

import re

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover - torch is a test dependency
    torch = None

# Names a message may point at; ours must name the same one as the reference.
ARGUMENT_NAMES = ("padding_side", "truncation_side", "max_length", "stride", "pad_to_multiple_of",
                  "truncation", "padding", "text_pair", "is_split_into_words", "return_tensors")


def _short(value, n=240):
    text = repr(value)
    return text if len(text) <= n else text[:n] + "…"


def difference(ours, theirs, where="result") -> str | None:
    """None when `ours` and `theirs` are the same values of the same types, else where they part."""
    if isinstance(theirs, np.ndarray):
        if not isinstance(ours, np.ndarray):
            return f"{where}: {type(ours).__name__} where the reference has ndarray"
        if ours.dtype != theirs.dtype or ours.shape != theirs.shape:
            return f"{where}: ndarray {ours.dtype}{ours.shape} vs {theirs.dtype}{theirs.shape}"
        if theirs.dtype == object:
            return difference(list(ours), list(theirs), where)
        if not np.array_equal(ours, theirs):
            return f"{where}: {_short(ours.tolist())} vs {_short(theirs.tolist())}"
        return None
    if torch is not None and isinstance(theirs, torch.Tensor):
        if not isinstance(ours, torch.Tensor):
            return f"{where}: {type(ours).__name__} where the reference has a torch.Tensor"
        if ours.dtype != theirs.dtype or tuple(ours.shape) != tuple(theirs.shape):
            return f"{where}: tensor {ours.dtype}{tuple(ours.shape)} vs {theirs.dtype}{tuple(theirs.shape)}"
        if not torch.equal(ours, theirs):
            return f"{where}: {_short(ours.tolist())} vs {_short(theirs.tolist())}"
        return None
    if hasattr(theirs, "keys") and hasattr(theirs, "items"):
        if not (hasattr(ours, "keys") and hasattr(ours, "items")):
            return f"{where}: {type(ours).__name__} where the reference has a mapping"
        if list(ours.keys()) != list(theirs.keys()):
            return f"{where}: keys {list(ours.keys())} vs {list(theirs.keys())}"
        for key in theirs.keys():
            d = difference(ours[key], theirs[key], f"{where}[{key!r}]")
            if d:
                return d
        return None
    if type(ours) is not type(theirs):
        return f"{where}: {type(ours).__name__} {_short(ours)} vs {type(theirs).__name__} {_short(theirs)}"
    if isinstance(theirs, (list, tuple)):
        if len(ours) != len(theirs):
            return f"{where}: length {len(ours)} vs {len(theirs)}: {_short(ours)} vs {_short(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            d = difference(a, b, f"{where}[{i}]")
            if d:
                return d
        return None
    if ours != theirs:
        return f"{where}: {_short(ours)} vs {_short(theirs)}"
    return None


def attempt(fn):
    """(value, None) or (None, exception): every failure is data here."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001
        return None, e
    except BaseException as e:  # HF's PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        return None, e


def _named_arguments(message: str) -> set:
    return {name for name in ARGUMENT_NAMES if re.search(rf"\b{name}\b", message)}


def outcome_difference(ours, theirs, where="result") -> str | None:
    """Two attempt() outcomes: both values the same, or both raised alike."""
    (got, ours_exc), (expected, theirs_exc) = ours, theirs
    if ours_exc is None and theirs_exc is None:
        return difference(got, expected, where)
    if ours_exc is None or theirs_exc is None:
        describe = lambda v, e: f"{type(e).__name__}: {str(e)[:200]}" if e else _short(v)  # noqa: E731
        return f"{where}: bertpiece {describe(got, ours_exc)} | reference {describe(expected, theirs_exc)}"
    if not isinstance(ours_exc, type(theirs_exc)):
        return (f"{where}: bertpiece raised {type(ours_exc).__name__}: {str(ours_exc)[:200]} | "
                f"reference {type(theirs_exc).__name__}: {str(theirs_exc)[:200]}")
    missing = _named_arguments(str(theirs_exc)) - _named_arguments(str(ours_exc))
    if _named_arguments(str(theirs_exc)) and missing == _named_arguments(str(theirs_exc)):
        return (f"{where}: both raised {type(theirs_exc).__name__}, but the reference's message names "
                f"{sorted(missing)}: {str(ours_exc)[:200]!r} vs {str(theirs_exc)[:200]!r}")
    return None

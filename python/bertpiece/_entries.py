"""A vocabulary's (token, id) entries as a compact, deterministic value: what pickles
of every tokenizer hold, and what the BERT engine rebuilds its core from."""

from __future__ import annotations

import sys
from array import array

_SEP = "\n"


def pack_entries(entries) -> tuple:
    """(token, id) pairs as a compact, deterministic value.

    The tokens become one "\\n"-joined string (a pickle about the size of
    vocab.txt) unless a token holds a newline; the ids are omitted when they
    are 0, 1, 2, ... in order (every vocab.txt read the Google way), else
    stored as little-endian int64 bytes.
    """
    tokens = [t for t, _ in entries]
    ids = [i for _, i in entries]
    dense = ids == list(range(len(ids)))
    packed_ids = None if dense else _int64_le(ids)
    if any(_SEP in t for t in tokens):
        return ("list", len(tokens), tuple(tokens), packed_ids)
    return ("joined", len(tokens), _SEP.join(tokens), packed_ids)


def unpack_entries(packed) -> list:
    """The (token, id) pairs `pack_entries` packed, in the same order."""
    kind, n, tokens, packed_ids = packed
    if kind == "joined":
        tokens = tokens.split(_SEP) if n else []  # n tells [] from [""]
    elif kind != "list":
        raise ValueError(f"corrupt bertpiece pickle: unknown vocabulary encoding {kind!r}")
    ids = range(len(tokens)) if packed_ids is None else _int64_le_values(packed_ids)
    if not len(ids) == len(tokens) == n:
        raise ValueError("corrupt bertpiece pickle: vocabulary tokens and ids differ in length")
    return list(zip(tokens, ids))


def _int64_le(ids) -> bytes:
    """Little-endian int64 bytes (what pickles hold on every platform); OverflowError past int64."""
    out = array("q", ids)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def _int64_le_values(packed: bytes) -> list:
    if len(packed) % 8:
        raise ValueError("corrupt bertpiece pickle: vocabulary ids are not whole int64s")
    out = array("q")
    out.frombytes(packed)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tolist()

"""Pure-Python reference ("oracle") of HF tokenizers' truncation and padding on
token-id lists: which ids a side keeps, the overflowing windows, how a pair's
pieces combine (nested, as HF's ``Encoding.merge_with``), and padding. With no
post-processor, ``encode`` is exactly this applied to each side's ids. Tested
against tokenizers 0.23.3 and the Rust pipeline (tests/test_pipeline_trunc25_fuzz.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple


class TruncationError(ValueError):
    """HF's truncation errors, and its stride panic (message starts "stride")."""


@dataclass
class Node:
    """Ids of one encoding and its overflowing encodings."""
    ids: List[int]
    overflowing: List["Node"] = field(default_factory=list)


def windows(ids: List[int], max_len: int, stride: int, direction: str) -> Node:
    """HF's ``Encoding.truncate``: keep ``max_len`` ids at the kept end; the rest
    as windows of ``max_len`` moving by ``max_len - stride`` away from it."""
    n = len(ids)
    if max_len >= n:
        return Node(list(ids))
    if max_len == 0:
        return Node([], [Node(list(ids))])
    if stride >= max_len:
        raise TruncationError(f"stride {stride} >= {max_len}")
    step = max_len - stride
    parts: List[Tuple[int, int]] = []
    if direction == "right":
        for start in range(0, n, step):
            stop = min(start + max_len, n)
            parts.append((start, stop))
            if stop == n:
                break
    else:
        for last in range(n - 1, -1, -step):
            start = max(last + 1 - max_len, 0)
            parts.append((start, last + 1))
            if start == 0:
                break
    first, *rest = [Node(ids[a:b]) for a, b in parts]
    first.overflowing = rest
    return first


def budgets(n1: int, n2: int, max_length: int) -> Tuple[int, int]:
    """``longest_first`` for a pair: the shorter side stays whole if the longer
    can take the whole cut, else each gets half (the second the odd one)."""
    short, long_ = min(n1, n2), max(n1, n2)
    long_ = short if short > max_length else max(short, max_length - short)
    if short + long_ > max_length:
        short, long_ = max_length // 2, max_length // 2 + max_length % 2
    return (long_, short) if n1 > n2 else (short, long_)


def truncate(a: List[int], b: Optional[List[int]], max_length: int, stride: int, strategy: str,
             direction: str) -> Tuple[Node, Optional[Node]]:
    """HF's ``truncate_encodings`` (``max_length`` already less the specials)."""
    if max_length == 0:
        return windows(a, 0, stride, direction), None if b is None else windows(b, 0, stride, direction)
    total = len(a) + (len(b) if b is not None else 0)
    if total <= max_length:
        return Node(list(a)), None if b is None else Node(list(b))
    cut = total - max_length
    if strategy == "longest_first":
        if b is None:
            return windows(a, max_length, stride, direction), None
        n1, n2 = budgets(len(a), len(b), max_length)
        return windows(a, n1, stride, direction), windows(b, n2, stride, direction)
    if strategy == "only_second" and b is None:
        raise TruncationError("Truncation error: Second sequence not provided")
    target = a if strategy == "only_first" else b
    if len(target) <= cut:
        raise TruncationError("Truncation error: Sequence to truncate too short to respect the provided max_length")
    kept = windows(target, len(target) - cut, stride, direction)
    if strategy == "only_first":
        return kept, None if b is None else Node(list(b))
    return Node(list(a)), kept


def merge(x: Node, y: Node) -> Node:
    """HF's ``merge_with``: each of x's pieces with y and with each of y's
    pieces, then x whole with each of y's pieces."""
    overflowing = []
    for xo in x.overflowing:
        overflowing.append(merge(xo, y))
        overflowing.extend(merge(xo, yo) for yo in y.overflowing)
    overflowing.extend(merge(x, yo) for yo in y.overflowing)
    return Node(x.ids + y.ids, overflowing)


def pad(node: Node, length: int, pad_id: int, direction: str) -> Node:
    """HF's ``Encoding.pad``: the overflowing pieces too; never shortens."""
    fill = [pad_id] * max(length - len(node.ids), 0)
    ids = fill + node.ids if direction == "left" else node.ids + fill
    return Node(ids, [pad(o, length, pad_id, direction) for o in node.overflowing])


def target_length(lengths: List[int], length: Optional[int], multiple: Optional[int]) -> int:
    """Fixed ``length``, or the longest; rounded up to ``multiple`` (0: no rounding)."""
    n = length if length is not None else max(lengths)
    if multiple and n % multiple:
        n += multiple - n % multiple
    return n

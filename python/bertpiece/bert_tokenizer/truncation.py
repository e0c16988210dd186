"""HF tokenizers' truncation (`utils/truncation.rs`, `Encoding::truncate`):
which tokens stay, and the overflowing windows with their stride."""


class _Seq:
    """A sequence's ids, offsets and word indices; `strings`, when not None, the
    token strings that are not the vocabulary's (None elsewhere): an added token
    with lstrip/rstrip is the text it matched, stripped whitespace included."""

    __slots__ = ("ids", "offsets", "words", "strings")

    def __init__(self, ids, offsets, words, strings=None):
        self.ids, self.offsets, self.words, self.strings = ids, offsets, words, strings

    def __len__(self):
        return len(self.ids)

    def window(self, start, stop):
        return _Seq(self.ids[start:stop], self.offsets[start:stop], self.words[start:stop],
                    self.strings[start:stop] if self.strings is not None else None)


def _hf_windows(seq, max_len, stride, direction):
    """tokenizers' Encoding::truncate: the kept window first, then the overflowing ones."""
    n = len(seq)
    if max_len >= n:
        return [seq]
    if max_len == 0:
        return [seq.window(0, 0), seq]
    if stride >= max_len:
        raise ValueError(f"`stride` must be strictly less than `max_len={max_len}` (note that `max_len` may be shorter "
                         "than the max length of the original model, as it subtracts the number of special characters")
    step = max_len - stride
    ranges = []
    if direction == "right":
        for start in range(0, n, step):
            stop = min(start + max_len, n)
            ranges.append((start, stop))
            if stop == n:
                break
    else:
        for stop in range(n - 1, -1, -step):
            stop += 1
            start = max(stop - max_len, 0)
            if start < stop:
                ranges.append((start, stop))
                if start == 0:
                    break
    return [seq.window(a, b) for a, b in ranges]


def _hf_truncate(a, b, max_length, strategy, stride, direction):
    """tokenizers' truncate_encodings: (windows of a, windows of b or None)."""
    if max_length == 0:
        return _hf_windows(a, 0, stride, direction), (_hf_windows(b, 0, stride, direction) if b is not None else None)
    total = len(a) + (len(b) if b is not None else 0)
    if total <= max_length:
        return [a], ([b] if b is not None else None)
    to_remove = total - max_length
    if strategy == "longest_first":
        if b is None:
            return _hf_windows(a, total - to_remove, stride, direction), None
        n1, n2 = len(a), len(b)
        swap = n1 > n2
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > max_length else max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        if swap:
            n1, n2 = n2, n1
        return _hf_windows(a, n1, stride, direction), _hf_windows(b, n2, stride, direction)
    if strategy == "only_second" and b is None:
        raise ValueError("Truncation error: Second sequence not provided")
    target = a if strategy == "only_first" else b
    if len(target) <= to_remove:
        raise ValueError("Truncation error: Sequence to truncate too short to respect the provided max_length")
    wins = _hf_windows(target, len(target) - to_remove, stride, direction)
    return (wins, [b] if b is not None else None) if strategy == "only_first" else ([a], wins)

"""`BatchEncoding.encodings`: each row of a call as an HF tokenizers `Encoding`
(ids, tokens, offsets, word and sequence ids, masks, overflow windows, and its
alignment methods), read from the rows the general path built.

Nothing here runs unless `.encodings` is read: the general path only keeps a
reference to the rows it built for each input (`RowGroup`), and the batch and
serving paths compute their rows through the general path on first use.
"""

from __future__ import annotations

import warnings

from .epochs import frozen


def token_strings(tok, epoch, ids, strings):
    """The token strings of a row: `ids` in the tokenizer as it was at the call (`epoch`, epochs.py), and
    where `strings` has one, the text an lstrip/rstrip added token matched (HF's token string)."""
    tokens = frozen(tok, epoch)._tokens_of(ids)
    if strings is not None:
        tokens = [t if s is None else s for t, s in zip(tokens, strings)]
    return tokens


def pad_row(row, target, fills, side):
    """Pad the columns of one general-path row (`[ids, types, special, offsets, words, seqs, mask, strings]`,
    `strings` None when the row has none) to `target` tokens with `fills`, on `side`, in place (HF
    tokenizers' `Encoding.pad`)."""
    n = target - len(row[0])
    if n > 0:  # (all columns replaced at once: two threads reading `encodings` may pad the same row)
        if side == "right":
            row[:] = [None if column is None else column + [fill] * n for column, fill in zip(row, fills)]
        else:
            row[:] = [None if column is None else [fill] * n + column for column, fill in zip(row, fills)]


def overflow_tree(n_first, n_second):
    """For the windows of one input in the general path's order (see `combos` there), the positions of
    each window's `overflowing` encodings, as HF tokenizers nests them (`Encoding::merge_with`).

    One text, windows a0, a1...: a0 holds all the others, which hold none. A pair with windows a_i and
    b_j, in the order (a0,b0), then (a_i,b0), (a_i,b_1...) for each i >= 1, then (a0,b_j) for j >= 1:
    (a0,b0) holds every other; (a_i,b0) holds (a_i,b_j) for j >= 1; (a0,b_j) holds (a_i,b_j) for i >= 1;
    (a_i,b_j) with i, j >= 1 holds none."""
    if n_second is None:
        return [list(range(1, n_first))] + [[] for _ in range(n_first - 1)]
    order = [(0, 0)]
    for i in range(1, n_first):
        order.extend((i, j) for j in range(n_second))
    order.extend((0, j) for j in range(1, n_second))
    where = {pair: k for k, pair in enumerate(order)}
    tree = []
    for i, j in order:
        if i == 0 and j == 0:
            tree.append(list(range(1, len(order))))
        elif j == 0:
            tree.append([where[i, y] for y in range(1, n_second)])
        elif i == 0:
            tree.append([where[x, j] for x in range(1, n_first)])
        else:
            tree.append([])
    return tree


class RowGroup:
    """The rows the general path built for one input: its first row and HF's overflow windows (some
    maybe not returned, and then padded only when asked for), with how they nest."""

    __slots__ = ("tok", "epoch", "rows", "tree", "n_sequences", "pending", "_tokens")

    def __init__(self, tok, epoch, rows, tree, n_sequences, pending=None):
        # pending: (first row to pad, target, fills, side) for rows the call did not return
        self.tok, self.epoch, self.rows, self.tree, self.n_sequences = tok, epoch, rows, tree, n_sequences
        self.pending = pending
        self._tokens = {}

    def row(self, pos):
        if self.pending is not None:
            start, target, fills, side = self.pending
            for r in self.rows[start:]:
                pad_row(r, target, fills, side)
            self.pending = None
        return self.rows[pos]

    def tokens(self, pos):
        if pos not in self._tokens:
            row = self.row(pos)
            self._tokens[pos] = token_strings(self.tok, self.epoch, row[0], row[7])
        return self._tokens[pos]

    def __reduce__(self):  # a pickled BatchEncoding carries the rows and token strings, not the tokenizer
        return _restore_group, ([self.row(k) for k in range(len(self.rows))], self.tree, self.n_sequences,
                                [list(self.tokens(k)) for k in range(len(self.rows))])


def _restore_group(rows, tree, n_sequences, tokens):
    group = RowGroup(None, None, rows, tree, n_sequences)
    group._tokens = dict(enumerate(tokens))
    return group


def _unsigned(value):
    """HF tokenizers takes indices as unsigned integers (a negative one is Python's OverflowError there)."""
    if value < 0:
        raise OverflowError("can't convert negative int to unsigned")
    return value


class Encoding:
    """One row of a `BatchEncoding`, with the attributes and alignment methods of HF tokenizers'
    `Encoding` (what transformers' `BatchEncoding.encodings` holds)."""

    __slots__ = ("_group", "_pos")

    def __init__(self, group, pos):
        self._group, self._pos = group, pos

    def _col(self, k):
        return list(self._group.row(self._pos)[k])

    ids = property(lambda self: self._col(0))
    type_ids = property(lambda self: self._col(1))
    special_tokens_mask = property(lambda self: self._col(2))
    offsets = property(lambda self: self._col(3))
    word_ids = property(lambda self: self._col(4))

    @property
    def words(self):
        warnings.warn("Deprecated in 0.9.4: Encoding.words is deprecated, please use Encoding.word_ids instead.",
                      DeprecationWarning, stacklevel=2)  # (as HF tokenizers)
        return self._col(4)

    sequence_ids = property(lambda self: self._col(5))
    attention_mask = property(lambda self: self._col(6))
    tokens = property(lambda self: list(self._group.tokens(self._pos)))
    n_sequences = property(lambda self: self._group.n_sequences)

    @property
    def overflowing(self):
        return [Encoding(self._group, k) for k in self._group.tree[self._pos]]

    def __len__(self):
        return len(self._group.row(self._pos)[0])

    def __repr__(self):
        return (f"Encoding(num_tokens={len(self)}, attributes=[ids, type_ids, tokens, offsets, attention_mask, "
                "special_tokens_mask, overflowing])")

    # -- alignment, as HF tokenizers' Encoding computes it (its sequence ranges, read from sequence_ids)
    def _range(self, sequence_index):
        """The tokens of sequence `sequence_index` as (start, stop); every token when there is no such sequence.
        A sequence given but cut or padded to nothing has an empty range, as in HF."""
        seqs = self._group.row(self._pos)[5]
        if sequence_index >= self._group.n_sequences:
            return 0, len(seqs)
        found = [k for k, s in enumerate(seqs) if s == sequence_index]
        return (found[0], found[-1] + 1) if found else (0, 0)

    def token_to_sequence(self, token_index):
        token_index = _unsigned(token_index)
        seqs = self._group.row(self._pos)[5]
        return seqs[token_index] if token_index < len(seqs) else None

    def token_to_word(self, token_index):
        if self.token_to_sequence(token_index) is None:
            return None
        return self._group.row(self._pos)[4][token_index]

    def token_to_chars(self, token_index):
        if self.token_to_sequence(token_index) is None:
            return None
        return tuple(self._group.row(self._pos)[3][token_index])

    def word_to_tokens(self, word_index, sequence_index=0):
        word_index, sequence_index = _unsigned(word_index), _unsigned(sequence_index)
        start, stop = self._range(sequence_index)
        found = []
        for k, w in enumerate(self._group.row(self._pos)[4][start:stop]):
            if w is not None and w > word_index:  # (HF stops at the first later word)
                break
            if w == word_index:
                found.append(k)
        return (start + found[0], start + found[-1] + 1) if found else None

    def word_to_chars(self, word_index, sequence_index=0):
        span = self.word_to_tokens(word_index, sequence_index)
        if span is None or span[1] == 0:
            return None
        offsets = self._group.row(self._pos)[3]
        return offsets[span[0]][0], offsets[span[1] - 1][1]

    def char_to_token(self, char_pos, sequence_index=0):
        char_pos, sequence_index = _unsigned(char_pos), _unsigned(sequence_index)
        start, stop = self._range(sequence_index)
        for k, (s, e) in enumerate(self._group.row(self._pos)[3][start:stop]):
            if s <= char_pos < e:
                return start + k
        return None

    def char_to_word(self, char_pos, sequence_index=0):
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

"""Reference BPE trainer in plain Python: the specification the Rust trainer
(src/train/bpe.rs) is tested against, and HF tokenizers' `BpeTrainer` as
its source reads (models/bpe/trainer.rs, 0.23).

Textbook BPE: start from characters, and repeatedly merge the adjacent pair
seen most often in the corpus (ties: the pair of smaller token ids, HF's
rule) into a new token. HF keeps counts up to date incrementally, and its
bookkeeping is followed here because it changes the result when a merge
makes a token that already exists (two pairs spelling one string):

* a queue entry carries the words it was queued for, and a merge rewrites
  only those words;
* an entry whose count is stale goes back with the pair's current count;
* a merge changes only the counts of the neighbouring pairs (never the
  merged pair's own), and a new neighbour pair is counted only while the
  merged token stays below `max_token_length` characters;
* a pair merged twice is ranked at its last merge.

Where HF's order depends on a randomly seeded hash map this fixes it:
prefixed/suffixed character tokens in order of first sight over the words
sorted by code points; pairs queued in one step in pair order; between
entries of one pair with one count, the one queued first. The alphabet limit
keeps the most frequent characters, ties to the smaller code point.
"""

from __future__ import annotations

import heapq
from typing import Dict, List, Optional, Sequence, Tuple

_U64 = (1 << 64) - 1


def alphabet(word_counts: Dict[str, int], limit_alphabet: Optional[int], initial_alphabet: Sequence[str]) -> List[str]:
    """Characters weighted by word count; the initial ones rank above all."""
    freq: Dict[str, float] = {}
    for word, n in word_counts.items():
        for c in word:
            freq[c] = freq.get(c, 0) + n
    for c in initial_alphabet:
        freq[c] = float("inf")
    chars = sorted(freq, key=lambda c: (-freq[c], ord(c)))
    if limit_alphabet is not None:
        chars = chars[:limit_alphabet]
    return sorted(chars)


def train_bpe(word_counts: Dict[str, int], vocab_size: int, *, min_frequency: int = 0,
              special_tokens: Sequence[str] = (), limit_alphabet: Optional[int] = None,
              initial_alphabet: Sequence[str] = (), continuing_subword_prefix: Optional[str] = None,
              end_of_word_suffix: Optional[str] = None, max_token_length: Optional[int] = None
              ) -> Tuple[List[str], List[Tuple[str, str]]]:
    """`(tokens in id order, merges by rank)` for `word_counts` ({word: count})."""
    tokens: List[str] = []
    ids: Dict[str, int] = {}

    def add(token: str) -> int:
        if token not in ids:
            ids[token] = len(tokens)
            tokens.append(token)
        return ids[token]

    for token in special_tokens:
        add(token)
    for c in alphabet(word_counts, limit_alphabet, initial_alphabet):
        add(c)

    # Each word: a list of [token id, characters covered]; characters not in
    # the alphabet are dropped (but still decide which character is first/last).
    words = sorted(word_counts)
    counts = [word_counts[w] for w in words]
    symbols: List[List[List[int]]] = []
    for word in words:
        syms = []
        for i, c in enumerate(word):
            if c not in ids:
                continue
            token = c
            if i > 0 and continuing_subword_prefix is not None:
                token = continuing_subword_prefix + token
            if i == len(word) - 1 and end_of_word_suffix is not None:
                token = token + end_of_word_suffix
            syms.append([add(token), 1])
        symbols.append(syms)

    pair_count: Dict[Tuple[int, int], int] = {}
    new_pairs: Dict[Tuple[int, int], set] = {}  # pairs to queue, with the words they are in
    for k, syms in enumerate(symbols):
        for (a, _), (b, _) in zip(syms, syms[1:]):
            pair_count[(a, b)] = pair_count.get((a, b), 0) + counts[k]
            new_pairs.setdefault((a, b), set()).add(k)

    queue: list = []  # heap of (-count, pair, sequence, words)
    sequence = [0]

    def push(count, pair, in_words):
        sequence[0] += 1
        heapq.heappush(queue, (-count, pair, sequence[0], in_words))

    def queue_new_pairs():
        for pair in sorted(new_pairs):
            if pair_count[pair] > 0:
                push(pair_count[pair], pair, sorted(new_pairs[pair]))
        new_pairs.clear()

    queue_new_pairs()
    longest = max_token_length if max_token_length is not None else float("inf")
    merges: List[Tuple[Tuple[int, int], int]] = []
    while len(tokens) < vocab_size and queue:
        neg_count, pair, _, in_words = heapq.heappop(queue)
        current = pair_count[pair] & _U64  # HF compares as an unsigned number
        if -neg_count != current:
            push(current, pair, in_words)
            continue
        if current < 1 or min_frequency > current:
            break
        a, b = pair
        right = tokens[b]
        if continuing_subword_prefix is not None and right.startswith(continuing_subword_prefix):
            right = right[len(continuing_subword_prefix):]
        new = add(tokens[a] + right)
        merges.append((pair, new))
        for k in in_words:
            syms = symbols[k]
            i = 0
            while i + 1 < len(syms):
                if syms[i][0] == a and syms[i + 1][0] == b:
                    merged = [new, syms[i][1] + syms[i + 1][1]]
                    changes = []
                    if i > 0:
                        changes.append(((syms[i - 1][0], a), -1))
                        if syms[i - 1][1] + merged[1] < longest:
                            changes.append(((syms[i - 1][0], new), 1))
                    syms[i:i + 2] = [merged]
                    if i + 1 < len(syms):
                        changes.append(((b, syms[i + 1][0]), -1))
                        if syms[i + 1][1] + merged[1] < longest:
                            changes.append(((new, syms[i + 1][0]), 1))
                    for p, change in changes:
                        pair_count[p] = pair_count.get(p, 0) + change * counts[k]
                        if change > 0:
                            new_pairs.setdefault(p, set()).add(k)
                i += 1
        queue_new_pairs()

    last_rank = {pair: rank for rank, (pair, _) in enumerate(merges)}
    ranked = [(tokens[p[0]], tokens[p[1]]) for rank, (p, _) in enumerate(merges) if last_rank[p] == rank]
    return tokens, ranked


def textbook_bpe(word_counts: Dict[str, int], vocab_size: int, special_tokens: Sequence[str] = ()
                 ) -> Tuple[List[str], List[Tuple[str, str]]]:
    """BPE recounting every pair at every step (no prefix, suffix or limits):
    equal to `train_bpe` while no merge makes an existing token."""
    tokens = list(dict.fromkeys(special_tokens))
    tokens += [c for c in alphabet(word_counts, None, ()) if c not in tokens]
    ids = {t: i for i, t in enumerate(tokens)}
    words = {w: [ids[c] for c in w] for w in word_counts}
    merges = []
    while len(tokens) < vocab_size:
        pairs: Dict[Tuple[int, int], int] = {}
        for w, syms in words.items():
            for p in zip(syms, syms[1:]):
                pairs[p] = pairs.get(p, 0) + word_counts[w]
        if not pairs:
            break
        (a, b), _ = min(pairs.items(), key=lambda item: (-item[1], item[0]))
        new_token = tokens[a] + tokens[b]
        if new_token in ids:
            raise ValueError("the merge makes an existing token: textbook_bpe does not model HF there")
        ids[new_token] = len(tokens)
        tokens.append(new_token)
        merges.append((tokens[a], tokens[b]))
        for syms in words.values():
            i = 0
            while i + 1 < len(syms):
                if syms[i] == a and syms[i + 1] == b:
                    syms[i:i + 2] = [ids[new_token]]
                i += 1
    return tokens, merges

"""Reference Unigram trainer in plain Python: the specification the Rust
trainer (src/train/unigram/) is tested against, bit for bit. It is the
algorithm of sentencepiece's `unigram_model_trainer.cc` and HF tokenizers'
`UnigramTrainer` (models/unigram/trainer.rs, 0.23); docs/train-unigram.md lists
where it follows which, and where it fixes an order either leaves to a hash
map or a thread schedule.

1. Words: texts split as HF's ``Metaspace()`` pre-tokenizer does (spaces
   become ``▁``, one ``▁`` in front, each ``▁`` starts a word), counted.
2. Seeds: every character (by count, then code point, both descending), then
   the substrings of 2..max_piece_length characters that occur at least twice
   in the *unique* words (each word once, as HF's and spm's suffix array
   sees them), ranked by occurrences x length, then string, both descending;
   `seed_size` pieces in all; score = log(value / sum of values).
3. EM: the E-step sums each piece's expected count over every word's lattice
   (forward-backward in log space), the M-step drops pieces expected fewer
   than 0.5 times and scores the rest digamma(count) - digamma(total) (the
   Bayesian EM of HF and spm). `n_sub_iterations` of them per round.
4. Pruning, while there are more than 1.1 x vocab_size pieces: each piece's
   loss is the likelihood lost if its occurrences in the Viterbi
   segmentations were replaced by its best segmentation without it; the
   pieces with the highest loss are kept (the loss as HF computes it), down to max(1.1 x vocab_size,
   shrinking_factor x size).
5. Finalize: special tokens (the unk token first if it is not one), then the
   characters and the best-scoring pieces up to vocab_size, by score.

Characters are never dropped (so every word has a segmentation and the
lattice needs no unknown node). Float sums run in a fixed order: words by
code points, then lattice positions; pieces in their list order.
"""

from __future__ import annotations

import math
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

REPLACEMENT = "\u2581"
EXPECTED_FREQUENCY_THRESHOLD = 0.5


def metaspace_words(text: str) -> List[str]:
    """HF's ``Metaspace()`` (prepend_scheme "always", split) pre-tokens of `text`."""
    if not text:
        return []
    s = text.replace(" ", REPLACEMENT)
    if not s.startswith(REPLACEMENT):
        s = REPLACEMENT + s
    words, start = [], 0
    for i in range(1, len(s)):
        if s[i] == REPLACEMENT:
            words.append(s[start:i])
            start = i
    words.append(s[start:])
    return words


def count_words(texts: Iterable[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for text in texts:
        for w in metaspace_words(text):
            counts[w] = counts.get(w, 0) + 1
    return counts


def digamma(x: float) -> float:
    """HF's (and spm's) digamma: recurrence to x >= 7, then the asymptotic series."""
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (math.log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
               - (127.0 / 30720.0) * xx4 * xx4)
    return result


def log_add(x: float, y: float) -> float:
    """log(exp(x) + exp(y)) as HF's lattice computes it."""
    vmin, vmax = (x, y) if x < y else (y, x)
    if vmax > vmin + 50.0:
        return vmax
    return vmax + math.log(math.exp(vmin - vmax) + 1.0)


def seed_pieces(words: List[Tuple[str, int]], max_piece_length: int, seed_size: int) -> List[Tuple[str, float]]:
    chars: Dict[str, int] = {}
    occurrences: Dict[str, int] = {}
    for word, n in words:
        for c in word:
            chars[c] = chars.get(c, 0) + n
        for i in range(len(word)):
            for j in range(i + 2, min(len(word), i + max_piece_length) + 1):
                s = word[i:j]
                occurrences[s] = occurrences.get(s, 0) + 1
    ranked_chars = sorted(chars.items(), key=lambda cn: (cn[1], ord(cn[0])), reverse=True)
    subs = [(k * len(s), s) for s, k in occurrences.items() if k >= 2]
    subs.sort(key=lambda vs: (vs[0], [ord(c) for c in vs[1]]), reverse=True)
    seeds = [(c, float(n)) for c, n in ranked_chars]
    for value, s in subs:
        if len(seeds) >= seed_size:
            break
        seeds.append((s, float(value)))
    total = 0.0
    for _, v in seeds:
        total += v
    log_total = math.log(total)
    return [(s, math.log(v) - log_total) for s, v in seeds]


def _spans(word: str, ids: Dict[str, int], max_len: int):
    """(start, end, id) of every piece in `word`, by start then end."""
    for i in range(len(word)):
        for j in range(i + 1, min(len(word), i + max_len) + 1):
            k = ids.get(word[i:j])
            if k is not None:
                yield i, j, k


def expected_counts(words, pieces, max_len) -> List[float]:
    ids = {p: k for k, (p, _) in enumerate(pieces)}
    expected = [0.0] * len(pieces)
    for word, n in words:
        spans = list(_spans(word, ids, max_len))
        size = len(word)
        alpha: List[Optional[float]] = [None] * (size + 1)
        beta: List[Optional[float]] = [None] * (size + 1)
        alpha[0], beta[size] = 0.0, 0.0
        for j in range(1, size + 1):  # forward: ends at j, by start
            for i, e, k in spans:
                if e == j and alpha[i] is not None:
                    v = alpha[i] + pieces[k][1]
                    alpha[j] = v if alpha[j] is None else log_add(alpha[j], v)
        for i in range(size - 1, -1, -1):  # backward: starts at i, by end
            for s, j, k in spans:
                if s == i and beta[j] is not None:
                    v = pieces[k][1] + beta[j]
                    beta[i] = v if beta[i] is None else log_add(beta[i], v)
        z = alpha[size]
        for i, j, k in spans:
            expected[k] += n * math.exp(alpha[i] + pieces[k][1] + beta[j] - z)
    return expected


def m_step(pieces, expected) -> List[Tuple[str, float]]:
    kept = []
    total = 0.0
    for (piece, _), freq in zip(pieces, expected):
        if len(piece) == 1:
            freq = max(freq, EXPECTED_FREQUENCY_THRESHOLD)  # characters stay
        elif freq < EXPECTED_FREQUENCY_THRESHOLD:
            continue
        kept.append((piece, freq))
        total += freq
    log_total = digamma(total)
    return [(p, digamma(f) - log_total) for p, f in kept]


def viterbi(word: str, ids, scores, max_len, skip: Optional[int] = None) -> List[int]:
    """Best segmentation's piece ids; ties: the piece that starts first; `skip`: a piece id not to use."""
    size = len(word)
    best: List[Optional[float]] = [None] * (size + 1)
    back = [(0, 0)] * (size + 1)
    best[0] = 0.0
    for j in range(1, size + 1):
        for i in range(max(0, j - max_len), j):
            k = ids.get(word[i:j])
            if k is None or k == skip or best[i] is None:
                continue
            v = best[i] + scores[k]
            if best[j] is None or v > best[j]:
                best[j], back[j] = v, (i, k)
    path, j = [], size
    while j > 0:
        i, k = back[j]
        path.append(k)
        j = i
    return path[::-1]


def prune(words, pieces, vocab_size, shrinking_factor, max_len) -> List[Tuple[str, float]]:
    ids = {p: k for k, (p, _) in enumerate(pieces)}
    scores = [s for _, s in pieces]
    own_best = [True] * len(pieces)
    alternatives: List[List[int]] = [[] for _ in pieces]
    for k, (piece, score) in enumerate(pieces):
        if len(piece) == 1:
            continue
        alt = viterbi(piece, ids, scores, max_len, skip=k)
        alt_score = 0.0
        for a in alt:
            alt_score += scores[a]
        if score >= alt_score:
            alternatives[k] = alt
        else:
            own_best[k] = False
    freq = [0.0] * len(pieces)
    vsum = 0.0
    for word, n in words:
        vsum += n
        for k in viterbi(word, ids, scores, max_len):
            freq[k] += n
    total = 0.0
    for f in freq:
        total += f
    log_total = math.log(total)
    keep = [False] * len(pieces)
    candidates = []
    for k, (piece, _) in enumerate(pieces):
        if len(piece) == 1:
            keep[k] = True
        elif freq[k] == 0.0 and not own_best[k]:
            continue
        elif not alternatives[k]:
            keep[k] = True
        elif freq[k] > 0.0:
            logprob_piece = math.log(freq[k]) - log_total
            # HF's total after the removal: freq x (pieces - 1) more (spm: x (alternatives - 1));
            # HF's keeps longer pieces and gave fewer tokens per byte (docs/train-unigram.md)
            log_total_alt = math.log(total + freq[k] * (len(pieces) - 1))
            logprob_alt = 0.0
            for a in alternatives[k]:
                logprob_alt += math.log(freq[a] + freq[k]) - log_total_alt
            candidates.append((freq[k] / vsum * (logprob_piece - logprob_alt), k))
    desired = vocab_size * 11 // 10
    target = max(desired, int(len(pieces) * shrinking_factor))
    size = sum(keep)
    candidates.sort(key=lambda lk: (-lk[0], lk[1]))
    for _, k in candidates:
        if size >= target:
            break
        keep[k] = True
        size += 1
    return [p for p, kept in zip(pieces, keep) if kept]


def finalize(pieces, required: Sequence[str], vocab_size: int, specials: List[str]) -> List[Tuple[str, float]]:
    scores = dict(pieces)
    min_score = min(s for _, s in pieces)
    chosen = [(c, scores.get(c, min_score)) for c in required if c not in specials]
    room = vocab_size - len(specials) - len(chosen)
    others = [(k, p, s) for k, (p, s) in enumerate(pieces) if len(p) > 1 and p not in specials]
    others.sort(key=lambda kps: (-kps[2], kps[0]))
    chosen += [(p, s) for _, p, s in others[:max(room, 0)]]
    chosen.sort(key=lambda ps: (-ps[1], [ord(c) for c in ps[0]]))
    return [(t, 0.0) for t in specials] + chosen


def special_list(special_tokens: Sequence[str], unk_token: Optional[str]) -> Tuple[List[str], Optional[int]]:
    """The special tokens in id order and the unk id: HF puts an unk token that is not special first."""
    specials = list(dict.fromkeys(special_tokens))
    if unk_token is None:
        return specials, None
    if unk_token not in specials:
        specials.insert(0, unk_token)
    return specials, specials.index(unk_token)


def train_unigram(word_counts: Dict[str, int], vocab_size: int = 8000, *, special_tokens: Sequence[str] = (),
                  shrinking_factor: float = 0.75, unk_token: Optional[str] = None, max_piece_length: int = 16,
                  n_sub_iterations: int = 2, initial_alphabet: Sequence[str] = (), seed_size: int = 1_000_000
                  ) -> Tuple[List[Tuple[str, float]], Optional[int]]:
    """`([(piece, score)] in id order, unk id)` for `word_counts` ({word: count})."""
    specials, unk_id = special_list(special_tokens, unk_token)
    words = sorted((w, n) for w, n in word_counts.items() if w and n > 0)
    required = sorted({c for w, _ in words for c in w} | {c[0] for c in initial_alphabet})
    if len(required) + len(specials) > vocab_size:
        raise ValueError(f"vocab_size={vocab_size} is too small for the {len(required)} characters and "
                         f"{len(specials)} special tokens")
    if not words:
        return [(t, 0.0) for t in specials] + [(c, 0.0) for c in required if c not in specials], unk_id
    pieces = seed_pieces(words, max_piece_length, seed_size)
    desired = vocab_size * 11 // 10
    while True:
        for _ in range(n_sub_iterations):
            pieces = m_step(pieces, expected_counts(words, pieces, max_piece_length))
        if len(pieces) <= desired:
            break
        pruned = prune(words, pieces, vocab_size, shrinking_factor, max_piece_length)
        if len(pruned) == len(pieces):
            break  # nothing left that can go (HF would loop forever)
        pieces = pruned
    return finalize(pieces, required, vocab_size, specials), unk_id

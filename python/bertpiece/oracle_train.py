"""Pure-Python reference of the likelihood WordPiece trainer.

The readable specification of ``bertpiece.train_wordpiece(...,
algorithm="likelihood")``: the Rust trainer (``src/train/likelihood.rs``)
must give the identical vocabulary, tokens and order. Written for clarity:
every step recounts everything, so it is only for small corpora.

The algorithm, given word counts (words already normalized and split as the
tokenizer that will use the vocabulary does):

1. Words longer than ``max_input_chars_per_word`` are left out (they would
   encode as the unknown token).
2. The alphabet: every character, weighted by word count, plus
   ``initial_alphabet`` (ranked above everything). With ``limit_alphabet``,
   the most frequent characters are kept, ties to the smaller code point.
   Words with a character outside the alphabet are left out.
3. The vocabulary starts as: the special tokens (each once), ``[unused0]`` ..
   ``[unusedN-1]``, the alphabet's characters in code point order, then
   ``prefix + c`` for every character that appears after the first position
   of a word (and every ``initial_alphabet`` character), in code point order.
   If that is already more than ``vocab_size``: ValueError.
4. Each word is segmented as its first character, then ``prefix + c`` for
   every later character.
5. While the vocabulary is smaller than ``vocab_size``: count every token and
   every adjacent pair of tokens over the segmented words (weighted by word
   count; a pair's overlapping occurrences, as in "a a a", all count). Among
   the pairs seen at least ``max(min_frequency, 1)`` times pick the highest
   ``score = count(ab) / (count(a) * count(b))`` (exact rational
   comparison), then the highest ``count(ab)``, then the smallest
   ``(a, b)`` (Python string order, which is code point order). The new
   token is ``a`` followed by ``b`` without its prefix; it is added to the
   vocabulary unless it is already there, and every word replaces each
   occurrence of ``a b``, left to right, by it. No pair left: stop.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

DEFAULT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def train_likelihood(word_counts, vocab_size, *, special_tokens=DEFAULT_SPECIAL_TOKENS, unused_tokens=0,
                     min_frequency=0, limit_alphabet=None, initial_alphabet=(), continuing_subword_prefix="##",
                     max_input_chars_per_word=None):
    """The vocabulary (a list of tokens in id order) for ``word_counts`` ({word: count})."""
    prefix = continuing_subword_prefix
    words = {w: n for w, n in word_counts.items()
             if n > 0 and (max_input_chars_per_word is None or len(w) <= max_input_chars_per_word)}

    char_counts = Counter()
    for word, n in words.items():
        for c in word:
            char_counts[c] += n
    forced = set(initial_alphabet)
    ranked = sorted(set(char_counts) | forced, key=lambda c: (0, c) if c in forced else (1, -char_counts[c], c))
    alphabet = set(ranked if limit_alphabet is None else ranked[:limit_alphabet])
    words = {w: n for w, n in words.items() if all(c in alphabet for c in w)}

    vocab = []

    def add(token):
        if token not in vocab:
            vocab.append(token)

    for token in special_tokens:
        add(token)
    for i in range(unused_tokens):
        add(f"[unused{i}]")
    for c in sorted(alphabet):
        add(c)
    continuing = {c for w in words for c in w[1:]} | (forced & alphabet)
    for c in sorted(continuing):
        add(prefix + c)
    if len(vocab) > vocab_size:
        raise ValueError(f"vocab_size={vocab_size} is smaller than the special tokens and the alphabet "
                         f"({len(vocab)} tokens)")

    segmented = [([w[0]] + [prefix + c for c in w[1:]], n) for w, n in words.items()]
    while len(vocab) < vocab_size:
        token_counts, pair_counts = Counter(), Counter()
        for tokens, n in segmented:
            for t in tokens:
                token_counts[t] += n
            for pair in zip(tokens, tokens[1:]):
                pair_counts[pair] += n
        candidates = [pair for pair, count in pair_counts.items() if count >= max(min_frequency, 1)]
        if not candidates:
            break

        def rank(pair):
            a, b = pair
            score = Fraction(pair_counts[pair], token_counts[a] * token_counts[b])
            return (-score, -pair_counts[pair], a, b)

        a, b = min(candidates, key=rank)
        new = a + (b[len(prefix):] if b.startswith(prefix) else b)
        add(new)
        segmented = [(_merge(tokens, a, b, new), n) for tokens, n in segmented]
    return vocab


def _merge(tokens, a, b, new):
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and tokens[i] == a and tokens[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


def count_words(texts, basic_tokenizer):
    """{word: count} of ``texts`` split by an oracle ``BasicTokenizer``."""
    counts = Counter()
    for text in texts:
        counts.update(basic_tokenizer.tokenize(text))
    return dict(counts)

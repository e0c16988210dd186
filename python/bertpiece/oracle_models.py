"""Pure-Python reference ("oracle") of HF tokenizers' WordPiece, WordLevel and
Unigram models and of the Metaspace pre-tokenizer.

The readable specification the Rust pipeline (src/models/, src/pre_tokenizers/
metaspace.rs) is tested against, next to tokenizers 0.23.3 itself.  A
tokenizer.json with no normalizer, a Metaspace pre-tokenizer (or none) and one
of these models is read by :class:`MetaspaceModel`; added tokens and
post-processors are left to the differential tests against tokenizers.
Written for clarity, not speed; it never imports the extension.
"""

from __future__ import annotations

import json
from typing import Dict, List, Optional, Sequence, Tuple

Span = Tuple[int, int]
# A piece of text under pre-tokenization: its chars and each char's span in the original.
Piece = List[Tuple[str, Span]]

UNK_PENALTY = 10.0  # HF's K_UNK_PENALTY: unknown chars score min_score - 10


def metaspace(text: str, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True,
              origin: int = 0) -> List[Piece]:
    """Spaces become ``replacement``; one is put in front unless the text starts
    with it (``always``; ``first``: only when the text starts the original,
    origin 0; ``never``), aligned with the first char; with ``split`` every
    replacement char starts a new word."""
    chars: Piece = [(replacement if c == " " else c, (origin + i, origin + i + 1)) for i, c in enumerate(text)]
    prepend = prepend_scheme == "always" or (prepend_scheme == "first" and origin == 0)
    if prepend and chars and chars[0][0] != replacement:
        chars.insert(0, (replacement, chars[0][1]))
    if not split:
        return [chars] if chars else []
    words: List[Piece] = []
    for c in chars:
        if not words or c[0] == replacement:
            words.append([])
        words[-1].append(c)
    return words


def wordpiece(word: str, vocab: Dict[str, int], unk: str, prefix: str, max_chars: int) -> List[Tuple[str, int, int]]:
    """Greedy longest-match-first; (token, start, end) in chars of ``word``.
    Too long a word, or one with an unmatched part, is one unk token."""
    whole_unk = [(unk, 0, len(word))]
    if len(word) > max_chars:
        return whole_unk
    out, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            token = (prefix if start > 0 else "") + word[start:end]
            if token in vocab:
                out.append((token, start, end))
                start = end
                break
        else:
            return whole_unk
    return out


def wordlevel(word: str, vocab: Dict[str, int], unk: str) -> List[Tuple[str, int, int]]:
    return [(word if word in vocab else unk, 0, len(word))]


class Unigram:
    """A Unigram vocabulary: pieces in id order with their scores."""

    def __init__(self, pieces: Sequence[Tuple[str, float]], unk_id: Optional[int], byte_fallback: bool) -> None:
        self.pieces, self.unk_id, self.byte_fallback = list(pieces), unk_id, byte_fallback
        self.ids = {p: i for i, (p, _) in enumerate(self.pieces)}
        self.longest = max((len(p) for p, _ in self.pieces), default=0)
        self.unk_score = min(s for _, s in self.pieces) - UNK_PENALTY

    def tokenize(self, word: str) -> List[Tuple[int, str, int, int]]:
        return unigram(word, self)


def unigram(word: str, model: Unigram) -> List[Tuple[int, str, int, int]]:
    """HF's ``encode_optimized``: the best-scoring path over char boundaries.
    At each start (left to right) every piece beginning there is offered to the
    boundary where it ends; a boundary keeps the first best offer (strictly
    greater replaces).  A char no single-char piece covers is offered as unk at
    ``min score - 10``.  Then runs of unk are fused, looked up as text, else
    split into ``<0xNN>`` pieces (byte_fallback, each over the whole run), else
    unk keeping its text.  Returns (id, token, start, end) in chars."""
    pieces, ids, unk_id, unk_score = model.pieces, model.ids, model.unk_id, model.unk_score
    # best[end] = (score of the best path to end, where its last token starts, that token's id)
    best: Dict[int, Tuple[float, int, int]] = {}

    def offer(end: int, score: float, start: int, piece_id: Optional[int]) -> None:
        if end not in best or score > best[end][0]:
            if piece_id is None:
                raise ValueError("Encountered an unknown token but `unk_id` is missing")
            best[end] = (score, start, piece_id)

    for start in range(len(word)):
        here = best[start][0] if start in best else 0.0
        for end in range(start + 1, min(len(word), start + model.longest) + 1):
            if word[start:end] in ids:
                i = ids[word[start:end]]
                offer(end, pieces[i][1] + here, start, i)
        if word[start] not in ids:
            offer(start + 1, unk_score + here, start, unk_id)
    path, end = [], len(word)
    while end > 0:
        _, start, i = best[end]
        path.append((i, start, end))
        end = start
    path.reverse()
    # fuse runs of unk
    fused: List[Tuple[Optional[int], int, int]] = []
    for i, s, e in path:
        if i == unk_id and fused and fused[-1][0] is None:
            fused[-1] = (None, fused[-1][1], e)
        else:
            fused.append((None if i == unk_id else i, s, e))
    out: List[Tuple[int, str, int, int]] = []
    for known, s, e in fused:  # known: the id of a piece, None for a run of unk
        text = word[s:e]
        if known is not None:
            out.append((known, pieces[known][0], s, e))
        elif text in ids:
            out.append((ids[text], text, s, e))
        elif model.byte_fallback and all(f"<0x{b:02X}>" in ids for b in text.encode("utf-8")):
            out.extend((ids[f"<0x{b:02X}>"], f"<0x{b:02X}>", s, e) for b in text.encode("utf-8"))
        else:
            assert unk_id is not None  # a fused run exists only where unk was taken
            out.append((unk_id, text, s, e))
    return out


class MetaspaceModel:
    """A tokenizer.json with no normalizer, a Metaspace pre-tokenizer (or none)
    and a WordPiece, WordLevel or Unigram model, read by the oracle."""

    def __init__(self, tokenizer_json: str) -> None:
        cfg = json.loads(tokenizer_json)
        if cfg.get("normalizer"):
            raise ValueError("the models oracle reads files without a normalizer")
        pre = cfg.get("pre_tokenizer")
        if pre and pre["type"] == "Sequence" and len(pre["pretokenizers"]) == 1:
            pre = pre["pretokenizers"][0]  # a Sequence of one is that pre-tokenizer
        if pre and pre["type"] != "Metaspace":
            raise ValueError("the models oracle reads Metaspace pre-tokenizers only")
        self.pre = pre
        self.model = cfg["model"]
        if self.model["type"] == "Unigram":
            pieces = [(p, float(s)) for p, s in self.model["vocab"]]
            self.unigram = Unigram(pieces, self.model.get("unk_id"), self.model.get("byte_fallback", False))

    def words(self, text: str) -> List[Piece]:
        if not self.pre:
            return [[(c, (i, i + 1)) for i, c in enumerate(text)]] if text else []
        scheme = self.pre.get("prepend_scheme", "always")
        if self.pre.get("add_prefix_space") is False:
            scheme = "never"
        return metaspace(text, self.pre["replacement"], scheme, self.pre.get("split", True))

    def tokenize(self, word: str) -> List[Tuple[int, str, int, int]]:
        m = self.model
        if m["type"] == "Unigram":
            return self.unigram.tokenize(word)
        if m["type"] == "WordPiece":
            toks = wordpiece(word, m["vocab"], m["unk_token"], m["continuing_subword_prefix"], m["max_input_chars_per_word"])
        else:
            toks = wordlevel(word, m["vocab"], m["unk_token"])
        return [(m["vocab"][t], t, s, e) for t, s, e in toks]

    def encode(self, text: str) -> Tuple[List[int], List[str], List[Span], List[int]]:
        """ids, tokens, char offsets and word ids of ``text`` (no special tokens)."""
        ids, tokens, offsets, words = [], [], [], []
        for w, piece in enumerate(self.words(text)):
            for i, tok, s, e in self.tokenize("".join(c for c, _ in piece)):
                ids.append(i)
                tokens.append(tok)
                offsets.append((piece[s][1][0], piece[e - 1][1][1]))
                words.append(w)
        return ids, tokens, offsets, words


__all__ = ["metaspace", "wordpiece", "wordlevel", "unigram", "Unigram", "MetaspaceModel", "UNK_PENALTY"]

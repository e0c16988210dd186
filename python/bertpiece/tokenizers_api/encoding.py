"""``Encoding``: one encoded input, with the attributes of ``tokenizers.Encoding``."""

from __future__ import annotations

from typing import List, Optional, Tuple


class Encoding:
    __slots__ = (
        "ids", "type_ids", "tokens", "word_ids", "offsets",
        "special_tokens_mask", "attention_mask", "sequence_ids", "overflowing",
    )

    ids: List[int]
    type_ids: List[int]
    tokens: List[str]
    word_ids: List[Optional[int]]
    offsets: List[Tuple[int, int]]
    special_tokens_mask: List[int]
    attention_mask: List[int]
    sequence_ids: List[Optional[int]]
    overflowing: List["Encoding"]

    @classmethod
    def _from_columns(cls, cols: tuple) -> "Encoding":
        e = cls.__new__(cls)
        (e.ids, e.type_ids, e.tokens, e.word_ids, e.offsets,
         e.special_tokens_mask, e.attention_mask, e.sequence_ids) = cols
        e.overflowing = []
        return e

    @classmethod
    def _from_flat(cls, flat: list) -> "Encoding":
        """From the core's (columns, parent index) list: the encoding, then its
        overflowing pieces depth first (HF nests them when both sides of a pair overflow)."""
        made: List["Encoding"] = []
        for cols, parent in flat:
            e = cls._from_columns(cols)
            if parent is not None:
                made[parent].overflowing.append(e)
            made.append(e)
        return made[0]

    @property
    def words(self) -> List[Optional[int]]:
        """Deprecated alias of ``word_ids`` (as in tokenizers)."""
        return self.word_ids

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Encoding(num_tokens={len(self.ids)}, attributes=[ids, type_ids, tokens, offsets, attention_mask, special_tokens_mask, overflowing])"

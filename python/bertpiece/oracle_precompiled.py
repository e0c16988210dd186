"""Pure-Python reference ("oracle") of HF tokenizers' ``Precompiled`` normalizer.

sentencepiece stores its normalization rules as a ``precompiled_charsmap``:
``[u32 trie size in bytes][trie units, u32 little-endian][normalized blob]``.
The trie is a darts double array over UTF-8 bytes; a key's leaf holds the byte
offset of its replacement in the blob, which runs to the next NUL.

tokenizers 0.23.3 (spm_precompiled 0.1.4) applies it per extended grapheme
cluster: a grapheme shorter than 6 UTF-8 bytes is looked up whole; if that
fails, or it is longer, each of its chars is looked up.  A lookup takes the
SHORTEST prefix of the chunk that has an entry and replaces the WHOLE chunk
with it (so in "ﬁ" + a combining accent the accent is lost).  The edits are
HF's ``(char, change)`` stream, a shorter replacement charging its removal to
the last edit so far (see ``replace``), applied by ``oracle_normalizers.transform``.

Grapheme clusters come from the ``regex`` module's ``\\X`` (a transformers
dependency); tests/test_pipeline_precompiled*.py check it gives what HF's
unicode-segmentation crate gives wherever the rule can see the difference.
Written for clarity, not speed; it never imports the extension.
"""

from __future__ import annotations

import struct
from typing import List, Optional, Tuple

from .oracle_normalizers import original, transform

Span = Tuple[int, int]


class Charsmap:
    """A parsed charsmap: the trie units and the blob of replacements."""

    def __init__(self, data: bytes):
        if len(data) < 4:
            raise ValueError("precompiled_charsmap: shorter than its 4-byte trie size")
        n_units = struct.unpack_from("<I", data)[0] // 4
        if len(data) < 4 + 4 * n_units:
            raise ValueError("precompiled_charsmap: shorter than its trie size says")
        self.units = list(struct.unpack_from(f"<{n_units}I", data, 4))
        self.blob = data[4 + 4 * n_units:]
        self.blob.decode("utf-8")  # HF refuses a blob that is not UTF-8

    # A unit packs: bits 0-7 the label (bit 31 set on value units), bit 8 "has a leaf",
    # bits 10+ the offset to the children (shifted 8 more when bit 9 is set), bits 0-30 a leaf's value.
    @staticmethod
    def _offset(unit: int) -> int:
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    def shortest_match(self, key: bytes) -> Optional[str]:
        """The replacement of the shortest prefix of ``key`` in the trie, or None."""
        pos = self._offset(self.units[0])
        for byte in key:
            if byte == 0:
                return None
            pos ^= byte
            unit = self.units[pos]
            if unit & ((1 << 31) | 0xFF) != byte:
                return None
            pos ^= self._offset(unit)
            if (unit >> 8) & 1:
                start = self.units[pos] & ((1 << 31) - 1)
                end = self.blob.find(b"\0", start)
                return self.blob[start:end if end >= 0 else len(self.blob)].decode("utf-8")
        return None


def graphemes(text: str) -> List[str]:
    import regex  # transformers' dependency; only the oracle needs it

    return regex.findall(r"\X", text)


def graphemes_are_chars(text: str) -> bool:
    return all(len(g) == 1 for g in graphemes(text))


def replace(edits: list, old: str, new: str) -> None:
    """HF's edits for ``old`` -> ``new``: extra chars are insertions (change 1); a
    shorter replacement adds its (negative) difference to the LAST edit so far —
    the previous chunk's when ``new`` is empty, none at all at the very start."""
    diff = len(new) - len(old)
    edits += [(c, 0) for c in new]
    if diff > 0:
        for i in range(len(edits) - diff, len(edits)):
            edits[i] = (edits[i][0], 1)
    elif diff < 0 and edits:
        edits[-1] = (edits[-1][0], edits[-1][1] + diff)


def normalize(table: Charsmap, text: str) -> Tuple[str, List[Span]]:
    """``text`` normalized by the charsmap: (normalized text, each char's original span)."""
    edits: list = []
    modified = False
    for g in graphemes(text):
        if len(g.encode("utf-8")) < 6:
            whole = table.shortest_match(g.encode("utf-8"))
            if whole is not None:
                modified = True
                replace(edits, g, whole)
                continue
        for c in g:
            norm = table.shortest_match(c.encode("utf-8"))
            if norm is None:
                edits.append((c, 0))
            else:
                modified = True
                replace(edits, c, norm)
    out = transform(original(text), edits) if modified else original(text)
    return "".join(c for c, _ in out), [span for _, span in out]

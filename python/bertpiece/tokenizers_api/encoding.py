"""``Encoding``: one encoded input, with the attributes of ``tokenizers.Encoding``
(``ids``, ``type_ids``, ``tokens``, ``word_ids``/``words``, ``offsets``,
``special_tokens_mask``, ``attention_mask``, ``sequence_ids``, ``overflowing``).

It is the Rust object itself (``bertpiece._core.PipelineEncoding``): as in
tokenizers, each attribute becomes a Python list when first read (kept and
returned again after), so a caller reading only ``ids`` does not pay for the tokens' strings and offsets.
Tokens whose text is the vocabulary's are kept as ids and looked up in the tokenizer that made the
encoding (which it keeps) when ``tokens`` is first read.
``encode(text)`` and ``encode_batch(texts)`` of plain texts without padding, on a file with a fast
path, keep only the ids and a reference to the text: the first read of any other attribute
encodes that text again with the same options (``offsets`` alone on the ids path with offsets;
``attention_mask`` and an uncut text's empty ``overflowing`` need nothing) —
the same values, computed when asked (a tokenizer whose encodings are mostly read whole encodes
whole at once instead). The lists of ids share one int object per id.
It pickles and copies.
"""

from __future__ import annotations

from .._core import PipelineEncoding as Encoding

__all__ = ["Encoding"]

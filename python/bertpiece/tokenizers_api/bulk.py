"""``Tokenizer.encode_batch_arrays``: the bulk path of the general pipeline —
many texts to ids (and offsets) as NumPy arrays on all cores, no Python
object per token or per row (an ``EncodedBatch``, as ``BertTokenizer.encode_batch``
gives)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from .._core import pipeline_encode_flat
from ..batch import EncodedBatch, _num_threads, core_texts, surrogate_error


def encode_batch_arrays(tokenizer: Any, texts: Any, *, add_special_tokens: bool = True,
                        max_length: Optional[int] = None, truncation: Optional[bool] = None,
                        return_offsets: bool = False, num_threads: Optional[int] = None) -> EncodedBatch:
    """See ``Tokenizer.encode_batch_arrays``."""
    return encode_counting_cuts(tokenizer, texts, add_special_tokens=add_special_tokens, max_length=max_length,
                                truncation=truncation, return_offsets=return_offsets, num_threads=num_threads)[0]


def encode_counting_cuts(tokenizer: Any, texts: Any, *, add_special_tokens: bool = True,
                         max_length: Optional[int] = None, truncation: Optional[bool] = None,
                         return_offsets: bool = False, num_threads: Optional[int] = None) -> Tuple[EncodedBatch, int]:
    """``encode_batch_arrays`` and how many rows truncation cut (for `bertpiece encode`'s summary)."""
    if truncation not in (None, True, False):
        raise TypeError(f"truncation must be None, True or False, got {truncation!r}")
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(max_length, int)):
        raise TypeError(f"max_length must be an int, not {type(max_length).__name__}")
    if max_length is not None and max_length < 0:
        raise ValueError(f"max_length must be >= 0, got {max_length}")
    if max_length is not None and truncation is not True:
        raise ValueError(f"max_length={max_length} needs truncation=True (truncation={truncation!r} "
                         "would not cut the rows)")
    if truncation is True and max_length is None:
        own = tokenizer.truncation
        if own is None:
            raise ValueError("truncation=True needs max_length (the tokenizer has no truncation of its own: "
                             "see Tokenizer.enable_truncation)")
    # NumPy on first use (`import bertpiece` alone does not load it), and before the encode: imported
    # after it, its libraries pushed the word caches the encode had just filled out of the CPU's caches,
    # and the next call ran 15-20 % slower (docs/benchmarks/bpe-bulk-44.md)
    import numpy as np

    texts, arrow = core_texts(texts)
    try:
        ids, splits, offsets, cut = pipeline_encode_flat(
            tokenizer._core, tokenizer._settings, texts, add_special_tokens=bool(add_special_tokens), max_length=max_length,
            own_truncation=truncation is not False, return_offsets=bool(return_offsets),
            num_threads=_num_threads(num_threads), arrow=arrow)
    except UnicodeEncodeError:
        error = surrogate_error(texts)
        if error is None:
            raise
        raise error from None
    # The core's arrays become NumPy arrays without a copy.
    batch = EncodedBatch(np.asarray(ids), np.asarray(splits), np.asarray(offsets) if offsets is not None else None)
    return batch, cut

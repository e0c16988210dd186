"""``LazyEncodings``: the ``BatchEncoding`` of bertpiece.AutoTokenizer's fast calls, whose
``encodings`` (tokens, word ids, char spans) are computed on first use, with the core and
settings of the call, as transformers' own path computes them (``encode_batch``)."""

from __future__ import annotations

from typing import Any, Optional

from transformers.tokenization_utils_base import BatchEncoding

_new = object.__new__


class LazyEncodings(BatchEncoding):
    """A BatchEncoding whose ``encodings`` are computed on first use."""

    def __init__(self, data: dict, source: tuple, tensor_type: Any = None, prepend_batch_axis: bool = False) -> None:
        self._source = source
        super().__init__(data, None, tensor_type=tensor_type, prepend_batch_axis=prepend_batch_axis, n_sequences=1)

    @property
    def _encodings(self) -> Optional[list]:
        source = self.__dict__.get("_source")
        if source is not None:
            core, settings, texts, add_special_tokens = source
            items = [([t], None) for t in texts]
            self.__dict__["_encodings_value"] = core.encode_batch(items, False, add_special_tokens, settings)
            self.__dict__["_source"] = None
        return self.__dict__.get("_encodings_value")

    @_encodings.setter
    def _encodings(self, value: Optional[list]) -> None:
        if value is not None or "_encodings_value" not in self.__dict__:
            self.__dict__["_encodings_value"] = value


def lazy_batch(data: dict, source: tuple, tensors: Optional[str]) -> LazyEncodings:
    """``LazyEncodings(data, source, tensors)`` for `data` already in the form `tensors` asks
    (lists, NumPy int64 arrays, torch int64 tensors), without ``__init__``'s conversion pass:
    the attributes ``BatchEncoding.__init__`` sets, with one sequence per row."""
    out = _new(LazyEncodings)
    d = out.__dict__
    d["data"] = data
    d["_source"] = source
    d["_n_sequences"] = 1
    return out

"""transformers' `BertTokenizer` object, backed by the Rust core: everything
transformers-facing lives in this package (see core.py for the map).

`BertTokenizer` is resolved on first use: with transformers installed it is
the subclass of `transformers.PreTrainedTokenizerBase` in
`transformers_base.py`; without it (or with BERTPIECE_TRANSFORMERS=0) it is
`PlainBertTokenizer`, the same tokenizer with no transformers base class.
`import bertpiece` never imports transformers.
"""

from __future__ import annotations

import os

from .added_tokens import AddedToken
from .core import BertTokenizer as PlainBertTokenizer
from .encoding import BatchEncoding

__all__ = ["AddedToken", "BatchEncoding", "BertTokenizer", "PlainBertTokenizer"]


def _resolve():
    if os.environ.get("BERTPIECE_TRANSFORMERS", "").strip().lower() in ("0", "false", "no", "off"):
        return PlainBertTokenizer
    try:
        import transformers.tokenization_utils_base  # noqa: F401
    except ImportError:
        return PlainBertTokenizer
    from .transformers_base import BertTokenizer
    return BertTokenizer


def __getattr__(name):
    if name == "BertTokenizer":
        cls = globals()["BertTokenizer"] = _resolve()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

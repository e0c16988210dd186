"""``bertpiece.AutoTokenizer``: transformers' ``AutoTokenizer`` over bertpiece's pipeline.

``from_pretrained(folder)`` lets transformers build the tokenizer object it
would build for the folder (its class, its config handling, its converter for a
sentencepiece-only folder), then replaces that object's HF tokenizers backend
(``_tokenizer``) with a ``bertpiece.Tokenizer`` of the same tokenizer.json. So
every method is transformers' own, running on bertpiece's encoder; the class is
the folder's class with ``fast_call.FastCall`` in front, which serves the common
calls (one text, batches with padding/truncation) without transformers'
per-row Python. docs/auto-tokenizer.md.
"""

from __future__ import annotations

import os
from typing import Any, Dict

from .backend import swap_backend

__all__ = ["AutoTokenizer", "adopt", "tokenizer_class"]

_CLASSES: Dict[type, type] = {}


def tokenizer_class(cls: type) -> type:
    """transformers' tokenizer class `cls` (a TokenizersBackend) over bertpiece: FastCall first, whose
    constructor replaces the HF backend. Same name; found as an attribute of this module, so pickles resolve."""
    found = _CLASSES.get(cls)
    if found is None:
        from .fast_call import FastCall

        namespace = {"__module__": __name__, "_bertpiece_base": cls}
        if "__init__" in cls.__dict__:
            # transformers branches on a class defining its own __init__ (convert_to_native_format:
            # such a class rebuilds its backend from the file's vocabulary with its own arguments,
            # e.g. RobertaTokenizer's add_prefix_space); the class over bertpiece must branch alike.
            namespace["__init__"] = FastCall.__init__
        found = type(cls.__name__, (FastCall, cls), namespace)
        _CLASSES[cls] = found
    return found


def __getattr__(name: str) -> Any:
    # Unpickling names the class by its transformers name in this module.
    import transformers

    cls = getattr(transformers, name, None)
    if isinstance(cls, type):
        return tokenizer_class(cls)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def adopt(tok: Any) -> Any:
    """Puts a bertpiece.Tokenizer behind `tok`, a transformers TokenizersBackend, in place, and
    makes its class the folder's class over bertpiece (whose own constructor does the same)."""
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    if not isinstance(tok, TokenizersBackend):
        raise ValueError(
            f"transformers loads this folder as {type(tok).__name__}, which has no tokenizer.json pipeline "
            "(not a TokenizersBackend); bertpiece.AutoTokenizer serves only those")
    swap_backend(tok)
    if type(tok) not in _CLASSES.values():
        tok.__class__ = tokenizer_class(type(tok))
    return tok


class AutoTokenizer:
    """``transformers.AutoTokenizer``'s ``from_pretrained`` with bertpiece's encoder; never downloads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise EnvironmentError("AutoTokenizer is designed to be instantiated using "
                               "`AutoTokenizer.from_pretrained(pretrained_model_name_or_path)`.")

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: Any, *inputs: Any, **kwargs: Any) -> Any:
        """The tokenizer transformers' AutoTokenizer loads from a local folder or the local
        Hugging Face cache (``local_files_only``), with bertpiece's encoder behind it."""
        try:
            import transformers
        except ImportError:
            raise ImportError("bertpiece.AutoTokenizer needs transformers: pip install transformers") from None
        if not isinstance(pretrained_model_name_or_path, (str, os.PathLike)):
            raise TypeError("pretrained_model_name_or_path must be a str or os.PathLike, got "
                            f"{type(pretrained_model_name_or_path).__name__}")
        if kwargs.get("use_fast") is False:
            raise ValueError("use_fast=False asks for transformers' Python tokenizer; bertpiece.AutoTokenizer "
                             "replaces the tokenizers backend (use transformers.AutoTokenizer for that one)")
        given = "local_files_only" in kwargs
        kwargs["local_files_only"] = True
        tok = transformers.AutoTokenizer.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
        if not given and "local_files_only" in tok.init_kwargs:
            tok.init_kwargs["local_files_only"] = False  # what transformers keeps (and saves) by default
        return adopt(tok)

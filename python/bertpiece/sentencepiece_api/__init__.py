"""A drop-in for `sentencepiece.SentencePieceProcessor`, exact against the
sentencepiece library (ids, pieces, decoded text) for Unigram and BPE
`.model` files. See docs/sentencepiece.md."""

from .errors import ModelFileNotFoundError, ModelLoadError, SurrogateTextError
from .processor import SentencePieceProcessor

__all__ = ["SentencePieceProcessor", "ModelLoadError", "ModelFileNotFoundError", "SurrogateTextError"]

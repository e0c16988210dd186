"""bertpiece: exact BERT WordPiece tokenization with a Rust core.

`import bertpiece as tokenization` is a drop-in for Google BERT's
`tokenization.py`. `bertpiece.oracle` is the pure-Python reference the core is
tested against.
"""

from ._core import UNICODE_VERSION, __version__
from .batch import EncodedBatch
from .pretrained import DEFAULT_MODEL, PRETRAINED, vocab_path
from .tokenizers_api import AddedToken, Encoding, Tokenizer
from .sentencepiece_api import SentencePieceProcessor
from .tokenizers_api.components import Regex
from . import decoders, models, normalizers, pre_tokenizers, processors
from .training import WordPieceVocab, train_wordpiece, train_wordpiece_from_files
from .spm_trainer import SentencePieceTrainer
from .tokenization import (
    REFERENCES,
    BasicTokenizer,
    FullTokenizer,
    WordpieceTokenizer,
    convert_by_vocab,
    convert_ids_to_tokens,
    convert_to_unicode,
    convert_tokens_to_ids,
    load_vocab,
    printable_text,
    validate_case_matches_checkpoint,
    whitespace_tokenize,
    _is_control,
    _is_punctuation,
    _is_whitespace,
)



def __getattr__(name):
    # BertTokenizer imports transformers (when installed) on first use only.
    if name in ("BertTokenizer", "BatchEncoding", "PlainBertTokenizer"):
        # bert_tokenizer imports NumPy: `import bertpiece` alone (FullTokenizer, Tokenizer, training) does not.
        from . import bert_tokenizer
        return getattr(bert_tokenizer, name)
    if name == "AutoTokenizer":  # imports transformers when first used
        from .auto_tokenizer import AutoTokenizer
        return AutoTokenizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "UNICODE_VERSION", "__version__", "DEFAULT_MODEL", "PRETRAINED", "REFERENCES", "vocab_path",
    "BasicTokenizer", "FullTokenizer", "BertTokenizer", "AutoTokenizer", "PlainBertTokenizer", "BatchEncoding", "EncodedBatch", "WordpieceTokenizer",
    "convert_by_vocab", "convert_ids_to_tokens", "convert_to_unicode", "convert_tokens_to_ids",
    "load_vocab", "printable_text", "validate_case_matches_checkpoint", "whitespace_tokenize",
    "train_wordpiece", "train_wordpiece_from_files", "WordPieceVocab", "SentencePieceTrainer", "Tokenizer", "Encoding", "AddedToken",
    "Regex", "SentencePieceProcessor", "normalizers", "pre_tokenizers", "models", "processors", "decoders",
]

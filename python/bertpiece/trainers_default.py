"""The trainer of each model type with every option at HF's default:
``Model.get_trainer()`` and ``Tokenizer.train(files)`` without a trainer."""

from __future__ import annotations

from typing import Any

from .trainers import BpeTrainer, UnigramTrainer
from .trainers_words import WordLevelTrainer, WordPieceTrainer

__all__ = ["default_trainer"]

_CLASSES = {"BPE": BpeTrainer, "WordPiece": WordPieceTrainer, "WordLevel": WordLevelTrainer, "Unigram": UnigramTrainer}


def default_trainer(model_type: str) -> Any:
    if model_type not in _CLASSES:
        raise TypeError(f"no trainer for a {model_type} model")
    return _CLASSES[model_type]()

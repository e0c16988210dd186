"""``Tokenizer.train(files, trainer)`` and ``Tokenizer.train_from_iterator(iterator,
trainer, length=None)``, as tokenizers 0.23.3 has them.

As HF: every text goes through the tokenizer's own normalizer and pre-tokenizer
(not its added tokens), the pre-tokens are counted, the trainer of the
tokenizer's model type trains on the counts, the trained vocabulary replaces
the model's (the model's other options kept as HF keeps them), and the
trainer's special tokens are added as special tokens. The tokenizer changes
only when training succeeded (an error or Ctrl-C leaves it as it was).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from .. import _core
from .._train_args import _BATCH, _file_batches
from .components import stage_tokenizer_json
from .serialization import core_json_text
from .training_progress import TrainProgress

__all__ = ["train_tokenizer", "train_tokenizer_from_iterator", "count_pre_tokens"]


def _trainer_kind(trainer: Any) -> str:
    from ..trainers import BpeTrainer, ByteLevelBpeTrainer, UnigramTrainer
    from ..trainers_words import WordLevelTrainer, WordPieceTrainer

    if isinstance(trainer, ByteLevelBpeTrainer):
        # Its own counting carries GPT-2's pre-tokenizer; a Tokenizer brings its own.
        raise TypeError("Tokenizer.train takes a BpeTrainer (for byte-level BPE: BpeTrainer(initial_alphabet="
                        "pre_tokenizers.ByteLevel.alphabet()) with a ByteLevel pre-tokenizer on the tokenizer, as in "
                        "HF), not a ByteLevelBpeTrainer")
    kinds = ((BpeTrainer, "BPE"), (WordPieceTrainer, "WordPiece"), (WordLevelTrainer, "WordLevel"),
             (UnigramTrainer, "Unigram"))
    for cls, kind in kinds:
        if isinstance(trainer, cls):
            return kind
    raise TypeError(f"trainer must be one of bertpiece.trainers.BpeTrainer, WordPieceTrainer, WordLevelTrainer, "
                    f"UnigramTrainer, not {type(trainer).__name__}")


def _iterator_batches(iterator: Any) -> Iterator[List[str]]:
    """HF's iterator: str items, or lists/tuples of str (batches), in lists of `_BATCH`."""
    if isinstance(iterator, (str, bytes, os.PathLike)):
        raise TypeError("iterator must be an iterable of str or of lists of str (for files use Tokenizer.train)")
    batch: List[str] = []
    for k, item in enumerate(iterator):
        items = item if isinstance(item, (list, tuple)) else [item]
        for text in items:
            if not isinstance(text, str):
                raise TypeError(f"iterator item {k} must be a str or a list of str, not {type(text).__name__}")
            batch.append(text)
        if len(batch) >= _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _count_words(doc: Dict[str, Any], batches: Iterable[List[str]], shown: TrainProgress) -> Tuple[Any, int, int]:
    """The pre-tokens of the tokenizer's normalizer and pre-tokenizer, counted in
    Rust (GIL released, all cores; empty ones left out, as HF): a `_core.WordCounts`,
    the pre-tokens seen and the unique ones. The core runs every component a
    tokenizer can hold (the tokenizer's own core was compiled from the same
    JSON), so there is no other counting path."""
    counter = _core.PreTokenCounter(stage_tokenizer_json(normalizer=doc.get("normalizer"),
                                                         pre_tokenizer=doc.get("pre_tokenizer")))
    texts = 0
    for batch in batches:
        try:
            counter.feed(batch)
        except UnicodeEncodeError as e:
            raise ValueError(f"a training text holds a lone surrogate {e.object[e.start]!r} "
                             f"(not valid Unicode)") from None
        texts += len(batch)
        shown.counted(texts)
    words, unique = counter.stats()
    return counter.word_counts(), words, unique


def count_pre_tokens(doc: Dict[str, Any], batches: Iterable[List[str]]) -> Counter:
    """`_count_words` as a Counter (for SentencePieceTrainer, which edits the counts before training)."""
    counts, _, _ = _count_words(doc, batches, TrainProgress(False))
    return Counter(dict(counts.items()))


def _bpe_model(model: Dict[str, Any], counts: Any, trainer: Any, progress: Any = None) -> Dict[str, Any]:
    tokens, merges, _ = counts.train_bpe(_core.BpeOptions(trainer.vocab_size, **trainer._options()), progress)
    vocab = {t: i for i, t in enumerate(tokens)}
    if model["type"] == "WordPiece":
        # HF: the vocabulary of the BPE trainer, the trainer's prefix (WordPiece's "##" without one).
        return {**model, "vocab": vocab, "continuing_subword_prefix": trainer.continuing_subword_prefix or "##"}
    return {**model, "vocab": vocab, "merges": [list(m) for m in merges],
            "continuing_subword_prefix": trainer.continuing_subword_prefix,
            "end_of_word_suffix": trainer.end_of_word_suffix}


def _unigram_model(counts: Any, trainer: Any, progress: Any = None) -> Dict[str, Any]:
    pieces, unk_id, _ = counts.train_unigram(_core.UnigramOptions(trainer.vocab_size, **trainer._options()),
                                             progress=progress)
    # HF builds a new Unigram (byte_fallback off whatever the old model had: measured).
    return {"type": "Unigram", "unk_id": unk_id, "vocab": [[p, s] for p, s in pieces], "byte_fallback": False}


def _train(tok: Any, batches: Iterable[List[str]], trainer: Any) -> None:
    from ..trainers_words import word_level_vocab

    if trainer is None:
        from ..trainers_default import default_trainer

        trainer = default_trainer(json.loads(tok.to_str())["model"].get("type"))
    kind = _trainer_kind(trainer)
    doc = json.loads(tok.to_str())
    model = doc["model"]
    if model.get("type") != kind:
        raise TypeError(f"{type(trainer).__name__} can only train a {kind} model, and this tokenizer's model is "
                        f"{model.get('type')}")
    held = doc.get("added_tokens") or []
    shown = TrainProgress(trainer.show_progress)
    try:
        counts, words, unique = _count_words(doc, batches, shown)
        if kind in ("BPE", "WordPiece"):
            doc["model"] = _bpe_model(model, counts, trainer, shown.callback(kind))
        elif kind == "Unigram":
            doc["model"] = _unigram_model(counts, trainer, shown.callback(kind))
        else:
            doc["model"] = {**model, "vocab": word_level_vocab(dict(counts.items()), trainer)}
        _replace_model(tok, doc, held, trainer)
    except BaseException:
        shown.fail()
        raise
    shown.finish(kind, words, unique, tok.get_vocab_size())


_HELD = ("tokenizers 0.23.3 keeps the id an added token had before training, so a token training gives another "
         "id leaves a tokenizer that encodes differently from its own saved tokenizer.json, which cannot be "
         "reproduced; train a tokenizer without added tokens, then add them")


def _replace_model(tok: Any, doc: Dict[str, Any], held: List[Dict[str, Any]], trainer: Any) -> None:
    """The trained `doc` becomes `tok`'s, with its added tokens as HF leaves them
    (measured, tests/test_trainers_api_retrain.py): HF keeps every held token at
    its id and adds the trainer's special tokens (a held one keeps its id, takes
    the trainer's options). That is consistent, and so reproduced, when each
    held token has that same id in the new tokenizer: a trainer's special token
    its id in the trained model, any other the id its content has in the model
    or, if none, the one loading the file gives it. Otherwise a
    NotImplementedError naming the token, and `tok` is left as it was."""
    specials = set(trainer.special_tokens)
    kept = [t for t in held if t["content"] not in specials]
    doc["added_tokens"] = kept
    saved = tok._core, tok._json, tok._settings
    tok._replace_json(core_json_text(doc))
    tok.add_special_tokens(list(trainer._special_added))
    for token in held:
        got = tok.token_to_id(token["content"])
        if got != token["id"]:
            tok._core, tok._json, tok._settings = saved
            kind = "special token" if token.get("special") else "added token"
            raise NotImplementedError(f"Tokenizer.train: the {kind} {token['content']!r} held at id {token['id']} "
                                      f"would have id {got} after training: {_HELD}")


def train_tokenizer(tok: Any, files: Any, trainer: Any = None) -> None:
    """``tok.train(files, trainer)``: files as HF reads them (a .txt file gives
    one text per line with its line ending); a missing file is a FileNotFoundError naming it."""
    from ..training import _file_paths

    if isinstance(files, (str, bytes, os.PathLike)):
        raise TypeError("files must be a list of paths (as tokenizers.Tokenizer.train), not a single "
                        f"{type(files).__name__}")
    _train(tok, _file_batches(_file_paths(files)), trainer)


def train_tokenizer_from_iterator(tok: Any, iterator: Any, trainer: Any = None, length: Optional[int] = None) -> None:
    """``tok.train_from_iterator(iterator, trainer, length=None)``: str items or
    batches (lists of str); `length` (the item count, for HF's progress bar) is checked and unused."""
    if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 0):
        raise TypeError(f"length must be a non-negative int or None, got {length!r}")
    _train(tok, _iterator_batches(iterator), trainer)

"""The vocabularies bundled with the package, reachable by name (no download)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class PretrainedVocab:
    name: str
    # Google's setting (validate_case_matches_checkpoint): FullTokenizer.from_pretrained.
    do_lower_case: bool
    # The Hugging Face hub's tokenizer config: BertTokenizer.from_pretrained
    # (bert-base-chinese is lowercased by Google's scripts but not by HF's config).
    hf_do_lower_case: bool


PRETRAINED = {
    v.name: v
    for v in (
        PretrainedVocab("bert-base-uncased", True, True),
        PretrainedVocab("bert-base-cased", False, False),
        PretrainedVocab("bert-base-multilingual-cased", False, False),
        PretrainedVocab("bert-base-chinese", True, False),
    )
}

DEFAULT_MODEL = "bert-base-uncased"

# The Hugging Face hub's current ids of the bundled checkpoints.
HUB_IDS = {f"google-bert/{name}": name for name in PRETRAINED}

# model_max_length in the hub's tokenizer_config.json: 512 for all four checkpoints.
HUB_MODEL_MAX_LENGTH = 512


def bundled_name(name) -> str | None:
    """The bundled vocabulary `name` refers to (its own name or its hub id), else None."""
    if not isinstance(name, str):
        return None
    name = HUB_IDS.get(name, name)
    return name if name in PRETRAINED else None


def pretrained(name: str) -> PretrainedVocab:
    """The bundled vocabulary called `name`; ValueError listing the names otherwise."""
    try:
        return PRETRAINED[HUB_IDS.get(name, name)]
    except (KeyError, TypeError):
        raise ValueError(f"unknown pretrained vocabulary {name!r}: bundled ones are {', '.join(PRETRAINED)}") from None


def vocab_path(name: str) -> str:
    """Filesystem path of the bundled `vocab.txt` for `name`."""
    entry = pretrained(name)
    return os.fspath(resources.files(__package__).joinpath("vocab", f"{entry.name}.txt"))

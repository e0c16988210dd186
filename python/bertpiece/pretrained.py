"""The vocabularies bundled with the package, reachable by name (no download)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class PretrainedVocab:
    name: str
    do_lower_case: bool  # how the checkpoint was trained (Google's README / validate_case_matches_checkpoint)


PRETRAINED = {
    v.name: v
    for v in (
        PretrainedVocab("bert-base-uncased", True),
        PretrainedVocab("bert-base-cased", False),
        PretrainedVocab("bert-base-multilingual-cased", False),
        PretrainedVocab("bert-base-chinese", True),
    )
}

DEFAULT_MODEL = "bert-base-uncased"


def pretrained(name: str) -> PretrainedVocab:
    """The bundled vocabulary called `name`; ValueError listing the names otherwise."""
    try:
        return PRETRAINED[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown pretrained vocabulary {name!r}: bundled ones are {', '.join(PRETRAINED)}") from None


def vocab_path(name: str) -> str:
    """Filesystem path of the bundled `vocab.txt` for `name`."""
    entry = pretrained(name)
    return os.fspath(resources.files(__package__).joinpath("vocab", f"{entry.name}.txt"))

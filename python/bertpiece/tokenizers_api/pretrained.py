"""``Tokenizer.from_pretrained`` without a network: where the tokenizer.json is.

tokenizers 0.23.3 asks ``huggingface_hub.hf_hub_download`` for the repo's
tokenizer.json. bertpiece never downloads: it takes a hub id from the local
Hugging Face cache (the layout huggingface_hub writes), and, beyond HF, a
local folder holding a tokenizer.json. A path to the file itself is refused,
as HF refuses it (it is not a repo id).
"""

from __future__ import annotations

import os
import re

__all__ = ["pretrained_path"]

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# huggingface_hub's repo id rule: one or two names of [\w.-], not starting or
# ending with "-" or ".", no "--" or "..", at most 96 chars.
_NAME = re.compile(r"^(?!-|\.)[\w.-]+(?<!-|\.)$", re.ASCII)


def hub_cache() -> str:
    """huggingface_hub's cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else
    $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub."""
    cache = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if cache:
        return os.path.expanduser(cache)
    home = os.environ.get("HF_HOME")
    if not home:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        home = os.path.join(xdg, "huggingface")
    return os.path.join(os.path.expanduser(home), "hub")


def _check_repo_id(identifier: str) -> None:
    parts = identifier.split("/")
    ok = (
        len(parts) <= 2
        and len(identifier) <= 96
        and all(_NAME.match(p) for p in parts)
        and "--" not in identifier
        and ".." not in identifier
    )
    if not ok:
        raise ValueError(
            f"{identifier!r} is neither a folder holding a tokenizer.json nor a hub repo id "
            "('name' or 'namespace/name' of letters, digits, '-', '_', '.')"
        )


def pretrained_path(identifier: str, revision: str) -> str:
    """The tokenizer.json to load for `identifier` at `revision`."""
    if not isinstance(identifier, str):
        raise TypeError(f"identifier must be a str, got {type(identifier).__name__}")
    if not isinstance(revision, str):
        raise TypeError(f"revision must be a str, got {type(revision).__name__}")
    if not revision or revision.startswith("/") or ".." in revision.split("/"):
        raise ValueError(f"revision {revision!r} is not a branch, tag or commit name")
    if os.path.isdir(identifier):
        path = os.path.join(identifier, "tokenizer.json")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"the folder {identifier!r} holds no tokenizer.json")
        return path
    if os.path.isfile(identifier):
        raise FileNotFoundError(
            f"{identifier!r} is a file; from_pretrained takes a hub repo id or a folder holding "
            "tokenizer.json (use Tokenizer.from_file for a file)"
        )
    _check_repo_id(identifier)
    repo = os.path.join(hub_cache(), "models--" + identifier.replace("/", "--"))
    commit = revision
    if not _COMMIT.match(revision):
        try:
            with open(os.path.join(repo, "refs", revision), encoding="utf-8") as f:
                commit = f.read()  # as huggingface_hub: not stripped
        except OSError:
            commit = None
    path = os.path.join(repo, "snapshots", commit, "tokenizer.json") if commit else None
    if path is None or not os.path.isfile(path):
        where = path or os.path.join(repo, "refs", revision)
        raise FileNotFoundError(
            f"bertpiece does not download: {identifier!r} (revision {revision!r}) is not in the local "
            f"Hugging Face cache (looked for {where}); download it with huggingface_hub, or pass a "
            "folder holding tokenizer.json"
        )
    return path

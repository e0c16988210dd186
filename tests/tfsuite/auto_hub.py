"""A local Hugging Face hub cache holding the four model folders of
tests/auto_shapes.py (RoBERTa, XLM-R, T5, MPNet shapes) as hub ids
`bertpiece-test/<shape>`, for transformers' test suite run against
bertpiece.AutoTokenizer (auto_suite.py). Built offline at test time."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
NAMESPACE = "bertpiece-test"
# config.json's model_type per shape (transformers reads it for a hub id, as for bert_suite's)
MODEL_TYPES = {"roberta": "roberta", "xlmr": "xlm-roberta", "t5": "t5", "mpnet": "mpnet"}


def hub_id(shape: str) -> str:
    return f"{NAMESPACE}/{shape}"


def build(cache_dir: str) -> dict[str, str]:
    """Write every shape's folder into the cache; return the environment that makes transformers use it."""
    if TESTS not in sys.path:
        sys.path.insert(0, TESTS)
    import auto_shapes

    for shape in auto_shapes.SHAPES:
        source = auto_shapes.folder(shape)
        names = sorted(os.listdir(source))
        digest = hashlib.sha1()
        for name in names:
            with open(os.path.join(source, name), "rb") as f:
                digest.update(name.encode() + f.read())
        rev = digest.hexdigest()
        repo = os.path.join(cache_dir, "models--" + hub_id(shape).replace("/", "--"))
        shutil.rmtree(repo, ignore_errors=True)
        snapshot = os.path.join(repo, "snapshots", rev)
        shutil.copytree(source, snapshot)
        with open(os.path.join(snapshot, "config.json"), "w", encoding="utf-8") as f:
            json.dump({"model_type": MODEL_TYPES[shape]}, f)
        os.makedirs(os.path.join(repo, "refs"))
        with open(os.path.join(repo, "refs", "main"), "w", encoding="utf-8") as f:
            f.write(rev)
    return {"HF_HUB_CACHE": cache_dir, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1"}

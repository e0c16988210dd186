"""Ray Data helper: tokenize a text column of a `ray.data.Dataset` on a cluster.

    import ray, bertpiece.ray_data
    ds = ray.data.read_parquet("s3://bucket/corpus/")
    ds = bertpiece.ray_data.tokenize_dataset(ds, column="text", model="bert-base-uncased", concurrency=8)
    # concurrency: the number of tokenizer actors (Ray's ActorPoolStrategy(size=8))
    ds.write_parquet("s3://bucket/tokenized/")

Any tokenizer.json (BPE, Unigram, WordPiece, WordLevel: `bertpiece.Tokenizer`)
works the same way: `tokenize_dataset(ds, tokenizer_file="tokenizer.json")`
(or a folder holding one, or `tokenizer=bertpiece.Tokenizer.from_file(...)`).

`BertpieceMapper` is the callable class behind it, for use with
`Dataset.map_batches(..., batch_format="pyarrow")` directly: each Ray actor
builds its tokenizer once (from a bundled model name, a vocab.txt path, a
tokenizer.json through `tokenizer_file=`, or a pickled tokenizer, which
pickles at about the vocabulary's size) and turns
Arrow batches into Arrow batches with an `input_ids` `list<int32>` column
(see `bertpiece.arrow.encode_arrow`). Needs `ray[data]` and `pyarrow`.
"""

from __future__ import annotations

import os
from typing import Any, Optional

try:
    import pyarrow as pa
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError('bertpiece.ray_data needs pyarrow and Ray Data: pip install pyarrow "ray[data]"') from None

from .arrow import encode_arrow
from .bert_tokenizer import PlainBertTokenizer as BertTokenizer
from .pretrained import DEFAULT_MODEL
from .tokenizers_api import Tokenizer

__all__ = ["BertpieceMapper", "tokenize_dataset"]

RAY_INSTALL = 'pip install pyarrow "ray[data]"'  # from PyPI; bertpiece itself is not there


class BertpieceMapper:
    """`map_batches` callable: an Arrow batch in, the batch plus `input_ids`
    (and optionally `attention_mask`, `token_type_ids`) out.

    The tokenizer is `tokenizer` when given (a `BertTokenizer` or a
    `bertpiece.Tokenizer`; Ray pickles it into each actor), else
    `bertpiece.Tokenizer.from_file` of `tokenizer_file` (a tokenizer.json, or a
    folder holding one: any model; rows equal its `encode_batch` ids, the
    file's own truncation applying unless `truncation=False` or `max_length`
    says otherwise), else `BertTokenizer.from_pretrained(model,
    **tokenizer_kwargs)` where `model` is a bundled name or a local path that
    exists on every worker. `num_threads` is the tokenizer's thread count per
    actor: give it the `num_cpus` the actor reserves (None: all cores of the
    node, or BERTPIECE_NUM_THREADS). `drop_text=True` drops the text column
    from the output.
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, column: str = "text", tokenizer: Optional[Any] = None,
                 tokenizer_kwargs: Optional[dict[str, Any]] = None, add_special_tokens: bool = True,
                 max_length: Optional[int] = None, truncation: Optional[bool] = None,
                 return_attention_mask: bool = False, return_token_type_ids: bool = False,
                 num_threads: Optional[int] = None, drop_text: bool = False, tokenizer_file: Optional[str] = None):
        if tokenizer is not None and tokenizer_kwargs:
            raise ValueError("BertpieceMapper: pass either tokenizer= or tokenizer_kwargs=, not both")
        if tokenizer_file is not None and (tokenizer is not None or tokenizer_kwargs):
            raise ValueError("BertpieceMapper: tokenizer_file= cannot be combined with tokenizer= or tokenizer_kwargs=")
        if tokenizer is None and tokenizer_file is not None:
            tokenizer = Tokenizer.from_file(_tokenizer_json(tokenizer_file))
        self.tokenizer = tokenizer if tokenizer is not None else BertTokenizer.from_pretrained(
            model, **(tokenizer_kwargs or {}))
        self.column = column
        self.drop_text = drop_text
        self.options: dict[str, Any] = dict(
            add_special_tokens=add_special_tokens, max_length=max_length, truncation=truncation,
            return_attention_mask=return_attention_mask, return_token_type_ids=return_token_type_ids,
            num_threads=num_threads)

    def __call__(self, batch: pa.Table) -> pa.Table:
        if not isinstance(batch, pa.Table):
            raise TypeError(f"BertpieceMapper takes pyarrow.Table batches (map_batches(..., batch_format='pyarrow')), "
                            f"got {type(batch).__name__}")
        out = encode_arrow(self.tokenizer, batch, column=self.column, **self.options)
        return out.drop_columns([self.column]) if self.drop_text else out


def tokenize_dataset(ds, *, column: str = "text", model: str = DEFAULT_MODEL,
                     tokenizer: Optional[Any] = None, tokenizer_kwargs: Optional[dict[str, Any]] = None,
                     concurrency: int = 1, num_cpus: int = 1, batch_size: Optional[int] = 4096,
                     drop_text: bool = False, tokenizer_file: Optional[str] = None, **encode_options):
    """`ds.map_batches` with a `BertpieceMapper` on `concurrency` Ray actors of
    `num_cpus` CPUs each (the tokenizer uses that many threads). Extra keyword
    arguments (`max_length`, `truncation`, `return_attention_mask`, ...) go to
    `bertpiece.arrow.encode_arrow`. Returns the new (lazy) `ray.data.Dataset`."""
    pool = _actor_pool(concurrency)  # first: a missing Ray is a clear ImportError
    encode_options.setdefault("num_threads", num_cpus)
    return ds.map_batches(
        BertpieceMapper, batch_format="pyarrow", batch_size=batch_size, num_cpus=num_cpus, **pool,
        fn_constructor_kwargs=dict(model=model, column=column, tokenizer=tokenizer, tokenizer_kwargs=tokenizer_kwargs,
                                   drop_text=drop_text, tokenizer_file=tokenizer_file, **encode_options))


def _tokenizer_json(path: str) -> str:
    """`path`, or `path/tokenizer.json` for a folder."""
    if os.path.isdir(path):
        inside = os.path.join(path, "tokenizer.json")
        if not os.path.isfile(inside):
            raise FileNotFoundError(f"tokenizer_file: the folder {path} holds no tokenizer.json")
        return inside
    return path


def _actor_pool(size: int) -> dict:
    """`concurrency=size` is deprecated from Ray 2.51 (a warning on every call) in
    favour of `compute=ActorPoolStrategy(size=...)`, which Ray 2.40-2.50 in turn
    call deprecated: the argument this Ray wants."""
    try:
        import ray
        import ray.data  # noqa: F401  (the extra `ray[data]`, not only ray)
    except ImportError:
        raise ImportError(f"bertpiece.ray_data.tokenize_dataset needs Ray Data: {RAY_INSTALL}") from None

    version = tuple(int(p) for p in ray.__version__.split(".")[:2] if p.isdigit())
    if version >= (2, 51):
        return {"compute": ray.data.ActorPoolStrategy(size=size)}
    return {"concurrency": size}

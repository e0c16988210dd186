"""`bertpiece encode --tokenizer tokenizer.json|FOLDER`: the encode run over
any tokenizer.json (`bertpiece.Tokenizer`, exact against HF tokenizers)
instead of a BERT vocabulary. encode.py runs the same loop (formats, resume,
progress, summary); this module holds what differs: which options apply,
loading the tokenizer, encoding a batch."""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os

import numpy as np

from .._errors import UserError
from ..pretrained import DEFAULT_MODEL
from ..tokenizers_api import Tokenizer
from ..tokenizers_api.bulk import encode_counting_cuts
from .outputs import EncodedRows

# Options that only configure a BERT vocabulary (argparse dest -> flag).
BERT_ONLY = {"vocab": "--vocab", "lowercase": "--lowercase/--no-lowercase",
             "strip_accents": "--strip-accents/--no-strip-accents"}


def resolve_source_options(args, default_reference: str) -> None:
    """--tokenizer refuses the BERT-only flags; without it, --model and
    --reference get their defaults (parsed as None to tell "not given" apart)."""
    tokenizer = getattr(args, "tokenizer", None)
    if tokenizer is None:
        args.model = args.model or DEFAULT_MODEL
        args.reference = args.reference or default_reference
        args.tokenizer_file = None
        return
    given = [flag for dest, flag in (("model", "--model"), ("reference", "--reference"), *BERT_ONLY.items())
             if getattr(args, dest, None) is not None]
    if given:
        raise UserError(f"{', '.join(given)} configure a BERT vocabulary and cannot be combined with --tokenizer "
                        "(the tokenizer.json says everything)")
    if args.token_type_ids:
        raise UserError("--token-type-ids is not available with --tokenizer (its post-processor decides the "
                        "type ids); use bertpiece.Tokenizer.encode_batch for them")
    args.tokenizer_file = tokenizer_file(tokenizer)


def tokenizer_file(tokenizer: str) -> str:
    """The tokenizer.json that --tokenizer names (the file, or a folder holding one)."""
    path = os.path.join(tokenizer, "tokenizer.json") if os.path.isdir(tokenizer) else tokenizer
    if not os.path.isfile(path):
        where = f"{tokenizer} holds no tokenizer.json" if os.path.isdir(tokenizer) else f"{tokenizer} does not exist"
        raise UserError(f"--tokenizer: {where}")
    return path


def open_tokenizer(path: str) -> Tokenizer:
    """`Tokenizer.from_file(path)`, its failure a one-line error naming the file."""
    try:
        return Tokenizer.from_file(path)
    except (OSError, UnicodeDecodeError, ValueError, NotImplementedError) as e:
        raise UserError(f"cannot load the tokenizer {path}: {e}") from None


def file_id(path: str) -> list:
    """What a resume compares for the tokenizer file: its path and its contents' SHA-256."""
    with open(path, "rb") as f:
        return [os.path.abspath(path), hashlib.sha256(f.read()).hexdigest()]


def load(args):
    """The Tokenizer of `args.tokenizer_file`, checked against --max-length/--stride."""
    tok = open_tokenizer(args.tokenizer_file)
    tok.no_padding()  # the output is ragged: rows are never padded
    specials = 0 if args.no_special_tokens else tok.num_special_tokens_to_add(False)
    if args.max_length is not None:
        if args.max_length < specials:
            raise UserError(f"--max-length must be at least {specials} (the special tokens this tokenizer adds), "
                            f"got {args.max_length}")
        if args.stride is not None and args.stride >= args.max_length - specials:
            raise UserError(f"--stride must be smaller than --max-length minus the special tokens "
                            f"({args.max_length - specials}), got {args.stride}")
    return tok


@functools.lru_cache(maxsize=4)  # keyed by the file's text (a str caches its hash)
def _unk_id(json_text: str):
    """The model's unknown-token id (None when it has none), for the summary's count."""
    model = json.loads(json_text).get("model") or {}
    if model.get("type") == "Unigram":
        return model.get("unk_id")
    unk, vocab = model.get("unk_token"), model.get("vocab")
    return vocab.get(unk) if isinstance(unk, str) and isinstance(vocab, dict) else None


def encode_rows(tok, texts, *, special=True, max_length=None, stride=None, offsets=False, threads=None, row0=0):
    """One batch -> (EncodedRows, Counters): the rows `tok.encode_batch(texts)`
    gives (the file's own truncation, or --max-length on its side); with
    `stride`, each encoding then its overflowing windows as rows."""
    from ..terminal.progress import Counters

    c = Counters(rows_in=len(texts))
    specials = tok.num_special_tokens_to_add(False) if special else 0
    if stride is not None:
        own = tok.truncation or {}
        tok.enable_truncation(max_length, stride=stride, strategy=own.get("strategy", "longest_first"),
                              direction=own.get("direction", "right"))
        windows, mapping = [], []
        for k, e in enumerate(tok.encode_batch(list(texts), add_special_tokens=special)):
            windows.extend([e] + e.overflowing)
            mapping.extend([k] * (1 + len(e.overflowing)))
        mapping = np.asarray(mapping, dtype=np.int64)
        splits = np.zeros(len(windows) + 1, np.int64)
        np.cumsum(np.fromiter((len(e.ids) for e in windows), np.int64, len(windows)), out=splits[1:])
        ids = np.fromiter(itertools.chain.from_iterable(e.ids for e in windows), np.int32, int(splits[-1]))
        offs = None
        if offsets:
            flat = list(itertools.chain.from_iterable(e.offsets for e in windows))
            offs = np.asarray(flat, np.int32).reshape(-1, 2)
        c.truncated_rows = int(np.count_nonzero(np.bincount(mapping, minlength=len(texts)) > 1))
        rows = EncodedRows(ids, splits, offs, source_row=mapping + row0, batch_row=mapping)
    else:
        eb, c.truncated_rows = encode_counting_cuts(
            tok, texts, add_special_tokens=special, max_length=max_length,
            truncation=True if max_length is not None else None, return_offsets=offsets, num_threads=threads)
        rows = EncodedRows(eb.ids, eb.row_splits, eb.offsets)
    c.rows_out = len(rows)
    c.tokens = len(rows.ids)
    c.content_tokens = c.tokens - specials * c.rows_out
    unk = _unk_id(tok._json)
    c.unk_tokens = int(np.count_nonzero(rows.ids == unk)) if unk is not None else 0
    return rows, c

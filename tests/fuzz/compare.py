"""Runs a case (cases.py) on bertpiece and on the real reference and says how
they differ: `run_case(case)` is None when they agree, else a short report.

Agreement: equal keys in equal order and equal values (NumPy arrays as
lists); per row `tokens()`, `word_ids()`, `sequence_ids()` where the reference
has encodings. When the reference raises, bertpiece must raise the same
exception type, except where docs/bert_tokenizer.md documents a different one
(HF's PanicException for a stride too large: ValueError here; legacy's
AssertionError in `pad` for a batch where only some rows overflow: bertpiece
returns a result; `max_length` below the special tokens: ValueError here,
wrong output there).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
import warnings

import numpy as np

import bertpiece

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import transformers
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy
transformers.logging.set_verbosity_error()

_TMP = tempfile.mkdtemp(prefix="bertpiece-fuzz-")
atexit.register(shutil.rmtree, _TMP, True)  # one per process (campaign workers too): leave nothing in /tmp


def _config_dir(model: str, init: dict) -> str:
    """A directory transformers' BertTokenizer loads: the bundled vocab.txt + tokenizer_config.json."""
    key = model + "-" + "-".join(f"{k}={v}" for k, v in sorted(init.items()))
    path = os.path.join(_TMP, key)
    if not os.path.isdir(path):
        os.makedirs(path)
        shutil.copyfile(bertpiece.vocab_path(model), os.path.join(path, "vocab.txt"))
        with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
            json.dump({"tokenizer_class": "BertTokenizer", **init}, f)
    return path


def _add(tok, added):
    for token, special in added:
        tok.add_tokens([token], special_tokens=special)


@functools.lru_cache(maxsize=64)
def tokenizers(spec_json: str):
    """(bertpiece.BertTokenizer, transformers' tokenizer), same vocabulary, options, added tokens."""
    spec = json.loads(spec_json)
    init, model = spec["init"], spec["model"]
    ours = bertpiece.BertTokenizer(bertpiece.vocab_path(model), reference=spec["reference"], **init)
    if spec["reference"] == "tokenizers":
        theirs = transformers.BertTokenizer.from_pretrained(_config_dir(model, init))
    else:
        theirs = BertTokenizerLegacy(os.path.join(_config_dir(model, init), "vocab.txt"), **init)
    _add(ours, spec["added"])
    _add(theirs, spec["added"])
    return ours, theirs


@functools.lru_cache(maxsize=32)
def core_pair(reference: str, model: str, options_json: str):
    """(bertpiece.FullTokenizer, the reference): the oracle, or HF tokenizers' pipeline."""
    options = json.loads(options_json)
    vocab = bertpiece.vocab_path(model)
    ours = bertpiece.FullTokenizer(vocab, **options, reference=reference)
    if reference != "tokenizers":
        from bertpiece import oracle

        orac = oracle.FullTokenizer(vocab, **options, reference=reference)
        return ours, lambda text: (lambda t: (t, orac.convert_tokens_to_ids(t)))(orac.tokenize(text))
    from tokenizers import Tokenizer
    from tokenizers.models import WordPiece
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer

    hf = Tokenizer(WordPiece.from_file(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    hf.normalizer = BertNormalizer(clean_text=True, handle_chinese_chars=options.get("tokenize_chinese_chars", True),
                                   strip_accents=options.get("strip_accents"), lowercase=options["do_lower_case"])
    hf.pre_tokenizer = BertPreTokenizer()
    return ours, lambda text: (lambda e: (e.tokens, e.ids))(hf.encode(text, add_special_tokens=False))


def odd_value(value):
    """A case's value as the call gets it: cases.py's {"np": ...} / {"enum": ...} made real."""
    if isinstance(value, dict) and "np" in value:
        return getattr(np, value["np"])(value["v"])
    if isinstance(value, dict) and "enum" in value:
        from transformers.tokenization_utils_base import PaddingStrategy, TensorType, TruncationStrategy

        enums = {"PaddingStrategy": PaddingStrategy, "TruncationStrategy": TruncationStrategy,
                 "TensorType": TensorType}
        return enums[value["enum"]](value["v"])
    return value


def plain(value):
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _short(value, n=300):
    text = repr(value)
    return text if len(text) <= n else text[:n] + "…"


def _attempt(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (every failure is data here)
        return None, e
    except BaseException as e:  # HF's PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        return None, e


def _compare_results(got, expected) -> dict | None:
    if hasattr(expected, "keys"):
        if not hasattr(got, "keys"):
            return {"field": "type", "ours": type(got).__name__, "theirs": type(expected).__name__}
        if list(got.keys()) != list(expected.keys()):
            return {"field": "keys", "ours": list(got.keys()), "theirs": list(expected.keys())}
        for key in expected:
            a, b = plain(got[key]), plain(expected[key])
            if a != b:
                return {"field": key, "ours": _short(a), "theirs": _short(b)}
        encodings = getattr(expected, "encodings", None)
        if encodings:
            for i in range(len(encodings)):
                for name in ("tokens", "word_ids", "sequence_ids"):
                    a, b = _attempt(lambda: getattr(got, name)(i)), getattr(expected, name)(i)
                    if a[1] is not None or a[0] != b:
                        return {"field": f"{name}({i})", "ours": _short(a[1] or a[0]), "theirs": _short(b)}
        return None
    if plain(got) != plain(expected):
        return {"field": "value", "ours": _short(plain(got)), "theirs": _short(plain(expected))}
    return None


def _documented_exception(case, ours_exc, theirs_exc) -> bool:
    """Exception differences docs/bert_tokenizer.md lists as deliberate."""
    if theirs_exc is not None and type(theirs_exc).__name__ == "PanicException":
        return isinstance(ours_exc, ValueError)
    kwargs = case.get("kwargs", {})
    # max_length below the special tokens: transformers returns wrong inputs (or fails otherwise)
    too_short = isinstance(ours_exc, ValueError) and kwargs.get("max_length") is not None \
        and "special tokens" in str(ours_exc)
    if isinstance(theirs_exc, AssertionError) and case.get("tokenizer", {}).get("reference") == "transformers" \
            and kwargs.get("return_overflowing_tokens") and (ours_exc is None or too_short):
        return True  # legacy `pad` asserts when only some rows of a batch overflow
    if too_short and theirs_exc is None:
        return True
    # sizes: bertpiece refuses a negative stride / max_length and pad_to_multiple_of <= 0
    # up front (ValueError naming it); transformers only fails where it uses them
    for name, bad in (("stride", lambda v: v < 0), ("max_length", lambda v: v < 0),
                      ("pad_to_multiple_of", lambda v: v <= 0)):
        value = kwargs.get(name)
        if isinstance(value, int) and bad(value) and isinstance(ours_exc, ValueError) and name in str(ours_exc):
            return True
    # a bool as a size that is read (legacy mode: a float or str too): transformers reads True as 1 and
    # legacy computes with the float; bertpiece refuses it (InputTypeError naming it)
    legacy = case.get("tokenizer", {}).get("reference") == "transformers"
    for name in ("max_length", "stride", "pad_to_multiple_of"):
        value = odd_value(kwargs.get(name))
        if (isinstance(value, (bool, np.bool_)) or legacy and not isinstance(value, (int, np.integer))) \
                and isinstance(ours_exc, TypeError) and f"{name} must be an integer" in str(ours_exc):
            return True
    # tokenizers mode, a str with is_split_into_words a NumPy True: HF takes its characters as the words
    if isinstance(kwargs.get("is_split_into_words"), dict) and isinstance(case.get("text"), str) \
            and isinstance(ours_exc, TypeError) and "expected a list of words" in str(ours_exc):
        return True
    # an empty batch: transformers fails inside (IndexError, or "You should supply an encoding"), bertpiece
    # returns an empty encoding
    if case.get("text") == [] and (ours_exc is None or isinstance(ours_exc, ValueError)) and (
            isinstance(theirs_exc, IndexError) or "You should supply an encoding" in str(theirs_exc)):
        return True
    # legacy mode and return_offsets_mapping: BertTokenizerLegacy returns no offsets, bertpiece says so
    if case.get("tokenizer", {}).get("reference") == "transformers" and kwargs.get("return_offsets_mapping") \
            and isinstance(ours_exc, NotImplementedError):
        return True
    return False


def _both(case, ours_fn, theirs_fn) -> dict | None:
    expected, theirs_exc = _attempt(theirs_fn)
    got, ours_exc = _attempt(ours_fn)
    if theirs_exc is None and ours_exc is None:
        return _compare_results(got, expected)
    if _documented_exception(case, ours_exc, theirs_exc):
        return None
    if theirs_exc is not None and ours_exc is not None and isinstance(ours_exc, type(theirs_exc)):
        return None
    describe = lambda e, v: f"{type(e).__name__}: {e}"[:300] if e is not None else _short(plain(v))  # noqa: E731
    return {"field": "exception", "ours": describe(ours_exc, got), "theirs": describe(theirs_exc, expected)}


@functools.lru_cache(maxsize=1)
def _interpreter_unicode_diff() -> frozenset:
    from bertpiece import references

    return references.unicode_version_diff()


def _pinned_only(value):
    """`value` without the code points whose Unicode data differs between this Python and
    bertpiece's pinned version: BertTokenizerLegacy reads the interpreter's data, so those
    are Unicode-version differences (docs/semantics.md), not bugs. A case stays the same
    data on every Python; only what is sent to both sides changes."""
    diff = _interpreter_unicode_diff()
    if isinstance(value, str):
        return "".join(ch for ch in value if ord(ch) not in diff) if diff else value
    if isinstance(value, list):
        return [_pinned_only(v) for v in value]
    return value


def run_case(case: dict) -> dict | None:
    kind = case["kind"]
    if kind != "core" and case["tokenizer"]["reference"] == "transformers" and kind != "decode":
        case = {**case, "text": _pinned_only(case["text"]),
                "kwargs": {k: _pinned_only(v) if k == "text_pair" else v for k, v in case.get("kwargs", {}).items()}}
    if kind == "core":
        ours, reference = core_pair(case["reference"], case["model"], json.dumps(case["options"], sort_keys=True))
        for text in case["texts"]:
            d = _both(case, lambda: (ours.tokenize(text), ours.encode(text)), lambda: reference(text))
            if d is not None:
                return {**d, "text": _short(text)}
        return None
    ours, theirs = tokenizers(json.dumps(case["tokenizer"], sort_keys=True))
    kwargs = {k: odd_value(v) for k, v in case.get("kwargs", {}).items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # transformers' advice (truncation without max_length, ...)
        if kind == "call":
            return _both(case, lambda: ours(case["text"], **kwargs), lambda: theirs(case["text"], **kwargs))
        if kind == "encode":
            return _both(case, lambda: ours.encode(case["text"], **kwargs), lambda: theirs.encode(case["text"], **kwargs))
        if kind == "decode":
            ids = case["ids"]
            method = "batch_decode" if ids and isinstance(ids[0], list) else "decode"
            return _both(case, lambda: getattr(ours, method)(ids, **kwargs),
                         lambda: getattr(theirs, method)(ids, **kwargs))
        if kind == "encode_batch":
            texts = case["text"]
            return _both(case, lambda: ours.encode_batch(texts, **kwargs).tolist(),
                         lambda: theirs(texts, **kwargs)["input_ids"] if texts else [])
    raise ValueError(f"unknown case kind {kind!r}")

"""The (bertpiece, transformers) tokenizer pairs and the comparison that tests/test_bert_tokenizer*.py share:
reference="tokenizers" against `transformers.BertTokenizer` loaded from a directory holding the same vocab.txt
and a tokenizer_config.json with the same options; reference="transformers" against `BertTokenizerLegacy`."""

import json
import os
import warnings

import numpy as np
import pytest

import bertpiece
from bertpiece import BertTokenizer
from google_reference import data_files, read_lines

warnings.filterwarnings("ignore")
import transformers  # noqa: E402  (a test dependency: never skipped)
transformers.logging.set_verbosity_error()
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy  # noqa: E402

VOCABS = {name: entry.do_lower_case for name, entry in bertpiece.PRETRAINED.items()}
UNCASED, CASED, MULTI = "bert-base-uncased", "bert-base-cased", "bert-base-multilingual-cased"
LINES_PER_FILE = 3
FILES = data_files()


def sample(filename, n=LINES_PER_FILE):
    lines = [line for line in read_lines(filename) if line.strip()]
    step = max(1, len(lines) // n)
    return lines[::step][:n]


ALL_LINES = [line for f in FILES for line in sample(f)]
FEW_LINES = [line for f in FILES for line in sample(f, 1)]
PAIR_LINES = [line for line in FEW_LINES if len(line) > 20][:4]  # pairs, truncation and padding


def options_key(opts):
    return tuple(sorted(opts.items()))


_CACHE = {}


def write_dir(tmp_root, name, opts):
    """A transformers-loadable directory: the bundled vocab.txt + tokenizer_config.json."""
    path = os.path.join(tmp_root, name + "-" + "-".join(f"{k}={v}" for k, v in sorted(opts.items())))
    if not os.path.isdir(path):
        os.makedirs(path)
        with open(bertpiece.vocab_path(name), "rb") as src, open(os.path.join(path, "vocab.txt"), "wb") as dst:
            dst.write(src.read())
        config = {"tokenizer_class": "BertTokenizer", **opts}
        with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
            json.dump(config, f)
    return path


def pair_of(name, reference, tmp_root, **opts):
    """(bertpiece tokenizer, transformers tokenizer) with the same vocabulary and options."""
    opts.setdefault("do_lower_case", VOCABS[name])
    key = (name, reference, options_key(opts))
    if key not in _CACHE:
        path = write_dir(tmp_root, name, opts)
        if reference == "tokenizers":
            theirs = transformers.BertTokenizer.from_pretrained(path)
        else:
            theirs = BertTokenizerLegacy(os.path.join(path, "vocab.txt"), **opts)
        ours = BertTokenizer(bertpiece.vocab_path(name), reference=reference, **opts)
        _CACHE[key] = (ours, theirs)
    return _CACHE[key]


def as_plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [as_plain(v) for v in value]
    return value


def assert_same(ours, theirs, *args, alignment=True, **kwargs):
    """Same keys and values (and word_ids / sequence_ids / tokens per row)."""
    try:
        expected = theirs(*args, **kwargs)
    except AssertionError:
        # BertTokenizerLegacy's batch `pad` asserts when only some rows have overflowing
        # tokens (a transformers bug); bertpiece fills the missing ones (docs/bert_tokenizer.md)
        got = ours(*args, **kwargs)
        if "overflowing_tokens" in got:
            assert len(got["overflowing_tokens"]) == len(got["input_ids"])
        return got
    except BaseException as exc:  # the reference refuses: we must refuse with the same type
        if type(exc).__name__ == "PanicException":
            # tokenizers panics (stride >= the window it truncates to); bertpiece raises ValueError.
            # In a batch HF encodes in parallel, so another row's error may surface instead.
            with pytest.raises(ValueError):
                ours(*args, **kwargs)
            return None
        with pytest.raises(type(exc)):
            ours(*args, **kwargs)
        return None
    got = ours(*args, **kwargs)
    assert list(got.keys()) == list(expected.keys())
    for key in expected:
        assert as_plain(got[key]) == as_plain(expected[key]), key
    if alignment and getattr(expected, "encodings", None):
        for i in range(len(expected.encodings)):
            assert got.word_ids(i) == expected.word_ids(i)
            assert got.sequence_ids(i) == expected.sequence_ids(i)
            assert got.tokens(i) == expected.tokens(i)
    return got


REFERENCES = ["tokenizers", "transformers"]
FULL = dict(return_special_tokens_mask=True, return_length=True)


def full_kwargs(reference):
    kw = dict(FULL)
    if reference == "tokenizers":
        kw["return_offsets_mapping"] = True
    else:
        kw["return_token_type_ids"] = True
    return kw

"""The padded call's search of each row for added tokens (src/batch_needles.rs: a text under 256
bytes is searched 16 bytes at a time inline, with its last 16 bytes loaded again when its length is
not a multiple of 16; a longer one by `memchr`). A row holding an added token anywhere (its first
bytes, each side of every 16-byte step, its last bytes, past the cut at `max_length`) must take
the general path, so the arrays equal transformers' own; a row holding only part of one must not.
Tokens added between calls (special ones starting with "[", others with other first bytes and
lstrip/rstrip) change what is searched for."""

import warnings

import numpy as np
import pytest
from transformers import AddedToken

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
LENGTHS = list(range(0, 70)) + [95, 96, 97, 127, 128, 129, 250, 255, 256, 257, 300, 600]


def rows(token):
    """Texts of each length in LENGTHS holding `token` at its start, middle and end (and a text
    holding only the token's first bytes, and one holding the token cut short at its end)."""
    out = []
    for length in LENGTHS:
        base = ("ab cd, " * 100)[:length]
        for at in sorted({0, length // 2, length}):
            out.append(base[:at] + token + base[at:])
        out.append(base + token[:-1])
        out.append(base[:length // 2] + token[0] + base[length // 2:])
    return out


def same_arrays(ours, theirs, texts, max_length):
    for start in range(0, len(texts), 64):
        batch = texts[start:start + 64]
        kwargs = dict(padding=True, truncation=True, max_length=max_length, return_tensors="np")
        for _ in range(2):  # (the first call makes the serving plan, the second takes it)
            got, want = ours(batch, **kwargs), theirs(batch, **kwargs)
            for key in ("input_ids", "token_type_ids", "attention_mask"):
                np.testing.assert_array_equal(got[key], want[key], err_msg=f"{key} {batch!r} {max_length}")


@pytest.mark.parametrize("max_length", [512, 16])
def test_rows_holding_added_tokens_anywhere_equal_transformers(max_length):
    ours, theirs = bertpiece.BertTokenizer(vocab_file=VOCAB), transformers.BertTokenizer(vocab=VOCAB)
    same_arrays(ours, theirs, rows("[MASK]") + rows("[SEP]"), max_length)
    # added between calls: a special token of the same first byte, then tokens of other first bytes
    for tok in (ours, theirs):
        tok.add_special_tokens({"additional_special_tokens": ["[NEW]"]})
    same_arrays(ours, theirs, rows("[NEW]") + rows("[NEW"), max_length)
    for tok in (ours, theirs):
        tok.add_tokens([AddedToken("<x>", lstrip=True, rstrip=True, normalized=False), "qzq"])
    same_arrays(ours, theirs, rows("<x>") + rows(" qzq ") + rows("[MASK]"), max_length)

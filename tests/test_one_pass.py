"""The one-pass encoder (`encode`, `encode_batch`: bytes straight to ids,
with its per-code-point class table and word memo) gives the ids of the
general path (`tokenize`, then the vocabulary) for every code point of the
BMP in context (tests/code_points.py: long runs of code points with the same
properties sampled), under every set of options. The general path is itself
checked against the oracle code point by code point (test_codepoints.py) and
against the real references, so this closes the loop for the fast path.

The vocabulary holds every BMP code point on its own and after "##", so a
word's ids spell out its normalized code points one by one: any difference in
cleaning, case, accents, splitting or word length shows up as different ids.
"""

import itertools

import numpy as np
import pytest

from bertpiece import _core
from code_points import code_points

VOCAB = [("[UNK]", 0)] + [(chr(c), 1 + 2 * k) for k, c in enumerate(range(0x10000)) if not 0xD800 <= c <= 0xDFFF] \
    + [("##" + chr(c), 2 + 2 * k) for k, c in enumerate(range(0x10000)) if not 0xD800 <= c <= 0xDFFF]
# ids stay unique: single code points are odd, "##" ones even
VOCAB = list({t: i for t, i in VOCAB}.items())


def contexts(c):
    return (c, "ab" + c + "cd", "(" + c + ")", "x" + c + c + "y", "E" + c + "\u0301", c + "\u0323\u0301")


OPTIONS = [
    dict(reference=ref, do_lower_case=lower, strip_accents=strip, tokenize_chinese_chars=cjk, do_split_on_punc=punc)
    for ref, lower, strip, cjk, punc in itertools.product(
        ("google", "transformers", "tokenizers"), (True, False), (None, True, False), (True, False), (True, False))
    if not (ref == "tokenizers" and not punc)  # HF's pre-tokenizer always splits punctuation
]


@pytest.fixture(scope="module")
def texts():
    # One line per block of 256 code points, so a difference is easy to place.
    bmp = code_points(0x80, 0x10000)
    return [" ".join(t for c in bmp[k:k + 256] for t in contexts(chr(c))) for k in range(0, len(bmp), 256)]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_one_pass_equals_general_path_for_every_bmp_code_point(options, texts):
    # A third of the blocks per option set, the thirds taking turns down OPTIONS: every code point
    # runs under a third of the option sets, each option value among them.
    third = OPTIONS.index(options) % 3
    texts = texts[third::3]
    tok = _core.FullTokenizer.from_entries(VOCAB, max_input_chars_per_word=1000, **options)
    vocab = dict(tok.vocab_entries())
    batch_ids, splits, *_ = tok.encode_batch(texts, num_threads=1)
    batch_ids, splits = np.asarray(batch_ids), np.asarray(splits)
    for row, text in enumerate(texts):
        want = [vocab[t] for t in tok.tokenize(text)]
        got = tok.encode(text)
        in_batch = batch_ids[splits[row]:splits[row + 1]].tolist()
        if got != want or in_batch != want:
            for c in text.split(" "):
                w = [vocab[t] for t in tok.tokenize(c)]
                assert tok.encode(c) == w, f"{c!r} ({', '.join(f'U+{ord(x):04X}' for x in c)}) with {options}"
            pytest.fail(f"block {third + 3 * row}: one-pass ids differ from the general path's (not in any single context)")

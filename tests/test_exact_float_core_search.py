"""The core's exact-float search (src/json_exact_float.rs) against serialization.py's Python
search, literal for literal, on the scores a converter's Unigram holds (f32 values, |x| >= 1).
Its candidates `s e{j}` (a negative power of ten, tried for every |x| >= 1 before the others)
used to send such a score to the Python search (555 scores and 0.4-1.1 s of CPU on the first
AutoTokenizer load of a 250k XLM-R-shaped file); now the core runs them."""

import json
import random
import struct
from fractions import Fraction

from bertpiece import _core
from bertpiece.tokenizers_api.serialization import _nearby_literals, serde_float


def _python_search(x):
    # serialization._exact_literal without its first step in the core: the definition
    text = repr(x)
    if serde_float(text) == x:
        return text
    sign = "-" if x < 0 else ""
    for candidate in _nearby_literals(Fraction(abs(x))):
        if serde_float(sign + candidate) == x:
            return sign + candidate
    return text


def _f32(rng, lo, hi):
    return struct.unpack("f", struct.pack("f", rng.uniform(lo, hi)))[0]


def test_core_search_runs_negative_powers_of_ten_and_equals_python():
    rng = random.Random(26)
    scores = [_f32(rng, -20.0, -1.0) for _ in range(12000)] + [_f32(rng, 1.0, 1e6) for _ in range(4000)]
    scores += [rng.uniform(1.0, 2.0**52) for _ in range(2000)] + [10.0, -20.0, 1.0, 99.99999999999999]
    fallbacks = []

    def fallback(literal):
        fallbacks.append(literal)
        return literal

    out = _core.exact_float_literals(json.dumps(scores), fallback)
    assert fallbacks == []  # every such score searched in the core
    literals = out.strip("[]").split(", ")
    assert len(literals) == len(scores)
    expected = [_python_search(s) for s in scores]
    assert literals == expected
    assert sum(lit != repr(s) for lit, s in zip(literals, scores)) > 100  # literals serde misreads, replaced

"""Fuzz failures already reported, by category, so the CI run stays strict:
any failure outside these categories fails tests/test_fuzz.py, and each
category is an xfail(strict=True) test that starts failing the moment its bug
is fixed (then move its smallest case to regressions/ and delete it here).

A category is a predicate `(case, diff) -> bool`, as narrow as the bug: it
looks at the arguments that cause it and at the shape of the difference,
never just "the reference raised"; its docstring holds the minimal
reproduction, and REPROS its smallest case.

None is open: the twelve categories found when the fuzzer landed are fixed
(their cases are in regressions/) or are deliberate, documented differences
(fuzz/compare.py `_documented_exception`, docs/bert_tokenizer.md).
"""

from __future__ import annotations

CATEGORIES: dict = {}
REPROS: dict = {}


def classify(case, diff) -> str | None:
    """The known category of a failure, or None (a new bug)."""
    for name, predicate in CATEGORIES.items():
        if predicate(case, diff):
            return name
    return None

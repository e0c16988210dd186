"""Fuzz failures already reported, by category, so the CI run stays strict:
any failure outside these categories fails tests/test_fuzz.py, and each
category is an xfail(strict=True) test that starts failing the moment its bug
is fixed (then delete the category here and its marker).

Each predicate is as narrow as the bug: it looks at the arguments that cause
it and at the shape of the difference, never just "the reference raised".
Minimal reproductions are in the docstrings.
"""

from __future__ import annotations


def _flat(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def _kw(case):
    return case.get("kwargs", {})


def _texts(case):
    return [t for t in _flat([case.get("text"), _kw(case).get("text_pair")]) if isinstance(t, str)]


def _theirs(diff, prefix):
    return diff["field"] == "exception" and diff["theirs"].startswith(prefix)


def _ours_returned(diff):
    return diff["field"] == "exception" and not diff["ours"].split(":")[0].endswith(("Error", "Exception"))


CATEGORIES = {}  # none open: the twelve found when the fuzzer landed are fixed (regressions/) or documented


def classify(case, diff) -> str | None:
    """The known category of a failure, or None (a new bug)."""
    for name, predicate in CATEGORIES.items():
        if predicate(case, diff):
            return name
    return None


def _tok(reference="tokenizers", added=(), **init):
    return {"reference": reference, "model": "bert-base-uncased", "init": {"do_lower_case": True, **init},
            "added": [list(a) for a in added]}


# The smallest case of each open category, replayed by tests/test_fuzz.py as
# xfail(strict=True). A fixed bug's case moves to regressions/ (it must pass).
REPROS = {}

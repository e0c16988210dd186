"""What `make test` runs and what it leaves to `make test-slow` (CI runs both; docs/testing.md).

A sweep over the twelve UD files runs four of them in `make test` — English (ASCII), Chinese (CJK
spacing), Greek (final sigma, accents) and Hindi (combining marks, virama) — and the other eight in
the slow tier: the scripts and rules each path meets are all in the first four, the other eight add
more of the same text."""

import os

import pytest

QUICK_LANGUAGES = ("en", "zh", "el", "hi")


def language(path: str) -> str:
    """"ud-en.txt" or a path to it -> "en"."""
    return os.path.basename(path)[len("ud-"):-len(".txt")]


def ud_params(values, key=lambda value: value):
    """`values` (UD file paths or names, or tuples from which `key` takes one) as parameters, those of
    the other eight languages marked slow."""
    out = []
    for value in values:
        if language(key(value)) in QUICK_LANGUAGES:
            out.append(value)
        else:
            out.append(pytest.param(*value, marks=pytest.mark.slow) if isinstance(value, tuple)
                       else pytest.param(value, marks=pytest.mark.slow))
    return out


def ud_file_tiers(paths):
    """One parameter for the four quick languages' files of `paths`, one (slow) for the other eight's: for
    a test that reads many UD files at once."""
    quick = tuple(p for p in paths if language(p) in QUICK_LANGUAGES)
    others = tuple(p for p in paths if language(p) not in QUICK_LANGUAGES)
    return [pytest.param(quick, id="-".join(QUICK_LANGUAGES)),
            pytest.param(others, id="other-languages", marks=pytest.mark.slow)]

"""Differential fuzzing in CI (tests/fuzz): a bounded, seeded run of random
calls against transformers' BertTokenizer / BertTokenizerLegacy and of the core
against the oracle / HF tokenizers, and every saved regression case.

Strict: a case where bertpiece and the reference differ fails, unless it falls
in a category of tests/fuzz/known_bugs.py (already reported bugs); each such
category is an xfail(strict=True) test of its smallest case, so a fix shows up
as an XPASS failure until the category is deleted. Long campaigns:
`make fuzz MINUTES=N`. Case count: BERTPIECE_FUZZ_CASES (default 1000).
"""

import glob
import json
import os

import pytest

from fuzz.cases import case_for
from fuzz.compare import run_case
from fuzz.known_bugs import CATEGORIES, REPROS, classify

SEED = 17
CASES = int(os.environ.get("BERTPIECE_FUZZ_CASES", "1000"))
CHUNKS = 4  # run in parallel by pytest-xdist
REGRESSIONS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fuzz", "regressions", "*.json")))


def _report(i, case, diff):
    return (f"case {i} (seed {SEED}) differs in {diff['field']}:\n  bertpiece: {diff['ours']}\n"
            f"  reference: {diff['theirs']}\n  case: {json.dumps(case, ensure_ascii=True)[:2000]}")


# Two of the four chunks (half the cases) in `make test`, the other two in `make test-slow` (tests/tiers.py).
@pytest.mark.parametrize("chunk", [0, 1] + [pytest.param(k, marks=pytest.mark.slow) for k in range(2, CHUNKS)])
def test_seeded_run(chunk):
    unexplained, known = [], {}
    for i in range(chunk, CASES, CHUNKS):
        case = case_for(SEED, i)
        diff = run_case(case)
        if diff is None:
            continue
        category = classify(case, diff)
        if category is None:
            unexplained.append(_report(i, case, diff))
        else:
            known[category] = known.get(category, 0) + 1
    assert not unexplained, f"{len(unexplained)} case(s) differ (known bugs seen: {known}):\n" + \
        "\n".join(unexplained[:5])


if CATEGORIES:  # open bugs only (none today); a fixed one's case lives in regressions/
    @pytest.mark.parametrize("name", [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason="open bug: " + " ".join(fn.__doc__.split())))
        for name, fn in CATEGORIES.items()])
    def test_known_bug(name):
        """The smallest case of a reported bug; delete the category once fixed (it then XPASSes)."""
        diff = run_case(REPROS[name])
        assert diff is None, diff


def test_saved_regressions():
    """Cases a campaign found (and documented behaviour worth pinning), replayed."""
    assert REGRESSIONS, "tests/fuzz/regressions/ holds at least the documented-difference cases"
    failing = []
    for path in REGRESSIONS:
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        diff = run_case(case)
        if diff is not None:
            failing.append(f"{os.path.basename(path)}: {diff}")
    assert not failing, "\n".join(failing)

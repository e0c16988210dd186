"""transformers' own tokenizer test suite, run against bertpiece (issue 15).

tests/tfsuite/bert_suite.py runs upstream's TokenizerTesterMixin (and, for the
tokenizers backend, TokenizersBackendTesterMixin) four ways — transformers'
BertTokenizer and BertTokenizerLegacy, bertpiece with reference="tokenizers"
and "transformers" — in one subprocess per session, offline, against a local
hub cache built from the bundled vocabulary (tests/tfsuite/offline_hub.py).
Each test here is one (upstream test, reference mode): if the upstream test
passes for transformers' class it must pass for bertpiece's. Upstream failures
of transformers' own class are xfailed with their reason (and must be the
known ones); upstream skips are skipped with upstream's reason; tests declared
not applicable to bertpiece (NOT_APPLICABLE) are skipped with why when they
fail for bertpiece; bertpiece's known failures (KNOWN_BERTPIECE_FAILURES) are
xfailed with why, and fail the run once they pass. The upstream suite comes from the transformers sdist
(scripts/fetch_transformers_tests.py, run by `make install-test`).
"""

from __future__ import annotations

import os

import pytest

from shared_cache import session_json
from tfsuite.harness import (KINDS, KNOWN_BERTPIECE_FAILURES, KNOWN_UPSTREAM_FAILURES, NOT_APPLICABLE, PAIRS, REFERENCE_NAMES, SUITE_DIR,
                             run_suite, upstream_tests)

# One subprocess of ~45 s of upstream tests: in `make test-slow` (CI runs it), not in the newcomer's `make test`.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def suite(tmp_path_factory):
    """The suite's results, computed once per session (shared by xdist workers)."""
    loaded = session_json(tmp_path_factory, "transformers-suite", run_suite)
    return {tuple(k.split("|")): v for k, v in loaded.items()}


def test_upstream_suite_is_fetched():
    assert os.path.isfile(os.path.join(SUITE_DIR, ".complete")), (
        f"transformers' test suite is not in {SUITE_DIR}: run `make install-test` "
        "(or python scripts/fetch_transformers_tests.py)")


def test_known_upstream_failures_are_current(suite):
    """transformers' own classes fail exactly the listed tests (else the environment
    changed, and an xfail below could hide a broken harness)."""
    failing = {(c, n) for (c, _, n), r in suite.items() if c.startswith("Hf") and r["status"] == "failed"}
    assert failing == set(KNOWN_UPSTREAM_FAILURES), {
        "new": {k: suite_message(suite, *k) for k in failing - set(KNOWN_UPSTREAM_FAILURES)},
        "now passing": sorted(set(KNOWN_UPSTREAM_FAILURES) - failing)}


def suite_message(suite, config, name):
    return next(r["message"] for (c, _, n), r in suite.items() if (c, n) == (config, name))


CASES = [(ref, kind, name) for kind, (_, _, refs) in KINDS.items() for ref in refs for name in upstream_tests(kind)]


@pytest.mark.parametrize("reference,kind,name", CASES, ids=[f"{r}-{k}-{n}" for r, k, n in CASES])
def test_upstream(suite, reference, kind, name):
    hf_config, bp_config = PAIRS[reference]
    hf, bp = suite.get((hf_config, kind, name)), suite.get((bp_config, kind, name))
    assert hf is not None and bp is not None, f"{name} did not run for {hf_config} / {bp_config}"
    cls = REFERENCE_NAMES[hf_config]
    if name in NOT_APPLICABLE and bp["status"] != "passed":
        pytest.skip(f"not applicable: {NOT_APPLICABLE[name]} (transformers' {cls}: {hf['status']}, "
                    f"bertpiece: {bp['status']})")
    if hf["status"] == "skipped":
        pytest.skip(f"skipped by the upstream suite for transformers' {cls}: {hf['message']} "
                    f"(bertpiece: {bp['status']})")
    if hf["status"] == "failed":
        why = KNOWN_UPSTREAM_FAILURES.get((hf_config, name), "NOT A KNOWN FAILURE")
        pytest.xfail(f"fails for transformers' {cls} too ({why}); bertpiece: {bp['status']}")
    known = KNOWN_BERTPIECE_FAILURES.get((reference, name))
    if known is not None:
        assert bp["status"] != "passed", f"{name} now passes for bertpiece: take it off KNOWN_BERTPIECE_FAILURES"
        pytest.xfail(f"known difference, listed in docs/transformers_suite.md: {known}")
    assert bp["status"] == "passed", (
        f"{name} passes for transformers' {cls} but {bp['status']} for bertpiece "
        f"(reference={reference!r}): {bp['message']}")

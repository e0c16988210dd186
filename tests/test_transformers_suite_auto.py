"""transformers' own tokenizer test suite against bertpiece.AutoTokenizer's objects (issue 26):
upstream's TokenizerTesterMixin and TokenizersBackendTesterMixin for the RoBERTa, XLM-R, T5 and
MPNet shapes (tests/tfsuite/auto_suite.py), each run on transformers' own class for the folder
and on the same class over bertpiece, in one subprocess per session (tests/tfsuite/auto_harness.py).
Each test here is one (shape, upstream test): if it passes for transformers' class it must pass
for bertpiece's; where transformers' own class fails or skips it, bertpiece's outcome is shown
in the skip/xfail reason."""

from __future__ import annotations

import pytest

from shared_cache import session_json
from tfsuite.auto_harness import SHAPES, run_auto_suite
from tfsuite.harness import KINDS, upstream_tests

# One subprocess of ~45 s of upstream tests: in `make test-slow` (CI runs it), not in the newcomer's `make test`.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def auto_suite(tmp_path_factory):
    """The suite's results, computed once per session (shared by xdist workers)."""
    loaded = session_json(tmp_path_factory, "transformers-suite-auto", run_auto_suite)
    return {tuple(k.split("|")): v for k, v in loaded["results"].items()}


CASES = [(shape, kind, name) for shape in SHAPES for kind in KINDS for name in upstream_tests(kind)]


@pytest.mark.parametrize("shape,kind,name", CASES, ids=[f"{s}-{k}-{n}" for s, k, n in CASES])
def test_upstream_on_shape(auto_suite, shape, kind, name):
    hf, bp = auto_suite.get((f"Hf{shape}", kind, name)), auto_suite.get((f"Bp{shape}", kind, name))
    assert hf is not None and bp is not None, f"{name} did not run for {shape}"
    if hf["status"] == "skipped":
        pytest.skip(f"skipped by the upstream suite for transformers' class: {hf['message']} (bertpiece: {bp['status']})")
    if hf["status"] == "failed":
        pytest.xfail(f"fails for transformers' own class too ({hf['message'][:200]}); bertpiece: {bp['status']}")
    assert bp["status"] == "passed", (
        f"{name} passes for transformers' class on the {shape} folder but {bp['status']} for bertpiece: {bp['message']}")

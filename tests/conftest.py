"""Shared settings: hypothesis example counts come from the environment
(BERTPIECE_HYPOTHESIS_EXAMPLES, default 120) so `make test` stays within its
budget and a long run is one variable away."""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Importing transformers' Trainer (torch's inductor) makes /tmp/torchinductor_<user>: the suite's runs, and the
# processes they start, keep it under .cache/ instead, so that `make test` leaves nothing in /tmp.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                              ".cache", "torchinductor"))

from shared_cache import SHARED_CACHE_ENV  # noqa: E402  (tests/ on sys.path first)

settings.register_profile(
    "bertpiece",
    max_examples=int(os.environ.get("BERTPIECE_HYPOTHESIS_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
)
settings.load_profile("bertpiece")


def pytest_report_header(config):
    """The versions of the references this run compares against (pinned by
    constraints/test.txt in `make test`, the newest in `make test-latest`)."""
    from importlib import metadata

    found = []
    for name in ("transformers", "tokenizers", "bert-tensorflow", "torch"):
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return "references: " + ", ".join(found)


@pytest.fixture(scope="session", autouse=True)
def shared_cache_dir(tmp_path_factory):
    """The directory tests/shared_cache.py shares trained tokenizer files through: one per session, the
    same for every xdist worker (their basetemps are subdirectories of the session's)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    path = root / "shared-cache"
    path.mkdir(exist_ok=True)
    os.environ[SHARED_CACHE_ENV] = str(path)
    yield path
    os.environ.pop(SHARED_CACHE_ENV, None)


# Under xdist (`make pytest`: tests handed out in this order, a few at a time) the order is chosen so that
# neither worker idles:
# - first, the one test that computes transformers' suite (tests/test_transformers_suite.py: one subprocess
#   of ~40 s, behind a lock); its other tests, which read the result, come last, when it is long done (in
#   the middle, the second worker to reach one would wait on the lock);
# - then the modules whose tests each hold a worker for seconds to tens of seconds; one of those left for
#   the end would leave the other worker idle;
# - then everything else, in collection order.
SUITE_MODULE, SUITE_FIRST = "test_transformers_suite.py", "test_known_upstream_failures_are_current"
# tests/test_transformers_suite_auto.py (transformers' suite on the AutoTokenizer shapes, ~80 s) likewise.
AUTO_SUITE_MODULE = "test_transformers_suite_auto.py"
LONG_RUNNING_FIRST = ("test_docs.py", "test_fuzz.py", "test_train_default.py", "test_pipeline_bpe_fuzz.py",
                      "test_pipeline_clip_full.py", "test_pipeline_bpe_fast.py", "test_pipeline_bulk.py",
                      "test_pipeline_regex_classes.py", "test_pipeline_unigram_fast.py", "test_pipeline_scripts.py",
                      "test_cli_progress.py", "test_generated.py", "test_fuzz_stateful.py", "test_codepoints.py",
                      "test_sentencepiece.py", "test_auto_tokenizer.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONG_RUNNING_FIRST)}
    auto_first = next((item for item in items if item.path.name == AUTO_SUITE_MODULE), None)

    def order(item):
        if item.path.name == SUITE_MODULE:
            return -1 if item.name == SUITE_FIRST else len(rank) + 1
        if item.path.name == AUTO_SUITE_MODULE:
            return -1 if item is auto_first else len(rank) + 1
        return rank.get(item.path.name, len(rank))

    items.sort(key=order)  # stable: within a rank, collection order


# BERTPIECE_TEST_CPU_LOG=path: each test's CPU time (its process's and its children's, user + system)
# and wall time appended to path.<worker>, one "cpu_seconds wall_seconds nodeid" line per test. Unlike the
# durations, CPU time barely moves when other jobs share the cores, so a change to the suite's cost can be
# measured on a busy machine (scripts/test_cpu_report.py sums it per module); on a quiet one, wall minus CPU
# is the time a test waited (sleeps, locks, a child's start) with its core idle.
if os.environ.get("BERTPIECE_TEST_CPU_LOG"):
    import resource
    import time

    def _cpu_seconds():
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        # tests/preloaded.py's fork servers run the children it starts, so their CPU time is not in
        # RUSAGE_CHILDREN until the server ends: it reports it per request instead
        preloaded = sys.modules.get("preloaded")
        served = preloaded.CPU_SECONDS[0] if preloaded else 0.0
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + served

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        start, wall = _cpu_seconds(), time.perf_counter()
        yield
        path = os.environ["BERTPIECE_TEST_CPU_LOG"] + "." + os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{_cpu_seconds() - start:.3f} {time.perf_counter() - wall:.3f} {item.nodeid}\n")

"""Shared settings: hypothesis example counts come from the environment
(BERTPIECE_HYPOTHESIS_EXAMPLES, default 300) so CI stays fast and a long run
is one variable away."""

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

settings.register_profile(
    "bertpiece",
    max_examples=int(os.environ.get("BERTPIECE_HYPOTHESIS_EXAMPLES", "300")),
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


# Under xdist (`make pytest`, one test at a time to each worker) these modules' tests start first: each
# holds a worker for seconds to tens of seconds, and one of them left for the end would leave the other
# worker idle. The transformers suite is not here: as one xdist group it is handed out first anyway.
LONG_RUNNING_FIRST = ("test_docs.py", "test_fuzz.py", "test_cli_progress.py", "test_generated.py",
                      "test_fuzz_stateful.py", "test_codepoints.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONG_RUNNING_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order

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

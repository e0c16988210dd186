"""Runs transformers' tokenizer test suite four ways and reads the results.

Used by tests/test_transformers_suite.py (once per test session) and, as a
script, to print the pass counts and failures for docs/transformers_suite.md:

    python tests/tfsuite/harness.py          # after `make install-test`

The suite is tests/tfsuite/bert_suite.py on upstream's mixins, extracted from
the transformers sdist by scripts/fetch_transformers_tests.py; it runs in a
subprocess (its own pytest settings, tests/tfsuite/pytest.ini), offline, with
the hub cache of offline_hub.py.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUITE_DIR = os.path.join(ROOT, ".cache", "transformers-tests", importlib.metadata.version("transformers"))
DRIVER = os.path.join(HERE, "bert_suite.py")
INI = os.path.join(HERE, "pytest.ini")

# reference mode -> (transformers' configuration, bertpiece's), the class-name prefixes in bert_suite.py
PAIRS = {"tokenizers": ("HfTokenizers", "BpTokenizers"), "transformers": ("HfLegacy", "BpLegacy")}
REFERENCE_NAMES = {"HfTokenizers": "BertTokenizer", "HfLegacy": "BertTokenizerLegacy"}
# test class suffix -> (upstream mixin, file), and the reference modes that run it
KINDS = {
    "TokenizationTest": ("TokenizerTesterMixin", "test_tokenization_common.py", ("tokenizers", "transformers")),
    "BackendTest": ("TokenizersBackendTesterMixin", "test_tokenizers_backend_mixin.py", ("tokenizers",)),
}

# upstream test -> why it cannot apply to bertpiece (skipped, with why, when it fails for bertpiece). None
# today: the chat-template tests, train_new_from_iterator and backend_tokenizer now pass too.
NOT_APPLICABLE: dict[str, str] = {}

# (reference, test) -> why bertpiece fails a test transformers' class passes: xfailed strictly (a pass
# shows), and listed in docs/transformers_suite.md. (None: every test runs as upstream wrote it, also
# those that branch on isinstance(tokenizer, TokenizersBackend), which bertpiece's tokenizers mode is.)
KNOWN_BERTPIECE_FAILURES: dict[tuple[str, str], str] = {}

# (configuration, test) -> why transformers' own class fails it (5.23.0); checked, so a new failure shows
KNOWN_UPSTREAM_FAILURES = {
    ("HfLegacy", "test_integration_from_extractor"):
        "BertTokenizerLegacy(vocab=..., merges=...) needs a vocab_file: upstream builds a tokenizer from "
        "extracted tokenizer.json data, which the pure-Python class cannot take",
}


def upstream_tests(kind: str) -> list[str]:
    """The test methods of an upstream mixin, read from the extracted file."""
    mixin, filename, _ = KINDS[kind]
    path = os.path.join(SUITE_DIR, "tests", filename)
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == mixin:
            return sorted({n.name for n in node.body
                           if isinstance(n, ast.FunctionDef) and n.name.startswith("test")})
    raise AssertionError(f"{mixin} not found in {path}")


def base_name(name: str, bases: list[str]) -> str:
    """parameterized.expand names (`test_x_0_True`) back to the method name."""
    if name in bases:
        return name
    found = [b for b in bases if name.startswith(b + "_")]
    return max(found, key=len) if found else name


def parse_junit(path: str) -> dict:
    """{(configuration, kind, test): {"status", "message"}}, expansions merged."""
    bases = {kind: upstream_tests(kind) for kind in KINDS}
    results: dict = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        cls = case.get("classname").rsplit(".", 1)[-1]
        kind = next((k for k in KINDS if cls.endswith(k)), None)
        if kind is None:
            raise AssertionError(f"unexpected result {cls}::{case.get('name')} in {path}")
        config = cls[: -len(kind)]
        name = base_name(case.get("name"), bases[kind])
        status, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                status, message = "failed", child.get("message") or child.text or ""
            elif child.tag == "skipped" and status == "passed":
                status, message = "skipped", child.get("message") or ""
        prev = results.get((config, kind, name))
        order = {"failed": 2, "passed": 1, "skipped": 0}
        if prev is None or order[status] > order[prev["status"]]:
            results[(config, kind, name)] = {"status": status, "message": message.strip()[:400]}
    return results


def run_suite(out_dir: str) -> dict:
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import offline_hub

    env = dict(os.environ)
    env.update(offline_hub.build(os.path.join(out_dir, "hub")))
    env["PYTHONPATH"] = os.pathsep.join([SUITE_DIR, env.get("PYTHONPATH", "")])
    env["RUN_SLOW"] = "1"  # upstream's slow tests need no download here: the hub is local
    env.pop("PYTEST_XDIST_WORKER", None)
    # upstream's tests leave some tempfile.mkdtemp() folders behind: keep them with this run's files, not in /tmp
    env["TMPDIR"] = os.path.join(out_dir, "tmp")
    os.makedirs(env["TMPDIR"], exist_ok=True)
    junit = os.path.join(out_dir, "junit.xml")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", INI, "--rootdir", SUITE_DIR, DRIVER, "-q",
         "-p", "no:xdist", "--junitxml", junit],
        cwd=SUITE_DIR, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1) or not os.path.isfile(junit):  # 1: some tests failed
        raise AssertionError(f"the upstream suite did not run (pytest exit {proc.returncode}):\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return {"|".join(k): v for k, v in parse_junit(junit).items()}


def report(results: dict) -> str:
    """Markdown: pass counts per configuration, then bertpiece's failures."""
    configs = ("HfTokenizers", "BpTokenizers", "HfLegacy", "BpLegacy")
    lines = ["| configuration | passed | failed | skipped |", "|---|---|---|---|"]
    for config in configs:
        statuses = [r["status"] for (c, _, _), r in results.items() if c == config]
        lines.append(f"| {config} | {statuses.count('passed')} | {statuses.count('failed')} "
                     f"| {statuses.count('skipped')} |")
    lines += ["", "failing or skipped for transformers' own classes", ""]
    for (c, kind, name), r in sorted(results.items()):
        if c in REFERENCE_NAMES and r["status"] != "passed":
            lines.append(f"- {REFERENCE_NAMES[c]} `{name}` {r['status']}: {r['message'].splitlines()[0][:160]}")
    for reference, (hf_config, bp_config) in PAIRS.items():
        lines += ["", f"reference={reference!r}: tests passing for {REFERENCE_NAMES[hf_config]} "
                      f"and failing or skipped for bertpiece", ""]
        for (c, kind, name), r in sorted(results.items()):
            hf = results.get((hf_config, kind, name))
            if c == bp_config and r["status"] != "passed" and hf and hf["status"] == "passed":
                na = " (not applicable)" if name in NOT_APPLICABLE else ""
                lines.append(f"- `{name}`{na}: {r['message'].splitlines()[0][:160] if r['message'] else ''}")
    return "\n".join(lines)


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        results = {tuple(k.split("|")): v for k, v in run_suite(out).items()}
        took = time.perf_counter() - start
    print(report(results))
    print(f"\nsuite run: {took:.1f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())



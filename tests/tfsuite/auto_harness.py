"""Runs transformers' tokenizer test suite against bertpiece.AutoTokenizer's objects for the
RoBERTa, XLM-R, T5 and MPNet shapes (auto_suite.py), in one subprocess, and reads the results
with harness.py's reader. Used by tests/test_transformers_suite_auto.py; as a script it prints
the counts per configuration:

    python tests/tfsuite/auto_harness.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from harness import INI, SUITE_DIR, parse_junit  # noqa: E402

DRIVER = os.path.join(HERE, "auto_suite.py")
SHAPES = ("Roberta", "Xlmr", "T5", "Mpnet")


def run_auto_suite(out_dir: str) -> dict:
    """{"config|kind|test": {"status", "message"}} for configs Hf<Shape> and Bp<Shape>; the CPU time in "cpu"."""
    import auto_hub

    env = dict(os.environ)
    env.update(auto_hub.build(os.path.join(out_dir, "hub")))
    env["PYTHONPATH"] = os.pathsep.join([SUITE_DIR, env.get("PYTHONPATH", "")])
    env["RUN_SLOW"] = "1"  # nothing is downloaded: the hub is local
    env.pop("PYTEST_XDIST_WORKER", None)
    # upstream's tests leave some tempfile.mkdtemp() folders behind: keep them with this run's files, not in /tmp
    env["TMPDIR"] = os.path.join(out_dir, "tmp")
    os.makedirs(env["TMPDIR"], exist_ok=True)
    junit = os.path.join(out_dir, "junit.xml")
    before = os.times()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", INI, "--rootdir", SUITE_DIR, DRIVER, "-q",
         "-p", "no:xdist", "--junitxml", junit],
        cwd=SUITE_DIR, env=env, capture_output=True, text=True, timeout=3600)
    after = os.times()
    if proc.returncode not in (0, 1) or not os.path.isfile(junit):
        raise AssertionError(f"the upstream suite did not run (pytest exit {proc.returncode}):\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    results = {"|".join(k): v for k, v in parse_junit(junit).items()}
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"results": results, "cpu": cpu}


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        run = run_auto_suite(out)
        took = time.perf_counter() - start
    results = {tuple(k.split("|")): v for k, v in run["results"].items()}
    print("| shape | configuration | passed | failed | skipped |\n|---|---|---|---|---|")
    for shape in SHAPES:
        for prefix in ("Hf", "Bp"):
            st = [r["status"] for (c, _, _), r in results.items() if c == prefix + shape]
            print(f"| {shape} | {prefix} | {st.count('passed')} | {st.count('failed')} | {st.count('skipped')} |")
    for (c, kind, name), r in sorted(results.items()):
        if c.startswith("Bp") and r["status"] != "passed":
            hf = results.get(("Hf" + c[2:], kind, name), {}).get("status")
            print(f"- {c} {name}: {r['status']} (transformers: {hf}) {r['message'].splitlines()[0][:200] if r['message'] else ''}")
    print(f"\nsuite run: {took:.1f} s wall, {run['cpu']:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())

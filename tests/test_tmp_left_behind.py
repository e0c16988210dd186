"""scripts/tmp_left_behind.py, which `make pytest` runs the quick tier under so that a run that leaves
something in /tmp fails (issue 24: `make test` leaves nothing behind). Each case in a temporary
directory of its own (TMPDIR), not /tmp."""

import os
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "tmp_left_behind.py")
LEAVES = "import tempfile; tempfile.mkdtemp(prefix='left-')"
CLEANS = "import shutil, tempfile; shutil.rmtree(tempfile.mkdtemp(prefix='gone-'))"


def run(tmp_path, code, **env):
    temp = tmp_path / "temp"
    temp.mkdir(exist_ok=True)
    (temp / "there-before").mkdir(exist_ok=True)
    environ = dict(os.environ, TMPDIR=str(temp), **env)
    return subprocess.run([sys.executable, SCRIPT, "--", sys.executable, "-c", code], env=environ,
                          capture_output=True, text=True, timeout=60)


def test_an_entry_left_behind_fails_the_run_and_is_named(tmp_path):
    p = run(tmp_path, LEAVES)
    assert p.returncode == 1
    assert "left 1 entry in" in p.stderr and "left-" in p.stderr and "there-before" not in p.stderr


def test_warn_reports_without_failing(tmp_path):
    p = run(tmp_path, LEAVES, BERTPIECE_TMP_CHECK="warn")
    assert p.returncode == 0 and "left 1 entry in" in p.stderr


def test_a_clean_run_passes_silently(tmp_path):
    p = run(tmp_path, CLEANS)
    assert p.returncode == 0 and p.stderr == ""


@pytest.mark.parametrize("code", ["raise SystemExit(3)", LEAVES + "; raise SystemExit(3)"])
def test_the_commands_own_failure_is_its_status(tmp_path, code):
    assert run(tmp_path, code).returncode == 3

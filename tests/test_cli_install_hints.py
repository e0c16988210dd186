"""What the user is told to install or read must exist where they are (issue 24):
bertpiece is not on PyPI, so no hint may say `pip install "bertpiece[...]"`;
missing optional modules give an ImportError naming what to install; every
--help links documentation that exists (the repository's docs/, named in
pyproject's [project.urls]), not a docs/ folder the wheel does not carry."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

import pytest

from bertpiece.cli import DOCS_URL, main
from terminal import REPO, SRC

ROOT = REPO


def _texts():
    """(path, text) of every file a user reads hints in: the package's code, docs/, README."""
    paths = [os.path.join(ROOT, "README.md")]
    for folder, _, names in os.walk(os.path.join(ROOT, "docs")):  # docs/benchmarks/ too
        paths += [os.path.join(folder, n) for n in names if n.endswith(".md")]
    for folder, _, names in os.walk(os.path.join(SRC, "bertpiece")):
        paths += [os.path.join(folder, n) for n in names if n.endswith(".py")]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            yield os.path.relpath(path, ROOT), f.read()


ASSUMES_PYPI = [
    re.compile(r"(?<![\w/.*-])bertpiece\["),  # "bertpiece[cli]": an extra of a PyPI package
    # pip install/download ... bertpiece (a package name; a path such as dist/bertpiece-0.1.0-....whl is fine)
    re.compile(r"pip (?:install|download)(?:[ \t]+(?:[^\s;&|#`'\"]+|\"[^\"\n]*\"|'[^'\n]*'))*?[ \t]+[\"']?bertpiece"
               r"[\"']?(?![\w\[/.-])"),
    re.compile(r"[\"']pip[\"']\s*:\s*\[\s*[\"']bertpiece[\"']"),  # Ray runtime_env={"pip": ["bertpiece"]}
]


def test_no_install_hint_assumes_bertpiece_is_on_pypi():
    found = [(path, m.group(0)) for path, text in _texts() for rx in ASSUMES_PYPI for m in rx.finditer(text)]
    assert found == []


@pytest.mark.parametrize("code, message", [
    ("import bertpiece.ray_data", 'bertpiece.ray_data needs pyarrow and Ray Data: pip install pyarrow "ray[data]"'),
    ("import bertpiece.arrow", "bertpiece.arrow needs pyarrow: pip install pyarrow"),
])
def test_missing_pyarrow_is_one_clear_import_error(code, message):
    # a fresh interpreter: pyarrow blocked before anything imports it (tests/preloaded.py's has bertpiece imported)
    proc = subprocess.run([sys.executable, "-c", f"import sys; sys.modules['pyarrow'] = None; {code}"],
                          capture_output=True, text=True, env={"PYTHONPATH": SRC, "PATH": ""})
    assert proc.returncode == 1
    assert proc.stderr.rstrip().endswith(f"ImportError: {message}")
    assert "ModuleNotFoundError" not in proc.stderr  # no second, raw traceback chained to it


def test_missing_ray_is_a_clear_import_error():
    code = ("import sys; sys.modules['ray'] = None; import bertpiece.ray_data as r; "
            "r.tokenize_dataset(object(), column='text')")
    # a fresh interpreter: Ray blocked before anything imports it
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": SRC, "PATH": ""})
    assert proc.stderr.rstrip().endswith(
        'ImportError: bertpiece.ray_data.tokenize_dataset needs Ray Data: pip install pyarrow "ray[data]"')
    assert "ModuleNotFoundError" not in proc.stderr


def test_project_urls_and_the_docs_url_agree():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        urls = tomllib.load(f)["project"]["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Source", "Issues"}
    assert DOCS_URL.startswith(urls["Source"] + "/blob/main/docs/")
    assert urls["Documentation"] == urls["Source"] + "/tree/main/docs"


@pytest.mark.parametrize("command", [[], ["tokenize"], ["encode"], ["info"], ["parity"], ["train"]])
def test_help_links_documentation_that_exists(capsys, command):
    """`train --help` pointed to docs/train.md, which a wheel does not install."""
    with pytest.raises(SystemExit) as e:
        main([*command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    links = re.findall(re.escape(DOCS_URL) + r"([\w.-]+\.md)", out)
    assert links, out  # every command says where its documentation is
    assert all(os.path.isfile(os.path.join(ROOT, "docs", name)) for name in links)
    # any other mention of docs/ would be a path in a checkout the user may not have
    assert out.count("docs/") == len(links)

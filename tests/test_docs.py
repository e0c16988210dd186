"""Every code block of README.md and docs/**/*.md runs as written (issues 17 and 24), so no example drifts.

Conventions (what a block's fence says decides how it runs):
- ```python: each block runs by itself, as a script, as in a fresh interpreter (so every block is
  self-contained: copy one, it runs): `python block.py` in a forked child of an interpreter that has
  imported bertpiece and transformers already (tests/preloaded.py, which gives the same status and output
  as a fresh interpreter; BERTPIECE_TEST_FRESH=1 runs fresh ones). A line `x = ...  # value`, `print(expr)  # value` or
  `expr  # value` whose comment is a Python literal asserts that value right there.
- ```sh: the block runs under `bash -euo pipefail`; it must exit 0.
- ```console: `$ command` lines run in one bash script; their combined stdout and stderr must equal
  the block's other lines, up to what differs from run to run (times, MB/s, versions: NORMALIZE).
- ```text: output, synopsis or data, never run; it must not be a runnable command.
- A fence without a language is an error (say which of the above it is).
Identical blocks (a README quickstart repeated in docs/) run once, under the first one's name.
Every block runs in a fresh temporary directory in which samples/, benches/ and tests/data/ are links to the
checkout's (the paths the docs use), with this interpreter first on PATH, Hugging Face hub access
off (HF_HUB_OFFLINE=1: an example that would download fails) and LC_ALL=C.UTF-8.

A block that cannot run here (a real cluster, the benchmark corpus, the whole test suite) is preceded
by the visible line `_Not run by tests/test_docs.py: REASON._`; REASON must be one of NOT_RUN's keys,
whose check confirms that the block is what the reason says.
"""

from __future__ import annotations

import ast
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from preloaded import run_python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DOCS = [README] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))  # docs/benchmarks/ too
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```\s*$", re.M | re.S)
MARKER = re.compile(r"^_Not run by tests/test_docs\.py: (.+?)\._$")


def _mentions(*needles):
    return lambda code: all(n in code for n in needles)


def _file_holds(path, needle):
    def check(code):
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            return needle in code and needle in f.read()
    return check


# The only reasons a block may be left out, each with what the block must then be.
NOT_RUN = {
    "needs a Ray cluster and object storage": _mentions('address="auto"', "s3://"),
    "run by tests/test_ray_cluster.py, which starts and stops the two nodes": _file_holds(
        "tests/test_ray_cluster.py", "--block"),
    "needs the benchmark corpus ../shared/data and runs for minutes": lambda code: (
        "benches/" in code or "cargo bench" in code),
    "the whole test suite, which this test is part of": lambda code: "make test" in code or "make install-test" in code,
    "builds and installs the package from source": _mentions("pip install", '".[cli]"'),
}

# Run-to-run differences in console output, replaced on both sides before comparing.
NORMALIZE = [
    (re.compile(r"\d[\d.]* s, \d[\d.]* MB/s"), "<seconds> s, <rate> MB/s"),
    (re.compile(r"resumed at row [\d,]+"), "resumed at row <row>"),  # where the kill landed
    (re.compile(r"threads available: \d+"), "threads available: <n>"),
    (re.compile(r"\b\d+\.\d+\.\d+\b"), "<version>"),
    # The plain progress lines of a long command not on a terminal come only after 10 s (terminal/
    # progress.py), so whether a block shows one depends on the machine's load: never expected.
    (re.compile(r"^bertpiece (?:encode|train|parity): (?:encoding|counting|merging|comparing|(?:writing|assembling) \S+)(?: \d+%)?, [^\n]*\n",
                re.M), ""),
]
LANGS = {"python", "sh", "console", "text"}


def _blocks():
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.match(before)
            yield os.path.relpath(path, ROOT), line, m.group(1), m.group(2), marker and marker.group(1)


BLOCKS = list(_blocks())
# Identical blocks (the README's quickstarts repeated in docs/) run once, under their first place.
RUN = list({(b[2], b[3]): b for b in reversed(BLOCKS) if b[2] in ("python", "sh", "console") and not b[4]}.values())[::-1]


def _workdir(tmp_path):
    os.symlink(os.path.join(ROOT, "samples"), tmp_path / "samples")
    os.symlink(os.path.join(ROOT, "benches"), tmp_path / "benches")
    (tmp_path / "tests").mkdir()
    os.symlink(os.path.join(ROOT, "tests", "data"), tmp_path / "tests" / "data")
    return tmp_path


def _env():
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", LC_ALL="C.UTF-8", NO_COLOR="1")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.pop("COLUMNS", None)
    return env


PROSE = object()


def _literal(comment):
    try:
        ast.literal_eval(comment)
        return comment
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return PROSE  # prose, not a value


def _with_value_checks(code, where, first_line=1):
    """`x = e  # v` -> `x = e; _check(x, v)` on the same line (line numbers stay the .md's)."""
    out, checked = [], 0
    for i, line in enumerate(code.splitlines()):
        m = re.match(r"^(\s*)(\S.*?)\s{2,}# (.+)$", line)
        if m and _literal(m.group(3)) is not PROSE:
            indent, stmt, value = m.group(1), m.group(2), m.group(3)
            label = f"{where}:{first_line + i}: {stmt}"
            try:
                node = ast.parse(stmt).body[0]
            except SyntaxError:
                node = None
            call = "__import__('_docs_check')"
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                line = f"{indent}{stmt}; {call}.check({node.targets[0].id}, {value}, {label!r})"
                checked += 1
            elif isinstance(node, ast.Expr) and re.match(r"^print\((.*)\)$", stmt):
                line = f"{indent}{call}.check_print(({stmt[6:-1]}), {value}, {label!r})"
                checked += 1
            elif isinstance(node, ast.Expr):
                line = f"{indent}{call}.check(({stmt}), {value}, {label!r})"
                checked += 1
        out.append(line)
    return "\n".join(out) + "\n", checked


CHECK_MODULE = '''
def _plain(v):
    return v.tolist() if hasattr(v, "tolist") else v

def check(value, expected, where):
    assert _plain(value) == expected, f"{where}: got {_plain(value)!r}"

def check_print(value, expected, where):
    print(value)
    check(value, expected, where)
'''


def _normalize(text):
    text = "\n".join(line.rstrip() for line in text.strip("\n").splitlines())
    for pattern, repl in NORMALIZE:
        text = pattern.sub(repl, text)
    return text


# A block that starts a Ray cluster takes a minute of two cores: it runs in `make test-slow`, alone.
BLOCK_PARAMS = [pytest.param(*b, id=f"{b[0]}:{b[1]}", marks=[pytest.mark.slow, pytest.mark.cluster] if "ray.init(" in b[3] else [])
                for b in RUN]


@pytest.mark.parametrize("doc, line, lang, code, reason", BLOCK_PARAMS)
def test_block_runs_as_written(tmp_path, doc, line, lang, code, reason):
    cwd = _workdir(tmp_path)
    if lang == "python":
        source, _ = _with_value_checks(code, doc, line + 1)
        (cwd / "_docs_check.py").write_text(CHECK_MODULE)
        script = cwd / f"{os.path.basename(doc)}_{line}.py"
        script.write_text("\n" * line + source, encoding="utf-8")  # tracebacks name the .md's lines
        argv = [sys.executable, str(script)]
        # ray.init() starts a cluster of processes that outlive the block's first import: a fresh one
        preload = "ray.init(" not in code
    elif lang == "sh":
        argv = ["bash", "-euo", "pipefail", "-c", code]
    else:
        commands = [ln[2:] for ln in code.splitlines() if ln.startswith("$ ")]
        expected = "\n".join(ln for ln in code.splitlines() if not ln.startswith("$ "))
        argv = ["bash", "-c", "exec 2>&1\n" + "\n".join(commands)]
    # Whatever a block leaves in temp is removed with a temp dir of its own (short: Ray puts sockets there).
    temp = tempfile.mkdtemp(prefix="bpdoc")
    try:
        env = dict(_env(), TMPDIR=temp)
        if lang == "python" and preload:  # as `python block.py` in a fresh interpreter (tests/preloaded.py)
            proc = run_python(argv[1:], cwd=cwd, env=env, text=True, timeout=240)
        else:
            proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert proc.returncode == 0 or lang == "console", f"{doc}:{line}\n{proc.stdout}\n{proc.stderr}"
    if lang == "console":
        assert _normalize(proc.stdout) == _normalize(expected), f"{doc}:{line}\n{proc.stderr}"
    assert not proc.stderr.count("Traceback"), f"{doc}:{line}\n{proc.stderr}"


def test_every_block_is_run_or_says_why_not():
    assert len(RUN) >= 25
    for doc, line, lang, code, reason in BLOCKS:
        where = f"{doc}:{line}"
        assert lang in LANGS, f"{where}: fence language {lang!r}; use one of {sorted(LANGS)}"
        if reason:
            assert reason in NOT_RUN, f"{where}: not-run reason {reason!r} is not one of NOT_RUN's"
            assert lang in ("sh", "python", "console") and NOT_RUN[reason](code), f"{where}: {reason!r} does not fit"
        if lang == "text":
            first = code.lstrip().splitlines()[0] if code.strip() else ""
            runnable = re.match(r"(\$ |python3? |make |cargo |pip |bertpiece (?!\w+:))", first)  # not its output
            synopsis = re.search(r"\b[A-Z]{4,}\b|\[--?\w", first)  # bertpiece encode INPUT -o OUTPUT [options]
            assert not runnable or synopsis, f"{where}: a command in a text block: make it sh or console"


def test_value_comments_are_checked():
    """The `x = ...  # value` convention is live: the README's examples check values."""
    checked = sum(_with_value_checks(code, doc)[1] for doc, _, lang, code, reason in RUN
                  if lang == "python" and doc == "README.md")
    assert checked >= 4


def test_set_up_makes_a_virtualenv_before_pip_and_names_rust():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Set up"):text.index("## Use")]
    setup = re.findall(r"```sh\n(.*?)```", section, flags=re.S)[0]
    assert setup.index("-m venv") < setup.index("pip install")
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        msrv = re.search(r'^rust-version = "(.+)"', f.read(), flags=re.M).group(1)
    assert f"Rust toolchain ≥ {msrv}" in section


def test_bench_encode_names_a_missing_corpus(tmp_path):
    """docs/benchmarks/encode-command.md: without ../shared the quick check stops with one line naming the path."""
    missing = tmp_path / "shared" / "en-large.txt"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benches", "bench_encode.py"), "--corpus", str(missing),
                           "--scales", "1", "--limit-mb", "2"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and str(missing) in proc.stderr and "Traceback" not in proc.stderr


def _heading_anchors(text):
    """The #fragments GitHub gives a Markdown file's headings (lowercased, punctuation dropped, spaces
    to hyphens, a repeated heading suffixed -1, -2...); headings inside code blocks are not headings."""
    seen, anchors = {}, set()
    for m in re.finditer(r"^#{1,6} (.+?)\s*$", FENCE.sub("", text), re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def test_relative_links_and_their_anchors_exist():
    """A link into the docs names a file and a heading that exist (sections move between files)."""
    broken = []
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", text)):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                broken.append((os.path.relpath(path, ROOT), target))
            elif anchor and dest.endswith(".md"):
                with open(dest, encoding="utf-8") as f:
                    if anchor not in _heading_anchors(f.read()):
                        broken.append((os.path.relpath(path, ROOT), target))
    assert broken == []

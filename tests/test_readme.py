"""The README's examples run as written (issue 17: `FullTokenizer(vocab_file="vocab.txt")`
failed for lack of a vocab.txt), and an `x = ...  # value` comment states x's value."""

import ast
import os
import re

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def blocks(lang):
    with open(README, encoding="utf-8") as f:
        return re.findall(rf"```{lang}\n(.*?)```", f.read(), flags=re.S)


def test_python_examples_run_and_their_comments_hold(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no vocab.txt or other file of the checkout to lean on
    namespace = {}
    code = "\n".join(blocks("python"))
    assert "import bertpiece" in code
    exec(compile(code, README, "exec"), namespace)
    checked = 0
    for line in code.splitlines():
        m = re.match(r"^(\w+) = .*?  # (.+)$", line)
        if not m:
            continue
        try:
            expected = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError):
            continue  # prose, not a value
        exec(compile(line.split("  #")[0], README, "exec"), namespace)
        assert namespace[m.group(1)] == expected, line
        checked += 1
    assert checked >= 1


def test_set_up_makes_a_virtualenv_before_pip_and_names_rust():
    setup = blocks("sh")[0]
    assert setup.index("-m venv") < setup.index("pip install")
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Set up"):text.index("## Use")]
    with open(os.path.join(os.path.dirname(README), "Cargo.toml"), encoding="utf-8") as f:
        msrv = re.search(r'^rust-version = "(.+)"', f.read(), flags=re.M).group(1)
    assert f"Rust toolchain ≥ {msrv}" in section

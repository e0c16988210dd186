"""bertpiece.oracle refuses a unicodedata2 whose Unicode version is not the pinned one.

unicodedata2 18 moved U+0897 out of category Mn: with it installed the oracle
used to strip the character ('a\\u0897b' -> ['ab']) while the core, on 17.0,
keeps it. A stand-in unicodedata2 that reports Unicode 18.0.0 (and otherwise is
the real one) must make `import bertpiece.oracle` fail naming both versions.
"""

import os
import subprocess
import sys
import textwrap

import bertpiece
from bertpiece import oracle

STAND_IN = textwrap.dedent("""
    import sys
    sys.path.remove({here!r})
    _me = sys.modules.pop("unicodedata2")
    import unicodedata2 as _real
    sys.modules["unicodedata2"] = _me
    globals().update({{k: getattr(_real, k) for k in dir(_real) if not k.startswith("__")}})
    unidata_version = "18.0.0"
""")


def test_oracle_uses_the_pinned_version():
    assert oracle.UNICODE_VERSION == bertpiece.UNICODE_VERSION
    assert oracle.FullTokenizer(bertpiece.vocab_path("bert-base-uncased")).tokenize("a\u0897b") \
        == bertpiece.FullTokenizer.from_pretrained("bert-base-uncased").tokenize("a\u0897b")


def test_another_unicode_version_is_refused(tmp_path):
    (tmp_path / "unicodedata2.py").write_text(STAND_IN.format(here=str(tmp_path)))
    code = ("import unicodedata2; assert unicodedata2.unidata_version == '18.0.0'\n"
            "import bertpiece.oracle")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    # a fresh interpreter: the check runs when bertpiece.oracle is first imported
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("bertpiece.oracle.UnicodeVersionMismatch: ")
    assert f"Unicode {oracle.UNICODE_VERSION}" in last and "Unicode 18.0.0" in last
    assert 'pip install "unicodedata2==17.0.*"' in last

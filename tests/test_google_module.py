"""`import bertpiece as tokenization` is Google's module: its own
tokenization_test.py (shipped in bert-tensorflow) runs unmodified against
bertpiece, and the character classes it calls (`_is_whitespace`,
`_is_control`, `_is_punctuation`) agree with the real module's on every code
point (at the pinned Unicode version, where the interpreter's differs)."""

import os
import subprocess
import sys
import unicodedata

import pytest
import unicodedata2

import bertpiece
from bertpiece import oracle
from google_reference import load_google

google = load_google()
GOOGLE_TEST = os.path.join(os.path.dirname(google.__file__), "tokenization_test.py")

# Runs Google's test file with `from bert import tokenization` bound to
# bertpiece and `tensorflow.compat.v1` a stand-in giving tf.test (absltest).
HARNESS = r"""
import json, runpy, sys, types, unittest
from absl import flags
from absl.testing import absltest
import bert, bertpiece

class TestCase(absltest.TestCase):
    def assertAllEqual(self, a, b):
        self.assertEqual(list(a), list(b))

v1 = types.ModuleType("tensorflow.compat.v1")
v1.test = types.SimpleNamespace(TestCase=TestCase, main=absltest.main)
compat = types.ModuleType("tensorflow.compat")
compat.v1 = v1
tf = types.ModuleType("tensorflow")
tf.compat = compat
sys.modules.update({"tensorflow": tf, "tensorflow.compat": compat, "tensorflow.compat.v1": v1,
                    "bert.tokenization": bertpiece})
bert.tokenization = bertpiece
test = runpy.run_path(sys.argv[1], run_name="google_tokenization_test")
assert test["tokenization"] is bertpiece
flags.FLAGS(["google_tokenization_test"])
result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(
    unittest.defaultTestLoader.loadTestsFromTestCase(test["TokenizationTest"]))
bad = {t.id().rsplit(".", 1)[-1]: err.strip().splitlines()[-1] for t, err in result.failures + result.errors}
print(json.dumps({"run": result.testsRun, "bad": bad}))
"""


def test_googles_own_tokenization_test_passes_against_bertpiece():
    # (the bertpiece under test: the subprocess imports what this process imported)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(bertpiece.__file__)),
                                                       os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", HARNESS, GOOGLE_TEST], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = __import__("json").loads(r.stdout.strip().splitlines()[-1])
    # All ten, with the one that sets Google's absl flag --preserve_unused_tokens
    # (bertpiece defines it when absl is loaded and reads it at each call).
    assert out["run"] == 10
    assert out["bad"] == {}, out["bad"]


@pytest.mark.parametrize("name", ["_is_whitespace", "_is_control", "_is_punctuation"])
def test_character_classes_match_googles_on_every_code_point(name):
    ours, theirs = getattr(bertpiece, name), getattr(google, name)
    assert getattr(bertpiece.tokenization, name) is ours
    pinned = {"_is_whitespace": oracle._is_whitespace, "_is_punctuation": oracle._is_punctuation,
              "_is_control": lambda c: oracle._is_control(c, "google")}[name]
    compared = 0
    for cp in range(0x110000):
        ch = chr(cp)
        if unicodedata.category(ch) == unicodedata2.category(ch):
            assert ours(ch) is theirs(ch), hex(cp)
            compared += 1
        else:  # a category the interpreter's older Unicode data gives otherwise
            assert ours(ch) is pinned(ch), hex(cp)
    assert compared > 0x100000


@pytest.mark.parametrize("name", ["_is_whitespace", "_is_control", "_is_punctuation"])
@pytest.mark.parametrize("arg", ["ab", "", " \t", b"a", None])
def test_character_classes_refuse_what_googles_refuses(name, arg):
    try:
        want = getattr(google, name)(arg)
    except Exception as e:
        with pytest.raises(type(e)):
            getattr(bertpiece, name)(arg)
    else:
        assert getattr(bertpiece, name)(arg) is want

"""Arguments Google's tokenization.py accepts are accepted: do_lower_case as 0/1
(its code only tests `if do_lower_case:`) and a bytes or PathLike vocabulary path
(tf.gfile opens all three). Compared against the real module."""

import pathlib

import numpy as np
import pytest

import bertpiece
from google_reference import load_google, vocab_path

google = load_google()
CASED = vocab_path("bert-base-cased")
TEXT = "Héllo WORLD, unaffable Straße!"


@pytest.mark.parametrize("flag", [0, 1, True, False, np.int64(1), np.bool_(False)])
def test_do_lower_case_as_an_integer(flag):
    theirs = google.FullTokenizer(CASED, do_lower_case=flag).tokenize(TEXT)
    assert bertpiece.FullTokenizer(CASED, do_lower_case=flag).tokenize(TEXT) == theirs
    assert bertpiece.FullTokenizer(CASED, flag).do_lower_case is bool(flag)
    assert bertpiece.BasicTokenizer(do_lower_case=flag).tokenize(TEXT) \
        == google.BasicTokenizer(do_lower_case=flag).tokenize(TEXT)


@pytest.mark.parametrize("bad", ["False", None, 1.0, [1]])
def test_do_lower_case_of_another_type_is_a_type_error(bad):
    # Google's would treat "False" as true: refuse instead of guessing.
    with pytest.raises(TypeError, match=f"do_lower_case must be a bool.*{type(bad).__name__}"):
        bertpiece.FullTokenizer(CASED, do_lower_case=bad)
    with pytest.raises(TypeError, match="do_lower_case"):
        bertpiece.BasicTokenizer(do_lower_case=bad)


@pytest.mark.parametrize("kind", [str, bytes, pathlib.Path])
def test_vocab_path_as_str_bytes_or_pathlike(kind):
    path = kind(CASED.encode()) if kind is bytes else kind(CASED)
    theirs = google.FullTokenizer(CASED, do_lower_case=False)
    ours = bertpiece.FullTokenizer(path, do_lower_case=False)
    assert ours.tokenize(TEXT) == theirs.tokenize(TEXT)
    assert ours.vocab_file == CASED
    assert bertpiece.load_vocab(path) == google.load_vocab(CASED)


def test_a_non_path_vocab_file_is_a_type_error():
    with pytest.raises(TypeError, match="vocab_file must be a path.*int"):
        bertpiece.FullTokenizer(3)

"""What the tests of the BERT bulk call's readers share (tests/test_bulk_fed.py,
tests/test_bulk_streamed.py): the UD lines, some holding an added token, the
tokenizer and a batch's rows."""

import os

import numpy as np

import bertpiece
from google_reference import data_files, read_lines

VOCAB = os.path.join(os.path.dirname(bertpiece.__file__), "vocab")
LINES = [line for f in data_files() for line in read_lines(f)[::7]]
LINES = [line + " [SEP] y" if k % 131 == 3 else line for k, line in enumerate(LINES)]


def rows(batch):
    return np.split(batch.ids, batch.row_splits[1:-1])

"""The stateful differential fuzzer (tests/fuzz/stateful.py) in CI: random
sequences of calls and state changes on bertpiece.BertTokenizer and
transformers' BertTokenizer (reference="tokenizers") / BertTokenizerLegacy
(reference="transformers"), failing on the first difference with the
shrunk sequence of steps. Bounded: BERTPIECE_STATEFUL_EXAMPLES sequences
(default 20) of up to BERTPIECE_STATEFUL_STEPS steps (default 25) per
reference; derandomized when CI=true (conftest.py). Longer: `make fuzz`.
Comparisons switched off for reported, still open defects: fuzz/known_open.py.
"""

import os

from hypothesis import settings

from fuzz.stateful import BertTokenizerMachine, LegacyMachine

EXAMPLES = int(os.environ.get("BERTPIECE_STATEFUL_EXAMPLES", "20"))
STEPS = int(os.environ.get("BERTPIECE_STATEFUL_STEPS", "25"))
# Derandomized here always (make test, CI): the same sequences every run, so a fresh clone's test run
# does not turn red on an unclassified difference a random seed reached; `make fuzz` explores.
BOUNDED = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True, database=None)

TestTokenizersMode = BertTokenizerMachine.TestCase
TestTokenizersMode.settings = BOUNDED
TestLegacyMode = LegacyMachine.TestCase
TestLegacyMode.settings = BOUNDED

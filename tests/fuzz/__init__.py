"""Differential fuzzing of bertpiece against the real libraries (issue 17).

Random *options* found the bugs random texts never did, so a case is a whole
call: tokenizer settings, added/special tokens, and `__call__` / `encode` /
`decode` / `encode_batch` arguments, drawn from a seeded generator
(cases.py), run on bertpiece and on transformers' `BertTokenizer` or
`BertTokenizerLegacy` and compared (compare.py). "core" cases compare the Rust
core with the oracle (google, transformers) or HF tokenizers (tokenizers) on
weighted-random Unicode (unicode_text.py).

- tests/test_fuzz.py: a bounded seeded run in CI, plus every saved case in
  regressions/ replayed.
- `make fuzz MINUTES=N` (campaign.py): a long campaign; prints cases/s and
  saves each failing case to regressions/ as a new regression test.
"""

"""Hypothesis strategies for the stateful machine (stateful.py): texts built
from fragments that reach every stage (words, special and added tokens,
punctuation, spaces, marks, CJK, emoji, controls), added-token specs, call
options (cases.py's value lists) and ids to decode."""

from __future__ import annotations

from hypothesis import strategies as st

from .cases import PADDING, SPECIAL_IN_TEXT, TRUNCATION
from .unicode_text import GROUPS, WORDS

# Candidate added tokens. Lowercase ASCII ones reach both sides verbatim; "Xyzzy" and
# "Über" are changed by normalization (docs/bert_tokenizer.md's "normalized added
# tokens" row: the machine models it, see stateful.py _normalized_match_differs).
ADDED_POOL = ["qzxtok", "zzwq", "<ent>", "[NEW]", "Xyzzy", "Über", "hello", "ab cd", "##zz"]
SPECIAL_NAMES = ["pad_token", "cls_token", "sep_token", "unk_token", "mask_token"]
# Values a special-token attribute gets: None, vocabulary tokens, the pool (added or not), new strings.
SPECIAL_VALUES = [None, None, None, "[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]", "[unused1]", "<m>"] + ADDED_POOL

_CHARS = "".join(chars for _, chars in GROUPS if not any(0xD800 <= ord(c) <= 0xDFFF for c in chars))
FRAGMENT = st.one_of(
    st.sampled_from(WORDS + SPECIAL_IN_TEXT + ADDED_POOL),
    st.sampled_from(_CHARS),
    st.sampled_from([" ", " ", "  ", "\n", ".", ",", "'", "-"]),
)
TEXT = st.lists(FRAGMENT, max_size=14).map("".join)
WORD_LIST = st.lists(st.lists(FRAGMENT, min_size=0, max_size=3).map("".join), max_size=6)

# (content, lstrip, rstrip, normalized, single_word, special), or a plain str; each side
# gets its own AddedToken (transformers changes the objects it is given).
ADDED_SPEC = st.one_of(
    st.sampled_from(ADDED_POOL),
    st.tuples(st.sampled_from(ADDED_POOL), st.booleans(), st.booleans(), st.booleans(), st.booleans(),
              st.booleans()),
)

# A yes/no option, now and then an odd value (tokenizers mode refuses non-bools, as HF's Rust side;
# legacy reads them by truthiness): the class of bug ordinary draws never reached.
FLAG = st.booleans() | st.sampled_from([0, 1, 2, None, ""])

MAX_LENGTH = st.one_of(st.integers(0, 40), st.integers(-2, 3), st.just(512))

CALL_OPTIONS = st.fixed_dictionaries({}, optional={
    "add_special_tokens": FLAG,
    "padding": st.sampled_from(PADDING),
    "truncation": st.sampled_from(TRUNCATION),
    "max_length": MAX_LENGTH,
    "stride": st.sampled_from([0, 1, 2, 5, -1]),
    "return_overflowing_tokens": st.booleans(),
    "pad_to_multiple_of": st.sampled_from([1, 2, 3, 8, 0]),
    "padding_side": st.sampled_from(["left", "right"]),
    "truncation_side": st.sampled_from(["left", "right"]),
    "return_token_type_ids": FLAG,
    "return_attention_mask": FLAG,
    "return_special_tokens_mask": FLAG,
    "return_offsets_mapping": FLAG,
    "return_length": FLAG,
    "return_tensors": st.sampled_from([None, "np", "pt"]),
})

PAD_OPTIONS = st.fixed_dictionaries({}, optional={
    "padding": st.sampled_from([True, False, "longest", "max_length"]),
    "max_length": st.integers(0, 30),
    "pad_to_multiple_of": st.sampled_from([2, 3, 8]),
    "padding_side": st.sampled_from(["left", "right"]),
    "return_attention_mask": st.booleans(),
    "return_tensors": st.sampled_from([None, "np", "pt"]),
})

DECODE_OPTIONS = st.fixed_dictionaries({}, optional={
    "skip_special_tokens": FLAG,
    "clean_up_tokenization_spaces": st.booleans(),
})

# Ids: specials, common words, the first added ids, -100 (label padding), too large;
# now and then not an int at all (decode must refuse those as transformers does).
ID = st.one_of(
    st.sampled_from([0, 100, 101, 102, 103, 1037, 2088, 7592, 1, 30522, 30523, 30524, 30525]),
    st.integers(0, 30600),
    st.sampled_from([-100, -1, 10**6]),
)
ODD_ID = st.sampled_from([1.0, 2.5, "7", None, True])
IDS = st.one_of(st.lists(ID, max_size=12), st.lists(st.one_of(ID, ODD_ID), min_size=1, max_size=4))
TOKENS = st.lists(st.sampled_from(ADDED_POOL + SPECIAL_IN_TEXT + ["hello", "##s", "nope-not", ""]), max_size=5)

"""Random cases: a tokenizer (reference, vocabulary, options, added tokens) and
one call with random arguments. A case is plain JSON data, so a failing one
is saved as is (regressions/) and replayed by the test suite.

The arguments cover what users pass, mistakes included: pairs (and empty
second texts), every truncation strategy, stride (negative too) and overflow,
every padding mode, pad_to_multiple_of, both sides, added and special tokens
in the text, pre-tokenized input, every return_* flag, odd values of each
option (ints and None for flags, bools and floats for sizes, NumPy scalars,
enum members), and decode of ids that are special, added, -100 or out of range.
"""

from __future__ import annotations

import functools
import json
import random

from .unicode_text import random_text

MODELS = {"bert-base-uncased": 4, "bert-base-cased": 2, "bert-base-multilingual-cased": 2, "bert-base-chinese": 1}
# Added-token sets (token, special). Non-special ones are lowercase ASCII and inserted
# verbatim: HF matches non-special added tokens in the normalized text, bertpiece in
# the raw text (a documented difference), which verbatim insertion does not reach.
ADDED = [[], [], [["qzxtok", False]], [["<ent>", True]],
         [["qzxtok", False], ["<ent>", True], ["zzwq", False], ["[NEW]", True]]]
SPECIAL_IN_TEXT = ["[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"]
TRUNCATION = [False, True, "longest_first", "only_first", "only_second", "do_not_truncate"]
PADDING = [False, True, "longest", "max_length", "do_not_pad"]
KINDS = {"call": 10, "encode": 2, "decode": 2, "encode_batch": 2, "core": 4}
# Odd values (the class of bugs random *ordinary* options never reached: a flag given as 2 or None, a
# size given as True, 8.0 or 2**64, an enum member). JSON-safe: {"np": ...} / {"enum": ...} stand for
# NumPy scalars and transformers' enums (compare.py's `odd_value` makes them).
ODD_FLAG = [None, 0, 1, 2, -1, "", "yes", 8.0, {"np": "bool_", "v": True}, {"np": "bool_", "v": False},
            {"np": "int64", "v": 1}]
ODD_SIZE = [None, True, False, 8.0, 2**64, -1, 0, "", {"np": "int64", "v": 4}, {"np": "bool_", "v": True}]
ODD = {"padding": [None, 0, 1, "", "true", {"enum": "PaddingStrategy", "v": "longest"},
                   {"enum": "PaddingStrategy", "v": "max_length"}],
       "truncation": [None, 0, 1, "", {"enum": "TruncationStrategy", "v": "only_first"},
                      {"enum": "TruncationStrategy", "v": "longest_first"}],
       "return_tensors": ["", 0, {"enum": "TensorType", "v": "np"}],
       **{k: ODD_SIZE for k in ("max_length", "stride", "pad_to_multiple_of")},
       **{k: ODD_FLAG for k in ("add_special_tokens", "is_split_into_words", "return_token_type_ids",
                                "return_attention_mask", "return_overflowing_tokens", "return_special_tokens_mask",
                                "return_offsets_mapping", "return_length", "split_special_tokens")}}


def maybe(rng, p, value, default=None):
    return value if rng.random() < p else default


def tokenizer_spec(rng: random.Random, reference: str) -> dict:
    from bertpiece import PRETRAINED

    model = rng.choices(list(MODELS), list(MODELS.values()))[0]
    lower = PRETRAINED[model].hf_do_lower_case
    init = {"do_lower_case": (not lower) if rng.random() < 0.15 else lower}
    if rng.random() < 0.2:
        init["strip_accents"] = rng.choice([True, False])
    if rng.random() < 0.1:
        init["tokenize_chinese_chars"] = False
    if rng.random() < 0.25:
        init["truncation_side"] = rng.choice(["left", "right"])
    return {"reference": reference, "model": model, "init": init, "added": rng.choice(ADDED)}


POOL_BLOCK = 400  # cases drawing on one pool of tokenizers (building them dominates otherwise)


@functools.lru_cache(maxsize=2)
def spec_pool(seed: int, block: int) -> tuple:
    rng = random.Random(f"pool:{seed}:{block}")
    return tuple(json.dumps(tokenizer_spec(rng, reference)) for reference in ["tokenizers"] * 10 + ["transformers"] * 5)


def case_for(seed: int, i: int) -> dict:
    """Case `i` of the run seeded `seed` (the same on every machine and Python)."""
    return make_case(random.Random(f"{seed}:{i}"), spec_pool(seed, i // POOL_BLOCK))


def call_text(rng: random.Random, spec: dict, long: bool = False) -> str:
    """Text with, now and then, special and added tokens spliced in verbatim."""
    parts = [random_text(rng, 60 if long else 20, surrogates=False)]
    for _ in range(rng.choice([0, 0, 1, 2])):
        token = rng.choice(SPECIAL_IN_TEXT + [t for t, _ in spec["added"]])
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(["", " "]) + token + rng.choice(["", " "]))
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.08:
        return rng.choice([" ", "\t\n", "\u3000"])
    return "".join(parts)


def words(rng, spec):
    return [w for w in call_text(rng, spec).split(" ")][: rng.randrange(0, 8)] or rng.choice([[], [""], ["a"]])


def call_case(rng: random.Random, spec: dict) -> dict:
    pre = rng.random() < 0.15
    batch = rng.random() < 0.45
    pair = rng.random() < 0.35
    n = rng.randrange(0, 5) if batch else 1
    make = (lambda: words(rng, spec)) if pre else (lambda: call_text(rng, spec, long=rng.random() < 0.3))
    text = [make() for _ in range(n)] if batch else make()
    kwargs = {}
    if pair:
        if batch:
            kwargs["text_pair"] = [make() if rng.random() > 0.1 else ([] if pre else "") for _ in range(n)]
        else:
            kwargs["text_pair"] = make() if rng.random() > 0.2 else ([] if pre else "")
    if pre:
        kwargs["is_split_into_words"] = True
    kwargs["add_special_tokens"] = rng.random() < 0.85
    kwargs["padding"] = rng.choice(PADDING)
    kwargs["truncation"] = rng.choice(TRUNCATION)
    r = rng.random()
    if r < 0.6:
        kwargs["max_length"] = rng.choice([rng.randrange(0, 12), rng.randrange(0, 40), rng.randrange(-2, 3)])
    if rng.random() < 0.4:
        kwargs["stride"] = rng.choice([0, 1, 2, rng.randrange(0, 12), -1])
    if rng.random() < 0.3:
        kwargs["return_overflowing_tokens"] = True
    if rng.random() < 0.25:
        kwargs["pad_to_multiple_of"] = rng.choice([1, 2, 3, 8, 0])
    if rng.random() < 0.25:
        kwargs["padding_side"] = rng.choice(["left", "right"])
    for flag in ("return_token_type_ids", "return_attention_mask"):
        if rng.random() < 0.2:
            kwargs[flag] = rng.choice([True, False])
    for flag in ("return_special_tokens_mask", "return_offsets_mapping", "return_length"):
        if rng.random() < 0.2:
            kwargs[flag] = True
    if rng.random() < 0.15:
        kwargs["return_tensors"] = "np"
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):  # (drawn last: the ordinary draws stay as they were)
        name = rng.choice(sorted(ODD))
        kwargs[name] = rng.choice(ODD[name])
    return {"text": text, "kwargs": kwargs}


def random_ids(rng: random.Random, n: int) -> list:
    picks = [lambda: rng.randrange(0, 30000), lambda: rng.choice([0, 100, 101, 102, 103]),
             lambda: rng.choice([-100, -1, 10**6]), lambda: 30522 + rng.randrange(4)]
    return [rng.choices(picks, [10, 3, 1, 1])[0]() for _ in range(n)]


def make_case(rng: random.Random, pool) -> dict:
    kind = rng.choices(list(KINDS), list(KINDS.values()))[0]
    if kind == "core":
        return core_case(rng)
    spec = json.loads(rng.choice(pool))
    case = {"kind": kind, "tokenizer": spec}
    if kind == "call":
        case.update(call_case(rng, spec))
    elif kind == "encode":
        c = call_case(rng, spec)
        if isinstance(c["text"], list) and not c["kwargs"].get("is_split_into_words"):
            c["text"] = c["text"][0] if c["text"] else ""
            c["kwargs"].pop("text_pair", None)
        for flag in [k for k in c["kwargs"] if k.startswith("return_")]:
            del c["kwargs"][flag]
        case.update(c)
    elif kind == "decode":
        ids = random_ids(rng, rng.randrange(0, 20))
        kwargs = {}
        if rng.random() < 0.5:
            kwargs["skip_special_tokens"] = rng.choice([True, False])
        if rng.random() < 0.3:
            kwargs["clean_up_tokenization_spaces"] = rng.choice([True, False])
        if rng.random() < 0.2:
            kwargs["skip_special_tokens"] = rng.choice(ODD_FLAG)
        case.update(ids=ids if rng.random() < 0.8 else [ids, random_ids(rng, 5)], kwargs=kwargs)
    else:  # encode_batch: bertpiece's own batch API, vs the reference's __call__ ids
        kwargs = {"add_special_tokens": rng.random() < 0.8}
        if rng.random() < 0.5:
            kwargs["truncation"] = True
            kwargs["max_length"] = rng.randrange(2, 40)
        case.update(text=[call_text(rng, spec, long=rng.random() < 0.3) for _ in range(rng.randrange(0, 6))],
                    kwargs=kwargs)
    return case


def core_case(rng: random.Random) -> dict:
    """FullTokenizer (the core, general path and the one-pass encode) vs the oracle
    (google, transformers) or HF tokenizers (tokenizers), on weighted-random Unicode."""
    reference = rng.choice(["google", "transformers", "tokenizers"])
    model = rng.choices(list(MODELS), list(MODELS.values()))[0]
    options = {"do_lower_case": rng.random() < 0.6}
    if rng.random() < 0.3:
        options["strip_accents"] = rng.choice([True, False])
    if rng.random() < 0.15:
        options["tokenize_chinese_chars"] = False
    if reference != "tokenizers":
        if rng.random() < 0.15:
            options["do_split_on_punc"] = False
        if rng.random() < 0.15:
            options["never_split"] = rng.sample(["[MASK]", "hello", "Straße", "naïve", "##s"], 2)
        if rng.random() < 0.1:
            options["max_input_chars_per_word"] = rng.choice([1, 3, 10])
    texts = [random_text(rng, rng.choice([10, 40, 120]), surrogates=reference != "tokenizers")
             for _ in range(rng.randrange(1, 4))]
    return {"kind": "core", "reference": reference, "model": model, "options": options, "texts": texts}

"""Hypothesis on lengths and options, three-way: bertpiece == tokenizers 0.23.3
== bertpiece.oracle_trunc25, on a WordLevel file without a post-processor
(one id per word, so the oracle's id lists are the whole story), plus
bertpiece == tokenizers on whole encodings with a TemplateProcessing file."""

import string

import numpy as np
from hypothesis import given, settings, strategies as st
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, processors

import bertpiece
from bertpiece import oracle_trunc25 as oracle
from test_pipeline_trunc25 import configure, outcome, tree

VOCAB = {c: i for i, c in enumerate(string.ascii_lowercase)} | {"[UNK]": 26}


def plain_json(template=False):
    tok = HFTokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if template:
        tok.post_processor = processors.TemplateProcessing(
            single="[UNK] $A:0 z", pair="[UNK] $A:0 z $B:1 z:1", special_tokens=[("[UNK]", 26), ("z", 25)])
    return tok.to_str()


PLAIN, TEMPLATE = plain_json(), plain_json(template=True)
words = st.lists(st.sampled_from(string.ascii_lowercase[:25]), max_size=14) | st.lists(st.just("b"), min_size=6, max_size=14)
truncations = st.none() | st.fixed_dictionaries(dict(
    max_length=st.integers(0, 9), stride=st.integers(0, 4),
    strategy=st.sampled_from(["longest_first", "only_first", "only_second"]),
    direction=st.sampled_from(["right", "left"])))
paddings = st.none() | st.fixed_dictionaries(dict(
    length=st.none() | st.integers(0, 20), pad_to_multiple_of=st.none() | st.integers(0, 6),
    direction=st.sampled_from(["right", "left"]), pad_id=st.integers(0, 30)))


def settable(tok, trunc):
    try:
        configure(tok, trunc, None)
        return True
    except ValueError:  # stride not below max_length (HF refuses it too: test_pipeline_trunc25.py)
        return False


def as_dict(node):
    return {"ids": node.ids, "overflowing": [as_dict(o) for o in node.overflowing]}


def ids_only(t):
    return t if isinstance(t, tuple) else {"ids": t["ids"], "overflowing": [ids_only(o) for o in t["overflowing"]]}


def predict(a, b, trunc, pad):
    """The oracle's ids for one encode (no post-processor: nothing is added)."""
    ids_a, ids_b = [VOCAB[w] for w in a], None if b is None else [VOCAB[w] for w in b]
    try:
        if trunc is None:
            na, nb = oracle.Node(ids_a), None if ids_b is None else oracle.Node(ids_b)
        else:
            na, nb = oracle.truncate(ids_a, ids_b, trunc["max_length"], trunc["stride"], trunc["strategy"], trunc["direction"])
    except oracle.TruncationError as e:
        return ("stride panic",) if str(e).startswith("stride") else ("error", str(e))
    node = na if nb is None else oracle.merge(na, nb)
    if pad is not None:
        node = oracle.pad(node, oracle.target_length([len(node.ids)], pad["length"], pad["pad_to_multiple_of"]),
                          pad["pad_id"], pad["direction"])
    return as_dict(node)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(a=words, b=st.none() | words, trunc=truncations, pad=paddings)
def test_three_way_on_lengths_and_options(a, b, trunc, pad):
    ours, theirs = bertpiece.Tokenizer.from_str(PLAIN), HFTokenizer.from_str(PLAIN)
    if not (settable(ours, trunc) and settable(theirs, trunc)):
        return
    for t in (ours, theirs):
        configure(t, trunc, pad)
    pair = None if b is None else " ".join(b)
    want = outcome(lambda: theirs.encode(" ".join(a), pair))
    assert outcome(lambda: ours.encode(" ".join(a), pair)) == want
    assert ids_only(want) == predict(a, b, trunc, pad)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(batch=st.lists(st.tuples(words, st.none() | words), min_size=1, max_size=4), trunc=truncations, pad=paddings)
def test_batches_three_way(batch, trunc, pad):
    ours, theirs = bertpiece.Tokenizer.from_str(PLAIN), HFTokenizer.from_str(PLAIN)
    if not (settable(ours, trunc) and settable(theirs, trunc)):
        return
    for t in (ours, theirs):
        configure(t, trunc, pad)
    items = [" ".join(a) if b is None else (" ".join(a), " ".join(b)) for a, b in batch]
    want = outcome(lambda: theirs.encode_batch(items))
    assert outcome(lambda: ours.encode_batch(items)) == want
    singles = [predict(a, b, trunc, pad) for a, b in batch]
    if isinstance(want, tuple) or any(isinstance(s, tuple) for s in singles):
        return  # an error: compared above
    if pad is not None:
        n = oracle.target_length([len(s["ids"]) for s in singles], pad["length"], pad["pad_to_multiple_of"])
        singles = [as_dict(oracle.pad(to_node(s), n, pad["pad_id"], pad["direction"])) for s in singles]
    assert [ids_only(w) for w in want] == singles


def to_node(d):
    return oracle.Node(d["ids"], [to_node(o) for o in d["overflowing"]])


@settings(max_examples=120, deadline=None, derandomize=True)
# add_special_tokens: odd values too (tokenizers takes a bool or NumPy bool only: TypeError for 1 or None)
@given(a=words, b=st.none() | words, trunc=truncations, pad=paddings,
       specials=st.booleans() | st.sampled_from([0, 1, None, "", np.bool_(True), np.bool_(False)]))
def test_template_processing_whole_encodings(a, b, trunc, pad, specials):
    ours, theirs = bertpiece.Tokenizer.from_str(TEMPLATE), HFTokenizer.from_str(TEMPLATE)
    if not (settable(ours, trunc) and settable(theirs, trunc)):
        return
    for t in (ours, theirs):
        configure(t, trunc, pad)
    pair = None if b is None else " ".join(b)
    want = outcome(lambda: theirs.encode(" ".join(a), pair, add_special_tokens=specials))
    assert outcome(lambda: ours.encode(" ".join(a), pair, add_special_tokens=specials)) == want

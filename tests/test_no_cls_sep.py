"""`sep_token=None` / `cls_token=None` (constructor or attribute) never put
`None` into `input_ids`. Measured: transformers' `BertTokenizer` then builds
its template with a token named "None" and an arbitrary id (a constructor
argument) or keeps the old ids (an attribute); `BertTokenizerLegacy` puts
`None` into the rows (or fails converting them). bertpiece refuses adding
special tokens without the token (a ValueError naming it) on every path,
and encodes as transformers with `add_special_tokens=False`."""

import warnings

import pytest

import bertpiece

warnings.filterwarnings("ignore")
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = bertpiece.vocab_path("bert-base-uncased")
CALLS = [  # every path: serving one text / lists / padded, pairs, offsets, overflow windows, pre-tokenized
    (("hi there",), {}), ((["hi there", "x"],), {}), ((["hi there", "x"],), dict(padding=True, return_tensors="np")),
    ((["hi there", "x"],), dict(padding=True)), (("hi", "there"), {}), (("hi there",), dict(return_offsets_mapping=True)),
    ((["hi", "x"], ["a", "b"]), {}), ((["hi", "x"], ["a", "b"]), dict(padding=True, return_tensors="np")),
    (("hi there " * 4,), dict(truncation=True, max_length=5, return_overflowing_tokens=True)),
    (("hi there " * 4,), dict(truncation=True, max_length=5)),
    (([["hi", "there"]],), dict(is_split_into_words=True)),
]


def made(reference, name, how):
    kwargs = {name: None} if how == "constructor" else {}
    ours = bertpiece.BertTokenizer(vocab_file=VOCAB, reference=reference, **kwargs)
    theirs = transformers.BertTokenizer(vocab=VOCAB, **kwargs) if reference == "tokenizers" else \
        transformers.BertTokenizerLegacy(vocab_file=VOCAB, **kwargs)
    if how == "attribute":
        setattr(ours, name, None)
        setattr(theirs, name, None)
    return ours, theirs


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
@pytest.mark.parametrize("name", ["cls_token", "sep_token"])
@pytest.mark.parametrize("how", ["constructor", "attribute"])
def test_no_none_in_the_rows(reference, name, how):
    ours, theirs = made(reference, name, how)
    for args, kwargs in CALLS:
        if reference == "transformers" and "return_offsets_mapping" in kwargs:
            continue  # (legacy mode has no offsets)
        with pytest.raises(ValueError, match=f"needs a {name}, and this tokenizer's {name} is None"):
            ours(*args, **kwargs)
        off = dict(kwargs, add_special_tokens=False)
        mine, real = ours(*args, **off), theirs(*args, **off)
        assert {k: getattr(v, "tolist", lambda v=v: v)() for k, v in mine.items()} == \
            {k: getattr(v, "tolist", lambda v=v: v)() for k, v in real.items()}
    with pytest.raises(ValueError, match=f"needs a {name}"):
        ours.build_inputs_with_special_tokens([5, 6])
    with pytest.raises(ValueError, match=f"needs a {name}"):
        ours.encode_batch(["hi there"])
    # what transformers does instead (measured): a row with a stray id, or None in it
    try:
        row = theirs("hi there")["input_ids"]
    except ValueError:
        assert reference == "transformers" and name == "cls_token"
    else:
        if reference == "transformers":
            assert None in row
        else:
            assert None not in row and (row[0] != 101 or row[-1] != 102 or how == "attribute")

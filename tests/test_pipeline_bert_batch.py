"""A BERT-shaped folder's padded call on BertTokenizer's batch path (src/pipeline_bert_batch.rs,
taken by src/pipeline_padded.rs's `encode_padded` where the file, post-processor and truncation
allow): every row of `_core.pipeline_encode_padded_planes` must be the row the general pipeline's
row loop gives (`pipeline_encode_flat`, `Tokenizer::encode_ids_into` else `encode`) and the row of
`encode` itself (`core.encode_batch`), on texts with and without added tokens' text, every
truncation (right and left, strategies, strides, max_length under the special tokens), with and
without special tokens, each padding; and a refusal (a stride `encode` refuses) the same error.
The AutoTokenizer calls on top are tests/test_pipeline_padded_planes.py's and
tests/test_auto_tokenizer_fast*.py's (against transformers)."""

import warnings

import numpy as np
import pytest

import bertpiece
from auto_shapes import folder
from bpe_shapes import UD_FILES, ud_lines

_core = bertpiece._core
TEXTS = (ud_lines(UD_FILES[0], 60) + ["", "a", "x " * 300, "[SEP] in a row", "a [CLS] b", "ΟΔΟΣ İstanbul 中文 ﬁ naïve",
                                      "don't-stop 3.14 $5 e-mail", "\u00e9\u0301 combining", "a\tb\nc", "[UNK] [PAD] [MASK]"])
TRUNCATION = [None, (12, 0, "longest_first", "right"), (12, 0, "only_first", "right"), (2, 0, "longest_first", "right"),
              (1, 0, "longest_first", "right"), (0, 0, "longest_first", "right"), (9, 3, "longest_first", "right"),
              (9, 7, "longest_first", "right"), (12, 0, "only_second", "right"), (7, 0, "longest_first", "left"),
              (200, 0, "longest_first", "right")]
PADDING = [  # add_special_tokens, pad_to, pad_to_multiple_of, pad_id, pad_type_id, padding_left
    (True, None, None, 0, 0, False), (False, None, 8, 3, 1, False), (True, 40, 3, 0, 2, True)]


@pytest.fixture(scope="module")
def backend():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = bertpiece.AutoTokenizer.from_pretrained(folder("bert"))
    return tok._tokenizer


def rows_of(planes, width, n, left, lengths):
    ids, types, mask = (np.asarray(p) for p in planes)
    out = []
    for r in range(n):
        cells = slice(width - lengths[r], width) if left else slice(0, lengths[r])
        assert mask[r].sum() == lengths[r] and mask[r, cells].all()
        assert not types[r, cells].any()
        out.append(ids[r, cells].tolist())
    return out


def outcome(f):
    try:
        return "value", f()
    except Exception as e:  # noqa: BLE001 (both must refuse alike)
        return "error", (type(e), str(e))


@pytest.mark.parametrize("truncation", TRUNCATION, ids=str)
@pytest.mark.parametrize("padding", PADDING, ids=str)
@pytest.mark.parametrize("batch", ["plain", "all", "one"])
def test_each_row_is_the_row_loops_and_encodes(backend, truncation, padding, batch):
    core = backend._core
    texts = {"plain": [t for t in TEXTS if "[" not in t], "all": TEXTS, "one": TEXTS[3:4]}[batch]
    add, pad_to, multiple, pad_id, pad_type_id, left = padding
    settings = core.with_truncation(backend._settings, truncation)

    def flat():
        ids, splits, _, _ = _core.pipeline_encode_flat(core, settings, texts, add_special_tokens=add,
                                                       own_truncation=True)
        ids, splits = np.asarray(ids).tolist(), np.asarray(splits).tolist()
        return [ids[splits[i]:splits[i + 1]] for i in range(len(texts))]

    def planes():
        plan = _core.PipelinePaddedPlan(settings, add, pad_to, multiple, pad_id, pad_type_id, left)
        width, arrays, longest, shortest = _core.pipeline_encode_padded_planes(core, texts, plan)
        return width, arrays, longest, shortest

    want = outcome(flat)
    got = outcome(planes)
    assert got[0] == want[0], (got, want)
    if want[0] == "error":
        assert got == want
        return
    rows = want[1]
    encoded = outcome(lambda: [e.ids for e in core.encode_batch([([t], None) for t in texts], False, add, settings)])
    assert encoded == ("value", rows)
    width, arrays, longest, shortest = got[1]
    lengths = [len(r) for r in rows]
    assert (longest, shortest) == (max(lengths), min(lengths))
    assert rows_of(arrays, width, len(texts), left, lengths) == rows
    pad_ids = np.asarray(arrays[0])
    assert all((pad_ids[r] == pad_id).sum() >= width - lengths[r] for r in range(len(texts)))
    if pad_to is None and multiple is None:
        assert width == max(lengths)


def test_threads_and_a_large_batch(backend):
    """More rows than one job holds: the same rows on 1 and 2 threads."""
    core = backend._core
    texts = ud_lines(UD_FILES[0], 700)
    settings = core.with_truncation(backend._settings, (128, 0, "longest_first", "right"))
    plan = _core.PipelinePaddedPlan(settings, True, None, None, 0, 0, False)
    one = _core.pipeline_encode_padded_planes(core, texts, plan, 1)
    two = _core.pipeline_encode_padded_planes(core, texts, plan, 2)
    assert one[0] == two[0] and all(np.array_equal(a, b) for a, b in zip(one[1], two[1]))
    ids, splits, _, _ = _core.pipeline_encode_flat(core, settings, texts, own_truncation=True)
    ids, splits = np.asarray(ids).tolist(), np.asarray(splits).tolist()
    lengths = [splits[i + 1] - splits[i] for i in range(len(texts))]
    assert rows_of(one[1], one[0], len(texts), False, lengths) == [ids[splits[i]:splits[i + 1]] for i in range(len(texts))]

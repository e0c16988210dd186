"""The bulk path of bertpiece.Tokenizer in the integrations: encode_arrow,
bertpiece.ray_data's mapper (tokenizer_file= / tokenizer=, run locally and
pickled as Ray ships it), against tokenizers 0.23.3's encode_batch.
(The Ray-cluster run is test_integrations.py's slow tier.)"""

import pickle

import pyarrow as pa
import pytest
from tokenizers import Tokenizer as HFTokenizer

import bertpiece
from bertpiece.arrow import encode_arrow
from bpe_shapes import UD_FILES, roberta_json, ud_lines
from models_shapes import t5_json

LINES = [line for path in UD_FILES for line in ud_lines(path, 5)] + ["", "  ", "<mask> x"]


@pytest.mark.parametrize("make", [roberta_json, t5_json])
def test_encode_arrow_takes_a_pipeline_tokenizer(make):
    text = make()
    ours, theirs = bertpiece.Tokenizer.from_str(text), HFTokenizer.from_str(text)
    table = pa.table({"id": list(range(len(LINES))), "text": LINES})
    out = encode_arrow(ours, table, column="text", return_attention_mask=True)
    want = theirs.encode_batch(LINES)
    assert out.column_names == ["id", "text", "input_ids", "attention_mask"]
    assert out.column("input_ids").to_pylist() == [e.ids for e in want]
    assert out.column("attention_mask").to_pylist() == [e.attention_mask for e in want]
    theirs.enable_truncation(6)
    cut = encode_arrow(ours, pa.chunked_array([LINES[:4], LINES[4:]]), truncation=True, max_length=6)
    assert cut.column("input_ids").to_pylist() == [e.ids for e in theirs.encode_batch(LINES)]
    with pytest.raises(ValueError, match="return_token_type_ids"):
        encode_arrow(ours, pa.array(LINES), return_token_type_ids=True)


def test_ray_mapper_loads_a_tokenizer_json_path_or_folder_and_pickles(tmp_path):
    from bertpiece.ray_data import BertpieceMapper

    text = t5_json()
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "tokenizer.json").write_text(text, encoding="utf-8")
    theirs = HFTokenizer.from_str(text)
    batch = pa.table({"n": list(range(len(LINES))), "body": LINES})
    for source in (tmp_path / "model", tmp_path / "model" / "tokenizer.json"):
        mapper = BertpieceMapper(tokenizer_file=str(source), column="body", drop_text=True, num_threads=1,
                                 max_length=7, truncation=True)
        shipped = pickle.loads(pickle.dumps(mapper))  # as Ray sends it to an actor
        out = shipped(batch)
        assert out.column_names == ["n", "input_ids"]
        theirs.enable_truncation(7)
        assert out.column("input_ids").to_pylist() == [e.ids for e in theirs.encode_batch(LINES)]
        assert out.equals(mapper(batch))
    given = BertpieceMapper(tokenizer=bertpiece.Tokenizer.from_str(text), column="body")
    theirs.no_truncation()
    assert given(batch).column("input_ids").to_pylist() == [e.ids for e in theirs.encode_batch(LINES)]
    with pytest.raises(FileNotFoundError, match="holds no tokenizer.json"):
        BertpieceMapper(tokenizer_file=str(tmp_path))
    with pytest.raises(ValueError, match="tokenizer_file= cannot be combined"):
        BertpieceMapper(tokenizer_file=str(tmp_path / "model"), tokenizer_kwargs={"reference": "google"})


def test_arrow_rows_that_are_not_utf8_are_a_value_error_naming_the_row():
    """Arrow's string buffers are not validated when built from raw buffers: the core checks each row
    before it reads it as text (src/python/args.rs utf8_rows)."""
    ours = bertpiece.Tokenizer.from_str(roberta_json())
    offsets = pa.array([0, 2, 4], pa.int32()).buffers()[1]
    rows = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"ab\xffc")])
    with pytest.raises(ValueError, match=r"texts\[1\] is not valid UTF-8"):
        encode_arrow(ours, rows)

"""pyarrow in/out (bertpiece.arrow), Hugging Face `datasets` (map with
num_proc, stable fingerprints and caching across runs) and Ray Data
(bertpiece.ray_data on a local 2-CPU Ray cluster).

Expected ids always come from the direct Python API (`tokenizer(texts)`),
itself tested against transformers elsewhere.
"""

import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pyarrow as pa
import pytest

import bertpiece
from bertpiece import BertTokenizer
from bertpiece.arrow import encode_arrow, to_arrow
from google_reference import sample_lines

LINES = sample_lines(3) + ["", "  ", "naïve café [MASK] with an added token", "x" * 120]


@pytest.fixture(scope="module")
def tok():
    t = BertTokenizer.from_pretrained(bertpiece.DEFAULT_MODEL)
    t.add_tokens(["added token"])
    return t


# -------------------------------------------------------------------- arrow
def _arrays():
    strings = pa.array(LINES, pa.string())
    yield "string", strings, LINES
    yield "large_string", strings.cast(pa.large_string()), LINES
    yield "string_view", strings.cast(pa.string_view()), LINES
    yield "sliced", strings.slice(5, 20), LINES[5:25]
    chunks = pa.chunked_array([strings.slice(0, 7), strings.slice(7, 0), strings.slice(7)])
    yield "chunked", chunks, LINES
    yield "chunked-sliced", chunks.slice(3, 15), LINES[3:18]
    yield "empty", pa.array([], pa.string()), []


@pytest.mark.parametrize("name, array, texts", list(_arrays()), ids=[a[0] for a in _arrays()])
def test_encode_arrow_equals_python_api(tok, name, array, texts):
    out = encode_arrow(tok, array, return_attention_mask=True, return_token_type_ids=True)
    assert out.column_names == ["input_ids", "attention_mask", "token_type_ids"]
    assert out.schema.field("input_ids").type == pa.list_(pa.int32())
    expected = tok(texts)
    assert out.column("input_ids").to_pylist() == expected["input_ids"]
    assert out.column("attention_mask").to_pylist() == expected["attention_mask"]
    assert out.column("token_type_ids").to_pylist() == expected["token_type_ids"]


@pytest.mark.parametrize("reference", ["tokenizers", "transformers"])
@pytest.mark.parametrize("options", [dict(add_special_tokens=False), dict(truncation=True, max_length=9),
                                     dict(truncation=True, max_length=5, add_special_tokens=False)], ids=repr)
def test_encode_arrow_options(reference, options):
    t = BertTokenizer.from_pretrained("bert-base-multilingual-cased", reference=reference)
    out = encode_arrow(t, pa.array(LINES), **options, num_threads=2)
    assert out.column("input_ids").to_pylist() == t(LINES, **options)["input_ids"]


def test_encode_arrow_table_passes_columns_through(tok):
    table = pa.table({"id": np.arange(len(LINES)), "text": LINES, "score": [0.5] * len(LINES)})
    table = pa.concat_tables([table.slice(0, 10), table.slice(10)])  # two chunks
    out = encode_arrow(tok, table, column="text", return_attention_mask=True)
    assert out.column_names == ["id", "text", "score", "input_ids", "attention_mask"]
    assert out.select(["id", "text", "score"]).equals(table)
    assert out.column("input_ids").to_pylist() == tok(LINES)["input_ids"]


def test_to_arrow(tok):
    batch = tok.encode_batch(LINES)
    arr = to_arrow(batch)
    assert arr.type == pa.list_(pa.int32())
    assert arr.to_pylist() == batch.tolist() == tok(LINES)["input_ids"]
    with pytest.raises(TypeError, match="EncodedBatch.*got list"):
        to_arrow([[1, 2]])


def test_encode_arrow_bad_input(tok):
    with pytest.raises(TypeError, match="type int64; expected string"):
        encode_arrow(tok, pa.array([1, 2]))
    with pytest.raises(TypeError, match="column 'n' has type int64"):
        encode_arrow(tok, pa.table({"n": [1]}), column="n")
    with pytest.raises(KeyError, match="no column 'txt'.*'text'"):
        encode_arrow(tok, pa.table({"text": ["a"]}), column="txt")
    with pytest.raises(ValueError, match="needs column="):
        encode_arrow(tok, pa.table({"text": ["a"]}))
    with pytest.raises(ValueError, match="column= is only for a pyarrow.Table"):
        encode_arrow(tok, pa.array(["a"]), column="text")
    with pytest.raises(TypeError, match="got list"):
        encode_arrow(tok, ["a", "b"])
    with pytest.raises(TypeError, match="needs a bertpiece.BertTokenizer.*FullTokenizer"):
        encode_arrow(bertpiece.FullTokenizer.from_pretrained(bertpiece.DEFAULT_MODEL), pa.array(["a"]))
    with pytest.raises(ValueError, match="already has column.*input_ids"):
        encode_arrow(tok, pa.table({"text": ["a"], "input_ids": [1]}), column="text")


def test_encode_arrow_nulls_name_the_row(tok):
    with pytest.raises(ValueError, match="1 null value.*first at row 2"):
        encode_arrow(tok, pa.array(["a", "b", None, "c"]))
    # row numbers count from the start of the (sliced, chunked) input
    chunked = pa.chunked_array([["a", None, "b"], ["c", None]]).slice(2)
    with pytest.raises(ValueError, match="1 null value.*first at row 2"):
        encode_arrow(tok, chunked)
    with pytest.raises(ValueError, match="column 'text' has 2 null value.*first at row 0"):
        encode_arrow(tok, pa.table({"text": [None, "x", None]}), column="text")


# ----------------------------------------------------------------- datasets
_HASH_SCRIPT = textwrap.dedent("""
    import json, pickle
    from datasets.fingerprint import Hasher
    import bertpiece
    from bertpiece import oracle
    bert = bertpiece.BertTokenizer.from_pretrained("bert-base-cased", padding_side="left")
    bert.add_tokens(["added token"])
    toks = [bert, bertpiece.FullTokenizer.from_pretrained("bert-base-uncased", reference="transformers",
                                                          never_split=["[MASK]", "[SEP]", "a", "b"]),
            oracle.FullTokenizer(bertpiece.vocab_path("bert-base-uncased"), never_split=["x", "y", "z"])]
    before = [Hasher.hash(t) for t in toks]
    for t in toks:  # using a tokenizer (lazy tables, calls) must not change its hash
        t.tokenize("Hello [MASK] added token"), t.convert_tokens_to_ids(["hello"]), t.vocab
    bert(["a b", "c"], padding=True, return_offsets_mapping=True), bert.encode_batch(["x y"])
    toks[1].basic_tokenizer, toks[1].wordpiece_tokenizer, toks[1].inv_vocab
    print(json.dumps([[b, Hasher.hash(t), Hasher.hash(pickle.loads(pickle.dumps(t)))] for b, t in zip(before, toks)]))
""")


def test_datasets_hash_is_stable_across_processes_and_pickling():
    runs = []
    for seed in ("1", "2"):  # different str hash seeds: set order would differ
        env = dict(os.environ, PYTHONHASHSEED=seed)  # (fresh interpreters: separate runs are the point)
        out = subprocess.run([sys.executable, "-c", _HASH_SCRIPT], capture_output=True, text=True, check=True,
                             env=env, timeout=120)
        runs.append(json.loads(out.stdout))
    assert runs[0] == runs[1]
    for before_use, after_use, roundtrip in runs[0]:
        assert before_use == after_use == roundtrip
    assert len({h for h, _, _ in runs[0]}) == 3


_MAP_SCRIPT = textwrap.dedent("""
    import json, os, sys
    import datasets, bertpiece
    datasets.disable_progress_bars()
    root, calls = sys.argv[1], sys.argv[2]
    tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
    tok.add_tokens(["added token"])

    def encode(batch):
        with open(calls, "a") as f:  # counts the calls, across the num_proc workers
            f.write("call\\n")
        return tok(batch["text"])

    src = os.path.join(root, "source")
    if not os.path.exists(src):
        datasets.Dataset.from_dict({"text": json.loads(sys.argv[3])}).save_to_disk(src)
    out = datasets.load_from_disk(src).map(encode, batched=True, batch_size=8, num_proc=2)
    print(json.dumps({"fingerprint": out._fingerprint, "cache_files": [c["filename"] for c in out.cache_files],
                      "input_ids": out.to_dict()["input_ids"]}))
""")


def test_datasets_map_num_proc_is_cached_across_runs(tok, tmp_path):
    calls = tmp_path / "calls.txt"
    runs = []
    for _ in range(2):  # fresh interpreters: two runs, each with its own str hash seed
        out = subprocess.run([sys.executable, "-c", _MAP_SCRIPT, str(tmp_path), str(calls), json.dumps(LINES)],
                             capture_output=True, text=True, check=True, timeout=120)
        runs.append((json.loads(out.stdout), calls.read_text().count("call")))
    (first, calls_first), (second, calls_second) = runs
    assert first["input_ids"] == tok(LINES)["input_ids"]
    assert calls_first >= 2  # num_proc=2, batch_size=8: both workers ran
    assert second == first  # same fingerprint and cache files ...
    assert calls_second == calls_first  # ... loaded from the cache: encode was not called again
    assert len(first["cache_files"]) == 2 and all(f.startswith(str(tmp_path)) for f in first["cache_files"])


# ---------------------------------------------------------------- Ray Data
def _descendants(pid):
    """Live processes below `pid` (from /proc: Linux, which is what CI runs)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":  # a zombie has exited already
                children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@pytest.fixture(scope="module")
def ray_cluster():
    """A local 2-CPU Ray cluster for this module; afterwards no Ray process may survive."""
    import ray

    before = set(_descendants(os.getpid()))
    # Ray's sessions, logs and sockets in a directory of ours, removed afterwards (by default they stay
    # in /tmp/ray); short and under /tmp: Ray's socket paths have a length limit
    temp = tempfile.mkdtemp(prefix="bpray", dir="/tmp")
    # address="local": a new cluster even when an address file (/tmp/ray/ray_current_cluster) names another
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=temp)
    # the leak check below can only fail if Ray's processes are our descendants: make sure they are
    assert set(_descendants(os.getpid())) - before, "ray.init started no local processes"
    yield ray
    ray.shutdown()
    deadline = time.monotonic() + 30
    while (left := set(_descendants(os.getpid())) - before) and time.monotonic() < deadline:
        time.sleep(0.2)
    shutil.rmtree(temp, ignore_errors=True)
    assert not left, f"Ray processes left running after ray.shutdown(): {sorted(left)}"


# Ray 2.60's DataContext() sets its own deprecated fields on construction
# (`use_push_based_shuffle`, `use_polars`): a DeprecationWarning raised inside
# ray.data.context itself, not caused by our calls.
RAY_DATA_WARNINGS = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")


@pytest.mark.slow  # `make test-slow`: a local Ray cluster and its actors take 10-50 s
@pytest.mark.cluster
@RAY_DATA_WARNINGS
def test_ray_data(ray_cluster, tok):
    """tokenize_dataset and map_batches(BertpieceMapper) on a local cluster (one
    test, so that pytest-xdist starts one Ray cluster, not one per worker)."""
    from bertpiece.ray_data import BertpieceMapper, tokenize_dataset

    # tokenize_dataset with a pickled tokenizer (added token), two actors
    table = pa.table({"id": list(range(len(LINES))), "text": LINES})
    ds = ray_cluster.data.from_arrow([table.slice(0, 20), table.slice(20)])  # two blocks for the two actors
    out = tokenize_dataset(ds, column="text", tokenizer=tok, batch_size=8, concurrency=2,
                           return_attention_mask=True, truncation=True, max_length=32)
    rows = sorted(out.take_all(), key=lambda r: r["id"])
    expected = tok(LINES, truncation=True, max_length=32)
    assert [r["text"] for r in rows] == LINES
    assert [list(r["input_ids"]) for r in rows] == expected["input_ids"]
    assert [list(r["attention_mask"]) for r in rows] == expected["attention_mask"]

    # map_batches directly, the tokenizer built in the actor from a model name + options
    ds = ray_cluster.data.from_items([{"text": t, "n": i} for i, t in enumerate(LINES)])
    out = ds.map_batches(BertpieceMapper, batch_format="pyarrow", batch_size=16, concurrency=1,
                         fn_constructor_kwargs=dict(model="bert-base-multilingual-cased", drop_text=True, num_threads=1,
                                                    tokenizer_kwargs=dict(reference="transformers")))
    table = pa.concat_tables(ray_cluster.get(out.to_arrow_refs())).sort_by("n")
    assert table.column_names == ["n", "input_ids"]
    direct = BertTokenizer.from_pretrained("bert-base-multilingual-cased", reference="transformers")
    assert table.column("input_ids").to_pylist() == direct(LINES)["input_ids"]

    # any tokenizer.json (here a Unigram one), loaded in each actor from its path
    from tokenizers import Tokenizer as HFTokenizer
    from models_shapes import t5_json

    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
            f.write(t5_json())
        ds = ray_cluster.data.from_arrow(pa.table({"id": list(range(len(LINES))), "text": LINES}))
        out = tokenize_dataset(ds, column="text", tokenizer_file=folder, batch_size=8)
        rows = sorted(out.take_all(), key=lambda r: r["id"])
    assert [list(r["input_ids"]) for r in rows] == [e.ids for e in HFTokenizer.from_str(t5_json()).encode_batch(LINES)]


def test_mapper_locally_pickles_small_and_checks_its_input(tok):
    from bertpiece.ray_data import BertpieceMapper

    mapper = BertpieceMapper(tokenizer=tok, column="body")
    size = len(pickle.dumps(mapper))
    assert size < 1.05 * os.path.getsize(bertpiece.vocab_path(bertpiece.DEFAULT_MODEL))
    batch = pa.table({"body": LINES[:5]})
    assert pickle.loads(pickle.dumps(mapper))(batch).equals(mapper(batch))
    assert mapper(batch).column("input_ids").to_pylist() == tok(LINES[:5])["input_ids"]
    with pytest.raises(TypeError, match="batch_format='pyarrow'.*got dict"):
        mapper({"body": LINES[:5]})
    with pytest.raises(KeyError, match="no column 'body'"):
        mapper(pa.table({"text": ["a"]}))
    with pytest.raises(ValueError, match="either tokenizer= or tokenizer_kwargs="):
        BertpieceMapper(tokenizer=tok, tokenizer_kwargs={"reference": "google"})

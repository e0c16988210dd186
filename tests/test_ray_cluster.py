"""bertpiece.ray_data on a real two-node Ray cluster on this machine: a head
node and a worker node started as separate processes (`ray start --head`,
`ray start --address=...`), one CPU each, so the two tokenizer actors must run
one per node. The driver is a third process; rows come back in input order
with the ids of the single-process API, and afterwards every process the two
`ray start` commands started is gone.

The cluster uses token authentication with its own random token (passed in the
environment), so it neither reads nor writes ~/.ray/auth_token."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

import bertpiece
from google_reference import data_files, read_lines

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "bert-base-multilingual-cased"
RAY = [sys.executable, "-c", "import sys; from ray.scripts.scripts import main; sys.argv[0] = 'ray'; main()"]


def lines():
    return [line for f in data_files() for line in read_lines(f)[:50]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _descendants(pid: int) -> set:
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except OSError:
                continue
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


@contextlib.contextmanager
def two_node_cluster(env):
    """Head and worker as `ray start --block` processes (each stays the parent of the
    services it starts, and SIGTERM stops them all); yields the GCS address."""
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="bpray", dir="/tmp")  # short: Ray's socket paths have a length limit
    common = ["--num-cpus=1", "--block", "--disable-usage-stats", f"--temp-dir={temp}"]
    procs, started = [], set()
    try:
        for args in (["--head", f"--port={port}", "--include-dashboard=false"], [f"--address=127.0.0.1:{port}"]):
            procs.append(subprocess.Popen([*RAY, "start", *args, *common], env=env, start_new_session=True,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(1)
        yield f"127.0.0.1:{port}"
    finally:
        for p in procs:
            started |= _descendants(p.pid) | {p.pid}
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60
        while (left := {pid for pid in started if _alive(pid)}) and time.monotonic() < deadline:
            time.sleep(0.5)
        for p in procs:  # our own sessions only, in case SIGTERM did not end them
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
        shutil.rmtree(temp, ignore_errors=True)  # Ray's sessions, logs and sockets: nothing left in /tmp
        assert not left, f"processes of the two ray start commands still running after SIGTERM: {sorted(left)}"


def drive(address: str) -> dict:
    """The driver process: tokenize on the cluster, report rows, nodes and Ray's warnings."""
    import logging

    import pyarrow as pa
    import ray

    from bertpiece.ray_data import BertpieceMapper, tokenize_dataset

    warnings = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())
    logging.getLogger("ray.data").addHandler(handler)
    ray.init(address=address, log_to_driver=False)
    deadline = time.monotonic() + 120
    while len([n for n in ray.nodes() if n["Alive"]]) < 2:
        assert time.monotonic() < deadline, "the worker node did not join"
        time.sleep(0.5)
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    texts = lines()
    table = pa.table({"id": list(range(len(texts))), "text": texts})
    blocks = [table.slice(i, 10) for i in range(0, len(texts), 10)]

    class WhereMapper(BertpieceMapper):  # defined here: shipped to the workers by value
        def __call__(self, batch):
            node = ray.get_runtime_context().get_node_id()
            return super().__call__(batch).append_column("node", pa.array([node] * batch.num_rows))

    where = ray.data.from_arrow(blocks).map_batches(
        WhereMapper, batch_format="pyarrow", batch_size=10, num_cpus=1, compute=ray.data.ActorPoolStrategy(size=2),
        fn_constructor_kwargs=dict(model=MODEL, truncation=True, max_length=48)).take_all()
    ds = tokenize_dataset(ray.data.from_arrow(blocks), model=MODEL, batch_size=10, concurrency=2, num_cpus=1,
                          truncation=True, max_length=48)
    rows = ds.take_all()

    result = {"ids": [r["id"] for r in rows], "input_ids": [list(map(int, r["input_ids"])) for r in rows],
              "where_ids": [list(map(int, r["input_ids"])) for r in where], "nodes": sorted({r["node"] for r in where}),
              "rows_per_node": sorted([r["node"] for r in where].count(n) for n in {r["node"] for r in where}),
              "alive": sorted(n["NodeID"] for n in ray.nodes() if n["Alive"]), "warnings": warnings}
    ray.shutdown()
    return result


@pytest.mark.slow  # `make test-slow`: two `ray start` nodes take about a minute
@pytest.mark.cluster
def test_tokenize_dataset_on_two_nodes():
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")])}
    with two_node_cluster(env) as address:
        code = f"import json, test_ray_cluster as t; print('RESULT ' + json.dumps(t.drive({address!r})))"
        proc = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", code], env=env,
                              capture_output=True, text=True, timeout=600, cwd=HERE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.split("RESULT ", 1)[1])
    texts = lines()
    expected = bertpiece.BertTokenizer.from_pretrained(MODEL)(texts, truncation=True, max_length=48)["input_ids"]
    assert result["ids"] == list(range(len(texts)))  # input order, no sorting
    assert result["input_ids"] == expected
    assert result["where_ids"] == expected
    # both nodes tokenized (rows per node, for the record: result["rows_per_node"])
    assert len(result["alive"]) == 2 and result["nodes"] == result["alive"], result["rows_per_node"]
    print(f"rows per node: {result['rows_per_node']}")
    assert not [m for m in result["warnings"] if "deprecated" in m], result["warnings"]


def test_tokenize_dataset_asks_ray_for_an_actor_pool():
    """Ray ≥ 2.51 logs "The argument ``concurrency`` is deprecated" on every
    map_batches(concurrency=...): tokenize_dataset passes compute=ActorPoolStrategy."""
    import ray

    from bertpiece.ray_data import BertpieceMapper, tokenize_dataset

    class Dataset:
        def map_batches(self, fn, **kwargs):
            self.fn, self.kwargs = fn, kwargs
            return self

    ds = tokenize_dataset(Dataset(), concurrency=3, num_cpus=2)
    assert ds.fn is BertpieceMapper and "concurrency" not in ds.kwargs
    pool = ds.kwargs["compute"]
    assert isinstance(pool, ray.data.ActorPoolStrategy) and (pool.min_size, pool.max_size) == (3, 3)
    assert ds.kwargs["num_cpus"] == 2 and ds.kwargs["fn_constructor_kwargs"]["num_threads"] == 2

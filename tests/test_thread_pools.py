"""Thread pools stay bounded and shared: a thread count above the CPUs this
process may use is capped (with a RuntimeWarning) instead of starting that
many threads, every thread count shares one pool, and small work or
`num_threads=1` runs on the calling thread. Each case runs in a fresh
interpreter so the threads it counts are its own."""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through /proc")

PRELUDE = """
import os, sys, warnings, bertpiece
tok = bertpiece.BertTokenizer.from_pretrained("bert-base-uncased")
texts = ["hello world, this is sentence number %d of the batch" % i for i in range(3000)]
cpus = len(os.sched_getaffinity(0))
def pool_threads():
    names = []
    for t in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{t}/comm") as f:
            names.append(f.read().strip())
    return sum(n.startswith("bertpiece-") for n in names)
"""


def run(code, env=None):
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, **(env or {})))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_many_thread_counts_share_one_pool_no_larger_than_the_cpus():
    # Before: one pool per distinct num_threads, never released (60 values: 1,832 threads).
    out = run("""
        want = tok.encode_batch(texts, num_threads=1).tolist()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n in range(1, 61):
                assert tok.encode_batch(texts, num_threads=n).tolist() == want, n
                assert tok(texts[:300], padding=True, return_tensors="np")["input_ids"].shape[0] == 300
        print(pool_threads(), cpus)
    """)
    threads, cpus = map(int, out.split())
    assert 0 < threads <= cpus


def test_more_threads_than_cpus_is_capped_with_a_warning():
    out = run("""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = tok.encode_batch(texts, num_threads=5000).tolist()
        assert got == tok.encode_batch(texts, num_threads=1).tolist()
        assert any(issubclass(w.category, RuntimeWarning) and "num_threads=5000" in str(w.message)
                   and f"{cpus} CPUs" in str(w.message) for w in caught), [str(w.message) for w in caught]
        print(pool_threads(), cpus)
    """)
    threads, cpus = map(int, out.split())
    assert threads <= cpus


def test_environment_variable_is_capped_too():
    out = run("""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            enc = tok(texts, padding=True, return_tensors="np")
        assert enc["input_ids"].shape[0] == len(texts)
        assert any("num_threads=100000" in str(w.message) for w in caught)
        print(pool_threads(), cpus)
    """, env={"BERTPIECE_NUM_THREADS": "100000"})
    threads, cpus = map(int, out.split())
    assert threads <= cpus


def test_one_thread_and_small_batches_stay_on_the_calling_thread():
    out = run("""
        tok.encode_batch(texts, num_threads=1)
        tok(texts[:8], padding=True, truncation=True, max_length=128, return_tensors="np")
        tok.encode_batch(texts[:8])
        print(pool_threads())
    """)
    assert int(out) == 0


def test_cli_threads_above_the_cpus_finishes(tmp_path):
    # Before: --threads 100000 started threads until the machine gave out.
    src = tmp_path / "in.txt"
    src.write_text("".join(f"line {i} of the input\n" for i in range(5000)))
    r = subprocess.run([sys.executable, "-m", "bertpiece", "encode", str(src), "-o", str(tmp_path / "out.npy"),
                        "--threads", "100000"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "--threads 100000 is more than the" in r.stderr  # the CLI's one-line note

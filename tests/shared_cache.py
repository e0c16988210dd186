"""Tokenizer files trained at test time (tests/*_shapes.py), computed once per test session instead of once
per xdist worker: the first worker to need one trains it under a file lock and writes it to the session's
cache directory; the others read it. Outside a pytest session (or before its fixtures run) it is a plain
functools.lru_cache.

The directory is under the session's pytest basetemp (tests/conftest.py puts its path in SHARED_CACHE_ENV),
so it goes with the session's temporary files. A value is keyed by the function's source, its arguments,
the training data (tests/data/ud-*.txt) and the versions of the libraries that train and convert it."""

import functools
import glob
import hashlib
import inspect
import os
import pickle
from importlib import metadata

SHARED_CACHE_ENV = "BERTPIECE_TEST_SHARED_CACHE"
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@functools.lru_cache(maxsize=None)
def _inputs_key():
    digest = hashlib.sha256()
    for name in ("tokenizers", "sentencepiece", "transformers", "protobuf"):
        try:
            digest.update(f"{name}=={metadata.version(name)};".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} missing;".encode())
    for path in sorted(glob.glob(os.path.join(_DATA, "ud-*.txt"))):
        with open(path, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def session_cached(func):
    """lru_cache shared by the session's workers; `func`'s arguments must have a stable repr and its result
    must pickle (trained files are str or bytes)."""
    source = inspect.getsource(func)

    @functools.lru_cache(maxsize=None)
    @functools.wraps(func)
    def cached(*args, **kwargs):
        root = os.environ.get(SHARED_CACHE_ENV)
        if not root:
            return func(*args, **kwargs)
        from filelock import FileLock

        key = hashlib.sha256(repr((func.__module__, func.__qualname__, source, args, sorted(kwargs.items()), _inputs_key())).encode()).hexdigest()
        path = os.path.join(root, f"{func.__qualname__}-{key[:24]}.pickle")
        with FileLock(path + ".lock"):
            if not os.path.isfile(path):
                value = func(*args, **kwargs)
                with open(path + ".part", "wb") as f:
                    pickle.dump(value, f)
                os.replace(path + ".part", path)
                return value
        with open(path, "rb") as f:
            return pickle.load(f)

    return cached


def session_json(tmp_path_factory, name, compute):
    """`compute(out_dir)`'s JSON result, computed once per session under a file lock and read by every xdist worker
    (for transformers' suites: one subprocess each, whose results the tests then look up)."""
    import json

    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    out = root / name
    results = out / "results.json"
    with FileLock(str(root / f"{name}.lock")):
        if not results.is_file():
            out.mkdir(exist_ok=True)
            results.write_text(json.dumps(compute(str(out))))
    return json.loads(results.read_text())

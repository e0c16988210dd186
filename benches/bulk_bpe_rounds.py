"""What benches/ab_bulk_bpe.py and benches/cpu_bulk_bpe_peers.py share: the
material (bench_pipeline.py's cached 32k GPT-2-shaped file, the first MB of
en-large as lines), loading a build's `_core` under a name of its own, and
the rounds: every call in turn, one warm-up (its output digested) and
`reps` timed calls each, CPU time (`process_time`), then one report line per
call with the load average, and a stop if the calls' outputs differ.
"""

import glob
import hashlib
import importlib.machinery
import importlib.util
import os
import statistics
import time

from corpus_text import head  # benches/ is the script's directory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = "/work/shared/data/corpus/en-large.txt"


def add_common_arguments(ap):
    """The options both bulk BPE scripts take: the builds to compare and the material's size and rounds."""
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--mb", type=float, default=8)
    ap.add_argument("--skip-mb", type=float, default=0, help="the text from this many MB into --corpus (20: en-large's last 8 MB)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)


def load_core(build, tag):
    """The `_core` extension of `build` (a directory holding `bertpiece/_core.abi3.so`) as a module of its own
    (its init function is `PyInit__core`)."""
    name = f"build{tag}._core"
    loader = importlib.machinery.ExtensionFileLoader(name, os.path.join(build, "bertpiece", "_core.abi3.so"))
    spec = importlib.util.spec_from_file_location(name, loader.path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def material(corpus=CORPUS, mb=8.0, tokenizer=None, skip_mb=0.0):
    """(tokenizer path, its JSON, the lines of the text's first `mb` MB cut at a line end (from `skip_mb` MB
    in: corpus_text.head), their MB)."""
    path = tokenizer or sorted(glob.glob(os.path.join(ROOT, ".cache", "bench_pipeline", "bpe-*.json")))[0]
    with open(path, encoding="utf-8") as f:
        tokenizer_json = f.read()
    text = head(corpus, mb, skip_mb)
    return path, tokenizer_json, text.split("\n")[:-1], len(text.encode("utf-8")) / 1e6


def run_rounds(calls, mb, rounds, reps, as_bytes=lambda out: out, wall=None):
    """Every call of `calls` (name -> callable) in turn, `rounds` times: a warm-up whose output `as_bytes` makes
    the digest, then `reps` timed calls. Returns (name -> CPU MB/s of every timed call, name -> digest); with
    `wall` (a dict), wall-clock MB/s go into it as well."""
    speeds = {name: [] for name in calls}
    digests = {}
    for _ in range(rounds):
        for name, call in calls.items():
            digests[name] = hashlib.sha256(as_bytes(call())).hexdigest()[:12]
            for _ in range(reps):
                t0, w0 = time.process_time(), time.perf_counter()
                call()
                speeds[name].append(mb / (time.process_time() - t0))
                if wall is not None:
                    wall.setdefault(name, []).append(mb / (time.perf_counter() - w0))
    return speeds, digests


def report(header, speeds, digests, against, wall=None):
    """One line per call: CPU MB/s median, upper quartile and max, the median's ratio to `against`'s, the
    digest (and the wall-clock MB/s median and max, when given); exits with an error if the digests differ."""
    print(f"{header}; load average {os.getloadavg()[0]:.2f}")
    ref = statistics.median(speeds[against])
    for name, v in speeds.items():
        v = sorted(v)
        med = statistics.median(v)
        walls = f"  wall MB/s median {statistics.median(wall[name]):.1f} max {max(wall[name]):.1f}" if wall else ""
        print(f"{name}: CPU MB/s median {med:.1f} q75 {v[3 * len(v) // 4]:.1f} max {v[-1]:.1f}"
              f"  vs {against} {med / ref:.2f}{walls}  digest {digests[name]}")
    if len(set(digests.values())) > 1:
        raise SystemExit("the outputs differ")

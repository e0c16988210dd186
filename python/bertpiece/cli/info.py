"""`bertpiece info`: version, Unicode version, bundled models, threads available."""

from __future__ import annotations

import json
import os

from .. import PRETRAINED, UNICODE_VERSION, __version__, vocab_path
from ..batch import THREADS_ENV


def add_parser(sub):
    p = sub.add_parser("info", help=__doc__.split(": ", 1)[1], description=__doc__)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args) -> int:
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    info = {
        "version": __version__,
        "unicode_version": UNICODE_VERSION,
        "models": {name: {"vocab": str(vocab_path(name)), "do_lower_case": p.hf_do_lower_case}
                   for name, p in PRETRAINED.items()},
        "threads_available": threads,
        THREADS_ENV: os.environ.get(THREADS_ENV),
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"bertpiece {info['version']}")
    print(f"Unicode {info['unicode_version']} (pinned; the same on every Python)")
    print(f"threads available: {threads}" + (f" ({THREADS_ENV}={info[THREADS_ENV]})" if info[THREADS_ENV] else ""))
    print("bundled models:")
    for name, m in info["models"].items():
        print(f"  {name:<32} {'uncased' if m['do_lower_case'] else 'cased'}")
    return 0

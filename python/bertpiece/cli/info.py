"""`bertpiece info`: version, Unicode version, bundled models, threads available, reference libraries."""

from __future__ import annotations

import json
import os
import unicodedata
from importlib import metadata

from .. import PRETRAINED, UNICODE_VERSION, __version__, references, vocab_path
from ..batch import THREADS_ENV


def add_parser(sub):
    from . import DOCS_URL

    p = sub.add_parser("info", help=__doc__.split(": ", 1)[1], description=__doc__,
                       epilog=f"Documentation: {DOCS_URL}cli.md")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def _installed(package):
    """The installed version of `package`, or None (no import: cheap and side-effect free)."""
    if package is None:
        return __version__
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def collect() -> dict:
    """Everything `info` reports, as plain data."""
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return {
        "version": __version__,
        "unicode_version": UNICODE_VERSION,
        "interpreter_unicode_version": unicodedata.unidata_version,
        "models": {name: {"vocab": str(vocab_path(name)),
                          # FullTokenizer.from_pretrained (Google's checkpoint setting)
                          "do_lower_case": p.do_lower_case,
                          # BertTokenizer.from_pretrained (the Hugging Face hub config)
                          "hf_do_lower_case": p.hf_do_lower_case}
                   for name, p in PRETRAINED.items()},
        "threads_available": threads,
        THREADS_ENV: os.environ.get(THREADS_ENV),
        # available: what `bertpiece parity --reference NAME` finds (references.missing_package)
        "references": {name: {"package": pkg, "version": _installed(pkg),
                              "available": references.missing_package(name) is None,
                              "missing": references.missing_package(name)}
                       for name, pkg in references.REFERENCES.items()},
    }


def _casing(lower: bool) -> str:
    return "uncased" if lower else "cased"


def run(args) -> int:
    info = collect()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    env = info[THREADS_ENV]
    print(f"bertpiece {info['version']}")
    print(f"Unicode {info['unicode_version']} (pinned; the same on every Python; "
          f"this Python's unicodedata: {info['interpreter_unicode_version']})")
    print(f"threads available: {info['threads_available']}" + (f" ({THREADS_ENV}={env})" if env else ""))
    print("bundled models (casing: FullTokenizer / BertTokenizer):")
    for name, m in info["models"].items():
        casing = _casing(m["do_lower_case"])
        if m["hf_do_lower_case"] != m["do_lower_case"]:
            casing += f" / {_casing(m['hf_do_lower_case'])}"
        print(f"  {name:<30} {casing}")
    print("parity references:")
    for name, r in info["references"].items():
        if r["available"]:
            print(f"  {name:<14} {r['package'] or 'bertpiece'} {r['version'] or '(version unknown)'}")
        else:
            missing = "" if r["missing"] == r["package"] else f", missing {r['missing']}"
            print(f"  {name:<14} not installed{missing} ({references.INSTALL[name]})")
    return 0

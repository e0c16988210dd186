"""Fetch transformers' own tokenizer test suite for the installed transformers.

Downloads the sdist of exactly the installed transformers version (pip, from
the package index, like any test dependency) into .cache/sdist/ and extracts
what tests/tfsuite/bert_suite.py imports into .cache/transformers-tests/<version>/:

    tests/__init__.py                        (empty: the sdist has none)
    tests/test_tokenization_common.py        TokenizerTesterMixin
    tests/test_tokenizers_backend_mixin.py   imported by the above
    tests/test_sentencepiece_backend_mixin.py  imported by the above
    tests/fixtures/sample_text.txt           (ours: the sdist has no fixtures)

The 5.x sdists hold only tests/*_common.py and the backend mixins, not
tests/models/ (so not tests/models/bert/test_tokenization_bert.py); bert_suite.py
declares the BERT test class itself. Nothing here is committed (.cache/ is
git-ignored). Idempotent: a complete extraction is left alone, and a cached
sdist is not downloaded again, so it works offline once cached.

    python scripts/fetch_transformers_tests.py [--sdist PATH] [--print-dir]
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import os
import sys
import tarfile

from sdist_cache import CACHE, find_or_download_sdist

MEMBERS = ("tests/test_tokenization_common.py", "tests/test_tokenizers_backend_mixin.py",
           "tests/test_sentencepiece_backend_mixin.py")
# TokenizerTesterMixin.setUpClass reads this file into `cls._data`, which no test
# of the mixins uses; any text does.
SAMPLE_TEXT = "This file stands in for transformers' tests/fixtures/sample_text.txt, which the sdist lacks.\n"
STAMP = ".complete"


def suite_dir(version: str) -> str:
    return os.path.join(CACHE, "transformers-tests", version)


def relative_imports(path: str) -> set[str]:
    """Modules a file imports relative to its package (`from .x import y`)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}


def extract(sdist: str, version: str) -> str:
    out = suite_dir(version)
    prefix = f"transformers-{version}/"
    with tarfile.open(sdist) as tar:
        for member in MEMBERS:
            info = tar.getmember(prefix + member)
            data = tar.extractfile(info).read()
            target = os.path.join(out, member)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
    with open(os.path.join(out, "tests", "__init__.py"), "w", encoding="utf-8"):
        pass
    os.makedirs(os.path.join(out, "tests", "fixtures"), exist_ok=True)
    with open(os.path.join(out, "tests", "fixtures", "sample_text.txt"), "w", encoding="utf-8") as f:
        f.write(SAMPLE_TEXT)
    # everything the extracted modules import from their own package must be there
    have = {os.path.splitext(os.path.basename(m))[0] for m in MEMBERS}
    for member in MEMBERS:
        missing = relative_imports(os.path.join(out, member)) - have
        if missing:
            raise SystemExit(f"{member} imports {sorted(missing)}, which this script does not extract")
    with open(os.path.join(out, STAMP), "w", encoding="utf-8") as f:
        f.write(os.path.basename(sdist) + "\n")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", help="use this transformers sdist instead of the cached/downloaded one")
    parser.add_argument("--print-dir", action="store_true", help="print the suite directory")
    args = parser.parse_args(argv)
    try:
        version = importlib.metadata.version("transformers")
    except importlib.metadata.PackageNotFoundError:
        raise SystemExit("transformers is not installed: pip install '.[test]' first") from None
    out = suite_dir(version)
    if not os.path.isfile(os.path.join(out, STAMP)):
        out = extract(find_or_download_sdist("transformers", version, args.sdist), version)
    if args.print_dir:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

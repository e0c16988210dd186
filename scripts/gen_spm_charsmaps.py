"""Generates python/bertpiece/spm_charsmaps/<rule>.bin.gz: the precompiled
charsmap (normalizer_spec.precompiled_charsmap) that sentencepiece's trainer
writes into a .model for each built-in normalization_rule_name, MEASURED: a
tiny model is trained with that rule by the installed sentencepiece (0.2.3)
and the bytes are read back from the .model it wrote. "identity" writes an
empty charsmap (measured) and needs no file.

The charsmaps are sentencepiece's data (Apache License 2.0, Google; built by
its builder from Unicode's NFKC data with its NMT rules), copied unchanged,
gzip-compressed. `bertpiece.SentencePieceTrainer` writes them into the .model
files it makes, exactly as sentencepiece does.

Run: python scripts/gen_spm_charsmaps.py (needs sentencepiece 0.2.3).
"""

import gzip
import pathlib
import tempfile

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "bertpiece" / "spm_charsmaps"
RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")


def charsmap(rule: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = pathlib.Path(tmp) / "c.txt"
        corpus.write_text("abc def ghi\n" * 20, encoding="utf-8")
        prefix = str(pathlib.Path(tmp) / "m")
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=prefix, vocab_size=16, hard_vocab_limit=False,
                                       normalization_rule_name=rule, minloglevel=2)
        model = sentencepiece_model_pb2.ModelProto()
        model.ParseFromString(pathlib.Path(prefix + ".model").read_bytes())
        return model.normalizer_spec.precompiled_charsmap


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for rule in RULES:
        data = charsmap(rule)
        # mtime=0: the same bytes on every run
        (OUT / f"{rule}.bin.gz").write_bytes(gzip.compress(data, mtime=0))
        print(rule, len(data), "bytes")


if __name__ == "__main__":
    main()

"""tokenizer.json files from sentencepiece models no one here trained, made as transformers 5.24's own
classes convert them (the same conversion tests/test_third_party_models.py checks against tokenizers
0.23.3): sentencepiece's test_model.model (English, 1,000 pieces) and test_ja_model.model (Japanese,
8,000), fetched by scripts/fetch_test_models.py, through XLMRobertaTokenizer (Unigram, Precompiled,
WhitespaceSplit + Metaspace, <s> A </s>), T5Tokenizer (the same with 100 extra ids, A </s>) and
LlamaTokenizer (which makes a BPE with byte_fallback out of the Unigram vocabulary: not Unigram).

    python benches/unigram_third_party.py [--out .cache/bench_unigram_third_party] [--shapes xlmr,t5,llama]

Prints one NAME=PATH per file, the form bench_unigram.py's --tokenizer takes."""

import argparse
import json
import os
import shutil
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from fetch_test_models import models_dir  # noqa: E402

MODELS = {"en": "test_model.model", "ja": "test_ja_model.model"}
# shape -> (transformers class, the file name its folder keeps the sentencepiece model under)
SHAPES = {"xlmr": ("XLMRobertaTokenizer", "sentencepiece.bpe.model"), "t5": ("T5Tokenizer", "spiece.model"),
          "llama": ("LlamaTokenizer", "tokenizer.model")}


def convert(model_path, cls, file_name, out):
    """transformers' class `cls` loads the .model from a folder of its own and saves tokenizer.json as `out`."""
    import transformers

    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "in")
        os.makedirs(folder)
        shutil.copy(model_path, os.path.join(folder, file_name))
        with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({"tokenizer_class": cls}, f)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(transformers, cls).from_pretrained(folder).save_pretrained(os.path.join(tmp, "out"))
        shutil.copy(os.path.join(tmp, "out", "tokenizer.json"), out)


def files(out_dir, shapes=("xlmr", "t5")):
    """{name: tokenizer.json path}, made once into out_dir (name: shape-language, e.g. xlmr-ja)."""
    os.makedirs(out_dir, exist_ok=True)
    made = {}
    for lang, model in MODELS.items():
        for shape in shapes:
            path = os.path.join(out_dir, f"{shape}-{lang}.json")
            if not os.path.exists(path):
                convert(os.path.join(models_dir("sentencepiece"), model), *SHAPES[shape], path)
            made[f"{shape}-{lang}"] = path
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, ".cache", "bench_unigram_third_party"))
    ap.add_argument("--shapes", default="xlmr,t5,llama")
    args = ap.parse_args()
    for name, path in files(args.out, args.shapes.split(",")).items():
        with open(path, encoding="utf-8") as f:
            model = json.load(f)["model"]
        print(f"{name}={path}  # {model['type']}, {len(model['vocab'])} pieces", file=sys.stderr)
        print(f"{name}={path}")


if __name__ == "__main__":
    main()
